#pragma once

// rrb_tree (tseq/detail/rrb_tree_decl.hpp): point updates of one element: set, erase and
// insert at an index, each one walk down the path to its leaf and back up. The path is made
// ours (own) on the way down; the size tables on it change by one element on the way up.
// erase rebalances an under-full child with a sibling (I3; rrb_tree_rebalance.hpp); insert
// into a full leaf first tries to move elements to a sibling with room (share_with_sibling,
// spread_insert) before it splits the leaf, and a split child is absorbed by a neighbour
// (absorb_split) or added to its parent (add_child), which may split in turn (`extra`).
// repack_root: the persistent erase and insert of a tree of one leaf parent (or two levels
// that fit in one) of small trivially copyable elements, which lays its leaves out full again.
// Included through tseq/detail/rrb_tree.hpp.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "tseq/detail/rrb_tree_decl.hpp"

namespace tseq::detail {

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::set(ref n, unsigned h, std::size_t i, T& v) -> ref {
  if (h == 0) {
    if (editable(n.get())) {
      as_leaf(n.get())->data()[i] = std::move(v);
      return n;
    }
    T* val = &v;
    const seg segs[3] = {seg_of(n.get(), 0, i, false), {val, val + 1, true}, seg_of(n.get(), i + 1, n->count, false)};
    ref none;
    return build_leaves(segs, 3, BL, none);
  }
  n = own(std::move(n));
  inner_t* in = as_inner(n.get());
  const std::uint32_t c = child_index(in, h, i);
  in->child()[c] = set(take_child(in, c), h - 1, i, v).detach();
  return n;
}

// Removes element i; the result may be null (empty) or under-full (the caller fixes it).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::erase(ref n, unsigned h, std::size_t i, bool rightmost) -> ref {
  if (h == 0) {
    if (n->count == 1) return nullptr;
    leaf_t* l = as_leaf(n.get());
    if (editable(l)) {
      T* d = l->data();
      move_elements(d + i + 1, d + l->count, d + i);
      d[l->count - 1].~T();
      --l->count;
      return n;
    }
    const seg segs[2] = {seg_of(l, 0, i, false), seg_of(l, i + 1, l->count, false)};
    ref none;
    return build_leaves(segs, 2, BL, none);
  }
  if constexpr (packs_root) {
    if (h == 1 && !editable(n.get())) {
      if (ref packed = repack_leaf_parent(as_inner(n.get()), i, nullptr)) return packed;
    }
  }
  n = own(std::move(n));
  inner_t* in = as_inner(n.get());
  const std::uint32_t c = child_index(in, h, i);
  const bool child_rightmost = rightmost && c + 1 == in->count;
  ref child = erase(take_child(in, c), h - 1, i, child_rightmost);
  if (!child) {
    remove_slot(in, c);
    if (in->count == 0) return nullptr;
    mark_dense(in, h);
    return n;
  }
  const bool small = child->count < min_at(h - 1) && !child_rightmost;
  in->child()[c] = child.detach();
  for (std::uint32_t j = c; j < in->count; ++j) --in->sizes()[j];
  if (!small) {
    resized_by_one(in, h, c, false);
    return n;
  }
  // An under-full child borrows from or merges with a sibling (the left one when it has one).
  const std::uint32_t a = c > 0 ? c - 1 : c;
  rebalance_pair(in, h, a, rightmost && a + 2 == in->count);
  return n;
}

