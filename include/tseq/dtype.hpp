#pragma once

/// @file
/// The 15 ONNX element types a tensor sequence may hold (opset 11+: no bfloat16, float8 or
/// int4), from one table: the DataType enum (TensorProto.DataType codes), their names, C++
/// types, sizes and kinds. Light: no Eigen (Float16's C++ type, Eigen::half, is only declared
/// here; include <Eigen/Core> or tseq/eigen.hpp to use its values).

#include <complex>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tseq/error.hpp"

namespace Eigen {
struct half;  // Eigen/Core's IEEE binary16 (checked to be 2 bytes in src/dtype.cpp)
}  // namespace Eigen

namespace tseq {

/// What an element type is, for mappings to other type systems (DLPack, protobuf fields).
enum class DTypeKind : std::uint8_t { floating, signed_integer, unsigned_integer, boolean, complex, string };

// The table. X(Name, code, C++ type, ONNX name, kind, bytes per element, alignment).
#define TSEQ_DTYPE_TABLE(X)                                                                    \
  X(Float, 1, float, "float", floating, sizeof(float), alignof(float))                         \
  X(Uint8, 2, std::uint8_t, "uint8", unsigned_integer, 1, 1)                                   \
  X(Int8, 3, std::int8_t, "int8", signed_integer, 1, 1)                                        \
  X(Uint16, 4, std::uint16_t, "uint16", unsigned_integer, 2, alignof(std::uint16_t))           \
  X(Int16, 5, std::int16_t, "int16", signed_integer, 2, alignof(std::int16_t))                 \
  X(Int32, 6, std::int32_t, "int32", signed_integer, 4, alignof(std::int32_t))                 \
  X(Int64, 7, std::int64_t, "int64", signed_integer, 8, alignof(std::int64_t))                 \
  X(String, 8, std::string, "string", string, sizeof(std::string), alignof(std::string))       \
  X(Bool, 9, bool, "bool", boolean, sizeof(bool), alignof(bool))                               \
  X(Float16, 10, Eigen::half, "float16", floating, 2, 2)                                       \
  X(Double, 11, double, "double", floating, sizeof(double), alignof(double))                   \
  X(Uint32, 12, std::uint32_t, "uint32", unsigned_integer, 4, alignof(std::uint32_t))          \
  X(Uint64, 13, std::uint64_t, "uint64", unsigned_integer, 8, alignof(std::uint64_t))          \
  X(Complex64, 14, std::complex<float>, "complex64", complex, sizeof(std::complex<float>),     \
    alignof(std::complex<float>))                                                              \
  X(Complex128, 15, std::complex<double>, "complex128", complex, sizeof(std::complex<double>), \
    alignof(std::complex<double>))

/// Element types, with ONNX TensorProto.DataType codes.
enum class DataType : std::int32_t {
#define TSEQ_X(Name, Code, ...) Name = Code,
  TSEQ_DTYPE_TABLE(TSEQ_X)
#undef TSEQ_X
};

/// All 15 element types, in code order.
inline constexpr DataType all_dtypes[] = {
#define TSEQ_X(Name, ...) DataType::Name,
    TSEQ_DTYPE_TABLE(TSEQ_X)
#undef TSEQ_X
};

/// Number of element types (15).
inline constexpr std::size_t dtype_count = std::size(all_dtypes);

namespace detail {
struct dtype_info {  // (fields ordered for size)
  std::size_t size;
  std::size_t alignment;
  std::string_view name;
  DataType dtype;
  DTypeKind kind;
};
inline constexpr dtype_info dtype_infos[] = {
#define TSEQ_X(Name, Code, Type, Str, Kind, Size, Align) {Size, Align, Str, DataType::Name, DTypeKind::Kind},
    TSEQ_DTYPE_TABLE(TSEQ_X)
#undef TSEQ_X
};
// Entry of t, or nullptr for an invalid code. O(1): the table lists codes 1, 2, ... in order
// (checked below).
constexpr const dtype_info* find_dtype(DataType t) noexcept {
  const auto c = static_cast<std::int64_t>(static_cast<std::int32_t>(t));
  if (c < 1 || c > static_cast<std::int64_t>(std::size(dtype_infos))) return nullptr;
  return &dtype_infos[static_cast<std::size_t>(c - 1)];
}
constexpr bool table_in_code_order() noexcept {
  for (std::size_t k = 0; k < std::size(dtype_infos); ++k) {
    if (static_cast<std::size_t>(dtype_infos[k].dtype) != k + 1) return false;
  }
  return true;
}
static_assert(table_in_code_order(), "TSEQ_DTYPE_TABLE must list the codes 1, 2, ... in order");
[[noreturn]] void throw_invalid_dtype(DataType t);
// Entry of t; TypeError for an invalid t.
inline const dtype_info& dtype_info_of(DataType t) {
  const dtype_info* i = find_dtype(t);
  if (i == nullptr) throw_invalid_dtype(t);
  return *i;
}
}  // namespace detail

/// True for the 15 codes of the table (TensorProto.DataType codes 1..15).
[[nodiscard]] constexpr bool is_dtype_code(std::int64_t code) noexcept {
  return code >= 1 && code <= static_cast<std::int64_t>(dtype_count);
}

/// True for the 15 element types.
[[nodiscard]] constexpr bool is_valid(DataType t) noexcept {
  // By code, not `find_dtype(t) != nullptr`: gcc's -fsanitize=undefined makes that pointer
  // comparison non-constant (the sanitize build failed on it).
  return is_dtype_code(static_cast<std::int32_t>(t));
}

/// ONNX name of t ("float", "int64", "string", "float16", "complex64", ...); "invalid(N)"
/// for a code outside the 15.
[[nodiscard]] std::string dtype_name(DataType t);

/// Writes dtype_name(t).
std::ostream& operator<<(std::ostream& os, DataType t);

/// Kind of t. Throws TypeError for an invalid t.
[[nodiscard]] inline DTypeKind dtype_kind(DataType t) { return detail::dtype_info_of(t).kind; }

/// Bytes per element in memory (sizeof the C++ type; std::string for String). Throws
/// TypeError for an invalid t.
[[nodiscard]] inline std::size_t dtype_size(DataType t) { return detail::dtype_info_of(t).size; }

/// Alignment an element of type t needs in memory (alignof the C++ type). Throws TypeError
/// for an invalid t.
[[nodiscard]] inline std::size_t dtype_alignment(DataType t) { return detail::dtype_info_of(t).alignment; }

/// "1..15: float, uint8, ..., complex128": the valid codes, for error messages.
[[nodiscard]] std::string valid_dtypes();

/// The DataType of ONNX code `code`; throws TypeError naming `context`, the code and the
/// valid codes if it is not one of the 15.
[[nodiscard]] DataType dtype_from_code(std::int64_t code, std::string_view context);

/// C++ type of each element type.
template <DataType D>
struct dtype_traits;
#define TSEQ_X(Name, Code, Type, ...)   \
  template <>                           \
  struct dtype_traits<DataType::Name> { \
    using type = Type;                  \
  };
TSEQ_DTYPE_TABLE(TSEQ_X)
#undef TSEQ_X

/// C++ element type of D.
template <DataType D>
using cpp_type_t = typename dtype_traits<D>::type;

namespace detail {
template <class T, std::size_t... I>
constexpr DataType dtype_of_impl(std::index_sequence<I...>) noexcept {
  DataType r{};
  (void)((std::is_same_v<T, cpp_type_t<all_dtypes[I]>> ? (r = all_dtypes[I], true) : false) || ...);
  return r;
}
}  // namespace detail

/// DataType of C++ type T (only the 15 types above; DataType{} (0, invalid) for others).
template <class T>
inline constexpr DataType dtype_of =
    detail::dtype_of_impl<std::remove_cv_t<T>>(std::make_index_sequence<dtype_count>{});

/// True for the 15 C++ element types.
template <class T>
inline constexpr bool is_element_type = is_valid(dtype_of<T>);

/// Kind of C++ element type T (for `if constexpr` over kinds, not over type lists).
template <class T>
requires is_element_type<T>
inline constexpr DTypeKind dtype_kind_of =
    detail::dtype_infos[static_cast<std::size_t>(static_cast<std::int32_t>(dtype_of<T>)) - 1].kind;

/// The element type of kind k with `bytes` bytes per element ((signed_integer, 4): Int32,
/// (complex, 8): Complex64, (floating, 2): Float16); DataType{} (invalid) if there is none.
[[nodiscard]] constexpr DataType dtype_with(DTypeKind k, std::size_t bytes) noexcept {
  for (const detail::dtype_info& i : detail::dtype_infos) {
    if (i.kind == k && i.size == bytes) return i.dtype;
  }
  return DataType{};
}

/// Calls f(std::type_identity<T>{}) with T the C++ type of t; throws TypeError for an invalid t.
template <class F>
decltype(auto) visit_dtype(DataType t, F&& f) {
  switch (t) {
#define TSEQ_X(Name, Code, Type, ...) \
  case DataType::Name:                \
    return f(std::type_identity<Type>{});
    TSEQ_DTYPE_TABLE(TSEQ_X)
#undef TSEQ_X
  }
  detail::throw_invalid_dtype(t);
}

}  // namespace tseq
