#pragma once

/// @file
/// tseq::rrb_vector: a persistent (immutable, structurally shared) sequence with O(log n)
/// index, update, insert, erase, slicing and concatenation. See docs/design.md.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/intrusive_ptr.hpp>

#include "tseq/detail/rrb_tree.hpp"

namespace tseq {

/// An immutable sequence of T stored in a relaxed radix balanced tree of branching 2^Bits.
///
/// Every update returns a new version and leaves `*this` unchanged; versions share all nodes
/// the update did not touch. Copying a vector is one atomic reference-count increment. Each
/// update has an `&&` overload, for a vector the caller gives up: it edits in place every node
/// that vector holds alone and allocates only where it must.
///
/// Cost (n = size(), B = 2^Bits): index O(log n); set, insert, erase, take, drop, concatenation
/// O(B log n) time and O(log n) node allocations; push_back/pop_back amortised O(B) (O(1) when
/// in place). Versions may be shared between threads: reference counts are atomic, nodes are
/// never changed once shared.
///
/// Exception safety: `const&` updates give the strong guarantee. If T's copy/move or an
/// allocation throws inside an `&&` update, the moved-from vector is left empty and nothing
/// leaks. Argument errors are detected before anything is moved.
template <class T, unsigned Bits = 5>
class rrb_vector {
  using tree = detail::rrb_tree<T, Bits>;
  using ref = typename tree::ref;

  // The whole value; rrb_vector holds one counted reference to it.
  struct state {
    ref root;              // tree of all elements but the tail's (null when none)
    ref tail;              // last 1..B elements (null iff the vector is empty)
    std::size_t size = 0;  // elements in tree + tail
    unsigned height = 0;   // height of root: 0 when it is a leaf

    std::size_t tree_size() const noexcept { return size - (tail ? tail->count : 0); }
  };

  using root_t = detail::root_node<T, Bits>;
  using holder_ptr = ref;  // null (empty), a leaf (at most B elements) or a root_t

  // Raw pointers to the parts of a value, for reading.
  struct view {
    const typename tree::node_t* root = nullptr;
    const typename tree::node_t* tail = nullptr;
    std::size_t size = 0;
    unsigned height = 0;

    std::size_t tree_size() const noexcept { return size - (tail ? tail->count : 0); }
  };

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using const_reference = const T&;
  using reference = const T&;

  /// Number of children per inner node and elements per leaf.
  static constexpr size_type branching = size_type{1} << Bits;
  /// Minimum entries of a node that is neither the root nor on the rightmost path.
  static constexpr size_type min_fill = branching / 2;

  class const_iterator;
  using iterator = const_iterator;
  class builder;

  /// Empty vector. No allocation.
  rrb_vector() noexcept = default;

  /// Copies the elements of `init`. O(n).
  rrb_vector(std::initializer_list<T> init) : rrb_vector(init.begin(), init.end()) {}

  /// Copies the elements of [first, last). O(n).
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  rrb_vector(It first, It last) : rrb_vector(finish(build(first, last), nullptr)) {}

  /// Number of elements. O(1).
  size_type size() const noexcept {
    if (!h_) return 0;
    return h_->is_leaf ? h_->count : static_cast<const root_t*>(h_.get())->size;
  }
  /// True when size() == 0. O(1).
  bool empty() const noexcept { return size() == 0; }
  /// Largest size a vector can have.
  static constexpr size_type max_size() noexcept { return std::numeric_limits<difference_type>::max() / sizeof(T); }

  /// Element i; precondition i < size(). O(log n), no allocation, no throw.
  const T& operator[](size_type i) const noexcept { return lookup(get_view(), i); }

  /// Element i. O(log n). Throws std::out_of_range (naming i and size()) if i >= size().
  const T& at(size_type i) const {
    check_index("at", i, size());
    return lookup(get_view(), i);
  }

  /// First element. Throws std::out_of_range when empty. O(log n).
  const T& front() const {
    check_index("front", 0, size());
    return lookup(get_view(), 0);
  }