// Inserts v before element i (i < size; a leaf also takes i == size). Returns the node, and a
// right sibling in `extra` when it overflowed. `root`: n is the tree's root.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::insert(ref n, unsigned h, std::size_t i, T& v, bool rightmost, ref& extra,
                                             bool root) -> ref {
  if (h == 0) {
    leaf_t* l = as_leaf(n.get());
    T* val = &v;
    const bool ours = editable(l);
    if (!ours || (l->count == l->cap && l->count < BL)) {
      // A shared leaf is copied (exactly sized); a leaf of ours without room moves to one
      // with room for BL.
      const seg segs[3] = {seg_of(l, 0, i, ours), {val, val + 1, true}, seg_of(l, i, l->count, ours)};
      return build_leaves(segs, 3, split_point(l->count + std::size_t{1}, rightmost, BL), extra, ours);
    }
    if (l->count == BL) {
      // Split in place: the elements after the cut move to a new right leaf; the left part
      // stays where it is (an in-place history keeps most leaves where they were built).
      const std::size_t left = split_point(BL + 1, rightmost, BL);
      const seg tail[3] = {
          seg_of(l, min_of(left, i), i, true), {val, val + 1, true}, seg_of(l, max_of(left, i + 1) - 1, BL, true)};
      const seg* from = i >= left ? tail : tail + 2;  // v in the right part, or not
      ref none;
      extra = build_leaves(from, i >= left ? 3 : 1, BL, none, true);
      T* d = l->data();
      const std::size_t keep = i >= left ? left : left - 1;
      while (l->count > keep) d[--l->count].~T();
      if (i >= left) return n;
    }
    T* d = l->data();
    if (i == l->count) {
      ::new (static_cast<void*>(d + i)) T(std::move(v));
      ++l->count;
    } else {
      // Counted as soon as it is constructed, so that a throwing move below leaks nothing.
      ::new (static_cast<void*>(d + l->count)) T(std::move(d[l->count - 1]));
      ++l->count;
      move_elements_backward(d + i, d + l->count - 2, d + l->count - 1);
      d[i] = std::move(v);
    }
    return n;
  }
  if constexpr (packs_root) {
    if (h == 1 && !editable(n.get())) {
      if (ref packed = repack_leaf_parent(as_inner(n.get()), i, &v)) return packed;
    }
  }
  n = own(std::move(n), 1);
  inner_t* in = as_inner(n.get());
  const std::size_t at = i;
  std::uint32_t c = child_index(in, h, i);  // i < size: appends go to the tail
  bool child_rightmost = rightmost && c + 1 == in->count;
  if (h == 1 && in->child()[c]->count == BL) {
    if (!child_rightmost && share_with_sibling(in, c)) {
      i = at;  // the leaves' bounds moved: look again
      c = child_index(in, h, i);
      child_rightmost = rightmost && c + 1 == in->count;
    } else if (spread_insert(in, c, i, v, root && in->count == B ? B : spread_window)) {
      return n;
    }
  }
  ref ex;
  in->child()[c] = insert(take_child(in, c), h - 1, i, v, child_rightmost, ex).detach();
  if (!ex) {
    for (std::uint32_t j = c; j < in->count; ++j) ++in->sizes()[j];
    resized_by_one(in, h, c, true);
    return n;
  }
  // Child c split in two: its first part stays in slot c, the second goes after it.
  if (h >= 2 && absorb_split(in, h, c, ex, rightmost)) return n;
  const std::size_t was = slot_size(in, c);
  const std::size_t now = size_of(in->child()[c]);
  resize_slot(in, c, was, now);
  add_child(n, h, c + 1, std::move(ex), was + 1 - now, rightmost, extra);
  return n;
}

