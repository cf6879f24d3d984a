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

// Throws IndexError "<op>: <value> is out of range [lo, hi]", followed by " for <of>" when `of`
// is given; `value` names the value ("axis -3", "position 7").
[[noreturn]] inline void throw_out_of_range(std::string_view op, const std::string& value, std::int64_t lo,
                                            std::int64_t hi, const std::string& of = {}) {
  std::string m =
      std::string(op) + ": " + value + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!of.empty()) m += " for " + of;
  throw IndexError(m);
}

// `axis` normalised against [-count, count - 1]. Throws IndexError "op: axis A is out of range
// [-c, c - 1]", followed by " for <about>" when `about` is given ("... is invalid: there is no
// axis in <about>" when count is 0 and `about` is given). O(1).
[[nodiscard]] inline std::size_t normalize_axis(std::string_view op, std::int64_t axis, std::size_t count,
                                                const std::string& about = {}) {
  const auto c = static_cast<std::int64_t>(count);
  if (axis < -c || axis >= c) {
    const std::string value = "axis " + std::to_string(axis);
    if (count == 0 && !about.empty()) {
      throw IndexError(std::string(op) + ": " + value + " is invalid: there is no axis in " + about);
    }
    throw_out_of_range(op, value, -c, c - 1, about);
  }
  return static_cast<std::size_t>(axis < 0 ? axis + c : axis);
}

// Element i of `t` as int64. Precondition: t is an int32 or int64 tensor readable on the host
// (callers check both, with their own messages), i < t.size(). O(1), no allocation.
[[nodiscard]] inline std::int64_t int64_value(const Tensor& t, std::size_t i) {
  return t.dtype() == DataType::Int64 ? t.value<std::int64_t>(i) : t.value<std::int32_t>(i);
}

// The elements of `t` as int64 (int64_value's precondition). O(elements); allocates the result.
[[nodiscard]] inline std::vector<std::int64_t> int64_values(const Tensor& t) {
  std::vector<std::int64_t> r(t.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = int64_value(t, i);
  return r;
}

}  // namespace tseq::detail
