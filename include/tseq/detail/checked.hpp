#pragma once

// Checked int64 arithmetic for every shape, size, axis, split and slice computation: a result
// that does not fit is a ShapeError naming the operation and the operands, never a signed
// overflow. The compiler's overflow builtins where it has them (tseq/detail/config.hpp), else
// the portable_*_overflow forms, which give the same results.

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "tseq/detail/config.hpp"

namespace tseq::detail {

// r = a + b, a - b, a * b; true when the exact result is outside int64 (r is then meaningless).
[[nodiscard]] constexpr bool portable_add_overflow(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  if (b > 0 ? a > max - b : a < min - b) return true;
  r = a + b;
  return false;
}
[[nodiscard]] constexpr bool portable_sub_overflow(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  if (b < 0 ? a > max + b : a < min + b) return true;
  r = a - b;
  return false;
}
[[nodiscard]] constexpr bool portable_mul_overflow(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min = std::numeric_limits<std::int64_t>::min();
  // Each bound divided by a nonzero operand of the sign that keeps the quotient exact enough
  // (CERT INT32-C): no division overflows, min / -1 is never computed.
  const bool over = a > 0 ? (b > 0 ? a > max / b : b < min / a) : b > 0 ? a < min / b : a != 0 && b < max / a;
  if (over) return true;
  r = a * b;
  return false;
}

[[nodiscard]] inline bool add_overflow(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
#if TSEQ_HAS_BUILTIN(__builtin_add_overflow)
  return __builtin_add_overflow(a, b, &r);
#else
  return portable_add_overflow(a, b, r);
#endif
}
[[nodiscard]] inline bool sub_overflow(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
#if TSEQ_HAS_BUILTIN(__builtin_sub_overflow)
  return __builtin_sub_overflow(a, b, &r);
#else
  return portable_sub_overflow(a, b, r);
#endif
}
[[nodiscard]] inline bool mul_overflow(std::int64_t a, std::int64_t b, std::int64_t& r) noexcept {
#if TSEQ_HAS_BUILTIN(__builtin_mul_overflow)
  return __builtin_mul_overflow(a, b, &r);
#else
  return portable_mul_overflow(a, b, r);
#endif
}

// ShapeError "op: what overflows int64 (a sym b)".
[[noreturn]] void throw_overflow(std::string_view op, std::string_view what, std::int64_t a, char sym, std::int64_t b);

[[nodiscard]] inline std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view op,
                                              std::string_view what) {
  std::int64_t r = 0;
  if (add_overflow(a, b, r)) throw_overflow(op, what, a, '+', b);
  return r;
}

[[nodiscard]] inline std::int64_t checked_sub(std::int64_t a, std::int64_t b, std::string_view op,
                                              std::string_view what) {
  std::int64_t r = 0;
  if (sub_overflow(a, b, r)) throw_overflow(op, what, a, '-', b);
  return r;
}

[[nodiscard]] inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view op,
                                              std::string_view what) {
  std::int64_t r = 0;
  if (mul_overflow(a, b, r)) throw_overflow(op, what, a, '*', b);
  return r;
}

// Product of dims (1 for none).
[[nodiscard]] inline std::int64_t checked_product(std::span<const std::int64_t> dims, std::string_view op,
                                                  std::string_view what) {
  std::int64_t p = 1;
  for (std::int64_t d : dims) p = checked_mul(p, d, op, what);
  return p;
}

}  // namespace tseq::detail
