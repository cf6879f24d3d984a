#pragma once

// Checked int64 arithmetic for every shape, size, axis, split and slice computation: a result
// that does not fit is a ShapeError naming the operation and the operands, never a signed
// overflow.

#include <cstdint>
#include <span>
#include <string_view>

namespace tseq::detail {

// ShapeError "op: what overflows int64 (a sym b)".
[[noreturn]] void throw_overflow(std::string_view op, std::string_view what, std::int64_t a, char sym, std::int64_t b);

[[nodiscard]] inline std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view op,
                                              std::string_view what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(op, what, a, '+', b);
  return r;
}

[[nodiscard]] inline std::int64_t checked_sub(std::int64_t a, std::int64_t b, std::string_view op,
                                              std::string_view what) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) throw_overflow(op, what, a, '-', b);
  return r;
}

[[nodiscard]] inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view op,
                                              std::string_view what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(op, what, a, '*', b);
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
