#pragma once

/// @file
/// Eigen views of a tensor's payload (numeric element types, host-readable memory): a flat
/// Eigen::Map and a row-major Eigen::TensorMap. Zero-copy and read-only; a view lives as long
/// as any handle to the payload. The only tseq header that includes Eigen (whose Tensor module
/// alone is about 120,000 preprocessed lines).

#include <cstddef>
#include <string>
#include <string_view>

#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

#include "tseq/tensor.hpp"

namespace tseq {

namespace detail {
struct tensor_access {
  // The payload as T, after Tensor's checks (element type, host-readable), messages naming `what`.
  template <class T>
  static const T* checked(const Tensor& t, std::string_view what) {
    t.check_readable<T>(what);
    return static_cast<const T*>(t.raw());
  }
};
}  // namespace detail

/// The payload as a flat Eigen array. O(1), no copy. Throws TypeError if T is not the
/// tensor's element type, DeviceError if the payload is not host-readable.
template <class T>
[[nodiscard]] Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> eigen_array(const Tensor& t) {
  const T* p = detail::tensor_access::checked<T>(t, "tseq::eigen_array");
  return {p, static_cast<Eigen::Index>(t.size())};
}

/// A row-major Eigen::TensorMap of rank R. O(1), no copy. Throws TypeError on a wrong T,
/// ShapeError if R != t.rank(), DeviceError if the payload is not host-readable.
template <class T, int R>
[[nodiscard]] Eigen::TensorMap<const Eigen::Tensor<const T, R, Eigen::RowMajor>> eigen_tensor(const Tensor& t) {
  const T* p = detail::tensor_access::checked<T>(t, "tseq::eigen_tensor");
  if (static_cast<std::size_t>(R) != t.rank()) {
    throw ShapeError("tseq::eigen_tensor: rank " + std::to_string(R) + " requested, the tensor has shape " +
                     to_string(t.shape()));
  }
  Eigen::DSizes<Eigen::Index, R> dims;
  for (std::size_t i = 0; i < static_cast<std::size_t>(R); ++i) dims[i] = static_cast<Eigen::Index>(t.shape()[i]);
  return Eigen::TensorMap<const Eigen::Tensor<const T, R, Eigen::RowMajor>>(p, dims);
}

}  // namespace tseq
