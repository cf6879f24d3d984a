#pragma once

// rrb_tree (tseq/detail/rrb_tree_decl.hpp): concatenation of two trees. join walks down the
// taller tree's inner edge (the left tree's rightmost path, or the right tree's leftmost) to
// the other's height and merges the two nodes that meet there (merge_seam, recursively down
// to the leaves), so that every node off the outer paths holds >= m entries again (I3); a
// node that overflows passes a right sibling up (`extra`), and a new root is made when the old
// one splits. append_leaf_in_place is push_back's tail flush without the general join.
// Included through tseq/detail/rrb_tree.hpp.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/config.hpp"
#include "tseq/detail/rrb_tree_decl.hpp"

namespace tseq::detail {

// L (height h) ends the left tree's rightmost path, whose nodes below L may be under-full;
// R (height h) starts the right tree's leftmost path. Returns their contents as one node, or
// two (`extra`), satisfying (I3) except that the last may be small when r_rightmost.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::merge_seam(ref L, ref R, unsigned h, bool r_rightmost, ref& extra) -> ref {
  if (h == 0) {
    const std::size_t k = L->count + std::size_t{R->count};
    // Two trees' seam: both kept as they are when both satisfy I3 (>= leaf_floor), so that
    // joining two halves cut inside one leaf copies no element. Until 2026-12-06 two leaves
    // that fit in one were merged even when both held >= mL (BL element copies, for tensors
    // BL reference-count updates on payloads, 0.2 of the time of a + b at 10^5 tensors), and
    // until 2026-12-07 when one held fewer than mL (a + b of 10^3 tensors, a 20 + 12 seam:
    // 1.57x immer's time, which keeps both; docs/decisions.md). When R ends the rightmost
    // path (a tail flushed by push_back, or a one-leaf tree) it may stay small, and L is kept
    // only if it holds mL: the last leaf, which erases may have shrunk, is laid out again
    // with the new one rather than left short inside the tree.
    if (r_rightmost ? L->count >= mL : L->count >= leaf_floor && R->count >= leaf_floor) {
      extra = std::move(R);
      return L;
    }
    const seg segs[2] = {seg_of(L.get(), 0, L->count, editable(L.get())),
                         seg_of(R.get(), 0, R->count, editable(R.get()))};
    return build_leaves(segs, 2, split_point(k, r_rightmost, BL), extra);
  }
  kids k;
  ref spare = explode(std::move(L), k);
  ref lc(k.v[--k.n], false);
  const bool r_single = R->count == 1;
  kids kr;
  ref spare2 = explode(std::move(R), kr);
  ref mid2;
  ref mid = merge_seam(std::move(lc), kr.take(0), h - 1, r_rightmost && r_single, mid2);
  std::size_t next = 1;  // R's children from here on follow
  if (!mid2 && mid->count < floor_at(h - 1) && kr.n >= 2) {
    // R's first child came from the right tree's leftmost path, which (I3L) lets hold fewer
    // than m, and so may the one merged node: it is laid out again with R's second child
    // (>= m, or ending the rightmost path), as one node or two each >= m (mL for leaves).
    // The level above does the same if this level's node ends up short in turn.
    mid = relayout_pair(std::move(mid), kr.take(1), h - 1, r_rightmost && kr.n == 2, mid2);
    next = 2;
  }
  k.push(std::move(mid));
  if (mid2) k.push(std::move(mid2));
  for (std::size_t i = next; i < kr.n; ++i) k.push(kr.take(i), kr.s[i]);
  return build_inner(k, 0, k.n, split_point(k.n, r_rightmost, B), h, extra,
                     spare ? std::move(spare) : std::move(spare2), r_rightmost);
}

// x (height h >= hb) is on the left tree's rightmost path; appends tree b after it.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::join_right(ref x, unsigned h, ref b, unsigned hb, ref& extra) -> ref {
  if (h == hb) return merge_seam(std::move(x), std::move(b), h, true, extra);
  x = own(std::move(x), B);  // the rightmost path: appends grow it in place
  inner_t* in = as_inner(x.get());
  const std::uint32_t c = in->count - 1;
  ref ex;
  in->child()[c] = join_right(take_child(in, c), h - 1, std::move(b), hb, ex).detach();
  resize_from(in, h, c, false);  // reads only the new last child
  if (ex) {
    const std::size_t size = size_of(ex.get());
    add_child(x, h, c + 1, std::move(ex), size, true, extra);
  }
  return x;
}

