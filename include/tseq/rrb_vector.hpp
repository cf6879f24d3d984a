#pragma once

/// @file
/// tseq::rrb_vector: a persistent (immutable, structurally shared) sequence with O(log n)
/// index, update, insert, erase, slicing and concatenation. Design, invariants and
/// algorithms: docs/design.md; the tree itself lives in tseq/detail/.

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/rrb_iterator.hpp"
#include "tseq/detail/rrb_state.hpp"

namespace tseq {

namespace detail {
struct rrb_unchecked;
}  // namespace detail

/// Node storage of one rrb_vector (rrb_vector::storage()).
struct StorageStats {
  std::size_t bytes = 0;          ///< bytes its nodes' allocations hold (leaves, inner nodes, header)
  std::size_t leaves = 0;         ///< leaves, the tail included
  std::size_t inner_nodes = 0;    ///< inner nodes of the tree
  std::size_t tree_elements = 0;  ///< elements in the tree's leaves (size() less the tail's)
  unsigned levels = 0;            ///< levels() of the tree
};

/// Frees the tree nodes the calling thread keeps for reuse and returns their bytes.
///
/// A freed node of up to 1 KiB (of default alignment) goes to a cache of the thread that frees
/// it, and the next node of its size class allocated on that thread is taken from there
/// instead of from the global operator new. Each thread keeps at most TSEQ_NODE_CACHE_BYTES
/// (default 256 KiB; define it to 0 to turn the cache off; translation units built with another
/// value, or with AddressSanitizer, keep a cache of their own) and frees them when it exits.
/// Call this to give them back sooner, for instance on a worker thread after a large sequence
/// died. Covers all of the thread's caches. O(blocks held); never throws.
inline std::size_t release_node_cache() noexcept { return detail::release_node_cache(); }

/// Bytes of freed tree nodes the calling thread keeps for reuse, in all of its caches (see
/// release_node_cache).
/// O(1); never throws.
[[nodiscard]] inline std::size_t node_cache_bytes() noexcept { return detail::node_cache_held(); }

/// An immutable sequence of T stored in a relaxed radix balanced tree of branching 2^Bits,
/// whose leaves hold up to 2^LBits elements. LBits defaults to Bits for elements of 8 bytes
/// or more and grows by one for each halving of sizeof(T), up to 7 (128 elements): a leaf
/// takes about the bytes of an inner node's child array, as immer's leaves do. `int` leaves
/// hold 64 at the default Bits = 5 (docs/design.md, "Leaf width").
///
/// Every update returns a new version and leaves `*this` unchanged; versions share all nodes
/// the update did not touch. Copying a vector is one atomic reference-count increment. Each
/// update has an `&&` overload, for a vector the caller gives up: it edits in place every node
/// that vector holds alone and allocates only where it must.
///
/// Cost (n = size(), B = 2^Bits, BL = 2^LBits): index O(log n); set, insert, erase, take, drop,
/// concatenation O((B + BL) log n) time and O(log n) node allocations; push_back/pop_back amortised O(BL) (O(1) when
/// in place). Memory: the nodes a persistent update copies are allocated for what they hold
/// (storage() reports the bytes); nodes that grow in place keep room for B (inner) or BL (leaf) entries; freed nodes
/// are kept per thread for reuse, up to a budget (release_node_cache). Versions
/// may be shared between threads: reference counts are atomic, nodes are never changed once
/// shared.
///
/// Lifetime: references, pointers and iterators into a vector point into nodes it may share
/// with other versions. They stay valid while any vector holding those nodes lives (at least
/// while the vector they came from lives), and no `const&` update changes what they refer to.
/// An `&&` update (`std::move(v).set(i, x)`, an executor's last use) edits in place the nodes v
/// holds alone: references, pointers and iterators taken from v may then see the new values or
/// dangle (as for a std::vector being modified). Those taken from another version that shares
/// the nodes are unaffected: shared nodes are never edited.
///
/// Exception safety: `const&` updates give the strong guarantee. If T's copy/move or an
/// allocation throws inside an `&&` update, the moved-from vector is left empty and nothing
/// leaks. Argument errors are detected before anything is moved.
///
/// Debug builds (and TSEQ_ASSERTIONS=1) check operator[]'s precondition and the tree's
/// invariants after every update (tseq/detail/assert.hpp).
template <class T, unsigned Bits, unsigned LBits>
class rrb_vector {
  using ops = detail::rrb_state_ops<T, Bits, LBits>;
  using tree = typename ops::tree;
  using ref = typename ops::ref;
  using state = typename ops::state;

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using const_reference = const T&;
  using reference = const T&;
  /// Random access; stepping is O(1) amortised, a jump one O(log n) lookup.
  using const_iterator = detail::rrb_iterator<T, Bits, LBits>;
  using iterator = const_iterator;
  class builder;