  /// Last element. Throws std::out_of_range when empty. O(1).
  const T& back() const {
    check_index("back", 0, size());
    const auto* t = tree::as_leaf(get_view().tail);
    return t->data()[t->count - 1];
  }

  /// Iterators over the elements (random access; valid while this vector lives). O(log n) to
  /// create, O(1) amortised per step.
  const_iterator begin() const noexcept { return const_iterator(get_view(), 0); }
  const_iterator end() const noexcept { return const_iterator(get_view(), size()); }
  /// Reverse iterators.
  std::reverse_iterator<const_iterator> rbegin() const noexcept { return std::reverse_iterator<const_iterator>(end()); }
  std::reverse_iterator<const_iterator> rend() const noexcept { return std::reverse_iterator<const_iterator>(begin()); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }

  /// Calls f(const T* first, const T* last) for each contiguous run of elements, in order.
  /// O(n); no allocation.
  template <class F>
  void for_each_chunk(F&& f) const {
    const view v = get_view();
    if (v.root) tree::for_each_leaf(v.root, v.height, f);
    if (v.tail) {
      const auto* t = tree::as_leaf(v.tail);
      f(t->data(), t->data() + t->count);
    }
  }

  /// Appends v. Amortised O(1) in place; O(B) + amortised O(log n) persistent.
  rrb_vector push_back(T v) const& {
    if (is_small() && h_->count < tree::B) {
      const size_type n = h_->count;
      return small_copy({seg(0, n), {&v, &v + 1, true}});
    }
    return finish(push_back_impl(copy_state(), std::move(v)), nullptr);
  }
  /// In-place form of push_back (see class notes).
  rrb_vector push_back(T v) && {
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(push_back_impl(std::move(s), std::move(v)), std::move(h));
  }

  /// Removes the last element. Throws std::out_of_range when empty. Amortised O(log n).
  rrb_vector pop_back() const& {
    check_index("pop_back", 0, size());
    if (is_small()) return small_copy({seg(0, h_->count - 1u)});
    return finish(pop_back_impl(copy_state()), nullptr);
  }
  /// In-place form of pop_back (see class notes).
  rrb_vector pop_back() && {
    check_index("pop_back", 0, size());
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(pop_back_impl(std::move(s)), std::move(h));
  }

  /// Replaces element i with v. Throws std::out_of_range if i >= size(). O(log n); copies one
  /// leaf and the inner nodes above it.
  rrb_vector set(size_type i, T v) const& {
    check_index("set", i, size());
    if (is_small()) return small_copy({seg(0, i), {&v, &v + 1, true}, seg(i + 1, h_->count)});
    return finish(set_impl(copy_state(), i, v), nullptr);
  }
  /// In-place form (see class notes).
  rrb_vector set(size_type i, T v) && {
    check_index("set", i, size());
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(set_impl(std::move(s), i, v), std::move(h));
  }

  /// Inserts v before element i (i == size() appends). Throws std::out_of_range if
  /// i > size(). O(B log n); copies at most two leaves and the inner nodes above them.
  rrb_vector insert(size_type i, T v) const& {
    check_position("insert", i, size());
    if (is_small() && h_->count < tree::B) {
      return small_copy({seg(0, i), {&v, &v + 1, true}, seg(i, h_->count)});
    }
    return finish(insert_impl(copy_state(), i, v), nullptr);
  }
  /// In-place form (see class notes).
  rrb_vector insert(size_type i, T v) && {
    check_position("insert", i, size());
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(insert_impl(std::move(s), i, v), std::move(h));
  }

  /// Removes element i. Throws std::out_of_range if i >= size(). O(B log n); copies the leaf
  /// holding i (and, when it becomes under-full, one sibling) and the inner nodes above it.
  rrb_vector erase(size_type i) const& {
    check_index("erase", i, size());
    if (is_small()) return small_copy({seg(0, i), seg(i + 1, h_->count)});
    return finish(erase_impl(copy_state(), i), nullptr);
  }
  /// In-place form (see class notes).
  rrb_vector erase(size_type i) && {
    check_index("erase", i, size());
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(erase_impl(std::move(s), i), std::move(h));
  }

