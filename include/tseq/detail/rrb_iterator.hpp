#pragma once

// The random-access iterator of tseq::rrb_vector (rrb_vector<T, Bits, LBits>::const_iterator).

#include <compare>
#include <cstddef>
#include <iterator>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/rrb_state.hpp"
#include "tseq/detail/rrb_tree.hpp"

namespace tseq {
template <class T, unsigned Bits = 5, unsigned LBits = detail::default_leaf_bits<T>(Bits)>
class rrb_vector;
}  // namespace tseq

namespace tseq::detail {

// Caches the current leaf's elements [first_, last_) and that leaf's parent, so that a step
// is O(1) and moving to the next leaf reads one slot of the parent; a jump out of the parent
// costs one O(log n) descent. Holds raw pointers into the vector's nodes: valid while a
// vector holding those nodes lives.
template <class T, unsigned Bits, unsigned LBits>
class rrb_iterator {
  using tree = rrb_tree<T, Bits, LBits>;
  using view = typename rrb_state_ops<T, Bits, LBits>::view;
  using size_type = std::size_t;

 public:
  using iterator_category = std::random_access_iterator_tag;
  using iterator_concept = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = const T&;

  rrb_iterator() noexcept = default;

  reference operator*() const noexcept {
    TSEQ_ASSERT(i_ >= first_ && i_ < last_, "rrb_vector iterator dereferenced out of range");
    return base_[i_ - first_];
  }
  pointer operator->() const noexcept { return base_ + (i_ - first_); }
  reference operator[](difference_type d) const noexcept { return *(*this + d); }

  rrb_iterator& operator++() noexcept {
    ++i_;
    if (i_ >= last_) locate();
    return *this;
  }
  rrb_iterator operator++(int) noexcept {
    rrb_iterator t = *this;
    ++*this;
    return t;
  }
  rrb_iterator& operator--() noexcept {
    --i_;
    if (i_ < first_) locate();
    return *this;
  }
  rrb_iterator operator--(int) noexcept {
    rrb_iterator t = *this;
    --*this;
    return t;
  }
  rrb_iterator& operator+=(difference_type d) noexcept {
    i_ = static_cast<size_type>(static_cast<difference_type>(i_) + d);
    if (i_ < first_ || i_ >= last_) locate();
    return *this;
  }
  rrb_iterator& operator-=(difference_type d) noexcept { return *this += -d; }
  friend rrb_iterator operator+(rrb_iterator it, difference_type d) noexcept { return it += d; }
  friend rrb_iterator operator+(difference_type d, rrb_iterator it) noexcept { return it += d; }
  friend rrb_iterator operator-(rrb_iterator it, difference_type d) noexcept { return it -= d; }
  friend difference_type operator-(const rrb_iterator& a, const rrb_iterator& b) noexcept {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  friend bool operator==(const rrb_iterator& a, const rrb_iterator& b) noexcept { return a.i_ == b.i_; }
  friend auto operator<=>(const rrb_iterator& a, const rrb_iterator& b) noexcept { return a.i_ <=> b.i_; }

  /// Position of the iterator in its vector.
  [[nodiscard]] size_type index() const noexcept { return i_; }

 private:
  friend class rrb_vector<T, Bits, LBits>;
  view s_;
  size_type i_ = 0;
  const T* base_ = nullptr;  // elements [first_, last_) of the current leaf
  size_type first_ = 0;
  size_type last_ = 0;
  const typename tree::inner_t* parent_ = nullptr;  // parent of the current tree leaf
  size_type pfirst_ = 0;                            // index of parent_'s first element

  rrb_iterator(view s, size_type i) noexcept : s_(s), i_(i) { locate(); }

  void locate() noexcept {
    if (i_ >= s_.size) {
      first_ = last_ = i_;  // past the end (or before the start after --): nothing cached
      return;
    }
    const size_type ts = s_.tree_size();
    const typename tree::leaf_t* l = nullptr;
    if (i_ >= ts) {
      l = tree::as_leaf(s_.tail);
      first_ = ts;
    } else if (s_.height == 0) {
      l = tree::as_leaf(s_.root);
      first_ = 0;
    } else {
      if (parent_ == nullptr || i_ < pfirst_ || i_ - pfirst_ >= parent_->sizes()[parent_->count - 1]) {
        size_type j = i_;
        const typename tree::node_t* n = s_.root;
        for (unsigned h = s_.height; h > 1; --h) {
          const auto* in = tree::as_inner(n);
          n = in->child()[tree::child_index(in, h, j)];
        }
        parent_ = tree::as_inner(n);
        pfirst_ = i_ - j;
      }
      size_type j = i_ - pfirst_;
      l = tree::as_leaf(parent_->child()[tree::child_index(parent_, 1, j)]);
      first_ = i_ - j;
    }
    base_ = l->data();
    last_ = first_ + l->count;
  }
};

}  // namespace tseq::detail
