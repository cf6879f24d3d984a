// tseq::Shape: element counts, edited copies and text.

#include "tseq/tensor.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace tseq {

std::int64_t Shape::num_elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : dims()) {
    if (d < 0) throw ShapeError("shape " + to_string(*this) + " has a negative dimension");
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) {
      throw ShapeError("shape " + to_string(*this) + " has more elements than fit in int64");
    }
    n *= d;
  }
  return n;
}

// Both build the result in place: no allocation up to inline_rank dims (SplitToSequence makes
// one per piece).
Shape Shape::inserted(std::size_t i, std::int64_t d) const {
  Shape r;
  r.allocate(rank_ + 1);
  std::int64_t* out = std::copy(begin(), begin() + i, r.data());
  *out = d;
  std::copy(begin() + i, end(), out + 1);
  return r;
}

Shape Shape::removed(std::size_t i) const {
  Shape r;
  r.allocate(rank_ - 1);
  std::copy(begin() + i + 1, end(), std::copy(begin(), begin() + i, r.data()));
  return r;
}

Shape Shape::with(std::size_t i, std::int64_t d) const {
  Shape r = *this;
  r.data()[i] = d;
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

std::int64_t num_elements(const Shape& s, std::string_view prefix) {
  try {
    return s.num_elements();
  } catch (const ShapeError& e) {
    throw ShapeError(std::string(prefix) + e.what());
  }
}

}  // namespace detail

}  // namespace tseq