  /// Removes elements [first, last). Throws std::out_of_range unless
  /// first <= last <= size(). O(B log n) whatever last - first is.
  rrb_vector erase(size_type first, size_type last) const& {
    check_range(first, last);
    return finish(erase_range_impl(copy_state(), first, last), nullptr);
  }
  /// In-place form (see class notes).
  rrb_vector erase(size_type first, size_type last) && {
    check_range(first, last);
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(erase_range_impl(std::move(s), first, last), std::move(h));
  }

  /// The first min(n, size()) elements (n is clamped, never an error). O(B log n).
  rrb_vector take(size_type n) const& {
    if (n >= size()) return *this;
    if (is_small()) return small_copy({seg(0, n)});
    return finish(take_impl(copy_state(), n), nullptr);
  }
  /// In-place form (see class notes).
  rrb_vector take(size_type n) && {
    if (n >= size()) return std::move(*this);
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(take_impl(std::move(s), n), std::move(h));
  }

  /// All but the first min(n, size()) elements (n is clamped, never an error). O(B log n).
  rrb_vector drop(size_type n) const& {
    if (n == 0) return *this;
    if (is_small()) return small_copy({seg(std::min<size_type>(n, size()), size())});
    return finish(drop_impl(copy_state(), n), nullptr);
  }
  /// In-place form (see class notes).
  rrb_vector drop(size_type n) && {
    if (n == 0) return std::move(*this);
    holder_ptr h = std::move(h_);
    state s = steal_state(h);
    return finish(drop_impl(std::move(s), n), std::move(h));
  }

  /// Concatenation. O(B log(n + m)). Throws std::length_error if the sizes add up to more
  /// than max_size().
  friend rrb_vector operator+(const rrb_vector& a, const rrb_vector& b) {
    return finish(concat_impl(a.copy_state(), b.copy_state()), nullptr);
  }
  /// In-place forms: an operand given by rvalue has its nodes reused where it holds them alone.
  friend rrb_vector operator+(rrb_vector&& a, const rrb_vector& b) {
    if (&a == &b) return std::as_const(a) + b;  // std::move(v) + v
    check_concat(a.size(), b.size());
    holder_ptr h = std::move(a.h_);
    state sa = steal_state(h);
    return finish(concat_impl(std::move(sa), b.copy_state()), std::move(h));
  }
  friend rrb_vector operator+(const rrb_vector& a, rrb_vector&& b) {
    if (&a == &b) return a + std::as_const(b);
    check_concat(a.size(), b.size());
    holder_ptr h = std::move(b.h_);
    state sb = steal_state(h);
    return finish(concat_impl(a.copy_state(), std::move(sb)), std::move(h));
  }
  friend rrb_vector operator+(rrb_vector&& a, rrb_vector&& b) {
    if (&a == &b) return std::as_const(a) + std::as_const(b);
    check_concat(a.size(), b.size());
    holder_ptr h = std::move(a.h_);
    holder_ptr hb = std::move(b.h_);
    state sa = steal_state(h);
    state sb = steal_state(hb);
    return finish(concat_impl(std::move(sa), std::move(sb)), std::move(h));
  }

  /// True when both are the same version (or both empty). O(1). Equal values built separately
  /// are not the same version.
  bool same_root(const rrb_vector& o) const noexcept { return h_ == o.h_; }

  /// Height of the tree below the tail (0: at most one leaf). O(1).
  unsigned height() const noexcept {
    const view v = get_view();
    return v.root ? v.height + 1 : 0;
  }

  /// The greatest height() the invariants allow for a vector of this size: the tree part of n
  /// elements has height h + 1 only if n > m^h (m = min_fill). O(log n).
  static unsigned height_bound(size_type n) noexcept {
    if (n == 0) return 0;
    unsigned h = 0;
    size_type p = min_fill;  // m^(h+1)
    while (p < n) {
      ++h;
      if (p > std::numeric_limits<size_type>::max() / min_fill) break;
      p *= min_fill;
    }
    return h + 1;
  }

