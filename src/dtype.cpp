// The element-type table's out-of-line parts: names, messages, and the checks that the
// table's sizes are the C++ types' (Float16's type is only declared in the header).

#include "tseq/dtype.hpp"

#include <Eigen/Core>

#include <ostream>

namespace tseq {

namespace {
template <std::size_t... I>
constexpr bool table_matches_types(std::index_sequence<I...>) {
  return ((sizeof(cpp_type_t<all_dtypes[I]>) == detail::dtype_infos[I].size &&
           alignof(cpp_type_t<all_dtypes[I]>) == detail::dtype_infos[I].alignment) &&
          ...);
}
static_assert(table_matches_types(std::make_index_sequence<dtype_count>{}),
              "TSEQ_DTYPE_TABLE's sizes and alignments must be those of the C++ types");
static_assert(dtype_of<Eigen::half> == DataType::Float16, "the declared Eigen::half is Eigen's");
}  // namespace

std::string dtype_name(DataType t) {
  if (const auto* i = detail::find_dtype(t)) return std::string(i->name);
  return "invalid(" + std::to_string(static_cast<std::int32_t>(t)) + ")";
}

std::ostream& operator<<(std::ostream& os, DataType t) { return os << dtype_name(t); }

std::string valid_dtypes() {
  std::string r = std::to_string(static_cast<std::int32_t>(all_dtypes[0])) + ".." +
                  std::to_string(static_cast<std::int32_t>(all_dtypes[dtype_count - 1])) + ":";
  for (std::size_t k = 0; k < dtype_count; ++k) {
    r += k == 0 ? " " : ", ";
    r += detail::dtype_infos[k].name;
  }
  return r;
}

DataType dtype_from_code(std::int64_t code, std::string_view context) {
  if (!is_dtype_code(code)) {
    throw TypeError(std::string(context) + ": element type code " + std::to_string(code) +
                    " is not a sequence element type (valid: " + valid_dtypes() + ")");
  }
  return static_cast<DataType>(code);
}

namespace detail {
void throw_invalid_dtype(DataType t) {
  throw TypeError("invalid element type code " + std::to_string(static_cast<std::int32_t>(t)) +
                  " (valid: " + valid_dtypes() + ")");
}
}  // namespace detail

}  // namespace tseq