// A full leaf c of `in` (height 1) taking v at offset i: if a sibling within `window` leaves
// has room (read from the size table, no leaf is touched), the leaves from c to the nearest
// such sibling and v are laid out again evenly over as many new leaves, instead of splitting
// c. The parent gains no entry, and room spreads out where later inserts find it: persistent
// random edits then keep leaves ~90% full where splitting alone leaves them ~70% (the fill
// figures in docs/design.md). The window is spread_window, and B at a root of B leaves, whose
// split would add a level to every look-up: it then keeps its height while its leaves have
// room (below the root, the wider window made reads of 10^6 tensors slower: docs/decisions.md,
// "Tree shape and balancing"). At most `window` + 1 leaves are laid out again. Returns false,
// having done nothing, when no sibling has room.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::spread_insert(inner_t* in, std::uint32_t c, std::size_t i, T& v,
                                                    std::uint32_t window) {
  std::uint32_t s = c;
  if (in->dense) {
    // All its leaves but the last are full.
    const std::uint32_t last = in->count - 1u;
    if (last != c && last - c <= window && slot_size(in, last) < BL) s = last;
  } else {
    for (std::uint32_t d = 1; d <= window && s == c; ++d) {
      std::size_t best = BL;
      if (c >= d && slot_size(in, c - d) < best) {
        s = c - d;
        best = slot_size(in, s);
      }
      if (c + d < in->count && slot_size(in, c + d) < best) s = c + d;
    }
  }
  if (s == c) return false;
  const std::uint32_t a = s < c ? s : c;
  const std::uint32_t b = s < c ? c : s;
  const std::uint32_t leaves = b - a + 1;
  seg segs[B + 2];  // at most B leaves, one of them in three runs
  std::size_t nsegs = 0;
  T* val = &v;
  for (std::uint32_t j = a; j <= b; ++j) {
    node_t* l = in->child()[j];
    const bool steal = editable(l);
    if (j == c) {
      segs[nsegs++] = seg_of(l, 0, i, steal);
      segs[nsegs++] = {val, val + 1, true};
      segs[nsegs++] = seg_of(l, i, l->count, steal);
    } else {
      segs[nsegs++] = seg_of(l, 0, l->count, steal);
    }
  }
  const std::size_t total = in->sizes()[b] - (a == 0 ? 0 : in->sizes()[a - 1]) + 1;
  ref out[B];
  std::size_t from = 0;
  const bool room = editable(in->child()[c]);  // an in-place update: the leaves keep room
  for (std::uint32_t q = 0; q < leaves; ++q) {
    const std::size_t len = total / leaves + (q < total % leaves ? 1 : 0);
    out[q] = new_leaf(cap_for(len, room, BL));
    fill(as_leaf(out[q].get()), segs, nsegs, from, from + len);
    from += len;
  }
  std::size_t acc = a == 0 ? 0 : in->sizes()[a - 1];
  for (std::uint32_t q = 0; q < leaves; ++q) {
    intrusive_ptr_release(in->child()[a + q]);
    acc += out[q]->count;
    in->sizes()[a + q] = acc;
    in->child()[a + q] = out[q].detach();
  }
  for (std::uint32_t j = b + 1; j < in->count; ++j) ++in->sizes()[j];
  mark_dense(in, 1);
  return true;
}

// Appends v after the last element of the root n, a leaf parent of B leaves with room (fewer
// than B * BL elements): into its last leaf, or spread from it through the node when that is
// full (spread_insert). The tail's overflow, where a new leaf would split the root
// (rrb_state_ops::overflow_into_root).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::append_to_last_leaf(ref n, T& v) -> ref {
  n = own(std::move(n));
  inner_t* in = as_inner(n.get());
  const std::uint32_t c = in->count - 1u;
  const std::size_t i = slot_size(in, c);
  if (i == BL) {
    [[maybe_unused]] const bool spread = spread_insert(in, c, i, v, B);
    TSEQ_ASSERT(spread, "append_to_last_leaf: a leaf parent without room");
    return n;
  }
  ref none;
  in->child()[c] = insert(take_child(in, c), 0, i, v, true, none).detach();
  ++in->sizes()[c];
  resized_by_one(in, 1, c, true);
  return n;
}

// In place, a full leaf about to take one more element first moves some of its elements to
// a sibling with room (as a B*-tree does), so that in-place edit histories keep leaves full
// rather than splitting them: fewer leaves, faster iteration. Both leaves must be ours alone
// (moving is then free of allocation) and T's moves must not throw. Returns whether it did.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::share_with_sibling(inner_t* in, std::uint32_t c) noexcept {
  if constexpr (!std::is_nothrow_move_constructible_v<T> || !std::is_nothrow_move_assignable_v<T>) {
    return false;
  } else {
    leaf_t* l = as_leaf(in->child()[c]);
    if (l->count != BL || !editable(l)) return false;
    leaf_t* left = c > 0 ? as_leaf(in->child()[c - 1]) : nullptr;
    leaf_t* right = c + 1 < in->count ? as_leaf(in->child()[c + 1]) : nullptr;
    // A sibling takes elements into the room its allocation has.
    if (left != nullptr && (left->count + 2u > left->cap || !editable(left))) left = nullptr;
    if (right != nullptr && (right->count + 2u > right->cap || !editable(right))) right = nullptr;
    if (left == nullptr && right == nullptr) return false;
    T* d = l->data();
    if (right != nullptr && (left == nullptr || right->count <= left->count)) {
      const std::uint32_t k = (right->cap - right->count) / 2u;  // l's last k go first in right
      T* r = right->data();
      const std::uint32_t rn = right->count;
      for (std::uint32_t j = rn; j-- > 0;) {
        if (j + k >= rn) {
          ::new (static_cast<void*>(r + j + k)) T(std::move(r[j]));
        } else {
          r[j + k] = std::move(r[j]);
        }
      }
      for (std::uint32_t j = 0; j < k; ++j) {
        T& src = d[BL - k + j];
        if (j < rn) {
          r[j] = std::move(src);
        } else {
          ::new (static_cast<void*>(r + j)) T(std::move(src));
        }
      }
      right->count = rn + k;
      for (std::uint32_t j = BL - k; j < BL; ++j) d[j].~T();
      l->count = static_cast<std::uint32_t>(BL) - k;
      in->sizes()[c] -= k;
    } else {
      const std::uint32_t k = (left->cap - left->count) / 2u;  // l's first k go last in left
      T* a = left->data();
      for (std::uint32_t j = 0; j < k; ++j) ::new (static_cast<void*>(a + left->count + j)) T(std::move(d[j]));
      left->count += k;
      move_elements(d + k, d + BL, d);
      for (std::uint32_t j = static_cast<std::uint32_t>(BL) - k; j < BL; ++j) d[j].~T();
      l->count = static_cast<std::uint32_t>(BL) - k;
      in->sizes()[c - 1] += k;
    }
    mark_dense(in, 1);
    return true;
  }
}