  /// Number of children per inner node.
  static constexpr size_type branching = size_type{1} << Bits;
  /// Number of elements per leaf (at least branching).
  static constexpr size_type leaf_capacity = size_type{1} << LBits;
  /// Minimum entries of an inner node that is neither the root nor on an outer path. A leaf
  /// there holds at least leaf_capacity / 4, and at least leaf_capacity / 2 unless it came
  /// from the seam of a concatenation of two vectors (docs/design.md, I3).
  static constexpr size_type min_fill = branching / 2;

  /// Empty vector. No allocation.
  rrb_vector() noexcept = default;

  /// Copies the elements of `init`. O(n).
  rrb_vector(std::initializer_list<T> init) : rrb_vector(init.begin(), init.end()) {}

  /// Copies the elements of [first, last). O(n); one allocation per BL elements plus the
  /// inner nodes (a dense tree).
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  rrb_vector(It first, It last) : rrb_vector(ops::finish(ops::build(first, last), nullptr)) {}

  /// Number of elements. O(1).
  [[nodiscard]] size_type size() const noexcept { return ops::size_of(h_.get()); }
  /// True when size() == 0. O(1).
  [[nodiscard]] bool empty() const noexcept { return !h_; }
  /// Largest size a vector can have.
  [[nodiscard]] static constexpr size_type max_size() noexcept { return ops::max_size; }

  /// Element i; precondition i < size() (checked in debug builds). O(log n), no allocation,
  /// no throw. The reference lives as long as a vector holding its leaf (see class notes).
  [[nodiscard]] const T& operator[](size_type i) const noexcept { return ops::lookup(h_.get(), i); }

  /// Element i. O(log n). Throws tseq::IndexError (naming i and size()) if i >= size().
  [[nodiscard]] const T& at(size_type i) const {
    detail::check_index("at", i, size());
    return (*this)[i];
  }

  /// First element. Throws tseq::IndexError when empty. O(log n).
  [[nodiscard]] const T& front() const {
    detail::check_index("front", 0, size());
    return (*this)[0];
  }

  /// Last element. Throws tseq::IndexError when empty. O(1).
  [[nodiscard]] const T& back() const {
    detail::check_index("back", 0, size());
    const auto* t = tree::as_leaf(ops::view_of(h_.get()).tail);
    return t->data()[t->count - 1];
  }

  /// Iterators over the elements (random access; valid while this vector lives). O(log n) to
  /// create, O(1) amortised per step.
  [[nodiscard]] const_iterator begin() const noexcept { return const_iterator(ops::view_of(h_.get()), 0); }
  [[nodiscard]] const_iterator end() const noexcept { return const_iterator(ops::view_of(h_.get()), size()); }
  /// Reverse iterators.
  [[nodiscard]] std::reverse_iterator<const_iterator> rbegin() const noexcept {
    return std::reverse_iterator<const_iterator>(end());
  }
  [[nodiscard]] std::reverse_iterator<const_iterator> rend() const noexcept {
    return std::reverse_iterator<const_iterator>(begin());
  }
  [[nodiscard]] const_iterator cbegin() const noexcept { return begin(); }
  [[nodiscard]] const_iterator cend() const noexcept { return end(); }

  /// Calls f(const T* first, const T* last) for each contiguous run of elements, in order.
  /// O(n); no allocation.
  template <class F>
  void for_each_chunk(F&& f) const {
    const auto v = ops::view_of(h_.get());
    if (v.root) tree::for_each_leaf(v.root, v.height, f, nullptr, true, v.size > tree::cached_walk_bytes / sizeof(T));
    if (v.tail) {
      const auto* t = tree::as_leaf(v.tail);
      f(t->data(), t->data() + t->count);
    }
  }

