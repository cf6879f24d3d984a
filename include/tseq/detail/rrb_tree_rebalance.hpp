#pragma once

// rrb_tree (tseq/detail/rrb_tree_decl.hpp): rebalancing two neighbouring nodes. After an
// update leaves a child under-full (erase, drop's left edge, concatenation's seam) or makes it
// split (insert), the pair (or the split node with a neighbour) is laid out again: merged into
// one node, or its entries shared out between two, so that both hold >= m entries (I3) unless
// the second ends the rightmost path. A node we hold alone is reused or edited in place;
// entries of a shared one are copied.
// Included through tseq/detail/rrb_tree.hpp.

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/rrb_tree_decl.hpp"

namespace tseq::detail {

// When child c is ours alone and c, c+1 fit in one node: c+1's entries are appended to c
// (copied, or moved when c+1 is ours too) and c+1 is dropped. No allocation. Returns false,
// having done nothing, otherwise.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::merge_into_first(inner_t* in, unsigned h, std::uint32_t c) {
  node_t* x = in->child()[c];
  node_t* y = in->child()[c + 1];
  if (!editable(x) || x->count + std::size_t{y->count} > x->cap) return false;
  const bool steal = editable(y);
  if (h == 1) {
    leaf_t* a = as_leaf(x);
    leaf_t* b = as_leaf(y);
    T* d = a->data();
    T* from = b->data();
    // Counted as each is constructed: a throwing copy leaves both leaves consistent.
    for (std::uint32_t j = 0; j < b->count; ++j) {
      if (steal) {
        ::new (static_cast<void*>(d + a->count)) T(std::move(from[j]));
      } else {
        ::new (static_cast<void*>(d + a->count)) T(from[j]);
      }
      ++a->count;
    }
  } else {
    inner_t* a = as_inner(x);
    inner_t* b = as_inner(y);
    append_slots(a, b, 0, b->count, !steal);
    if (steal) b->count = 0;  // its children now belong to x
    mark_dense(a, h - 1);
  }
  intrusive_ptr_release(y);
  in->child()[c + 1] = nullptr;
  in->sizes()[c] = in->sizes()[c + 1];
  remove_slot(in, c + 1);
  mark_dense(in, h);
  return true;
}

// The entries of the adjacent nodes x and y (height h; either may be shared) laid out again
// as one node, or two (the second in r2) splitting them evenly, or B + 1 when
// `pair_rightmost` (y on the rightmost path): each then holds >= m unless the pair holds
// fewer. Entries of a node held alone are moved, of a shared one copied.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::relayout_pair(ref x, ref y, unsigned h, bool pair_rightmost, ref& r2) -> ref {
  if (h == 0) {
    const seg segs[2] = {seg_of(x.get(), 0, x->count, editable(x.get())),
                         seg_of(y.get(), 0, y->count, editable(y.get()))};
    return build_leaves(segs, 2, split_point(entries(segs, 2), pair_rightmost, BL), r2);
  }
  kids k;
  ref spare = explode(std::move(x), k);
  ref spare2 = explode(std::move(y), k);
  return build_inner(k, 0, k.n, split_point(k.n, pair_rightmost, B), h, r2,
                     spare ? std::move(spare) : std::move(spare2), pair_rightmost);
}

// Children c and c+1 of the editable node `in` (height h) are merged into one node, or their
// entries shared out between two, so that both satisfy (I3). `pair_rightmost`: c+1 is on the
// rightmost path.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::rebalance_pair(inner_t* in, unsigned h, std::uint32_t c, bool pair_rightmost) {
  if (merge_into_first(in, h, c)) return;
  ref r2;
  ref r1 = relayout_pair(take_child(in, c), take_child(in, c + 1), h - 1, pair_rightmost, r2);
  // The pair holds as many elements as before: only the boundary between them moves.
  const std::size_t first = size_of(r1.get());
  in->child()[c] = r1.detach();
  if (r2) {
    in->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + first;
    in->child()[c + 1] = r2.detach();
  } else {
    in->sizes()[c] = in->sizes()[c + 1];
    remove_slot(in, c + 1);
  }
  mark_dense(in, h);
}

// Child c of the editable node `in` (height h >= 2, so its children are inner nodes) has just
// split into itself and `ex`. When a neighbour of c is not full, the children of the three
// are laid out again over two nodes, so that `in` gains no child: the inner-node counterpart
// of fill rule F (a packed tree's full parents would otherwise split in halves as it grows;
// docs/design.md). Only the neighbour's header is read. Returns false, having done nothing,
// otherwise; true with `in`'s table counting the inserted element.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::absorb_split(inner_t* in, unsigned h, std::uint32_t c, ref& ex, bool rightmost) {
  const bool right = c + 1 < in->count && in->child()[c + 1]->count < B;
  const bool left = !right && c > 0 && in->child()[c - 1]->count < B;
  if (!right && !left) return false;
  const std::uint32_t a = right ? c : c - 1;  // the pair of slots the three go back into
  const bool pair_rightmost = rightmost && a + 2 == in->count;
  // The children in order: c, ex, then the neighbour, or the neighbour, c, then ex. c's node,
  // emptied, is reused (ours, and full before it split: room for B); the other two emptied
  // nodes are freed on return.
  kids k;
  ref spare;
  ref others[2];
  if (right) {
    spare = explode(take_child(in, c), k);
    others[0] = explode(std::move(ex), k);
    others[1] = explode(take_child(in, c + 1), k);
  } else {
    others[0] = explode(take_child(in, c - 1), k);
    spare = explode(take_child(in, c), k);
    others[1] = explode(std::move(ex), k);
  }
  ref r2;
  ref r1 = build_inner(k, 0, k.n, split_point(k.n, pair_rightmost, B), h - 1, r2, std::move(spare), pair_rightmost);
  TSEQ_ASSERT(r2, "absorb_split: more than B children make two nodes");
  for (std::uint32_t j = a + 1; j < in->count; ++j) ++in->sizes()[j];  // the inserted element
  in->sizes()[a] = (a == 0 ? 0 : in->sizes()[a - 1]) + size_of(r1.get());
  in->child()[a] = r1.detach();
  in->child()[a + 1] = r2.detach();
  mark_dense(in, h);
  return true;
}

}  // namespace tseq::detail
