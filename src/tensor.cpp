// Element-type tables, shapes and tensor storage.

#include "tseq/tensor.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <ostream>
#include <sstream>

namespace tseq {

std::string dtype_name(DataType t) {
  switch (t) {
    case DataType::Float:
      return "float";
    case DataType::Uint8:
      return "uint8";
    case DataType::Int8:
      return "int8";
    case DataType::Uint16:
      return "uint16";
    case DataType::Int16:
      return "int16";
    case DataType::Int32:
      return "int32";
    case DataType::Int64:
      return "int64";
    case DataType::String:
      return "string";
    case DataType::Bool:
      return "bool";
    case DataType::Float16:
      return "float16";
    case DataType::Double:
      return "double";
    case DataType::Uint32:
      return "uint32";
    case DataType::Uint64:
      return "uint64";
    case DataType::Complex64:
      return "complex64";
    case DataType::Complex128:
      return "complex128";
  }
  return "invalid(" + std::to_string(static_cast<std::int32_t>(t)) + ")";
}

std::ostream& operator<<(std::ostream& os, DataType t) { return os << dtype_name(t); }

std::size_t dtype_size(DataType t) {
  return visit_dtype(t, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

DataType data_type_from_code(std::int32_t code, std::string_view context) {
  const auto t = static_cast<DataType>(code);
  if (!is_valid(t)) {
    throw TypeError(std::string(context) + ": element type code " + std::to_string(code) +
                    " is not a sequence element type (valid: 1..15: float, uint8, int8, uint16, int16, int32, "
                    "int64, string, bool, float16, double, uint32, uint64, complex64, complex128)");
  }
  return t;
}

std::int64_t Shape::num_elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : dims_) {
    if (d < 0) throw ShapeError("shape " + to_string(*this) + " has a negative dimension");
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) {
      throw ShapeError("shape " + to_string(*this) + " has more elements than fit in int64");
    }
    n *= d;
  }
  return n;
}

Shape Shape::inserted(std::size_t i, std::int64_t d) const {
  Shape r = *this;
  r.dims_.insert(r.dims_.begin() + static_cast<std::ptrdiff_t>(i), d);
  return r;
}

Shape Shape::removed(std::size_t i) const {
  Shape r = *this;
  r.dims_.erase(r.dims_.begin() + static_cast<std::ptrdiff_t>(i));
  return r;
}

Shape Shape::with(std::size_t i, std::int64_t d) const {
  Shape r = *this;
  r.dims_[i] = d;
  return r;
}

std::string to_string(const Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.rank(); ++i) {
    if (i) r += ", ";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << to_string(s); }

namespace detail {

TensorStorage* TensorStorage::create(DataType t, Shape s) {
  const std::size_t elem = dtype_size(t);  // throws TypeError for an invalid t
  const auto n = static_cast<std::size_t>(s.num_elements());
  constexpr std::size_t header = sizeof(TensorStorage) + alignment - 1;
  if (n > (std::numeric_limits<std::size_t>::max() - header) / elem) {
    throw ShapeError("shape " + to_string(s) + " is too large to allocate");
  }
  void* p = ::operator new(header + n * elem);
  void* data = static_cast<std::byte*>(p) + sizeof(TensorStorage);
  std::size_t space = alignment - 1 + n * elem;
  std::align(alignment, n * elem, data, space);  // cannot fail: `alignment - 1` bytes of slack
  auto* st = ::new (p) TensorStorage(t, std::move(s), n, data);
  if (t == DataType::String) {
    auto* d = static_cast<std::string*>(st->data());
    for (std::size_t i = 0; i < n; ++i) ::new (static_cast<void*>(d + i)) std::string();
  } else if (n != 0) {
    std::memset(st->data(), 0, n * elem);  // zero is 0, 0.0, false, half 0 and complex 0
  }
  return st;
}

void TensorStorage::destroy(TensorStorage* p) noexcept {
  if (p->dtype == DataType::String) {
    auto* d = static_cast<std::string*>(p->data());
    for (std::size_t i = 0; i < p->count; ++i) d[i].~basic_string();
  }
  p->~TensorStorage();
  ::operator delete(static_cast<void*>(p));
}

void throw_wrong_type(std::string_view what, DataType requested, DataType actual) {
  throw TypeError(std::string(what) + ": requested " + dtype_name(requested) + " but the tensor holds " +
                  dtype_name(actual));
}

void throw_count_mismatch(std::size_t given, const Shape& shape, std::size_t holds) {
  throw ShapeError("Tensor::from_values: " + std::to_string(given) + " values for shape " + to_string(shape) +
                   ", which holds " + std::to_string(holds));
}

}  // namespace detail

const Shape& Tensor::shape() const noexcept {
  static const Shape empty{0};
  return s_ ? s_->shape : empty;
}

std::span<const std::byte> Tensor::raw_data() const {
  if (dtype() == DataType::String) {
    throw TypeError("Tensor::raw_data: a string tensor has no raw byte representation");
  }
  return {static_cast<const std::byte*>(raw()), size() * dtype_size(dtype())};
}

Tensor Tensor::from_bools(Shape shape, std::span<const char> values) {
  TensorBuffer b(DataType::Bool, std::move(shape));
  if (b.size() != values.size()) detail::throw_count_mismatch(values.size(), b.shape(), b.size());
  auto out = b.values<bool>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i] != 0;
  return std::move(b).freeze();
}

TensorBuffer::TensorBuffer(DataType t, Shape shape) : s_(detail::TensorStorage::create(t, std::move(shape)), false) {}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  return visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto x = a.values<T>();
    const auto y = b.values<T>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!(x[i] == y[i])) return false;  // NaN compares unequal, also to itself
    }
    return true;
  });
}

namespace {
template <class T>
void put(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    os << '"' << v << '"';
  } else if constexpr (std::is_same_v<T, Eigen::half>) {
    os << static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else {
    os << v;
  }
}
}  // namespace

std::string to_string(const Tensor& t, std::size_t max_values) {
  std::ostringstream os;
  os << dtype_name(t.dtype()) << to_string(t.shape()) << '{';
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto v = t.values<T>();
    for (std::size_t i = 0; i < v.size() && i < max_values; ++i) {
      if (i) os << ", ";
      put(os, v[i]);
    }
    if (v.size() > max_values) os << ", ...";
  });
  os << '}';
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << to_string(t); }

std::int64_t to_index(const Tensor& t, std::string_view op, std::string_view what) {
  if (t.dtype() != DataType::Int64 && t.dtype() != DataType::Int32) {
    throw TypeError(std::string(op) + ": " + std::string(what) + " must be an int32 or int64 tensor, got " +
                    dtype_name(t.dtype()));
  }
  if (t.size() != 1) {
    throw ShapeError(std::string(op) + ": " + std::string(what) +
                     " must hold exactly one value (a scalar or shape [1]), got shape " + to_string(t.shape()));
  }
  return t.dtype() == DataType::Int64 ? t.value<std::int64_t>(0) : t.value<std::int32_t>(0);
}

}  // namespace tseq