// y (height h >= ha) is on the right tree's leftmost path; prepends tree a before it.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::join_left(ref y, unsigned h, bool rightmost, ref a, unsigned ha, ref& extra)
    -> ref {
  if (h == ha) return merge_seam(std::move(a), std::move(y), h, rightmost, extra);
  y = own(std::move(y), 1);
  inner_t* in = as_inner(y.get());
  ref ex;
  const bool first_rightmost = rightmost && in->count == 1;
  const std::size_t was = slot_size(in, 0);
  in->child()[0] = join_left(take_child(in, 0), h - 1, first_rightmost, std::move(a), ha, ex).detach();
  resize_slot(in, 0, was, size_of(in->child()[0]));
  if (ex) {
    const std::size_t size = size_of(ex.get());
    add_child(y, h, 1, std::move(ex), size, rightmost, extra);
  } else {
    mark_dense(in, h, false);
  }
  return y;
}

// Concatenation of two non-empty trees; `h` receives the height of the result.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::join(ref a, unsigned ha, ref b, unsigned hb, unsigned& h) -> ref {
  ref extra;
  ref r;
  if (ha >= hb) {
    h = ha;
    r = join_right(std::move(a), ha, std::move(b), hb, extra);
  } else {
    h = hb;
    r = join_left(std::move(b), hb, true, std::move(a), ha, extra);
  }
  if (extra) return root_of_two(std::move(r), std::move(extra), h);
  return collapse(std::move(r), h);
}

// A chain of new single-child nodes of heights 1..top-1 over the full leaf l, taken from l
// only once every node is allocated (bad_alloc leaves l as it was). Kept out of line: one
// flush in B needs it.
template <class T, unsigned Bits, unsigned LBits>
TSEQ_NOINLINE auto rrb_tree<T, Bits, LBits>::chain_over(ref& l, unsigned top) -> ref {
  ref chain[max_levels];  // chain[k]: the new node at height k
  for (unsigned k = 1; k < top; ++k) chain[k] = new_inner();
  ref below = std::move(l);
  for (unsigned k = 1; k < top; ++k) {
    inner_t* c = as_inner(chain[k].get());
    insert_slot(c, 0, std::move(below), BL);
    mark_dense(c, k, false);
    below = std::move(chain[k]);
  }
  return below;
}

// push_back's tail flush without the general join: appends the full leaf l (BL elements)
// after the last element of the tree rooted at r (height h >= 1), in place, when
//  - every node on r's rightmost path is ours alone,
//  - its last leaf holds >= mL (merge_seam would keep both leaves as they are),
//  - the lowest node on the path that is not full (count < B) has room in its allocation.
// Then that node takes a new last child: l, under a chain of single-child nodes
// down from that height (what join_right's add_child builds), and the nodes above add BL to
// their last size. One pass down and one up the path: no child beside the path is read.
// Returns false, having changed nothing (l untouched), otherwise; then join does the work.
// Throws only bad_alloc for the chain's nodes, before anything changed.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::append_leaf_in_place(node_t* r, unsigned h, ref& l) {
  TSEQ_ASSERT(l && l->is_leaf && l->count == BL, "append_leaf_in_place: not a full leaf");
  if (h == 0 || h >= max_levels) return false;
  inner_t* path[max_levels];  // path[k]: the node at height k
  unsigned room = 0;          // the lowest height with room, 0 when none
  node_t* n = r;
  for (unsigned k = h; k > 0; --k) {
    if (!editable(n)) return false;
    inner_t* in = as_inner(n);
    path[k] = in;
    if (in->count < B) room = k;
    n = in->child()[in->count - 1];
  }
  // The nodes below `room` are full; the one at `room` must have room in its allocation
  // (else make_room's move: the general path).
  if (room == 0 || n->count < mL || path[room]->count == path[room]->cap) return false;
  insert_slot(path[room], path[room]->count, room == 1 ? std::move(l) : chain_over(l, room), BL);
  mark_dense(path[room], room, false);
  for (unsigned k = room + 1; k <= h; ++k) {
    resize_slot(path[k], path[k]->count - 1, 0, BL);  // its last child grew by BL
    mark_dense(path[k], k, false);
  }
  return true;
}

}  // namespace tseq::detail
