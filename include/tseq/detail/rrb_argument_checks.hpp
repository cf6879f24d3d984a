#pragma once

// Argument checks of tseq::rrb_vector's public API (TensorSequence has its own): each
// throws tseq::IndexError or tseq::LengthError naming the operation ("rrb_vector::<op>: "),
// the bad value and the valid range. Checked before anything is moved, so that a failed check
// leaves every vector as it was.

#include <cstddef>
#include <string>

#include "tseq/error.hpp"

namespace tseq::detail {

[[noreturn]] inline void throw_range(const char* op, const std::string& what) {
  throw IndexError(std::string("rrb_vector::") + op + ": " + what);
}
inline void check_index(const char* op, std::size_t i, std::size_t n) {
  if (i >= n) {
    throw_range(op, n == 0 ? "index " + std::to_string(i) + " on an empty vector"
                           : "index " + std::to_string(i) + " is out of range [0, " + std::to_string(n - 1) +
                                 "] for a vector of " + std::to_string(n) + " elements");
  }
}
inline void check_position(const char* op, std::size_t i, std::size_t n) {
  if (i > n) {
    throw_range(op, "position " + std::to_string(i) + " is out of range [0, " + std::to_string(n) +
                        "] for a vector of " + std::to_string(n) + " elements");
  }
}
inline void check_range(std::size_t first, std::size_t last, std::size_t n) {
  if (first > last || last > n) {
    throw_range("erase", "range [" + std::to_string(first) + ", " + std::to_string(last) + ") is not within [0, " +
                             std::to_string(n) + "]");
  }
}
inline void check_concat(std::size_t a, std::size_t b, std::size_t max) {
  if (a > max || b > max - a) {
    throw LengthError("rrb_vector::operator+: " + std::to_string(a) + " + " + std::to_string(b) +
                      " elements exceed max_size() " + std::to_string(max));
  }
}

}  // namespace tseq::detail
