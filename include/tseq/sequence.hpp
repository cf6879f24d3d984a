#pragma once

/// @file
/// tseq::TensorSequence: an immutable sequence of tensors of one element type, structurally
/// shared between versions (ONNX's seq(tensor(T)) value). The ONNX operators on it (negative
/// positions, position tensors): tseq/ops.hpp.

#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>

#include "tseq/detail/assert.hpp"
#include "tseq/dtype.hpp"
#include "tseq/error.hpp"
#include "tseq/rrb_vector.hpp"
#include "tseq/tensor.hpp"

namespace tseq {

namespace detail {
struct sequence_access;
}  // namespace detail

/// A sequence of tensors that all have the element type dtype() (kept also when empty);
/// shapes may differ. A value type: copying it is one atomic increment, and every update
/// returns a new sequence sharing all untouched structure with the old one. Tensors are
/// never copied, only their handles, so they may be adopted runtime memory on any device, and
/// one sequence may mix devices (docs/embedding.md).
///
/// Updates take 0-based positions and have the costs of rrb_vector's (O(log n); no tensor
/// payload is copied, no allocation beyond the changed tree path). Each has an `&&` overload
/// for a sequence the caller gives up (an executor at a value's last use): nodes it holds
/// alone are edited in place. Errors: IndexError naming the operation, the position and the
/// valid range; TypeError for a tensor of another element type. Every update leaves its
/// input unchanged when it throws (the `&&` forms check their arguments before taking it).
///
/// Lifetime: references to tensors and iterators stay valid while any sequence holding the
/// same nodes lives (at least the sequence they came from), and no `const&` update changes what
/// they refer to; an `&&` update edits the nodes it holds alone in place, so references and
/// iterators taken from the sequence given up may then see new values or dangle (as
/// rrb_vector's rule says).
class TensorSequence {
 public:
  using container_type = rrb_vector<Tensor>;
  using const_iterator = container_type::const_iterator;
  using size_type = std::size_t;

  /// Empty sequence of `dtype`. No allocation. Throws TypeError for an invalid type.
  explicit TensorSequence(DataType dtype);
  /// The given tensors, in order. O(n). Throws TypeError (naming the index) if one has another
  /// element type.
  TensorSequence(DataType dtype, std::span<const Tensor> tensors);
  /// Wraps an existing vector of tensors, sharing it. O(n) type check, no allocation. Throws
  /// TypeError as above.
  TensorSequence(DataType dtype, container_type tensors);

  /// Element type of the tensors. O(1).
  [[nodiscard]] DataType dtype() const noexcept { return dtype_; }
  /// Number of tensors. O(1).
  [[nodiscard]] size_type size() const noexcept { return v_.size(); }
  [[nodiscard]] bool empty() const noexcept { return v_.empty(); }

  /// Tensor i; precondition i < size() (checked in debug builds). O(log n).
  [[nodiscard]] const Tensor& operator[](size_type i) const noexcept { return v_[i]; }
  /// Tensor i. Throws IndexError naming i and the valid range. O(log n).
  [[nodiscard]] const Tensor& at(size_type i) const;
  /// First / last tensor. Throw IndexError when empty. O(log n) / O(1).
  [[nodiscard]] const Tensor& front() const;
  [[nodiscard]] const Tensor& back() const;

  [[nodiscard]] const_iterator begin() const noexcept { return v_.begin(); }
  [[nodiscard]] const_iterator end() const noexcept { return v_.end(); }

  /// The underlying persistent vector of tensor handles (shared, O(1)).
  [[nodiscard]] const container_type& tensors() const noexcept { return v_; }