  /// Appends v. Amortised O(1) in place; O(BL) + amortised O(log n) persistent.
  [[nodiscard]] rrb_vector push_back(T v) const& {
    if (is_small() && h_->count < tree::BL) return small({seg(0, h_->count), {&v, &v + 1, true}});
    return apply([&](state s) { return ops::push_back(std::move(s), std::move(v)); });
  }
  /// In-place form of push_back (see class notes).
  [[nodiscard]] TSEQ_ALWAYS_INLINE rrb_vector push_back(T v) && {
    // The common case (the tail ours with room) stays small enough to inline into the
    // caller's loop; the rest is out of line (inlined together, a loop of int push_backs
    // called one 0x90-byte frame per element: docs/decisions.md, "Look-ups").
    if constexpr (std::is_nothrow_move_constructible_v<T>) {
      if (ops::append_in_place(h_, v)) return std::move(*this);
    } else {
      try {
        if (ops::append_in_place(h_, v)) return std::move(*this);
      } catch (...) {
        h_ = nullptr;  // as every && update that throws: the moved-from vector is left empty
        throw;
      }
    }
    return std::move(*this).push_back_general(v);
  }

  /// Removes the last element. Throws tseq::IndexError when empty. Amortised O(log n).
  [[nodiscard]] rrb_vector pop_back() const& {
    detail::check_index("pop_back", 0, size());
    return pop_back_unchecked();
  }
  /// In-place form of pop_back (see class notes).
  [[nodiscard]] rrb_vector pop_back() && {
    detail::check_index("pop_back", 0, size());
    return std::move(*this).pop_back_unchecked();
  }

  /// Replaces element i with v. Throws tseq::IndexError if i >= size(). O(log n); copies one
  /// leaf and the inner nodes above it.
  [[nodiscard]] rrb_vector set(size_type i, T v) const& {
    detail::check_index("set", i, size());
    return set_unchecked(i, v);
  }
  /// In-place form (see class notes).
  [[nodiscard]] rrb_vector set(size_type i, T v) && {
    detail::check_index("set", i, size());
    return std::move(*this).set_unchecked(i, v);
  }

  /// Inserts v before element i (i == size() appends). Throws tseq::IndexError if
  /// i > size(). O(B log n); copies the leaf holding i (or, when it is full, it and up to six
  /// neighbours it spreads into, or its two halves) and the inner nodes above. Exception: on
  /// a vector of at most B * BL + BL elements whose tree is one leaf parent (or two levels
  /// that fit in one) and whose elements are trivially copyable and no larger than a
  /// pointer, an update that copies the root (the const& form, or && on a vector sharing it)
  /// lays the leaves from i's to the end out again, full, with the tail (up to B * BL + BL
  /// elements, by memcpy, and B + 3 allocations), so that a look-up stays a radix descent
  /// (docs/design.md, "Packed roots"). In a larger vector of such elements the same update
  /// lays out the leaf parent holding i from i's leaf on (up to B * BL elements, by memcpy,
  /// and B + levels() allocations), unless it would hold fewer than B / 2 or more than B
  /// leaves ("Packed leaf parents").
  [[nodiscard]] rrb_vector insert(size_type i, T v) const& {
    detail::check_position("insert", i, size());
    return insert_unchecked(i, v);
  }
  /// In-place form (see class notes).
  [[nodiscard]] rrb_vector insert(size_type i, T v) && {
    detail::check_position("insert", i, size());
    return std::move(*this).insert_unchecked(i, v);
  }

  /// Removes element i. Throws tseq::IndexError if i >= size(). O(B log n); copies the leaf
  /// holding i (and, when it becomes under-full, one sibling) and the inner nodes above it;
  /// packed roots and leaf parents as for insert.
  [[nodiscard]] rrb_vector erase(size_type i) const& {
    detail::check_index("erase", i, size());
    return erase_unchecked(i);
  }
  /// In-place form (see class notes).
  [[nodiscard]] rrb_vector erase(size_type i) && {
    detail::check_index("erase", i, size());
    return std::move(*this).erase_unchecked(i);
  }

