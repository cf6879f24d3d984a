#pragma once

// Internal (not installed): SplitToSequence's piece plan, computed once and used both by
// tseq::ops::split_to_sequence and by the executor's budget pre-check (src/onnx/ops_sequence.cpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "indices.hpp"
#include "tseq/detail/checked.hpp"
#include "tseq/sequence.hpp"
#include "tseq/tensor.hpp"

namespace tseq::detail {

// The pieces along the axis: `count` of them, piece k of length_of(k). Uniform splits are not
// materialised (a [0, 10^8] input would otherwise need 800 MB of lengths).
struct SplitPlan {
  std::size_t axis = 0;               // normalised
  std::int64_t dim = 0;               // the axis' length
  std::int64_t count = 0;             // pieces
  std::int64_t chunk = 1;             // the length of every piece but maybe the last
  std::vector<std::int64_t> lengths;  // a 1-D split's entries (empty: uniform pieces of `chunk`)
  bool drop_axis = false;             // no split and keepdims == 0

  [[nodiscard]] std::int64_t length_of(std::int64_t k) const {
    if (!lengths.empty()) return lengths[static_cast<std::size_t>(k)];
    return std::min(chunk, dim - k * chunk);  // k * chunk < dim: no overflow
  }
};

// Checks SplitToSequence's inputs and plans its pieces. Throws the operator's errors (a device
// the host cannot read, a scalar input, the axis, the split's type, shape and entries).
// O(split entries); allocates a 1-D split's lengths.
[[nodiscard]] inline SplitPlan split_plan(const Tensor& input, const std::optional<Tensor>& split, std::int64_t axis,
                                          std::int64_t keepdims) {
  const char* op = "SplitToSequence";
  if (!input.device().is_host_readable()) throw_not_host(op, "input", input.device());
  if (split && !split->device().is_host_readable()) throw_not_host(op, "split", split->device());
  const Shape& shape = input.shape();
  if (shape.rank() == 0) {
    throw ShapeError(std::string(op) + ": the input is a scalar (shape []); it has no axis to split");
  }
  SplitPlan p;
  p.axis = normalize_axis(op, axis, shape.rank(), "an input of shape " + to_string(shape));
  p.dim = shape[p.axis];
  p.count = p.dim;
  if (!split) {
    p.drop_axis = keepdims == 0;
    return p;
  }
  const Tensor& sp = *split;
  if (sp.dtype() != DataType::Int64 && sp.dtype() != DataType::Int32) {
    throw TypeError(std::string(op) + ": split must be an int32 or int64 tensor, got " + dtype_name(sp.dtype()));
  }
  if (sp.rank() > 1) {
    throw ShapeError(std::string(op) + ": split must be a scalar or 1-D, got shape " + to_string(sp.shape()));
  }
  std::vector<std::int64_t> v = int64_values(sp);
  if (sp.rank() == 0) {
    if (v[0] <= 0) throw ShapeError(std::string(op) + ": scalar split " + std::to_string(v[0]) + " must be > 0");
    p.chunk = v[0];
    p.count = p.dim / p.chunk + (p.dim % p.chunk != 0 ? 1 : 0);
    return p;
  }
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0) {
      throw ShapeError(std::string(op) + ": split entry " + std::to_string(i) + " is " + std::to_string(v[i]) +
                       "; entries must be >= 0");
    }
    sum = checked_add(sum, v[i], op, "the sum of the split entries");
  }
  if (v.empty() && p.dim != 0) {
    throw ShapeError(std::string(op) + ": split is empty but axis " + std::to_string(p.axis) + " has length " +
                     std::to_string(p.dim));
  }
  if (sum != p.dim) {
    throw ShapeError(std::string(op) + ": split entries sum to " + std::to_string(sum) + " but axis " +
                     std::to_string(p.axis) + " of shape " + to_string(shape) + " has length " + std::to_string(p.dim));
  }
  p.lengths = std::move(v);
  p.count = static_cast<std::int64_t>(p.lengths.size());
  return p;
}

// An upper bound on the bytes the pieces of `input` take: each piece is a block of its own, a
// header (TensorStorage::header_bytes) and its part of the payload with the colour slack, which
// summed stays within slack_bound(payload). Throws Error on overflow. O(1).
[[nodiscard]] inline std::int64_t split_bytes(const Tensor& input, const SplitPlan& plan) {
  const char* op = "SplitToSequence";
  const std::int64_t payload =
      checked_mul(static_cast<std::int64_t>(input.size()), static_cast<std::int64_t>(dtype_size(input.dtype())), op,
                  "the pieces' bytes");
  constexpr auto header = static_cast<std::int64_t>(TensorStorage::header_bytes());
  const auto slack = static_cast<std::int64_t>(TensorStorage::slack_bound(static_cast<std::size_t>(payload)));
  const std::int64_t headers = checked_mul(plan.count, header, op, "the pieces' bytes");
  const std::int64_t blocks = checked_add(payload, slack, op, "the pieces' bytes");
  return checked_add(headers, blocks, op, "the pieces' bytes");
}

// The pieces of `input` by `plan` (from split_plan(input, ...)), allocated from `resource`.
// Defined in src/ops.cpp.
[[nodiscard]] TensorSequence split_pieces(const Tensor& input, const SplitPlan& plan,
                                          std::pmr::memory_resource* resource);

}  // namespace tseq::detail
