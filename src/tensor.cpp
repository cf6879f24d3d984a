// tseq::Tensor and TensorBuffer members, value equality, text and to_index.

#include "tseq/tensor.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <sstream>

#include "compare.hpp"
#include "indices.hpp"

namespace tseq {

const Shape& Tensor::shape() const noexcept {
  static const Shape empty{0};
  return s_ ? s_->shape : empty;
}

std::span<const std::byte> Tensor::raw_data() const {
  if (dtype() == DataType::String) {
    throw TypeError("Tensor::raw_data: a string tensor has no raw byte representation");
  }
  if (!device().is_host_readable()) detail::throw_not_host("Tensor::raw_data", "the tensor", device());
  return {static_cast<const std::byte*>(raw()), size() * dtype_size(dtype())};
}

Tensor Tensor::adopt(DataType dtype, Shape shape, const void* data, Device device, void (*release)(void*),
                     void* context, Access access) {
  detail::CallbackOwner owner(release, context);
  try {
    return adopt(dtype, std::move(shape), data, device, std::move(owner), access);
  } catch (...) {
    owner.release = nullptr;  // not adopted: the caller keeps the memory
    throw;
  }
}

TensorBuffer Tensor::into_buffer(std::pmr::memory_resource* resource) && {
  if (!s_) return TensorBuffer(DataType::Float, Shape{0}, resource);
  if (s_->writable && s_->refs.load(std::memory_order_acquire) == 1) return TensorBuffer(std::move(s_));
  if (!s_->device.is_host_readable()) {
    throw DeviceError("Tensor::into_buffer: the tensor is on " + to_string(s_->device) + " and " +
                      (s_->writable ? "shared" : "read-only") + ", so it must be copied; tseq copies only host memory");
  }
  TensorBuffer b(s_->dtype, s_->shape, resource);
  if (s_->dtype == DataType::String) {
    const auto* from = static_cast<const std::string*>(s_->data());
    std::copy(from, from + s_->count, b.values<std::string>().begin());
  } else if (s_->count != 0) {
    std::memcpy(b.data(), s_->data(), s_->count * dtype_size(s_->dtype));
  }
  s_.reset();
  return b;
}

Tensor Tensor::from_bools(Shape shape, std::span<const char> values, std::pmr::memory_resource* resource) {
  TensorBuffer b(DataType::Bool, std::move(shape), resource);
  if (b.size() != values.size()) detail::throw_count_mismatch(values.size(), b.shape(), b.size());
  auto out = b.values<bool>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i] != 0;
  return std::move(b).freeze();
}

TensorBuffer::TensorBuffer(DataType t, Shape shape, std::pmr::memory_resource* resource)
    : s_(detail::TensorStorage::create(t, std::move(shape), resource), false) {}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  // NaN compares unequal, also to itself.
  const auto same = [](const auto& x, const auto& y) { return x == y; };
  return detail::first_mismatch(a, b, same, "equal", "the first tensor", "the second tensor") == a.size();
}

namespace {
template <class T>
void put(std::ostream& os, const T& v) {
  constexpr DTypeKind kind = dtype_kind_of<T>;
  if constexpr (kind == DTypeKind::string) {
    os << '"' << v << '"';
  } else if constexpr (std::is_same_v<T, Eigen::half>) {  // no operator<<
    os << static_cast<float>(v);
  } else if constexpr ((kind == DTypeKind::signed_integer || kind == DTypeKind::unsigned_integer) && sizeof(T) == 1) {
    os << static_cast<int>(v);  // a number, not a character
  } else {
    os << v;
  }
}
}  // namespace

std::string to_string(const Tensor& t, std::size_t max_values) {
  if (!t.device().is_host_readable()) detail::throw_not_host("to_string", "the tensor", t.device());
  std::ostringstream os;
  os << dtype_name(t.dtype()) << to_string(t.shape()) << '{';
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t i = 0; i < t.size() && i < max_values; ++i) {
      if (i) os << ", ";
      if constexpr (std::is_same_v<T, bool>) {
        os << (detail::bool_byte(t.data(), i) ? "true" : "false");  // a byte: adopted memory may hold any
      } else {
        put(os, t.values<T>()[i]);
      }
    }
    if (t.size() > max_values) os << ", ...";
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
  if (!t.device().is_host_readable()) detail::throw_not_host(op, what, t.device());
  if (t.size() != 1) {
    throw ShapeError(std::string(op) + ": " + std::string(what) +
                     " must hold exactly one value (a scalar or shape [1]), got shape " + to_string(t.shape()));
  }
  return detail::int64_value(t, 0);
}

}  // namespace tseq