  /// Removes elements [first, last). Throws tseq::IndexError unless
  /// first <= last <= size(). O(B log n) whatever last - first is.
  [[nodiscard]] rrb_vector erase(size_type first, size_type last) const& {
    detail::check_range(first, last, size());
    return apply([&](state s) { return ops::erase_range(std::move(s), first, last); });
  }
  /// In-place form (see class notes).
  [[nodiscard]] rrb_vector erase(size_type first, size_type last) && {
    detail::check_range(first, last, size());
    return std::move(*this).apply([&](state s) { return ops::erase_range(std::move(s), first, last); });
  }

  /// The first min(n, size()) elements (n is clamped, never an error). O(B log n).
  [[nodiscard]] rrb_vector take(size_type n) const& {
    if (n >= size()) return *this;
    if (is_small()) return small({seg(0, n)});
    if (n == 0) return {};
    return rrb_vector(ops::finish(ops::take_shared(header(), n), nullptr));
  }
  /// In-place form (see class notes).
  [[nodiscard]] rrb_vector take(size_type n) && {
    if (n >= size()) return std::move(*this);
    return std::move(*this).apply([&](state s) { return ops::take(std::move(s), n); });
  }

  /// All but the first min(n, size()) elements (n is clamped, never an error). O(B log n).
  [[nodiscard]] rrb_vector drop(size_type n) const& {
    if (n == 0) return *this;
    if (is_small()) return small({seg(n < size() ? n : size(), size())});
    if (n >= size()) return {};
    return rrb_vector(ops::finish(ops::drop_shared(header(), n), nullptr));
  }
  /// In-place form (see class notes).
  [[nodiscard]] rrb_vector drop(size_type n) && {
    if (n == 0) return std::move(*this);
    return std::move(*this).apply([&](state s) { return ops::drop(std::move(s), n); });
  }

  /// Concatenation. O(B log(n + m)). Throws tseq::LengthError if the sizes add up to more
  /// than max_size().
  [[nodiscard]] friend rrb_vector operator+(const rrb_vector& a, const rrb_vector& b) {
    if (a.is_small() && b.is_small() && a.h_->count + std::size_t{b.h_->count} <= tree::BL) {
      return small({a.seg(0, a.h_->count), b.seg(0, b.h_->count)});  // one new leaf, no reference taken
    }
    if (!a.h_) return b;
    if (!b.h_) return a;
    return a.apply([&](state s) { return ops::concat(std::move(s), ops::copy_of(b.h_)); });
  }
  /// In-place forms: an operand given by rvalue has its nodes reused where it holds them alone.
  [[nodiscard]] friend rrb_vector operator+(rrb_vector&& a, const rrb_vector& b) {
    if (&a == &b) return std::as_const(a) + b;  // std::move(v) + v
    detail::check_concat(a.size(), b.size(), max_size());
    return std::move(a).apply([&](state s) { return ops::concat(std::move(s), ops::copy_of(b.h_)); });
  }
  [[nodiscard]] friend rrb_vector operator+(const rrb_vector& a, rrb_vector&& b) {
    if (&a == &b) return a + std::as_const(b);
    detail::check_concat(a.size(), b.size(), max_size());
    return std::move(b).apply([&](state s) { return ops::concat(ops::copy_of(a.h_), std::move(s)); });
  }
  [[nodiscard]] friend rrb_vector operator+(rrb_vector&& a, rrb_vector&& b) {
    if (&a == &b) return std::as_const(a) + std::as_const(b);
    detail::check_concat(a.size(), b.size(), max_size());
    ref hb = std::move(b.h_);
    state sb = ops::steal(hb);
    return std::move(a).apply([&](state s) { return ops::concat(std::move(s), std::move(sb)); });
  }

  /// True when both are the same version (or both empty): O(1) identity, not value equality
  /// (equal values built separately are not identical; use ==).
  [[nodiscard]] bool identical_to(const rrb_vector& o) const noexcept { return h_ == o.h_; }

  /// Levels of nodes in the tree below the tail: 0 when every element is in the tail,
  /// else the root's height (docs/design.md, leaves at height 0) plus 1. O(1).
  [[nodiscard]] unsigned levels() const noexcept {
    const auto v = ops::view_of(h_.get());
    return v.root ? v.height + 1 : 0;
  }