  /// Verifies every structural invariant (docs/design.md). O(n). Throws std::logic_error
  /// describing the first broken one.
  void check_invariants() const {
    if (!h_) return;
    const view s = get_view();
    if (s.size == 0) tree::broken("stored empty state");
    if (!s.tail || !s.tail->is_leaf || s.tail->count == 0) tree::broken("tail missing or empty");
    if (!h_->is_leaf && !s.root) tree::broken("root node without a tree");
    if (s.tail->count > tree::B) tree::broken("tail over-full");
    const std::size_t ts = s.root ? tree::check(s.root, s.height, true, true, "root") : 0;
    if (ts + s.tail->count != s.size) {
      tree::broken("size " + std::to_string(s.size) + " != tree " + std::to_string(ts) + " + tail " +
                   std::to_string(s.tail->count));
    }
    if (height() > height_bound(ts)) {
      tree::broken("height " + std::to_string(height()) + " exceeds the bound " + std::to_string(height_bound(ts)) +
                   " for " + std::to_string(ts) + " elements");
    }
  }

  /// Element-wise equality. O(1) for the same version, else O(n).
  friend bool operator==(const rrb_vector& a, const rrb_vector& b) {
    if (a.size() != b.size()) return false;
    if (a.h_ == b.h_) return true;
    return std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  holder_ptr h_;

  rrb_vector(holder_ptr h) noexcept : h_(std::move(h)) {}

  // A vector of at most B elements is a bare leaf; its const& updates build the new leaf
  // directly, without taking a reference to the old one.
  bool is_small() const noexcept { return h_ && h_->is_leaf; }
  typename tree::seg seg(size_type from, size_type to) const noexcept {
    return tree::seg_of(h_.get(), from, to, false);
  }
  static rrb_vector small_copy(std::initializer_list<typename tree::seg> segs) {
    ref none;
    ref leaf = tree::build_leaves(segs.begin(), segs.size(), tree::B, none);
    if (leaf->count == 0) return rrb_vector();
    return rrb_vector(std::move(leaf));
  }

  view get_view() const noexcept {
    if (!h_) return {};
    if (h_->is_leaf) return {nullptr, h_.get(), h_->count, 0};
    const auto* r = static_cast<const root_t*>(h_.get());
    return {r->root.get(), r->tail.get(), r->size, r->height};
  }

  state copy_state() const {
    if (!h_) return {};
    if (h_->is_leaf) return {nullptr, h_, h_->count, 0};
    const auto* r = static_cast<const root_t*>(h_.get());
    return {r->root, r->tail, r->size, r->height};
  }

  // The value held by h, moved out of it where h holds the only reference. h keeps a root
  // node that finish() may reuse, and is null otherwise.
  static state steal_state(holder_ptr& h) {
    if (!h) return {};
    if (h->is_leaf) {
      state s;
      s.size = h->count;
      s.tail = std::move(h);
      return s;
    }
    auto* r = static_cast<root_t*>(h.get());
    if (tree::editable(r)) return {std::move(r->root), std::move(r->tail), r->size, r->height};
    state s{r->root, r->tail, r->size, r->height};
    h = nullptr;
    return s;
  }

  static rrb_vector finish(state s, holder_ptr reuse) {
    if (s.size == 0) return rrb_vector();
    if (!s.root) return rrb_vector(std::move(s.tail));  // a small vector is just its leaf
    if (!reuse || reuse->is_leaf || !tree::editable(reuse.get())) {
      reuse = holder_ptr(detail::allocate_node<root_t>(), false);
    }
    auto* r = static_cast<root_t*>(reuse.get());
    r->root = std::move(s.root);
    r->tail = std::move(s.tail);
    r->size = s.size;
    r->height = s.height;
    return rrb_vector(std::move(reuse));
  }

  static const T& lookup(const view& s, size_type i) noexcept {
    const size_type ts = s.tree_size();
    if (i >= ts) return tree::as_leaf(s.tail)->data()[i - ts];
    return tree::find_leaf(s.root, s.height, i)->data()[i];
  }

  [[noreturn]] static void throw_range(const char* op, const std::string& what) {
    throw std::out_of_range(std::string("rrb_vector::") + op + ": " + what);
  }
  static void check_index(const char* op, size_type i, size_type n) {
    if (i >= n) {
      throw_range(op, n == 0 ? "index " + std::to_string(i) + " on an empty vector"
                             : "index " + std::to_string(i) + " is out of range [0, " + std::to_string(n - 1) +
                                   "] for a vector of " + std::to_string(n) + " elements");
    }
  }
  static void check_position(const char* op, size_type i, size_type n) {
    if (i > n) {
      throw_range(op, "position " + std::to_string(i) + " is out of range [0, " + std::to_string(n) +
                          "] for a vector of " + std::to_string(n) + " elements");
    }
  }
  void check_range(size_type first, size_type last) const {
    if (first > last || last > size()) {
      throw_range("erase", "range [" + std::to_string(first) + ", " + std::to_string(last) + ") is not within [0, " +
                               std::to_string(size()) + "]");
    }
  }
  static void check_concat(size_type a, size_type b) {
    if (a > max_size() || b > max_size() - a) {
      throw std::length_error("rrb_vector::operator+: " + std::to_string(a) + " + " + std::to_string(b) +
                              " elements exceed max_size() " + std::to_string(max_size()));
    }
  }

  // ---- operations on states (each consumes its state) ------------------------------------------

  // Bulk construction: full leaves, then each level of inner nodes bottom-up (a dense tree);
  // the last 1..B elements become the tail.
  template <class It>
  static state build(It first, It last) {
    state s;
    std::vector<ref> level;
    ref cur;
    for (; first != last; ++first) {
      if (!cur || cur->count == tree::B) {
        if (cur) level.push_back(std::move(cur));
        cur = tree::new_leaf();
      }
      auto* l = tree::as_leaf(cur.get());
      ::new (static_cast<void*>(l->data() + l->count)) T(*first);
      ++l->count;
      ++s.size;
    }
    unsigned h = 0;
    while (level.size() > 1) {
      std::vector<ref> up;
      up.reserve(level.size() / tree::B + 1);
      for (std::size_t i = 0; i < level.size(); i += tree::B) {
        ref n = tree::new_inner();
        auto* in = tree::as_inner(n.get());
        for (std::size_t j = i; j < level.size() && j < i + tree::B; ++j) in->child[in->count++] = level[j].detach();
        tree::refresh(in, h + 1);
        up.push_back(std::move(n));
      }
      level = std::move(up);
      ++h;
    }
    if (!level.empty()) s.root = std::move(level[0]);
    s.height = h;
    s.tail = std::move(cur);
    return s;
  }

  // Moves the tail into the tree.
  static void flush_tail(state& s) {
    if (s.root) {
      s.root = tree::join(std::move(s.root), s.height, std::move(s.tail), 0, s.height);
    } else {
      s.root = std::move(s.tail);
      s.height = 0;
    }
    s.tail = nullptr;
  }

  // Restores "tail non-empty when size > 0" by moving the tree's last leaf into the tail.
  static void refill_tail(state& s) {
    if (s.tail || !s.root) return;
    s.root = tree::pop_leaf(std::move(s.root), s.height, s.tail);
    if (s.root) {
      s.root = tree::collapse(std::move(s.root), s.height);
    } else {
      s.height = 0;
    }
  }

  static void set_root(state& s, ref r) {
    s.root = tree::collapse(std::move(r), s.height);
    if (!s.root) s.height = 0;
  }

  static state push_back_impl(state s, T v) {
    if (s.tail && s.tail->count == tree::B) flush_tail(s);
    if (!s.tail) {
      s.tail = tree::new_leaf();
      tree::append(tree::as_leaf(s.tail.get()), std::move(v));
    } else {
      ref none;
      const std::size_t at = s.tail->count;
      s.tail = tree::insert(std::move(s.tail), 0, at, v, true, none);
    }
    ++s.size;
    return s;
  }

  static state pop_back_impl(state s) {
    const std::size_t last = s.tail->count - 1u;
    s.tail = tree::erase(std::move(s.tail), 0, last, true);
    --s.size;
    refill_tail(s);
    return s;
  }

  static state set_impl(state s, size_type i, T& v) {
    const size_type ts = s.tree_size();
    if (i >= ts) {
      s.tail = tree::set(std::move(s.tail), 0, i - ts, v);
    } else {
      s.root = tree::set(std::move(s.root), s.height, i, v);
    }
    return s;
  }

  static state insert_impl(state s, size_type i, T& v) {
    if (i == s.size) return push_back_impl(std::move(s), std::move(v));
    const size_type ts = s.tree_size();
    ref extra;
    if (i >= ts) {
      s.tail = tree::insert(std::move(s.tail), 0, i - ts, v, true, extra);
      if (extra) {  // the tail overflowed: its first B elements join the tree
        flush_tail(s);
        s.tail = std::move(extra);
      }
    } else {
      s.root = tree::insert(std::move(s.root), s.height, i, v, true, extra);
      if (extra) {
        ref root = tree::new_inner();
        auto* in = tree::as_inner(root.get());
        in->child[0] = s.root.detach();
        in->child[1] = extra.detach();
        in->count = 2;
        ++s.height;
        tree::refresh(in, s.height);
        s.root = std::move(root);
      }
    }
    ++s.size;
    return s;
  }

  static state erase_impl(state s, size_type i) {
    const size_type ts = s.tree_size();
    if (i >= ts) {
      s.tail = tree::erase(std::move(s.tail), 0, i - ts, true);
    } else {
      set_root(s, tree::erase(std::move(s.root), s.height, i, true));
    }
    --s.size;
    refill_tail(s);
    return s;
  }

  static state take_impl(state s, size_type n) {
    if (n >= s.size) return s;
    if (n == 0) return {};
    const size_type ts = s.tree_size();
    if (n > ts) {
      s.tail = tree::take(std::move(s.tail), 0, n - ts);
    } else {
      s.tail = nullptr;
      if (n < ts) set_root(s, tree::take(std::move(s.root), s.height, n));
    }
    s.size = n;
    refill_tail(s);
    return s;
  }

  static state drop_impl(state s, size_type n) {
    if (n >= s.size) return {};
    if (n == 0) return s;
    const size_type ts = s.tree_size();
    if (n >= ts) {
      s.root = nullptr;
      s.height = 0;
      if (n > ts) s.tail = tree::drop(std::move(s.tail), 0, n - ts);
    } else {
      set_root(s, tree::drop(std::move(s.root), s.height, n));
      tree::fix_left_spine(s.root.get(), s.height);
      set_root(s, std::move(s.root));
    }
    s.size -= n;
    return s;
  }

  static state erase_range_impl(state s, size_type first, size_type last) {
    if (first == last) return s;
    state right = drop_impl(s, last);  // shares nodes with s: both sides copy what they change
    return concat_impl(take_impl(std::move(s), first), std::move(right));
  }

  static state concat_impl(state a, state b) {
    check_concat(a.size, b.size);
    if (b.size == 0) return a;
    if (a.size == 0) return b;
    if (!b.root && a.tail->count + std::size_t{b.tail->count} <= tree::B) {
      ref none;
      const typename tree::seg segs[2] = {tree::seg_of(a.tail.get(), 0, a.tail->count, tree::editable(a.tail.get())),
                                          tree::seg_of(b.tail.get(), 0, b.tail->count, tree::editable(b.tail.get()))};
      a.tail = tree::build_leaves(segs, 2, tree::B, none);
      a.size += b.size;
      return a;
    }
    flush_tail(a);
    if (b.root) a.root = tree::join(std::move(a.root), a.height, std::move(b.root), b.height, a.height);
    a.tail = std::move(b.tail);
    a.size += b.size;
    return a;
  }
};

/// Random-access iterator over an rrb_vector. Stepping is O(1) amortised (it keeps the
/// current leaf); a jump costs one O(log n) lookup. Valid while the vector it came from lives.
template <class T, unsigned Bits>
class rrb_vector<T, Bits>::const_iterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using iterator_concept = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = const T&;