// A tree of height 1 or 2 (root `top`) and its tail, which we only read, with element i
// erased (v null) or v inserted before it, laid out again from the edited leaf (or from the
// first leaf not full, if that comes first) as push_back lays out a vector: the leaves before
// it shared, then full leaves under one root, and the last 1..BL elements in a new tail. So
// the root stays dense (a look-up goes down by radix, `regular`) through persistent edits and
// the push_backs after them, where leaving the edited leaf short made the hint's guess miss
// for a quarter of the look-ups after random edits (docs/decisions.md, "Tree shape and
// balancing"); a tree of height 2 (an insert split its root) comes back to one leaf parent
// once it fits. Only for packs_root elements: each new leaf is filled by memcpy (one to four
// runs); at most B * BL + BL elements (8 KB of `int`s at Bits = 5) and B + 2 nodes. Returns
// false, having done nothing, when the result needs more than B leaves (an insert when the
// root holds B full leaves and the tail is full: the general insert splits the root), or a
// tree of height 2 holds more than B * BL + BL elements with its tail (after an insert) or
// more than packed_leaves leaves.
// Otherwise `root` is the new tree, of height 1 (null when the tail holds everything; a root
// with one child is collapsed by the caller), and `tail` the new tail.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::repack_root(const node_t* top, unsigned h, node_t* old_tail, std::size_t i, T* v,
                                                  ref& root, ref& tail) {
  static_assert(packs_root, "repack_root copies leaves by memcpy");
  const inner_t* in = as_inner(top);
  if (h == 1) {
    std::size_t o = i;
    const std::uint32_t c = child_index(in, 1, o);
    return lay_out_root<B>(in->child(), in->sizes(), in->count, c, o, in->dense, old_tail, v, root, tail);
  }
  TSEQ_ASSERT(h == 2, "repack_root: a tree of height 1 or 2");
  // (The size before an erase: one from B * BL + BL + 1 takes the general path, so that edits
  // at that size do not lay out two levels and one in turn.)
  if (size_of(top) + old_tail->count + (v != nullptr ? 1u : 0u) > B * BL + BL) return false;
  return repack_two_levels(in, old_tail, i, v, root, tail);
}

// repack_root for a tree of height 2: its leaves listed in order, with their cumulative sizes
// (at most packed_leaves: a tree that fits one leaf parent holds fewer unless its leaves are
// under half full on average). A function of its own, so that the height-1 path does not
// carry these arrays in its frame.
template <class T, unsigned Bits, unsigned LBits>
TSEQ_NOINLINE bool rrb_tree<T, Bits, LBits>::repack_two_levels(const inner_t* in, node_t* old_tail, std::size_t i, T* v,
                                                               ref& root, ref& tail) {
  node_t* leaves[packed_leaves];
  std::size_t ends[packed_leaves];
  std::uint32_t n = 0;
  std::size_t base = 0;
  for (std::uint32_t q = 0; q < in->count; ++q) {
    const inner_t* lp = as_inner(in->child()[q]);
    if (n + lp->count > packed_leaves) return false;
    for (std::uint32_t j = 0; j < lp->count; ++j, ++n) {
      leaves[n] = lp->child()[j];
      ends[n] = base + lp->sizes()[j];
    }
    base = ends[n - 1];
  }
  std::uint32_t c = 0;
  while (ends[c] <= i) ++c;  // ends[n - 1] > i ends it
  const std::size_t o = i - (c == 0 ? 0 : ends[c - 1]);
  return lay_out_root<packed_leaves>(leaves, ends, n, c, o, false, old_tail, v, root, tail);
}