  /// Appends t. Amortised O(1) in place, O(log n) persistent. TypeError for another dtype.
  [[nodiscard]] TensorSequence push_back(Tensor t) const&;
  [[nodiscard]] TensorSequence push_back(Tensor t) &&;
  /// Removes the last tensor. IndexError when empty.
  [[nodiscard]] TensorSequence pop_back() const&;
  [[nodiscard]] TensorSequence pop_back() &&;
  /// Replaces tensor i with t. IndexError unless i < size(); TypeError for another dtype.
  [[nodiscard]] TensorSequence set(size_type i, Tensor t) const&;
  [[nodiscard]] TensorSequence set(size_type i, Tensor t) &&;
  /// Inserts t before tensor i (i == size() appends). IndexError unless i <= size();
  /// TypeError for another dtype.
  [[nodiscard]] TensorSequence insert(size_type i, Tensor t) const&;
  [[nodiscard]] TensorSequence insert(size_type i, Tensor t) &&;
  /// Removes tensor i. IndexError unless i < size().
  [[nodiscard]] TensorSequence erase(size_type i) const&;
  [[nodiscard]] TensorSequence erase(size_type i) &&;
  /// The first min(n, size()) tensors / all but them (n is clamped, never an error).
  [[nodiscard]] TensorSequence take(size_type n) const&;
  [[nodiscard]] TensorSequence take(size_type n) &&;
  [[nodiscard]] TensorSequence drop(size_type n) const&;
  [[nodiscard]] TensorSequence drop(size_type n) &&;
  /// Tensors [first, last), both clamped to size() (first also to last): Python's s[first:last]
  /// for non-negative bounds. O(log n) whatever the length.
  [[nodiscard]] TensorSequence slice(size_type first, size_type last) const&;
  [[nodiscard]] TensorSequence slice(size_type first, size_type last) &&;

  /// Concatenation: a's tensors, then b's. O(log(n + m)). TypeError if the element types
  /// differ. An operand given by rvalue has its nodes reused where it holds them alone.
  friend TensorSequence operator+(const TensorSequence& a, const TensorSequence& b);
  friend TensorSequence operator+(TensorSequence&& a, const TensorSequence& b);
  friend TensorSequence operator+(const TensorSequence& a, TensorSequence&& b);
  friend TensorSequence operator+(TensorSequence&& a, TensorSequence&& b);

  /// True if both are the same version: O(1) identity, not value equality (see tseq::equal).
  [[nodiscard]] bool identical_to(const TensorSequence& o) const noexcept {
    return dtype_ == o.dtype_ && v_.identical_to(o.v_);
  }

 private:
  friend struct detail::sequence_access;
  // For updates whose tensors are known to have the sequence's dtype.
  TensorSequence(DataType dtype, container_type tensors, std::nullptr_t) noexcept
      : dtype_(dtype), v_(std::move(tensors)) {}

  void check_tensor(const Tensor& t, const char* op) const;
  void check_index(const char* op, size_type i) const;

  DataType dtype_;
  container_type v_;
};

[[nodiscard]] TensorSequence operator+(const TensorSequence& a, const TensorSequence& b);
[[nodiscard]] TensorSequence operator+(TensorSequence&& a, const TensorSequence& b);
[[nodiscard]] TensorSequence operator+(const TensorSequence& a, TensorSequence&& b);
[[nodiscard]] TensorSequence operator+(TensorSequence&& a, TensorSequence&& b);

/// Same element type, same length, and every pair of tensors equal (tseq::equal).
[[nodiscard]] bool equal(const TensorSequence& a, const TensorSequence& b);

/// "seq(float)[3]{float[2]{...}, ...}" for diagnostics.
[[nodiscard]] std::string to_string(const TensorSequence& s);
std::ostream& operator<<(std::ostream& os, const TensorSequence& s);

namespace detail {
// tseq::ops's access: updates after the operator has checked (and reported in ONNX terms)
// the position and the tensor's type, so that each is checked once.
struct sequence_access {
  static TensorSequence make(DataType dtype, TensorSequence::container_type v) noexcept {
    return {dtype, std::move(v), nullptr};
  }
  template <class S>
  static TensorSequence insert(S&& s, std::size_t i, const Tensor& t) {
    TSEQ_ASSERT(t.dtype() == s.dtype_, "sequence_access::insert: unchecked element type");
    return {s.dtype_, rrb_unchecked::insert(std::forward<S>(s).v_, i, t), nullptr};
  }
  template <class S>
  static TensorSequence erase(S&& s, std::size_t i) {
    return {s.dtype_, rrb_unchecked::erase(std::forward<S>(s).v_, i), nullptr};
  }
};
}  // namespace detail

}  // namespace tseq
