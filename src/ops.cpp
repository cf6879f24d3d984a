// The ONNX sequence operators. docs/ops.md states the semantics these follow.

#include "tseq/ops.hpp"

#include "split_plan.hpp"
#include "tseq/detail/checked.hpp"
#include "type_checked_input.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <string>
#include <vector>

namespace tseq::ops {

namespace {

using Index = Eigen::Index;
using access = detail::sequence_access;

std::string tensors(std::size_t n) { return std::to_string(n) + (n == 1 ? " tensor" : " tensors"); }

// Resolves a position against [lo, hi] (hi = n - 1 or n) and returns it as an index >= 0.
std::size_t resolve(const char* op, std::int64_t p, std::size_t n, bool allow_end, bool defaulted) {
  const auto sn = static_cast<std::int64_t>(n);
  const std::int64_t hi = allow_end ? sn : sn - 1;
  if (p < -sn || p > hi) {
    const std::string value = "position " + std::to_string(p) + (defaulted ? " (the default)" : "");
    if (n == 0) {
      throw IndexError(std::string(op) + ": " + value + " is out of range for an empty sequence" +
                       (allow_end ? " (only 0 is valid)" : " (no position is valid)"));
    }
    detail::throw_out_of_range(op, value, -sn, hi, "a sequence of " + tensors(n));
  }
  return static_cast<std::size_t>(p < 0 ? p + sn : p);
}

void check_insert_type(const TensorSequence& s, const Tensor& t) {
  if (t.dtype() != s.dtype()) {
    throw TypeError("SequenceInsert: a " + dtype_name(t.dtype()) + " tensor cannot be inserted into a sequence of " +
                    dtype_name(s.dtype()) + " tensors");
  }
}

std::size_t insert_index(const TensorSequence& s, const Tensor& t, const std::optional<Tensor>& position) {
  check_insert_type(s, t);
  if (!position) return s.size();
  return resolve("SequenceInsert", to_index(*position, "SequenceInsert", "position"), s.size(), true, false);
}

std::size_t erase_index(const TensorSequence& s, const std::optional<Tensor>& position) {
  const bool defaulted = !position;
  const std::int64_t p = defaulted ? -1 : to_index(*position, "SequenceErase", "position");
  return resolve("SequenceErase", p, s.size(), false, defaulted);
}

// For each of `rows` rows: copies `width` elements from column src_col of a row-major
// rows x src_cols array into column dst_col of a rows x dst_cols array.
template <class T>
void copy_columns(const T* src, Index src_cols, Index src_col, T* dst, Index dst_cols, Index dst_col, Index rows,
                  Index width) {
  if (rows == 0 || width == 0) return;
  if constexpr (std::is_same_v<T, bool>) {  // as bytes: adopted memory may hold any byte
    copy_columns(reinterpret_cast<const unsigned char*>(src), src_cols, src_col, reinterpret_cast<unsigned char*>(dst),
                 dst_cols, dst_col, rows, width);
  } else if constexpr (std::is_same_v<T, std::string>) {
    for (Index r = 0; r < rows; ++r) {
      const T* from = src + r * src_cols + src_col;
      std::copy(from, from + width, dst + r * dst_cols + dst_col);
    }
  } else {
    using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const Matrix> s(src, rows, src_cols);
    Eigen::Map<Matrix> d(dst, rows, dst_cols);
    d.middleCols(dst_col, width) = s.middleCols(src_col, width);
  }
}

}  // namespace

TensorSequence sequence_empty(DataType dtype) {
  return TensorSequence(dtype_from_code(static_cast<std::int32_t>(dtype), "SequenceEmpty"));
}

TensorSequence sequence_construct(std::span<const Tensor> inputs) {
  if (inputs.empty()) {
    throw Error("SequenceConstruct: needs at least 1 input tensor, got 0 (use SequenceEmpty for an empty sequence)");
  }
  const DataType t = inputs[0].dtype();
  const auto mismatch = [t](std::size_t i, const Tensor& x) {
    throw TypeError("SequenceConstruct: input " + std::to_string(i) + " has type " + dtype_name(x.dtype()) +
                    " but input 0 has type " + dtype_name(t) + "; all inputs must share one element type");
  };
  return access::make(t, detail::checked_copy<TensorSequence::container_type>(inputs, t, mismatch));
}

TensorSequence sequence_insert(const TensorSequence& s, const Tensor& t, const std::optional<Tensor>& position) {
  const std::size_t i = insert_index(s, t, position);
  return access::insert(s, i, t);
}

TensorSequence sequence_insert(TensorSequence&& s, const Tensor& t, const std::optional<Tensor>& position) {
  const std::size_t i = insert_index(s, t, position);
  return access::insert(std::move(s), i, t);
}

TensorSequence sequence_insert(const TensorSequence& s, const Tensor& t, std::int64_t position) {
  check_insert_type(s, t);
  const std::size_t i = resolve("SequenceInsert", position, s.size(), true, false);
  return access::insert(s, i, t);
}

TensorSequence sequence_insert(TensorSequence&& s, const Tensor& t, std::int64_t position) {
  check_insert_type(s, t);
  const std::size_t i = resolve("SequenceInsert", position, s.size(), true, false);
  return access::insert(std::move(s), i, t);
}

TensorSequence sequence_erase(const TensorSequence& s, const std::optional<Tensor>& position) {
  const std::size_t i = erase_index(s, position);
  return access::erase(s, i);
}

TensorSequence sequence_erase(TensorSequence&& s, const std::optional<Tensor>& position) {
  const std::size_t i = erase_index(s, position);
  return access::erase(std::move(s), i);
}

TensorSequence sequence_erase(const TensorSequence& s, std::int64_t position) {
  const std::size_t i = resolve("SequenceErase", position, s.size(), false, false);
  return access::erase(s, i);
}

TensorSequence sequence_erase(TensorSequence&& s, std::int64_t position) {
  const std::size_t i = resolve("SequenceErase", position, s.size(), false, false);
  return access::erase(std::move(s), i);
}

Tensor sequence_at(const TensorSequence& s, const Tensor& position) {
  return sequence_at(s, to_index(position, "SequenceAt", "position"));
}

Tensor sequence_at(const TensorSequence& s, std::int64_t position) {
  return s[resolve("SequenceAt", position, s.size(), false, false)];
}

Tensor sequence_length(const TensorSequence& s, std::pmr::memory_resource* resource) {
  return Tensor::scalar(static_cast<std::int64_t>(s.size()), resource);
}

TensorSequence split_to_sequence(const Tensor& input, const std::optional<Tensor>& split, std::int64_t axis,
                                 std::int64_t keepdims, std::pmr::memory_resource* resource) {
  return detail::split_pieces(input, detail::split_plan(input, split, axis, keepdims), resource);
}

}  // namespace tseq::ops

