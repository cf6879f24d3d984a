#pragma once

/// @file
/// tseq::Tensor: an immutable, reference-counted tensor of one of the 15 ONNX element types
/// that sequences may hold, with Eigen views of its payload.

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/container/small_vector.hpp>
#include <boost/intrusive_ptr.hpp>
#include <unsupported/Eigen/CXX11/Tensor>

#include "tseq/error.hpp"

namespace tseq {

/// Element types, with ONNX TensorProto.DataType codes. Exactly the types ONNX sequence
/// operators accept (opset 11+): no bfloat16, float8 or int4.
enum class DataType : std::int32_t {
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  Complex64 = 14,
  Complex128 = 15,
};

/// All 15 element types, in code order.
inline constexpr DataType all_data_types[] = {
    DataType::Float,  DataType::Uint8,  DataType::Int8,   DataType::Uint16,    DataType::Int16,
    DataType::Int32,  DataType::Int64,  DataType::String, DataType::Bool,      DataType::Float16,
    DataType::Double, DataType::Uint32, DataType::Uint64, DataType::Complex64, DataType::Complex128};

/// True for the 15 codes above.
constexpr bool is_valid(DataType t) noexcept {
  const auto c = static_cast<std::int32_t>(t);
  return c >= 1 && c <= 15;
}

/// ONNX name of t ("float", "int64", "string", "float16", "complex64", ...); "invalid(N)"
/// for a code outside the 15.
std::string dtype_name(DataType t);

/// Writes dtype_name(t).
std::ostream& operator<<(std::ostream& os, DataType t);

/// Bytes per element in memory (sizeof the C++ type; std::string for String).
std::size_t dtype_size(DataType t);

/// The DataType of ONNX code `code`; throws TypeError naming `context` and the valid codes if
/// it is not one of the 15.
DataType data_type_from_code(std::int32_t code, std::string_view context);

/// C++ type of each element type.
template <DataType D>
struct dtype_traits;
#define TSEQ_DTYPE(D, T)             \
  template <>                        \
  struct dtype_traits<DataType::D> { \
    using type = T;                  \
  };
TSEQ_DTYPE(Float, float)
TSEQ_DTYPE(Uint8, std::uint8_t)
TSEQ_DTYPE(Int8, std::int8_t)
TSEQ_DTYPE(Uint16, std::uint16_t)
TSEQ_DTYPE(Int16, std::int16_t)
TSEQ_DTYPE(Int32, std::int32_t)
TSEQ_DTYPE(Int64, std::int64_t)
TSEQ_DTYPE(String, std::string)
TSEQ_DTYPE(Bool, bool)
TSEQ_DTYPE(Float16, Eigen::half)
TSEQ_DTYPE(Double, double)
TSEQ_DTYPE(Uint32, std::uint32_t)
TSEQ_DTYPE(Uint64, std::uint64_t)
TSEQ_DTYPE(Complex64, std::complex<float>)
TSEQ_DTYPE(Complex128, std::complex<double>)
#undef TSEQ_DTYPE

/// C++ element type of D.
template <DataType D>
using cpp_type_t = typename dtype_traits<D>::type;

namespace detail {
template <class T, std::size_t... I>
constexpr DataType data_type_of_impl(std::index_sequence<I...>) noexcept {
  DataType r{};
  (void)((std::is_same_v<T, cpp_type_t<all_data_types[I]>> ? (r = all_data_types[I], true) : false) || ...);
  return r;
}
}  // namespace detail

/// DataType of C++ type T (only the 15 types above).
template <class T>
inline constexpr DataType data_type_of = detail::data_type_of_impl<std::remove_cv_t<T>>(std::make_index_sequence<15>{});

/// True for the 15 C++ element types.
template <class T>
inline constexpr bool is_element_type = is_valid(data_type_of<T>);

/// Calls f(std::type_identity<T>{}) with T the C++ type of t; throws TypeError for an invalid t.
template <class F>
decltype(auto) visit_dtype(DataType t, F&& f) {
  switch (t) {
    case DataType::Float:
      return f(std::type_identity<float>{});
    case DataType::Uint8:
      return f(std::type_identity<std::uint8_t>{});
    case DataType::Int8:
      return f(std::type_identity<std::int8_t>{});
    case DataType::Uint16:
      return f(std::type_identity<std::uint16_t>{});
    case DataType::Int16:
      return f(std::type_identity<std::int16_t>{});
    case DataType::Int32:
      return f(std::type_identity<std::int32_t>{});
    case DataType::Int64:
      return f(std::type_identity<std::int64_t>{});
    case DataType::String:
      return f(std::type_identity<std::string>{});
    case DataType::Bool:
      return f(std::type_identity<bool>{});
    case DataType::Float16:
      return f(std::type_identity<Eigen::half>{});
    case DataType::Double:
      return f(std::type_identity<double>{});
    case DataType::Uint32:
      return f(std::type_identity<std::uint32_t>{});
    case DataType::Uint64:
      return f(std::type_identity<std::uint64_t>{});
    case DataType::Complex64:
      return f(std::type_identity<std::complex<float>>{});
    case DataType::Complex128:
      return f(std::type_identity<std::complex<double>>{});
  }
  throw TypeError("invalid element type code " + std::to_string(static_cast<std::int32_t>(t)));
}

/// Dimensions of a tensor: rank 0 is a scalar; zero-size dimensions are allowed. Up to six
/// dimensions are stored inline.
class Shape {
 public:
  using dims_type = boost::container::small_vector<std::int64_t, 6>;

