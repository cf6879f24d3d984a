#pragma once

// rrb_state_ops (tseq/detail/rrb_state_decl.hpp): the updates of rrb_vector on a state (root
// tree + tail leaf): push_back, pop_back, set, insert, erase, erase_range, take, drop, concat.
// Each consumes its state and returns the new one; an index below tree_size() goes to the tree
// (tseq/detail/rrb_tree.hpp), the rest to the tail. Kept here: (S1) size == tree + tail, and a
// non-empty state has a non-empty tail (refill_tail moves the tree's last leaf into it), the
// tree's root never an inner node with a single child (set_root collapses it).
// Included through tseq/detail/rrb_state.hpp.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "tseq/detail/rrb_argument_checks.hpp"
#include "tseq/detail/rrb_state_decl.hpp"

namespace tseq::detail {

// Moves the tail into the tree.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_state_ops<T, Bits, LBits>::flush_tail(state& s) {
  if (s.root && s.tail->count == BL && tree::append_leaf_in_place(s.root.get(), s.height, s.tail)) {
    s.tail = nullptr;
    return;
  }
  if (s.root) {
    s.root = tree::join(std::move(s.root), s.height, std::move(s.tail), 0, s.height);
  } else {
    s.root = std::move(s.tail);
    s.height = 0;
  }
  s.tail = nullptr;
}

// Restores "tail non-empty when size > 0" by moving the tree's last leaf into the tail.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_state_ops<T, Bits, LBits>::refill_tail(state& s) {
  if (s.tail || !s.root) return;
  ref rest = tree::take(std::move(s.root), s.height, s.size, s.tail);
  set_root(s, std::move(rest));
}

template <class T, unsigned Bits, unsigned LBits>
inline void rrb_state_ops<T, Bits, LBits>::set_root(state& s, ref r) {
  s.root = tree::collapse(std::move(r), s.height);
  if (!s.root) s.height = 0;
}

// push_back's common in-place case without unpacking the holder: h and its tail are ours
// alone and the tail has room. Returns false, having done nothing, otherwise.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_state_ops<T, Bits, LBits>::append_in_place(ref& h, T& v) {
  if (!h || !tree::editable(h.get())) return false;
  if (h->is_leaf) {
    if (h->count == h->cap) return false;
    tree::append(tree::as_leaf(h.get()), std::move(v));
    return true;
  }
  auto* r = static_cast<header_t*>(h.get());
  node_t* t = r->tail.get();
  if (t->count == t->cap || !tree::editable(t)) return false;
  tree::append(tree::as_leaf(t), std::move(v));
  ++r->size;
  return true;
}

