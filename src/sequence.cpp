// TensorSequence: element-type checks around rrb_vector<Tensor>.

#include "tseq/sequence.hpp"

#include "indices.hpp"
#include "type_checked_input.hpp"

#include <algorithm>
#include <ostream>

namespace tseq {

namespace {
DataType checked(DataType t) { return dtype_from_code(static_cast<std::int32_t>(t), "TensorSequence"); }

[[noreturn]] void throw_mismatch(DataType dtype, std::size_t i, const Tensor& t) {
  throw TypeError("TensorSequence: tensor " + std::to_string(i) + " has type " + dtype_name(t.dtype()) +
                  " but the sequence holds " + dtype_name(dtype) + " tensors");
}

void check_all(DataType dtype, const TensorSequence::container_type& v) {
  std::size_t i = 0;
  for (const Tensor& t : v) {
    if (t.dtype() != dtype) throw_mismatch(dtype, i, t);
    ++i;
  }
}
}  // namespace

TensorSequence::TensorSequence(DataType dtype) : dtype_(checked(dtype)) {}

TensorSequence::TensorSequence(DataType dtype, std::span<const Tensor> tensors)
    : dtype_(checked(dtype)),
      v_(detail::checked_copy<container_type>(
          tensors, dtype_, [this](std::size_t i, const Tensor& t) { throw_mismatch(dtype_, i, t); })) {}

TensorSequence::TensorSequence(DataType dtype, container_type tensors)
    : dtype_(checked(dtype)), v_(std::move(tensors)) {
  check_all(dtype_, v_);
}

void TensorSequence::check_index(const char* op, size_type i) const {
  if (i >= size()) {
    const std::string where = std::string("TensorSequence::") + op;
    if (empty()) throw IndexError(where + ": index " + std::to_string(i) + " on an empty sequence");
    detail::throw_out_of_range(where, "index " + std::to_string(i), 0, static_cast<std::int64_t>(size() - 1),
                               "a sequence of " + std::to_string(size()) + " tensors");
  }
}

const Tensor& TensorSequence::at(size_type i) const {
  check_index("at", i);
  return v_[i];
}
const Tensor& TensorSequence::front() const {
  check_index("front", 0);
  return v_[0];
}
const Tensor& TensorSequence::back() const {
  check_index("back", 0);
  return v_.back();
}

void TensorSequence::check_tensor(const Tensor& t, const char* op) const {
  if (t.dtype() != dtype_) {
    throw TypeError(std::string("TensorSequence::") + op + ": a " + dtype_name(t.dtype()) +
                    " tensor cannot join a sequence of " + dtype_name(dtype_) + " tensors");
  }
}

namespace {
using unchecked = detail::rrb_unchecked;

void check_position(const char* op, std::size_t i, std::size_t n) {
  if (i > n) {
    detail::throw_out_of_range(std::string("TensorSequence::") + op, "position " + std::to_string(i), 0,
                               static_cast<std::int64_t>(n), "a sequence of " + std::to_string(n) + " tensors");
  }
}

void check_concat(const TensorSequence& a, const TensorSequence& b) {
  if (a.dtype() != b.dtype()) {
    throw TypeError("TensorSequence::operator+: a sequence of " + dtype_name(b.dtype()) +
                    " tensors cannot follow a sequence of " + dtype_name(a.dtype()) + " tensors");
  }
}
}  // namespace

// Each update checks its arguments once, here, then runs rrb_vector's update unchecked.
TensorSequence TensorSequence::push_back(Tensor t) const& {
  check_tensor(t, "push_back");
  return {dtype_, v_.push_back(std::move(t)), nullptr};
}
TensorSequence TensorSequence::push_back(Tensor t) && {
  check_tensor(t, "push_back");
  return {dtype_, std::move(v_).push_back(std::move(t)), nullptr};
}
TensorSequence TensorSequence::pop_back() const& {
  check_index("pop_back", 0);
  return {dtype_, unchecked::pop_back(v_), nullptr};
}
TensorSequence TensorSequence::pop_back() && {
  check_index("pop_back", 0);
  return {dtype_, unchecked::pop_back(std::move(v_)), nullptr};
}
TensorSequence TensorSequence::set(size_type i, Tensor t) const& {
  check_index("set", i);
  check_tensor(t, "set");
  return {dtype_, unchecked::set(v_, i, std::move(t)), nullptr};
}
TensorSequence TensorSequence::set(size_type i, Tensor t) && {
  check_index("set", i);
  check_tensor(t, "set");
  return {dtype_, unchecked::set(std::move(v_), i, std::move(t)), nullptr};
}
TensorSequence TensorSequence::insert(size_type i, Tensor t) const& {
  check_position("insert", i, size());
  check_tensor(t, "insert");
  return {dtype_, unchecked::insert(v_, i, std::move(t)), nullptr};
}
TensorSequence TensorSequence::insert(size_type i, Tensor t) && {
  check_position("insert", i, size());
  check_tensor(t, "insert");
  return {dtype_, unchecked::insert(std::move(v_), i, std::move(t)), nullptr};
}
TensorSequence TensorSequence::erase(size_type i) const& {
  check_index("erase", i);
  return {dtype_, unchecked::erase(v_, i), nullptr};
}
TensorSequence TensorSequence::erase(size_type i) && {
  check_index("erase", i);
  return {dtype_, unchecked::erase(std::move(v_), i), nullptr};
}
TensorSequence TensorSequence::take(size_type n) const& { return {dtype_, v_.take(n), nullptr}; }
TensorSequence TensorSequence::take(size_type n) && { return {dtype_, std::move(v_).take(n), nullptr}; }
TensorSequence TensorSequence::drop(size_type n) const& { return {dtype_, v_.drop(n), nullptr}; }
TensorSequence TensorSequence::drop(size_type n) && { return {dtype_, std::move(v_).drop(n), nullptr}; }
TensorSequence TensorSequence::slice(size_type first, size_type last) const& {
  last = std::min(last, size());
  first = std::min(first, last);
  return {dtype_, v_.take(last).drop(first), nullptr};
}
TensorSequence TensorSequence::slice(size_type first, size_type last) && {
  last = std::min(last, size());
  first = std::min(first, last);
  return {dtype_, std::move(v_).take(last).drop(first), nullptr};
}

TensorSequence operator+(const TensorSequence& a, const TensorSequence& b) {
  check_concat(a, b);
  return {a.dtype_, a.v_ + b.v_, nullptr};
}
TensorSequence operator+(TensorSequence&& a, const TensorSequence& b) {
  check_concat(a, b);
  return {a.dtype_, std::move(a.v_) + b.v_, nullptr};
}
TensorSequence operator+(const TensorSequence& a, TensorSequence&& b) {
  check_concat(a, b);
  return {a.dtype_, a.v_ + std::move(b.v_), nullptr};
}
TensorSequence operator+(TensorSequence&& a, TensorSequence&& b) {
  check_concat(a, b);
  return {a.dtype_, std::move(a.v_) + std::move(b.v_), nullptr};
}

bool equal(const TensorSequence& a, const TensorSequence& b) {
  if (a.dtype() != b.dtype() || a.size() != b.size()) return false;
  auto j = b.begin();
  for (const Tensor& t : a) {
    if (!equal(t, *j)) return false;  // no shortcut for shared tensors: NaN is never equal
    ++j;
  }
  return true;
}

std::string to_string(const TensorSequence& s) {
  std::string r = "seq(" + dtype_name(s.dtype()) + ")[" + std::to_string(s.size()) + "]{";
  std::size_t i = 0;
  for (const Tensor& t : s) {
    if (i == 4) {
      r += ", ...";
      break;
    }
    if (i++) r += ", ";
    r += to_string(t, 4);
  }
  return r + "}";
}

std::ostream& operator<<(std::ostream& os, const TensorSequence& s) { return os << to_string(s); }

}  // namespace tseq