namespace tseq::detail {

TensorSequence split_pieces(const Tensor& input, const SplitPlan& plan, std::pmr::memory_resource* resource) {
  const char* op = "SplitToSequence";
  const Shape& shape = input.shape();
  const std::size_t a = plan.axis;
  const std::int64_t dim = plan.dim;
  const std::int64_t count = plan.count;
  const bool drop_axis = plan.drop_axis;
  auto length_of = [&](std::int64_t k) { return plan.length_of(k); };

  // Row-major block copies; with no elements there is nothing to copy (and the products of
  // the other dims, which may be huge, are not needed).
  const bool empty = input.size() == 0;
  const Eigen::Index outer = empty ? 0 : checked_product(shape.dims().subspan(0, a), op, "the input's size");
  const Eigen::Index inner = empty ? 0 : checked_product(shape.dims().subspan(a + 1), op, "the input's size");
  TensorSequence::container_type::builder out;
  visit_dtype(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = input.values<T>().data();
    std::int64_t start = 0;
    for (std::int64_t k = 0; k < count; ++k) {
      const std::int64_t len = length_of(k);
      TensorBuffer piece(input.dtype(), drop_axis ? shape.removed(a) : shape.with(a, len), resource);
      if (!empty) {
        ops::copy_columns(src, dim * inner, start * inner, piece.values<T>().data(), len * inner, 0, outer,
                          len * inner);
      }
      out.push_back(std::move(piece).freeze());
      start += len;
    }
  });
  return sequence_access::make(input.dtype(), std::move(out).persistent());
}

}  // namespace tseq::detail

namespace tseq::ops {

Tensor concat_from_sequence(const TensorSequence& s, std::int64_t axis, std::int64_t new_axis,
                            std::pmr::memory_resource* resource) {
  const char* op = "ConcatFromSequence";
  if (new_axis != 0 && new_axis != 1) {
    throw Error(std::string(op) + ": new_axis " + std::to_string(new_axis) + " is invalid; it must be 0 or 1");
  }
  if (s.empty()) {
    throw Error(std::string(op) + ": the sequence is empty; at least 1 tensor is needed to know the output shape");
  }
  const Shape& first = s[0].shape();
  const std::size_t r = first.rank();
  const bool stack = new_axis == 1;
  const std::size_t a = detail::normalize_axis(
      op, axis, stack ? r + 1 : r,
      stack ? "stacking tensors of rank " + std::to_string(r) + " (output rank " + std::to_string(r + 1) + ")"
            : "tensors of shape " + to_string(first));
  // Every tensor must match the first: exactly when stacking, but along the axis otherwise.
  std::int64_t total = 0;
  std::size_t i = 0;
  for (const Tensor& t : s) {
    if (!t.device().is_host_readable()) {
      detail::throw_not_host(op, "tensor " + std::to_string(i) + " of the sequence", t.device());
    }
    const Shape& sh = t.shape();
    bool ok = sh.rank() == r;
    for (std::size_t d = 0; ok && d < r; ++d) ok = sh[d] == first[d] || (!stack && d == a);
    if (!ok) {
      throw ShapeError(
          std::string(op) + ": tensor " + std::to_string(i) + " has shape " + to_string(sh) +
          ", incompatible with tensor 0's shape " + to_string(first) +
          (stack ? " (stacking needs equal shapes)" : " (only axis " + std::to_string(a) + " may differ)"));
    }
    total = detail::checked_add(total, stack ? 1 : sh[a], op, "the result's length along the axis");
    ++i;
  }
  const Shape result = stack ? first.inserted(a, total) : first.with(a, total);
  (void)detail::num_elements(result, std::string(op) + ": the result's ");
  TensorBuffer out(s.dtype(), result, resource);
  if (out.size() == 0) return std::move(out).freeze();  // nothing to copy
  const Index outer = detail::checked_product(first.dims().subspan(0, a), op, "the result's size");
  const Index inner = detail::checked_product(first.dims().subspan(stack ? a : a + 1), op, "the result's size");
  visit_dtype(s.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = out.values<T>().data();
    Index col = 0;
    for (const Tensor& t : s) {
      const Index w = (stack ? 1 : t.shape()[a]) * inner;
      copy_columns(t.values<T>().data(), w, 0, dst, total * inner, col, outer, w);
      col += w;
    }
  });
  return std::move(out).freeze();
}

}  // namespace tseq::ops