  /// The greatest levels() the invariants allow for a tree part of n elements: h + 1 levels
  /// only if n > 1 (h = 1) or n > m^(h-2) * u (h >= 2), with m = min_fill and
  /// u = min(m, leaf_capacity / 4): for leaf_capacity >= 2 * branching (elements of half a
  /// pointer or less) n > m^(h-1) (docs/design.md, height bound). O(log n).
  [[nodiscard]] static unsigned levels_bound(size_type n) noexcept { return ops::levels_bound(n); }

  /// What the nodes of this vector occupy (shared nodes counted in full): see StorageStats.
  /// O(n / B): reads the header of every node, never an element.
  [[nodiscard]] StorageStats storage() const noexcept {
    StorageStats st;
    if (!h_) return st;
    const auto v = ops::view_of(h_.get());
    st.levels = levels();
    if (v.root) tree::count_nodes(v.root, v.height, st.leaves, st.inner_nodes, st.bytes);
    st.tree_elements = v.tree_size();
    ++st.leaves;  // the tail
    st.bytes += tree::node_bytes(v.tail) + (h_->is_leaf ? 0 : ops::header_t::bytes());
    return st;
  }

  /// Verifies every structural invariant (docs/design.md). O(n). Throws std::logic_error
  /// describing the first broken one.
  void check_invariants() const {
    if (!h_) return;
    const auto s = ops::view_of(h_.get());
    if (s.size == 0) tree::broken("stored empty state");
    if (!s.tail || !s.tail->is_leaf || s.tail->count == 0) tree::broken("tail missing or empty");
    if (!h_->is_leaf && !s.root) tree::broken("header without a tree");
    if (s.tail->count > tree::BL || s.tail->count > s.tail->cap) tree::broken("tail over-full");
    const std::size_t ts = s.root ? tree::check(s.root, s.height, true, true, true, "root") : 0;
    if (ts + s.tail->count != s.size) {
      tree::broken("size " + std::to_string(s.size) + " != tree " + std::to_string(ts) + " + tail " +
                   std::to_string(s.tail->count));
    }
    if (!h_->is_leaf && static_cast<const typename ops::header_t*>(h_.get())->tree_size != ts) {
      tree::broken("header's tree size is not the tree's");
    }
    if (levels() > levels_bound(ts)) {
      tree::broken("levels " + std::to_string(levels()) + " exceed the bound " + std::to_string(levels_bound(ts)) +
                   " for " + std::to_string(ts) + " elements");
    }
  }

  /// Element-wise equality. O(1) for the same version, else O(n).
  [[nodiscard]] friend bool operator==(const rrb_vector& a, const rrb_vector& b) {
    if (a.size() != b.size()) return false;
    if (a.h_ == b.h_) return true;
    auto j = b.begin();
    for (auto i = a.begin(), end = a.end(); i != end; ++i, ++j) {
      if (!(*i == *j)) return false;
    }
    return true;
  }

 private:
  friend struct detail::rrb_unchecked;
  ref h_;  // null (empty), a leaf (at most BL elements) or a header_node

  explicit rrb_vector(ref h) noexcept : h_(std::move(h)) { ops::assert_valid(ops::view_of(h_.get())); }

  // The one place updates are carried out: f transforms a state; the const& form shares
  // every node of *this, the && form moves them out (nodes held alone are then edited in
  // place, and the header is reused).
  template <class F>
  [[nodiscard]] rrb_vector apply(F&& f) const& {
    return rrb_vector(ops::finish(f(ops::copy_of(h_)), nullptr));
  }
  template <class F>
  [[nodiscard]] rrb_vector apply(F&& f) && {
    ref h = std::move(h_);
    state s = ops::steal(h);
    return rrb_vector(ops::finish(f(std::move(s)), std::move(h)));
  }

  // push_back && when the tail is shared, full or absent (a new leaf, a flush into the tree).
  // v by reference: nothing may be moved before apply has taken *this's nodes, so that a
  // throwing move leaves *this empty (class notes; RrbExceptions checks it).
  TSEQ_NOINLINE rrb_vector push_back_general(T& v) && {
    return std::move(*this).apply([&](state s) { return ops::push_back(std::move(s), std::move(v)); });
  }

