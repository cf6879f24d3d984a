#pragma once

// Internal (not installed): the one place axes are normalised and int32/int64 tensors are read
// as lists of int64. Messages name the operation, the bad value and the valid range.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tseq/error.hpp"
#include "tseq/tensor.hpp"

namespace tseq::detail {

// `axis` normalised against [-count, count - 1]. Throws IndexError "op: axis A is out of range
// [-c, c - 1]", followed by " for <about>" when `about` is given ("... is invalid: there is no
// axis in <about>" when count is 0 and `about` is given). O(1).
[[nodiscard]] inline std::size_t normalize_axis(std::string_view op, std::int64_t axis, std::size_t count,
                                                const std::string& about = {}) {
  const auto c = static_cast<std::int64_t>(count);
  if (axis < -c || axis >= c) {
    std::string m = std::string(op) + ": axis " + std::to_string(axis);
    if (count == 0 && !about.empty()) throw IndexError(m + " is invalid: there is no axis in " + about);
    m += " is out of range [" + std::to_string(-c) + ", " + std::to_string(c - 1) + "]";
    if (!about.empty()) m += " for " + about;
    throw IndexError(m);
  }
  return static_cast<std::size_t>(axis < 0 ? axis + c : axis);
}

// The elements of `t` as int64. Precondition: t is an int32 or int64 tensor readable on the host
// (callers check both, with their own messages). O(elements); allocates the result.
[[nodiscard]] inline std::vector<std::int64_t> int64_values(const Tensor& t) {
  std::vector<std::int64_t> r(t.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i] = t.dtype() == DataType::Int64 ? t.value<std::int64_t>(i) : t.value<std::int32_t>(i);
  }
  return r;
}

}  // namespace tseq::detail
