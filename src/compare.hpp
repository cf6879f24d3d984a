#pragma once

// Internal (not installed): the one walk over two tensors' elements, shared by tseq::equal
// and tseq::onnx::all_close.

#include <cstddef>
#include <string_view>

#include "tseq/tensor.hpp"

namespace tseq::detail {

// The first index i at which same(x[i], y[i]) is false for the elements x of a and y of b, or
// the element count if there is none. Precondition: a and b have one dtype and one shape.
// Bools are read as bytes (adopted memory may hold any byte) and passed as bool. Throws
// DeviceError "op: what_a (what_b) is on D; ..." for a payload that is not host-readable. O(n).
template <class Same>
[[nodiscard]] std::size_t first_mismatch(const Tensor& a, const Tensor& b, const Same& same, std::string_view op,
                                         std::string_view what_a, std::string_view what_b) {
  if (!a.device().is_host_readable()) throw_not_host(op, what_a, a.device());
  if (!b.device().is_host_readable()) throw_not_host(op, what_b, b.device());
  if (a.dtype() == DataType::Bool) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same(bool_byte(a.data(), i), bool_byte(b.data(), i))) return i;
    }
    return a.size();
  }
  return visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto x = a.values<T>();
    const auto y = b.values<T>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!same(x[i], y[i])) return i;
    }
    return x.size();
  });
}

}  // namespace tseq::detail