  // A vector of at most BL elements is a bare leaf; its const& updates build the new leaf
  // directly, without taking a reference to the old one.
  [[nodiscard]] bool is_small() const noexcept { return h_ && h_->is_leaf; }
  // The header of a vector that is neither empty nor small.
  [[nodiscard]] const typename ops::header_t* header() const noexcept {
    return static_cast<const typename ops::header_t*>(h_.get());
  }
  [[nodiscard]] typename tree::seg seg(size_type from, size_type to) const noexcept {
    return tree::seg_of(h_.get(), from, to, false);
  }
  [[nodiscard]] static rrb_vector small(std::initializer_list<typename tree::seg> segs) {
    return rrb_vector(ops::small(segs));
  }

  // The updates after their argument checks (also what TensorSequence calls after its own).
  [[nodiscard]] rrb_vector pop_back_unchecked() const& {
    if (is_small()) return small({seg(0, h_->count - 1u)});
    return apply([](state s) { return ops::pop_back(std::move(s)); });
  }
  [[nodiscard]] rrb_vector pop_back_unchecked() && {
    return std::move(*this).apply([](state s) { return ops::pop_back(std::move(s)); });
  }
  [[nodiscard]] rrb_vector set_unchecked(size_type i, T& v) const& {
    if (is_small()) return small({seg(0, i), {&v, &v + 1, true}, seg(i + 1, h_->count)});
    return apply([&](state s) { return ops::set(std::move(s), i, v); });
  }
  [[nodiscard]] rrb_vector set_unchecked(size_type i, T& v) && {
    return std::move(*this).apply([&](state s) { return ops::set(std::move(s), i, v); });
  }
  [[nodiscard]] rrb_vector insert_unchecked(size_type i, T& v) const& {
    if (is_small() && h_->count < tree::BL) return small({seg(0, i), {&v, &v + 1, true}, seg(i, h_->count)});
    return apply([&](state s) { return ops::insert(std::move(s), i, v); });
  }
  [[nodiscard]] rrb_vector insert_unchecked(size_type i, T& v) && {
    return std::move(*this).apply([&](state s) { return ops::insert(std::move(s), i, v); });
  }
  [[nodiscard]] rrb_vector erase_unchecked(size_type i) const& {
    if (is_small()) return small({seg(0, i), seg(i + 1, h_->count)});
    return apply([&](state s) { return ops::erase(std::move(s), i); });
  }
  [[nodiscard]] rrb_vector erase_unchecked(size_type i) && {
    return std::move(*this).apply([&](state s) { return ops::erase(std::move(s), i); });
  }
};

/// Mutable batch construction: push_back many elements in place, then take a persistent
/// vector. Amortised O(1) per element.
template <class T, unsigned Bits, unsigned LBits>
class rrb_vector<T, Bits, LBits>::builder {
 public:
  builder() = default;
  /// Starts from the elements of v (shared until changed).
  explicit builder(const rrb_vector& v) : s_(ops::copy_of(v.h_)) {}

  /// Appends v. Amortised O(1); allocates one leaf per BL elements. If T's copy/move or an
  /// allocation throws, the builder is left empty (and nothing leaks).
  builder& push_back(T v) {
    try {
      if (ops::append_to_tail(s_, v)) return *this;
    } catch (...) {
      s_ = state{};  // as documented: a failed push_back leaves the builder empty
      throw;
    }
    state s = std::exchange(s_, state{});  // first: if moving v into push_back throws, the builder is empty
    s_ = ops::push_back(std::move(s), std::move(v));
    return *this;
  }
  [[nodiscard]] size_type size() const noexcept { return s_.size; }

  /// The elements pushed so far as a vector; the builder keeps them (shared, copy-on-write).
  [[nodiscard]] rrb_vector persistent() const& { return rrb_vector(ops::finish(state(s_), nullptr)); }
  /// The elements pushed so far; the builder is left empty (also if this throws bad_alloc).
  [[nodiscard]] rrb_vector persistent() && { return rrb_vector(ops::finish(std::exchange(s_, state{}), nullptr)); }