  const_iterator() noexcept = default;

  reference operator*() const noexcept { return base_[i_ - first_]; }
  pointer operator->() const noexcept { return base_ + (i_ - first_); }
  reference operator[](difference_type d) const noexcept { return *(*this + d); }

  const_iterator& operator++() noexcept {
    ++i_;
    if (i_ >= last_) locate();
    return *this;
  }
  const_iterator operator++(int) noexcept {
    const_iterator t = *this;
    ++*this;
    return t;
  }
  const_iterator& operator--() noexcept {
    --i_;
    if (i_ < first_) locate();
    return *this;
  }
  const_iterator operator--(int) noexcept {
    const_iterator t = *this;
    --*this;
    return t;
  }
  const_iterator& operator+=(difference_type d) noexcept {
    i_ = static_cast<size_type>(static_cast<difference_type>(i_) + d);
    if (i_ < first_ || i_ >= last_) locate();
    return *this;
  }
  const_iterator& operator-=(difference_type d) noexcept { return *this += -d; }
  friend const_iterator operator+(const_iterator it, difference_type d) noexcept { return it += d; }
  friend const_iterator operator+(difference_type d, const_iterator it) noexcept { return it += d; }
  friend const_iterator operator-(const_iterator it, difference_type d) noexcept { return it -= d; }
  friend difference_type operator-(const const_iterator& a, const const_iterator& b) noexcept {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept { return a.i_ == b.i_; }
  friend auto operator<=>(const const_iterator& a, const const_iterator& b) noexcept { return a.i_ <=> b.i_; }

  /// Position of the iterator in its vector.
  size_type index() const noexcept { return i_; }

 private:
  friend class rrb_vector;
  view s_;
  size_type i_ = 0;
  const T* base_ = nullptr;  // elements [first_, last_) of the current leaf
  size_type first_ = 0;
  size_type last_ = 0;
  const typename tree::inner_t* parent_ = nullptr;  // parent of the current tree leaf
  size_type pfirst_ = 0;                            // index of parent_'s first element

  const_iterator(view s, size_type i) noexcept : s_(s), i_(i) { locate(); }

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
      // The parent of the current leaf is kept, so that stepping leaf by leaf costs O(1).
      if (parent_ == nullptr || i_ < pfirst_ || i_ - pfirst_ >= parent_->sizes[parent_->count - 1]) {
        size_type j = i_;
        const typename tree::node_t* n = s_.root;
        for (unsigned h = s_.height; h > 1; --h) {
          const auto* in = tree::as_inner(n);
          n = in->child[tree::child_index(in, h, j)];
        }
        parent_ = tree::as_inner(n);
        pfirst_ = i_ - j;
      }
      size_type j = i_ - pfirst_;
      l = tree::as_leaf(parent_->child[tree::child_index(parent_, 1, j)]);
      first_ = i_ - j;
    }
    base_ = l->data();
    last_ = first_ + l->count;
  }
};

/// Mutable batch construction: push_back many elements in place, then take a persistent
/// vector. Amortised O(1) per element.
template <class T, unsigned Bits>
class rrb_vector<T, Bits>::builder {
 public:
  builder() = default;
  /// Starts from the elements of v (shared until changed).
  explicit builder(const rrb_vector& v) : s_(v.copy_state()) {}

  /// Appends v. Amortised O(1); allocates one leaf per B elements.
  builder& push_back(T v) {
    s_ = push_back_impl(std::move(s_), std::move(v));
    return *this;
  }
  size_type size() const noexcept { return s_.size; }

  /// The elements pushed so far as a vector; the builder keeps them (shared, copy-on-write).
  rrb_vector persistent() const& { return finish(state(s_), nullptr); }
  /// The elements pushed so far; the builder is left empty.
  rrb_vector persistent() && { return finish(std::move(s_), nullptr); }

 private:
  state s_;
};

}  // namespace tseq