  /// A scalar's shape (rank 0).
  Shape() = default;
  /// The given dimensions, outermost first. Not validated until num_elements() is asked.
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims.begin(), dims.end()) {}
  explicit Shape(std::span<const std::int64_t> dims) : dims_(dims.begin(), dims.end()) {}

  /// Number of dimensions. O(1).
  std::size_t rank() const noexcept { return dims_.size(); }
  /// Dimension i; precondition i < rank().
  std::int64_t operator[](std::size_t i) const noexcept { return dims_[i]; }
  /// All dimensions.
  std::span<const std::int64_t> dims() const noexcept { return {dims_.data(), dims_.size()}; }
  auto begin() const noexcept { return dims_.begin(); }
  auto end() const noexcept { return dims_.end(); }

  /// Product of the dims (1 for a scalar). Throws ShapeError for a negative dim or overflow.
  std::int64_t num_elements() const;

  /// Copy with `d` inserted before axis i / with axis i removed / with axis i set to d.
  Shape inserted(std::size_t i, std::int64_t d) const;
  Shape removed(std::size_t i) const;
  Shape with(std::size_t i, std::int64_t d) const;

  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    return a.dims_.size() == b.dims_.size() && std::equal(a.dims_.begin(), a.dims_.end(), b.dims_.begin());
  }

 private:
  dims_type dims_;
};

/// "[2, 3]"; "[]" for a scalar.
std::string to_string(const Shape& s);
std::ostream& operator<<(std::ostream& os, const Shape& s);

namespace detail {

// One allocation: this header, then the elements at the next 64-byte boundary (plain
// operator new plus slack: an aligned operator new costs about 4x more here).
struct TensorStorage {
  static constexpr std::size_t alignment = 64;

  std::atomic<std::size_t> refs{1};
  DataType dtype;
  Shape shape;
  std::size_t count;
  void* data_;

  TensorStorage(DataType t, Shape s, std::size_t n, void* d) : dtype(t), shape(std::move(s)), count(n), data_(d) {}

  void* data() noexcept { return data_; }
  const void* data() const noexcept { return data_; }

  // Value-initialised elements (zeros, false, empty strings).
  static TensorStorage* create(DataType t, Shape s);
  static void destroy(TensorStorage* p) noexcept;

  friend void intrusive_ptr_add_ref(TensorStorage* p) noexcept { p->refs.fetch_add(1, std::memory_order_relaxed); }
  friend void intrusive_ptr_release(TensorStorage* p) noexcept {
    if (p->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy(p);
  }
};

[[noreturn]] void throw_wrong_type(std::string_view what, DataType requested, DataType actual);
[[noreturn]] void throw_count_mismatch(std::size_t given, const Shape& shape, std::size_t holds);

}  // namespace detail

class TensorBuffer;

/// An immutable tensor. Copying a Tensor shares its payload (one atomic increment); nothing
/// can change the payload once a Tensor exists. The default-constructed Tensor is an empty
/// float tensor of shape [0].
class Tensor {
 public:
  Tensor() noexcept = default;

  /// A tensor of `shape` holding `values` (row-major). O(n) copy. Throws ShapeError if the
  /// element count does not match the shape.
  template <class T>
  static Tensor from_values(Shape shape, std::span<const T> values);
  template <class T>
  static Tensor from_values(Shape shape, const std::vector<T>& values) {
    if constexpr (std::is_same_v<T, bool>) {  // vector<bool> is not contiguous
      const std::vector<char> tmp(values.begin(), values.end());
      return from_bools(std::move(shape), tmp);
    } else {
      return from_values<T>(std::move(shape), std::span<const T>(values.data(), values.size()));
    }
  }
  template <class T>
  static Tensor from_values(Shape shape, std::initializer_list<T> values) {
    return from_values<T>(std::move(shape), std::span<const T>(values.begin(), values.size()));
  }
  /// A rank-0 tensor holding v.
  template <class T>
  static Tensor scalar(T v) {
    return from_values<T>(Shape{}, std::span<const T>(&v, 1));
  }

  /// Element type. O(1).
  DataType dtype() const noexcept { return s_ ? s_->dtype : DataType::Float; }
  /// Dimensions. O(1).
  const Shape& shape() const noexcept;
  /// Number of dimensions. O(1).
  std::size_t rank() const noexcept { return shape().rank(); }
  /// Number of elements (product of dims). O(1).
  std::size_t size() const noexcept { return s_ ? s_->count : 0; }