// push_back's common case on a state: its tail is ours alone and has room. Returns false,
// having done nothing, otherwise (then push_back does the general work).
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_state_ops<T, Bits, LBits>::append_to_tail(state& s, T& v) {
  if (!s.tail || s.tail->count == s.tail->cap || !tree::editable(s.tail.get())) return false;
  tree::append(tree::as_leaf(s.tail.get()), std::move(v));
  ++s.size;
  return true;
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::push_back(state s, T v) -> state {
  if (append_to_tail(s, v)) return s;
  if (s.tail && s.tail->count == BL) flush_tail(s);
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

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::pop_back(state s) -> state {
  const std::size_t last = s.tail->count - 1u;
  s.tail = tree::erase(std::move(s.tail), 0, last, true);
  --s.size;
  refill_tail(s);
  return s;
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::set(state s, std::size_t i, T& v) -> state {
  const std::size_t ts = s.tree_size();
  if (i >= ts) {
    s.tail = tree::set(std::move(s.tail), 0, i - ts, v);
  } else {
    s.root = tree::set(std::move(s.root), s.height, i, v);
  }
  return s;
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::insert(state s, std::size_t i, T& v) -> state {
  if (i == s.size) return push_back(std::move(s), std::move(v));
  const std::size_t ts = s.tree_size();
  ref extra;
  if (i >= ts) {
    s.tail = tree::insert(std::move(s.tail), 0, i - ts, v, true, extra);
    if (extra && !overflow_into_root(s, extra)) {  // the tail overflowed: its first BL elements join the tree
      flush_tail(s);
      s.tail = std::move(extra);
    }
  } else if (!repacked(s, i, &v)) {
    s.root = tree::insert(std::move(s.root), s.height, i, v, true, extra, true);
    if (extra) s.root = tree::root_of_two(std::move(s.root), std::move(extra), s.height);
  }
  ++s.size;
  return s;
}

// The tail split by an insert into s.tail (its first BL elements) and extra (the last one),
// both new or ours alone, when the root is a leaf parent of B leaves with room: rather than
// join the tree as a leaf B + 1 (the root splits, one level more for every look-up), the
// tail's first element goes to the end of the tree (tree::append_to_last_leaf) and extra's
// element to the end of the tail. So a tree of up to B * BL elements keeps one leaf parent
// under random edits. Returns false, having done nothing, otherwise.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_state_ops<T, Bits, LBits>::overflow_into_root(state& s, ref& extra) {
  if constexpr (!std::is_nothrow_move_constructible_v<T> || !std::is_nothrow_move_assignable_v<T>) {
    return false;
  } else {
    if (s.height != 1 || s.root->count != B || tree::size_of(s.root.get()) >= B * BL || extra->count != 1 ||
        !tree::editable(s.tail.get()) || !tree::editable(extra.get())) {
      return false;
    }
    auto* t = tree::as_leaf(s.tail.get());
    T* d = t->data();
    T first = std::move(d[0]);
    s.root = tree::append_to_last_leaf(std::move(s.root), first);
    tree::move_elements(d + 1, d + t->count, d);
    d[t->count - 1u] = std::move(tree::as_leaf(extra.get())->data()[0]);
    extra = nullptr;
    return true;
  }
}

// A persistent erase (v null) or insert of element i < tree_size() when the tree is one leaf
// parent of packs_root elements, or two levels that fit in one (tree::repack_root); false,
// having done nothing, for the general path. The size is the caller's to update.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_state_ops<T, Bits, LBits>::repacked(state& s, std::size_t i, T* v) {
  if constexpr (tree::packs_root) {
    if (s.height == 0 || s.height > 2 || tree::editable(s.root.get())) return false;
    ref root;
    ref tail;
    if (!tree::repack_root(s.root.get(), s.height, s.tail.get(), i, v, root, tail)) return false;
    s.tail = std::move(tail);
    s.height = 1;
    set_root(s, std::move(root));
    return true;
  } else {
    return false;
  }
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::erase(state s, std::size_t i) -> state {
  const std::size_t ts = s.tree_size();
  if (i >= ts) {
    s.tail = tree::erase(std::move(s.tail), 0, i - ts, true);
  } else if (!repacked(s, i, nullptr)) {
    set_root(s, tree::erase(std::move(s.root), s.height, i, true));
  }
  --s.size;
  refill_tail(s);
  return s;
}

// One walk down the cut: the leaf holding element n-1, cut after it, becomes the tail.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::take(state s, std::size_t n) -> state {
  if (n >= s.size) return s;
  if (n == 0) return {};
  const std::size_t ts = s.tree_size();
  if (n > ts) {
    ref tail = std::move(s.tail);
    (void)tree::take(std::move(tail), 0, n - ts, s.tail);
  } else {
    ref rest = tree::take(std::move(s.root), s.height, n, s.tail);
    set_root(s, std::move(rest));
  }
  s.size = n;
  return s;
}

// take of the vector whose header is r, which we only read (0 < n < r->size). Unlike take on
// copy_of(r), nothing on the cut is held and released: the root and tail are referenced only
// when the result keeps them, and tree::take_shared copies the cut path without holding it.
// A cut inside the first child of the top node keeps that child's part alone: the copy of
// the top would hold one child, which set_root would collapse (an allocation, two reference
// updates and a free for nothing), so the cut starts below it (as immer's slice does).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::take_shared(const header_t* r, std::size_t n) -> state {
  state s;
  s.size = n;
  s.height = r->height;
  if (n > r->tree_size) {
    s.root = r->root;
    (void)tree::take_shared(r->tail.get(), 0, n - r->tree_size, s.tail);
  } else {
    node_t* top = r->root.get();
    while (s.height >= 2 && n <= tree::as_inner(top)->sizes()[0]) {
      top = tree::as_inner(top)->child()[0];
      --s.height;
    }
    set_root(s, tree::take_shared(top, s.height, n, s.tail));
  }
  return s;
}

// drop of the vector whose header is r, which we only read (0 < n < r->size); as take_shared,
// a cut inside the last child of the top node starts below it.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::drop_shared(const header_t* r, std::size_t n) -> state {
  state s;
  s.size = r->size - n;
  if (n >= r->tree_size) {
    // (not a conditional expression: with r->tail, a const lvalue, as one branch its result
    // is a const ref, copied into s.tail)
    if (n > r->tree_size) {
      s.tail = tree::drop_shared(r->tail.get(), 0, n - r->tree_size);
    } else {
      s.tail = r->tail;
    }
    return s;
  }
  s.tail = r->tail;
  s.height = r->height;
  node_t* top = r->root.get();
  for (; s.height >= 2; --s.height) {
    const auto* in = tree::as_inner(top);
    const std::size_t before = in->sizes().before(in->count - 1u);  // elements before the last child
    if (n < before) break;
    top = in->child()[in->count - 1u];
    n -= before;
  }
  set_root(s, n == 0 ? ref(top) : tree::drop_shared(top, s.height, n));
  while (tree::fill_left_spine(s.root.get(), s.height)) set_root(s, std::move(s.root));
  return s;
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::drop(state s, std::size_t n) -> state {
  if (n >= s.size) return {};
  if (n == 0) return s;
  const std::size_t ts = s.tree_size();
  if (n >= ts) {
    s.root = nullptr;
    s.height = 0;
    if (n > ts) s.tail = tree::drop(std::move(s.tail), 0, n - ts);
  } else {
    set_root(s, tree::drop(std::move(s.root), s.height, n));
    while (tree::fill_left_spine(s.root.get(), s.height)) set_root(s, std::move(s.root));
  }
  s.size -= n;
  return s;
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::erase_range(state s, std::size_t first, std::size_t last) -> state {
  if (first == last) return s;
  state right = drop(s, last);  // shares nodes with s: both sides copy what they change
  return concat(take(std::move(s), first), std::move(right));
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::concat(state a, state b) -> state {
  check_concat(a.size, b.size, max_size);
  if (b.size == 0) return a;
  if (a.size == 0) return b;
  if (!b.root && a.tail->count + std::size_t{b.tail->count} <= BL) {
    ref none;
    const typename tree::seg segs[2] = {tree::seg_of(a.tail.get(), 0, a.tail->count, tree::editable(a.tail.get())),
                                        tree::seg_of(b.tail.get(), 0, b.tail->count, tree::editable(b.tail.get()))};
    a.tail = tree::build_leaves(segs, 2, BL, none);
    a.size += b.size;
    return a;
  }
  flush_tail(a);
  if (b.root) a.root = tree::join(std::move(a.root), a.height, std::move(b.root), b.height, a.height);
  a.tail = std::move(b.tail);
  a.size += b.size;
  return a;
}

}  // namespace tseq::detail
