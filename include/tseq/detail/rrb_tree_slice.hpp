#pragma once

// rrb_tree (tseq/detail/rrb_tree_decl.hpp): slicing, one walk down the cut. take keeps the
// first k elements (the cut becomes the rightmost path, which (I3) exempts; its last leaf is
// handed back to become the tail); drop keeps all but the first k (the cut becomes the
// leftmost path, exempt from (I3) by (I3L) except that an inner node there holds >= 2
// children, which fill_left_spine restores). Only what is kept is copied: sizes come from the
// tables, no child beside the cut is read.
// Included through tseq/detail/rrb_tree.hpp.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "tseq/detail/rrb_tree_decl.hpp"

namespace tseq::detail {

// Splits n after its first k elements (0 < k <= size of n): the leaf holding element k-1,
// cut after it, is returned in `last` and the elements before that leaf as a tree (null when
// there are none). The cut edge becomes the rightmost path, which (I3) exempts. Only what is
// kept is copied: one reference taken per kept child of each copied node, none released, no
// child read (sizes come from the table).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::take(ref n, unsigned h, std::size_t k, ref& last) -> ref {
  if (h == 0) {
    if (k < n->count) {
      if (editable(n.get())) {
        leaf_t* l = as_leaf(n.get());
        T* d = l->data();
        while (l->count > k) d[--l->count].~T();
      } else {
        const seg s = seg_of(n.get(), 0, k, false);
        ref none;
        n = build_leaves(&s, 1, BL, none);
      }
    }
    last = std::move(n);
    return nullptr;
  }
  if (!editable(n.get())) return take_shared(n.get(), h, k, last);
  inner_t* in = as_inner(n.get());
  std::size_t off = k - 1;
  const std::uint32_t c = child_index(in, h, off);
  ++off;  // elements kept in child c
  while (in->count > c + 1) intrusive_ptr_release(in->child()[--in->count]);
  ref sub = take(take_child(in, c), h - 1, off, last);
  if (!sub) {
    in->count = c;  // slot c is empty
    if (c == 0) return nullptr;
  } else {
    in->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + size_of(sub.get());
    in->child()[c] = sub.detach();
  }
  mark_dense(in, h, false);
  return n;
}

// take() of a node that we do not hold alone, or that sits below one: what is kept is copied,
// one reference taken per kept child, and none taken or released on the cut path (through
// take(ref) each node on it would be held once more only to be found shared, and released
// after its copy: two atomic updates a level for nothing).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::take_shared(node_t* n, unsigned h, std::size_t k, ref& last) -> ref {
  if (h == 0) {
    if (k < n->count) {
      const seg s = seg_of(n, 0, k, false);
      ref none;
      last = build_leaves(&s, 1, BL, none);
    } else {
      last = ref(n);
    }
    return nullptr;
  }
  inner_t* in = as_inner(n);
  std::size_t off = k - 1;
  const std::uint32_t c = child_index(in, h, off);
  ++off;  // elements kept in child c
  ref sub = take_shared(in->child()[c], h - 1, off, last);
  if (!sub && c == 0) return nullptr;
  ref out = new_inner();
  inner_t* o = as_inner(out.get());
  append_slots(o, in, 0, c, true);
  if (sub) {
    o->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + size_of(sub.get());
    o->child()[c] = sub.detach();
    ++o->count;
  }
  mark_dense(o, h, false);
  return out;
}

// All but the first k elements (0 < k < size). Only the kept children are copied (one
// reference each, none released; sizes from the table). The cut becomes the leftmost path,
// which (I3L) exempts from (I3) but for one rule, which the caller restores with
// fill_left_spine: an inner node there holds at least 2 children.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::drop(ref n, unsigned h, std::size_t k) -> ref {
  if (h == 0) {
    leaf_t* l = as_leaf(n.get());
    if (editable(l)) {
      T* d = l->data();
      move_elements(d + k, d + l->count, d);
      const auto keep = static_cast<std::uint32_t>(l->count - k);
      while (l->count > keep) d[--l->count].~T();
      return n;
    }
    const seg s = seg_of(l, k, l->count, false);
    ref none;
    return build_leaves(&s, 1, BL, none);
  }
  if (!editable(n.get())) return drop_shared(n.get(), h, k);
  inner_t* in = as_inner(n.get());
  std::size_t off = k;
  const std::uint32_t c = child_index(in, h, off);  // off: elements dropped inside child c
  for (std::uint32_t j = 0; j < c; ++j) intrusive_ptr_release(in->child()[j]);
  for (std::uint32_t j = c; j < in->count; ++j) {
    in->child()[j - c] = in->child()[j];
    in->sizes()[j - c] = in->sizes()[j] - k;
  }
  in->count -= c;
  if (off > 0) in->child()[0] = drop(take_child(in, 0), h - 1, off).detach();
  mark_dense(in, h, false);
  return n;
}

// drop() of a node that we do not hold alone, or that sits below one: as take_shared, no
// reference is taken or released on the cut path.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::drop_shared(node_t* n, unsigned h, std::size_t k) -> ref {
  if (h == 0) {
    const seg s = seg_of(n, k, n->count, false);
    ref none;
    return build_leaves(&s, 1, BL, none);
  }
  inner_t* in = as_inner(n);
  std::size_t off = k;
  const std::uint32_t c = child_index(in, h, off);  // off: elements dropped inside child c
  ref sub = off > 0 ? drop_shared(in->child()[c], h - 1, off) : ref(in->child()[c]);
  ref out = new_inner();
  inner_t* o = as_inner(out.get());
  o->child()[0] = sub.detach();
  o->sizes()[0] = in->sizes()[c] - k;
  o->count = 1;
  append_slots(o, in, c + 1, in->count, true);
  mark_dense(o, h, false);
  return out;
}

// (I3L) after drop(), on root r (height h; an inner root holds >= 2 children): finds the
// highest inner node on the leftmost path below r holding a single child and lays it out
// again with its right sibling (one node, or two each >= m). Returns whether it did; its
// parent may then hold a single child in turn (or r, which the caller collapses), so the
// caller repeats until it returns false. The walk reads one header per level and ends at a
// node we do not hold alone: drop() copied (or holds alone) every node it cut, and what it
// kept whole held >= m. A cut keeps a single child of a node about once in B per level, so
// the first walk almost always finds nothing.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::fill_left_spine(node_t* r, unsigned h) {
  node_t* n = r;
  for (; h >= 2 && editable(n); --h) {
    inner_t* in = as_inner(n);
    if (in->child()[0]->count < 2) {
      rebalance_pair(in, h, 0, n == r && in->count == 2);
      return true;
    }
    n = in->child()[0];
  }
  return false;
}

}  // namespace tseq::detail