  /// The elements, row-major. Throws TypeError if T is not the tensor's element type.
  template <class T>
  std::span<const T> values() const {
    check_type<T>("Tensor::values");
    return {static_cast<const T*>(raw()), size()};
  }
  /// Element i of the flat, row-major payload (checked type, unchecked index).
  template <class T>
  const T& value(std::size_t i) const {
    return values<T>()[i];
  }

  /// The payload as a flat Eigen array (numeric element types). Throws TypeError on a wrong T.
  template <class T>
  Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> array() const {
    check_type<T>("Tensor::array");
    return {static_cast<const T*>(raw()), static_cast<Eigen::Index>(size())};
  }

  /// A row-major Eigen::TensorMap view of rank R (numeric element types). Throws TypeError on
  /// a wrong T, ShapeError if R != rank().
  template <class T, int R>
  Eigen::TensorMap<const Eigen::Tensor<const T, R, Eigen::RowMajor>> tensor() const {
    check_type<T>("Tensor::tensor");
    if (static_cast<std::size_t>(R) != rank()) {
      throw ShapeError("Tensor::tensor: rank " + std::to_string(R) + " requested, the tensor has shape " +
                       to_string(shape()));
    }
    Eigen::DSizes<Eigen::Index, R> dims;
    for (std::size_t i = 0; i < static_cast<std::size_t>(R); ++i) dims[i] = static_cast<Eigen::Index>(shape()[i]);
    return Eigen::TensorMap<const Eigen::Tensor<const T, R, Eigen::RowMajor>>(static_cast<const T*>(raw()), dims);
  }

  /// The payload bytes (little-endian, row-major). Throws TypeError for string tensors, whose
  /// elements are std::string objects.
  std::span<const std::byte> raw_data() const;

  /// True if both share one payload (one is a copy of the other). O(1).
  bool shares_storage_with(const Tensor& o) const noexcept { return s_ == o.s_; }

  /// Number of Tensor handles sharing this payload (for tests and diagnostics).
  std::size_t use_count() const noexcept { return s_ ? s_->refs.load(std::memory_order_relaxed) : 0; }

 private:
  friend class TensorBuffer;
  boost::intrusive_ptr<detail::TensorStorage> s_;

  explicit Tensor(boost::intrusive_ptr<detail::TensorStorage> s) noexcept : s_(std::move(s)) {}
  const void* raw() const noexcept { return s_ ? s_->data() : nullptr; }
  static Tensor from_bools(Shape shape, std::span<const char> values);

  template <class T>
  void check_type(std::string_view what) const {
    static_assert(is_element_type<T>, "T must be one of the 15 ONNX sequence element types");
    if (data_type_of<T> != dtype()) detail::throw_wrong_type(what, data_type_of<T>, dtype());
  }
};

/// Builds a new tensor: a mutable buffer of value-initialised elements, frozen into a Tensor.
class TensorBuffer {
 public:
  /// Allocates shape.num_elements() elements of type t. Throws ShapeError for a bad shape,
  /// TypeError for an invalid t.
  TensorBuffer(DataType t, Shape shape);

  DataType dtype() const noexcept { return s_->dtype; }
  const Shape& shape() const noexcept { return s_->shape; }
  std::size_t size() const noexcept { return s_->count; }
  void* data() noexcept { return s_->data(); }

  /// The elements, writable. Throws TypeError if T is not the element type.
  template <class T>
  std::span<T> values() {
    if (data_type_of<T> != dtype()) detail::throw_wrong_type("TensorBuffer::values", data_type_of<T>, dtype());
    return {static_cast<T*>(data()), size()};
  }

  /// The finished tensor; the buffer is left empty.
  Tensor freeze() && { return Tensor(std::move(s_)); }

 private:
  boost::intrusive_ptr<detail::TensorStorage> s_;
};

template <class T>
Tensor Tensor::from_values(Shape shape, std::span<const T> values) {
  static_assert(is_element_type<T>, "T must be one of the 15 ONNX sequence element types");
  TensorBuffer b(data_type_of<T>, std::move(shape));
  if (b.size() != values.size()) detail::throw_count_mismatch(values.size(), b.shape(), b.size());
  std::copy(values.begin(), values.end(), b.values<T>().begin());
  return std::move(b).freeze();
}

/// Value equality: same dtype, same shape, every element equal (NaN is never equal).
bool equal(const Tensor& a, const Tensor& b);

/// "float[2, 3]{-1, 0, 1.5, ...}" with at most `max_values` values.
std::string to_string(const Tensor& t, std::size_t max_values = 8);
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// The single value of a one-element int32/int64 tensor (rank 0, [1], [1, 1], ...) as int64.
/// Throws TypeError for another dtype and ShapeError for another element count; messages
/// start with `op` and name `what`.
std::int64_t to_index(const Tensor& t, std::string_view op, std::string_view what);

}  // namespace tseq