 private:
  state s_;
};

namespace detail {
// The updates of rrb_vector without its argument checks, for tseq::TensorSequence, which
// checks (and reports) the same preconditions itself, once. Callers guarantee them.
struct rrb_unchecked {
  template <class V>
  static std::remove_cvref_t<V> pop_back(V&& v) {
    TSEQ_ASSERT(!v.empty(), "pop_back on an empty vector");
    return std::forward<V>(v).pop_back_unchecked();
  }
  template <class V, class T>
  static std::remove_cvref_t<V> set(V&& v, std::size_t i, T x) {
    TSEQ_ASSERT(i < v.size(), "set: index out of range");
    return std::forward<V>(v).set_unchecked(i, x);
  }
  template <class V, class T>
  static std::remove_cvref_t<V> insert(V&& v, std::size_t i, T x) {
    TSEQ_ASSERT(i <= v.size(), "insert: position out of range");
    return std::forward<V>(v).insert_unchecked(i, x);
  }
  template <class V>
  static std::remove_cvref_t<V> erase(V&& v, std::size_t i) {
    TSEQ_ASSERT(i < v.size(), "erase: index out of range");
    return std::forward<V>(v).erase_unchecked(i);
  }
  // The elements the leaf holding element i has room for (for tests of in-place updates: an
  // insert edits a leaf held alone in place exactly when it has room).
  template <class V>
  static std::size_t leaf_capacity(const V& v, std::size_t i) noexcept {
    TSEQ_ASSERT(i < v.size(), "leaf_capacity: index out of range");
    const auto s = V::ops::view_of(v.h_.get());
    if (i >= s.tree_size()) return s.tail->cap;
    return V::tree::find_leaf(s.root, s.height, i).leaf->cap;
  }
  // Sets the look-up hint of every inner node of v's tree to `value`, breaking I6, and turns
  // the bucket tables off so that look-ups go by it, but at nodes of at most B / 4 children
  // above the leaf parents, which count their table (for tests that look-ups and updates stay
  // right from any hint). Nodes v shares change too.
  template <class V>
  static void set_hints(const V& v, std::uint16_t value) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    using tree = typename V::tree;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): a test hook that edits shared nodes
    if (s.root != nullptr) set_hints_below<tree>(const_cast<typename tree::node_t*>(s.root), s.height, value);
  }
  // Whether v's tree root is marked `regular` (look-ups take the radix path: I4); false
  // without a tree.
  template <class V>
  [[nodiscard]] static bool root_regular(const V& v) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    return s.root != nullptr && s.root->regular;
  }
  // Marks v's tree root `regular` whether or not it is, breaking I4 (for the check's test).
  template <class V>
  static void mark_root_regular(const V& v) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): a test hook that edits a shared node
    if (s.root != nullptr && s.height > 0) const_cast<typename V::tree::node_t*>(s.root)->regular = true;
  }
  // How the hint's guess did on the way to element i of the tree: at each inner node not
  // marked dense, `exact` counts a guess that was the child, `next` one next to it, `far` the
  // rest.
  struct HintTally {
    std::size_t exact = 0, next = 0, far = 0;
  };
  // Whether V's persistent erase and insert lay leaves out full again (packed roots and leaf
  // parents: trivially copyable elements no larger than a pointer).
  template <class V>
  static constexpr bool packs = V::tree::packs_root;
  // Over k look-ups of random elements of v's tree (of height >= 1), the share whose leaf
  // parent was marked dense, and the share whose leaf parent's guess (radix in a dense one,
  // the hint's otherwise) was the child.
  struct LeafParentTally {
    double dense = 0, exact = 0;
  };
  template <class V, class Rng>
  static LeafParentTally leaf_parent_guesses(const V& v, Rng& rng, int k) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    TSEQ_ASSERT(s.height >= 1 && k > 0, "leaf_parent_guesses: no leaf parent or no look-up");
    std::size_t dense = 0;
    std::size_t exact = 0;
    for (int q = 0; q < k; ++q) {
      auto i = static_cast<std::size_t>(rng() % s.tree_size());
      const auto* n = s.root;
      for (unsigned h = s.height; h > 1; --h) {
        n = V::tree::as_inner(n)->child()[V::tree::child_index(V::tree::as_inner(n), h, i)];
      }
      const auto* in = V::tree::as_inner(n);
      const std::uint32_t g =
          in->dense ? static_cast<std::uint32_t>(V::tree::radix(i, 1)) : V::tree::hint_guess(in, 1, i);
      dense += in->dense ? 1u : 0u;
      exact += g == V::tree::child_index(in, 1, i) ? 1u : 0u;
    }
    return {static_cast<double>(dense) / k, static_cast<double>(exact) / k};
  }
  // The inner nodes of v's tree, those marked dense, those bucketed (I6), and the same for
  // its leaf parents (height 1).
  struct LookupShape {
    std::size_t inner = 0, dense = 0, bucketed = 0, leaf_parents = 0, leaf_parents_bucketed = 0;
  };
  template <class V>
  static LookupShape lookup_shape(const V& v) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    LookupShape out;
    if (s.root != nullptr) shape_below<typename V::tree>(s.root, s.height, out);
    return out;
  }
  // The children of v's root and whether it is relaxed (not dense); {0, false} when the tree
  // has no inner node.
  struct RootShape {
    std::uint32_t children = 0;
    bool relaxed = false;
  };
  template <class V>
  static RootShape root_shape(const V& v) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    if (s.root == nullptr || s.height == 0) return {};
    const auto* in = V::tree::as_inner(s.root);
    return {in->count, !in->dense};
  }

  // Points bucket 0 of the first bucketed node of v's tree (depth first) at child 1, breaking
  // I6 (for the check's test); false if no node is bucketed. Nodes v shares change too.
  template <class V>
  static bool break_bucket(const V& v) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): a test hook that edits a shared node
    return s.root != nullptr &&
           break_bucket_below<typename V::tree>(const_cast<typename V::tree::node_t*>(s.root), s.height);
  }
  // Marks the root of v's tree bucketed, which I6 allows only at a leaf parent (for the check's
  // test); false unless the root is a relaxed node above the leaf parents. Nodes v shares change too.
  template <class V>
  static bool bucket_root(const V& v) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    if (s.root == nullptr || s.height < 2 || V::tree::as_inner(s.root)->dense) return false;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): a test hook that edits a shared node
    V::tree::as_inner(const_cast<typename V::tree::node_t*>(s.root))->bucketed = true;
    return true;
  }
  template <class V>
  static void tally_hints(const V& v, std::size_t i, HintTally& t) noexcept {
    const auto s = V::ops::view_of(v.h_.get());
    TSEQ_ASSERT(i < s.tree_size(), "tally_hints: index not in the tree");
    const auto* n = s.root;
    for (unsigned h = s.height; h > 0; --h) {
      const auto* in = V::tree::as_inner(n);
      const std::uint32_t g = V::tree::hint_guess(in, h, i);
      const std::uint32_t c = V::tree::child_index(in, h, i);
      if (!in->dense) {
        const std::uint32_t d = c > g ? c - g : g - c;
        ++(d == 0 ? t.exact : d == 1 ? t.next : t.far);
      }
      n = in->child()[c];
    }
  }

 private:
  template <class Tree>
  static void shape_below(const typename Tree::node_t* n, unsigned h, LookupShape& out) noexcept {
    if (h == 0) return;
    const auto* in = Tree::as_inner(n);
    ++out.inner;
    out.dense += in->dense ? 1u : 0u;
    out.bucketed += in->bucketed ? 1u : 0u;
    out.leaf_parents += h == 1 ? 1u : 0u;
    out.leaf_parents_bucketed += h == 1 && in->bucketed ? 1u : 0u;
    for (std::uint32_t c = 0; c < in->count; ++c) shape_below<Tree>(in->child()[c], h - 1, out);
  }
  template <class Tree>
  static bool break_bucket_below(typename Tree::node_t* n, unsigned h) noexcept {
    if (h == 0) return false;
    auto* in = Tree::as_inner(n);
    if (in->bucketed) {
      in->bucket[0] = 1;
      return true;
    }
    for (std::uint32_t c = 0; c < in->count; ++c) {
      if (break_bucket_below<Tree>(in->child()[c], h - 1)) return true;
    }
    return false;
  }
  template <class Tree>
  static void set_hints_below(typename Tree::node_t* n, unsigned h, std::uint16_t value) noexcept {
    if (h == 0) return;
    auto* in = Tree::as_inner(n);
    in->hint = value;
    in->bucketed = false;  // so that look-ups go by the hint
    for (std::uint32_t c = 0; c < in->count; ++c) set_hints_below<Tree>(in->child()[c], h - 1, value);
  }
};
}  // namespace detail

}  // namespace tseq
