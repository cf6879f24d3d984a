#pragma once

/// @file
/// tseq::TensorSequence: an immutable sequence of tensors of one element type, structurally
/// shared between versions (ONNX's seq(tensor(T)) value).

#include <cstddef>
#include <span>
#include <string>

#include "tseq/error.hpp"
#include "tseq/rrb_vector.hpp"
#include "tseq/tensor.hpp"

namespace tseq {

/// A sequence of tensors that all have the element type elem_type() (kept also when empty);
/// shapes may differ. A value type: copying it is one atomic increment, and every update
/// returns a new sequence sharing all untouched structure with the old one. Tensors are
/// never copied, only their handles, so they may be adopted runtime memory on any device, and
/// one sequence may mix devices (docs/embedding.md).
class TensorSequence {
 public:
  using container_type = rrb_vector<Tensor>;
  using const_iterator = container_type::const_iterator;
  using size_type = std::size_t;

  /// Empty sequence of `elem_type`. No allocation. Throws TypeError for an invalid type.
  explicit TensorSequence(DataType elem_type);
  /// The given tensors, in order. O(n). Throws TypeError (naming the index) if one has another
  /// element type.
  TensorSequence(DataType elem_type, std::span<const Tensor> tensors);
  /// Wraps an existing vector of tensors. O(n) type check. Throws TypeError as above.
  TensorSequence(DataType elem_type, container_type tensors);

  /// Element type of the tensors. O(1).
  DataType elem_type() const noexcept { return elem_type_; }
  /// Number of tensors. O(1).
  size_type size() const noexcept { return v_.size(); }
  bool empty() const noexcept { return v_.empty(); }

  /// Tensor i; precondition i < size(). O(log n).
  const Tensor& operator[](size_type i) const noexcept { return v_[i]; }
  /// Tensor i. Throws IndexError naming i and the valid range. O(log n).
  const Tensor& at(size_type i) const;

  const_iterator begin() const noexcept { return v_.begin(); }
  const_iterator end() const noexcept { return v_.end(); }

  /// The underlying persistent vector of tensor handles.
  const container_type& tensors() const noexcept { return v_; }

  /// Persistent updates (checked element type; 0-based, non-negative positions). For ONNX
  /// semantics with negative positions use tseq::ops. O(log n); no tensor payload is copied.
  TensorSequence push_back(Tensor t) const&;
  TensorSequence push_back(Tensor t) &&;
  TensorSequence insert(size_type i, Tensor t) const&;
  TensorSequence insert(size_type i, Tensor t) &&;
  TensorSequence erase(size_type i) const&;
  TensorSequence erase(size_type i) &&;

  /// True if both are the same version (O(1) structural identity).
  bool same_root(const TensorSequence& o) const noexcept { return elem_type_ == o.elem_type_ && v_.same_root(o.v_); }

 private:
  struct Unchecked {};
  TensorSequence(DataType elem_type, container_type tensors, Unchecked) noexcept
      : elem_type_(elem_type), v_(std::move(tensors)) {}
  friend struct SequenceAccess;

  void check_tensor(const Tensor& t, const char* op) const;

  DataType elem_type_;
  container_type v_;
};

/// Same element type, same length, and every pair of tensors equal (tseq::equal).
bool equal(const TensorSequence& a, const TensorSequence& b);

/// "seq(float)[3]{float[2]{...}, ...}" for diagnostics.
std::string to_string(const TensorSequence& s);
std::ostream& operator<<(std::ostream& os, const TensorSequence& s);

/// For tseq's own operators: builds sequences without re-checking element types.
struct SequenceAccess {
  static TensorSequence make(DataType elem_type, TensorSequence::container_type v) noexcept {
    return TensorSequence(elem_type, std::move(v), TensorSequence::Unchecked{});
  }
  static TensorSequence::container_type&& take(TensorSequence&& s) noexcept { return std::move(s.v_); }
};

}  // namespace tseq
