// TensorSequence: element-type checks around rrb_vector<Tensor>.

#include "tseq/sequence.hpp"

#include <ostream>

namespace tseq {

namespace {
DataType checked(DataType t) { return data_type_from_code(static_cast<std::int32_t>(t), "TensorSequence"); }

void check_all(DataType elem_type, const TensorSequence::container_type& v) {
  std::size_t i = 0;
  for (const Tensor& t : v) {
    if (t.dtype() != elem_type) {
      throw TypeError("TensorSequence: tensor " + std::to_string(i) + " has type " + dtype_name(t.dtype()) +
                      " but the sequence holds " + dtype_name(elem_type) + " tensors");
    }
    ++i;
  }
}
}  // namespace

TensorSequence::TensorSequence(DataType elem_type) : elem_type_(checked(elem_type)) {}

TensorSequence::TensorSequence(DataType elem_type, std::span<const Tensor> tensors)
    : elem_type_(checked(elem_type)), v_(tensors.begin(), tensors.end()) {
  check_all(elem_type_, v_);
}

TensorSequence::TensorSequence(DataType elem_type, container_type tensors)
    : elem_type_(checked(elem_type)), v_(std::move(tensors)) {
  check_all(elem_type_, v_);
}

const Tensor& TensorSequence::at(size_type i) const {
  if (i >= size()) {
    throw IndexError("TensorSequence::at: index " + std::to_string(i) +
                     (empty() ? std::string(" on an empty sequence")
                              : " is out of range [0, " + std::to_string(size() - 1) + "] for a sequence of " +
                                    std::to_string(size()) + " tensors"));
  }
  return v_[i];
}

void TensorSequence::check_tensor(const Tensor& t, const char* op) const {
  if (t.dtype() != elem_type_) {
    throw TypeError(std::string("TensorSequence::") + op + ": a " + dtype_name(t.dtype()) +
                    " tensor cannot join a sequence of " + dtype_name(elem_type_) + " tensors");
  }
}

TensorSequence TensorSequence::push_back(Tensor t) const& {
  check_tensor(t, "push_back");
  return {elem_type_, v_.push_back(std::move(t)), Unchecked{}};
}
TensorSequence TensorSequence::push_back(Tensor t) && {
  check_tensor(t, "push_back");
  return {elem_type_, std::move(v_).push_back(std::move(t)), Unchecked{}};
}

namespace {
void check_position(const char* op, std::size_t i, std::size_t max) {
  if (i > max) {
    throw IndexError(std::string("TensorSequence::") + op + ": position " + std::to_string(i) +
                     " is out of range [0, " + std::to_string(max) + "]");
  }
}
}  // namespace

TensorSequence TensorSequence::insert(size_type i, Tensor t) const& {
  check_tensor(t, "insert");
  check_position("insert", i, size());
  return {elem_type_, v_.insert(i, std::move(t)), Unchecked{}};
}
TensorSequence TensorSequence::insert(size_type i, Tensor t) && {
  check_tensor(t, "insert");
  check_position("insert", i, size());
  return {elem_type_, std::move(v_).insert(i, std::move(t)), Unchecked{}};
}
TensorSequence TensorSequence::erase(size_type i) const& {
  (void)at(i);
  return {elem_type_, v_.erase(i), Unchecked{}};
}
TensorSequence TensorSequence::erase(size_type i) && {
  (void)at(i);
  return {elem_type_, std::move(v_).erase(i), Unchecked{}};
}

bool equal(const TensorSequence& a, const TensorSequence& b) {
  if (a.elem_type() != b.elem_type() || a.size() != b.size()) return false;
  auto j = b.begin();
  for (const Tensor& t : a) {
    if (!equal(t, *j)) return false;  // no shortcut for shared tensors: NaN is never equal
    ++j;
  }
  return true;
}

std::string to_string(const TensorSequence& s) {
  std::string r = "seq(" + dtype_name(s.elem_type()) + ")[" + std::to_string(s.size()) + "]{";
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