// repack_root's layout: leaves kids[0, n) (n <= N, cumulative sizes `ends`; `dense`: all but
// the last full) and the tail, element o of leaf c erased or v inserted before it. The full
// leaves before c, kids[0, a), are kept.
template <class T, unsigned Bits, unsigned LBits>
template <std::uint32_t N, class Kids, class Ends>
inline bool rrb_tree<T, Bits, LBits>::lay_out_root(const Kids& kids, const Ends& ends, std::uint32_t n, std::uint32_t c,
                                                   std::size_t o, bool dense, node_t* old_tail, T* v, ref& root,
                                                   ref& tail) {
  const std::uint32_t a = first_laid_out(ends, c, dense);
  const std::size_t before = elements_before(ends, a);
  // Elements from leaf a on, the tail's included, before the edit: >= 2 (leaf c holds i, the
  // tail at least one), so total >= 1.
  const std::size_t kept = ends[n - 1] - before + old_tail->count;
  const std::size_t total = v != nullptr ? kept + 1 : kept - 1;
  const std::size_t full = (total - 1) / BL;  // full leaves; the tail takes the last 1..BL
  if (a + full > B) return false;
  TSEQ_ASSERT(n <= N, "lay_out_root: more leaves than its bound");
  seg segs[N + 3];
  std::size_t nsegs = edited_runs(kids, a, n, c, o, v, segs);
  segs[nsegs++] = seg_of(old_tail, 0, old_tail->count, false);
  run_copier copy_next(segs, nsegs);
  ref out;
  if (a + full > 0) {
    out = packed_parent(kids, ends, a, a + full);
    for (std::size_t q = 0; q < full; ++q) append_packed_leaf(as_inner(out.get()), copy_next, BL);
    mark_dense(as_inner(out.get()), 1);
  }
  ref t = new_leaf(total - full * BL);
  copy_next(as_leaf(t.get()), total - full * BL);
  root = std::move(out);
  tail = std::move(t);
  return true;
}

// A persistent erase (v null) or insert (v before element i) in the leaf parent `in`, shared
// and below the root, of packs_root elements: as repack_root does to a root, its leaves from
// the edited one (or the first not full before it) on laid out again full, the leaves before
// them shared, so that it stays dense and a look-up goes through it by radix. There is no
// tail here, so the last elements keep I3's fill: a last leaf of r < mL elements is evened
// out with the full one before it, two leaves of at least mL (a node whose children but the
// last two are full is guessed by radix too: hint_of). At most B * BL elements copied and
// B + 1 nodes. Returns null, having done nothing, when the result would hold fewer than m
// leaves (the general path and its rebalancing keep I3) or more than B (an insert into B
// full leaves: the general path splits), or one leaf of r < mL elements and nothing to even
// it out with.
template <class T, unsigned Bits, unsigned LBits>
TSEQ_NOINLINE auto rrb_tree<T, Bits, LBits>::repack_leaf_parent(const inner_t* in, std::size_t i, T* v) -> ref {
  static_assert(packs_root, "repack_leaf_parent copies leaves by memcpy");
  std::size_t o = i;
  const std::uint32_t c = child_index(in, 1, o);
  const auto sizes = in->sizes();
  const std::uint32_t a = first_laid_out(sizes, c, in->dense);
  const std::size_t before = elements_before(sizes, a);
  const std::size_t kept = sizes[in->count - 1u] - before;  // >= 1: leaf c holds i
  const std::size_t total = v != nullptr ? kept + 1 : kept - 1;
  std::size_t full = total / BL;
  const std::size_t r = total % BL;
  std::size_t evened = 0;  // elements of the last two leaves when r was evened out
  if (r > 0 && r < mL) {
    if (full == 0) return nullptr;
    --full;
    evened = BL + r;
  }
  const std::size_t leaves = a + full + (evened != 0 ? 2 : r != 0 ? 1 : 0);
  if (leaves < m || leaves > B) return nullptr;
  seg segs[B + 2];
  run_copier copy(segs, edited_runs(in->child(), a, in->count, c, o, v, segs));
  ref out = packed_parent(in->child(), sizes, a, leaves);
  inner_t* p = as_inner(out.get());
  for (std::size_t q = 0; q < full; ++q) append_packed_leaf(p, copy, BL);
  if (evened != 0) {
    append_packed_leaf(p, copy, evened - evened / 2);
    append_packed_leaf(p, copy, evened / 2);
  } else if (r != 0) {
    append_packed_leaf(p, copy, r);
  }
  mark_dense(p, 1);
  return out;
}

