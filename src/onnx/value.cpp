// ValueType and Value helpers: names and the backend-test comparison.

#include "tseq/onnx/value.hpp"

#include "../compare.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <complex>

namespace tseq::onnx {

std::string escape_name(std::string_view name, std::size_t max_bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string r;
  const std::size_t n = std::min(name.size(), max_bytes);
  r.reserve(n + 16);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    switch (c) {
      case '\n':
        r += "\\n";
        break;
      case '\t':
        r += "\\t";
        break;
      case '\r':
        r += "\\r";
        break;
      case '\'':
      case '\\':
        r += '\\';
        r += static_cast<char>(c);
        break;
      default:
        if (c < 0x20 || c >= 0x7F) {
          r += "\\x";
          r += hex[c >> 4];
          r += hex[c & 15];
        } else {
          r += static_cast<char>(c);
        }
    }
  }
  if (name.size() > n) r += "...(" + std::to_string(name.size()) + " bytes)";
  return r;
}

std::string to_string(const ValueType& t) {
  std::string tensor = "tensor(" + dtype_name(t.dtype) + ")";
  switch (t.kind) {
    case ValueType::Kind::Tensor:
      return tensor;
    case ValueType::Kind::Sequence:
      return "seq(" + tensor + ")";
    case ValueType::Kind::Optional:
      return "optional(" + (t.optional_of == ValueType::Kind::Sequence ? "seq(" + tensor + ")" : tensor) + ")";
  }
  return "?";
}

std::string describe(const Value& v) {
  if (v.is_tensor()) return "tensor(" + dtype_name(v.tensor().dtype()) + ") of shape " + to_string(v.tensor().shape());
  if (v.is_sequence()) {
    return "seq(tensor(" + dtype_name(v.sequence().dtype()) + ")) of length " + std::to_string(v.sequence().size());
  }
  const OptionalValue& o = v.optional();
  return o.has_value() ? "optional holding " + describe(*o.element) : "empty optional";
}

namespace {

// Floating values within the tolerances, complex ones part by part, the rest exactly.
template <class T>
bool close_scalar(const T& a, const T& b, double rtol, double atol) {
  if constexpr (dtype_kind_of<T> == DTypeKind::floating) {
    const auto x = static_cast<double>(a);
    const auto y = static_cast<double>(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);  // as numpy's equal_nan
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::abs(x - y) <= atol + rtol * std::abs(y);
  } else if constexpr (dtype_kind_of<T> == DTypeKind::complex) {
    return close_scalar(a.real(), b.real(), rtol, atol) && close_scalar(a.imag(), b.imag(), rtol, atol);
  } else {
    return a == b;
  }
}

bool close_tensor(const Tensor& a, const Tensor& b, double rtol, double atol, std::string* why) {
  if (a.dtype() != b.dtype()) {
    if (why) *why = "dtype " + dtype_name(a.dtype()) + ", expected " + dtype_name(b.dtype());
    return false;
  }
  if (!(a.shape() == b.shape())) {
    if (why) *why = "shape " + to_string(a.shape()) + ", expected " + to_string(b.shape());
    return false;
  }
  const auto close = [&](const auto& x, const auto& y) { return close_scalar(x, y, rtol, atol); };
  const std::size_t i = tseq::detail::first_mismatch(a, b, close, "all_close", "the tensor", "the expected tensor");
  if (i == a.size()) return true;
  if (why)
    *why = "element " + std::to_string(i) + " differs: got " + to_string(a, 16) + ", expected " + to_string(b, 16);
  return false;
}

}  // namespace

bool all_close(const Value& actual, const Value& expected, double rtol, double atol, std::string* why) {
  if (actual.index() != expected.index()) {
    if (why) *why = "got " + describe(actual) + ", expected " + describe(expected);
    return false;
  }
  if (actual.is_tensor()) return close_tensor(actual.tensor(), expected.tensor(), rtol, atol, why);
  if (actual.is_sequence()) {
    const TensorSequence& a = actual.sequence();
    const TensorSequence& b = expected.sequence();
    if (a.dtype() != b.dtype() || a.size() != b.size()) {
      if (why) *why = "got " + describe(actual) + ", expected " + describe(expected);
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::string w;
      if (!close_tensor(a[i], b[i], rtol, atol, &w)) {
        if (why) *why = "sequence element " + std::to_string(i) + ": " + w;
        return false;
      }
    }
    return true;
  }
  const OptionalValue& a = actual.optional();
  const OptionalValue& b = expected.optional();
  if (a.has_value() != b.has_value()) {
    if (why) *why = "got " + describe(actual) + ", expected " + describe(expected);
    return false;
  }
  if (!a.has_value()) return true;
  std::string w;
  if (!all_close(*a.element, *b.element, rtol, atol, &w)) {
    if (why) *why = "optional content: " + w;
    return false;
  }
  return true;
}

}  // namespace tseq::onnx