// The first leaf both layouts rewrite for an edit in leaf c of leaves with cumulative sizes
// `ends`: c when they are dense, else the first leaf before c that is not full. The leaves
// before it are full and kept.
template <class T, unsigned Bits, unsigned LBits>
template <class Ends>
inline std::uint32_t rrb_tree<T, Bits, LBits>::first_laid_out(const Ends& ends, std::uint32_t c, bool dense) noexcept {
  std::uint32_t a = dense ? c : 0;
  while (a < c && ends[a] == (a + std::size_t{1}) * BL) ++a;
  return a;
}

// A new leaf parent with room for cap leaves, holding kids[0, a) (shared; cumulative sizes
// `ends`), to which append_packed_leaf adds the laid-out ones.
template <class T, unsigned Bits, unsigned LBits>
template <class Kids, class Ends>
inline auto rrb_tree<T, Bits, LBits>::packed_parent(const Kids& kids, const Ends& ends, std::uint32_t a,
                                                    std::size_t cap) -> ref {
  ref out = new_inner(cap);
  inner_t* r = as_inner(out.get());
  for (std::uint32_t j = 0; j < a; ++j) {
    intrusive_ptr_add_ref(kids[j]);
    r->child()[j] = kids[j];
    r->sizes()[j] = ends[j];
  }
  r->count = a;
  return out;
}

// A new leaf of the next len elements of `copy` appended to the leaf parent r (count < cap).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::append_packed_leaf(inner_t* r, run_copier& copy, std::size_t len) {
  TSEQ_ASSERT(r->count < r->cap, "append_packed_leaf: no room");
  ref l = new_leaf(len);
  copy(as_leaf(l.get()), len);
  const std::size_t before = r->count == 0 ? 0 : r->sizes()[r->count - 1];
  r->child()[r->count] = l.detach();
  r->sizes()[r->count] = before + len;
  ++r->count;  // counted once it is in place: the caller's ref releases it if a later allocation throws
}

// The runs of leaves kids[a, n) in order, with element o of leaf c (a <= c < n) left out (v
// null) or v put before it: at most n - a + 2 runs, written to segs. Returns their number.
template <class T, unsigned Bits, unsigned LBits>
template <class Kids>
inline std::size_t rrb_tree<T, Bits, LBits>::edited_runs(const Kids& kids, std::uint32_t a, std::uint32_t n,
                                                         std::uint32_t c, std::size_t o, T* v, seg* segs) noexcept {
  std::size_t nsegs = 0;
  for (std::uint32_t j = a; j < n; ++j) {
    node_t* l = kids[j];
    if (j != c) {
      segs[nsegs++] = seg_of(l, 0, l->count, false);
    } else {
      segs[nsegs++] = seg_of(l, 0, o, false);
      if (v != nullptr) segs[nsegs++] = {v, v + 1, false};
      segs[nsegs++] = seg_of(l, v != nullptr ? o : o + 1, l->count, false);
    }
  }
  return nsegs;
}

// The next len elements of the runs into the new leaf l, by memcpy (packs_root elements).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::run_copier::operator()(leaf_t* l, std::size_t len) noexcept {
  T* d = l->data();
  for (std::size_t k = 0; k < len;) {
    while (p == segs[s].last) {
      TSEQ_ASSERT(s + 1 < nsegs, "run_copier: fewer elements in the runs than counted");
      p = segs[++s].first;
    }
    const std::size_t run = min_of(len - k, static_cast<std::size_t>(segs[s].last - p));
    std::size_t bytes = run * sizeof(T);
    TSEQ_OPAQUE(bytes);  // at most BL elements: gcc would inline the copy as `rep movsq`
    std::memcpy(static_cast<void*>(d + k), p, bytes);
    k += run;
    p += run;
  }
  l->count = static_cast<std::uint32_t>(len);
}

}  // namespace tseq::detail
