#pragma once

// rrb_tree (tseq/detail/rrb_tree_decl.hpp): read-only walks over every node: for_each_leaf
// (the elements in order, leaf by leaf, prefetching the leaves ahead) and count_nodes (node
// counts and bytes for rrb_vector::storage()). Nothing is changed and no reference is taken.
// Included through tseq/detail/rrb_tree.hpp.

#include <cstddef>
#include <cstdint>

#include "tseq/detail/config.hpp"
#include "tseq/detail/rrb_tree_decl.hpp"

namespace tseq::detail {

// Asks the cache for the first `bytes` of node n (leaves of a long-edited tree lie scattered).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::prefetch(const node_t* n, std::size_t bytes) noexcept {
  const char* p = reinterpret_cast<const char*>(n);
  for (std::size_t off = 0; off < bytes; off += 64) TSEQ_PREFETCH_READ(p + off);
}

// A leaf's room for BL elements, an inner node's header and child array: fixed extents, so
// that no header is read to prefetch (a read of a cold `count` stalls the walk: a walk of
// the handles of the edited 10^6 tree measured 1.39x slower so). Past the end of a smaller
// allocation a prefetch is harmless: it never faults.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::prefetch(const leaf_t* l) noexcept {
  prefetch(l, leaf_t::bytes(BL));
}

template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::prefetch(const inner_t* in) noexcept {
  prefetch(in, sizeof(inner_t) + B * sizeof(node_t*));  // the header and a full child array
}

// Calls f(first, last) on each leaf below n (height h) in order. `next` is the node after n
// at the same height (null at the end): the prefetch window of `ahead` leaves runs on into
// its children, so that it does not restart (and the walk stall) at each node of height 1.
// `first`: no node before n in this walk (then nothing has asked for n's first leaves).
// `ahead_reads`: the window of leaves inside a node. rrb_vector::for_each_chunk clears it when
// the elements take at most cached_walk_bytes: such a walk reads from the cache, where these
// prefetches, five per leaf of tensor handles, were a fifth of the time of a walk of 10^3
// handles. The next node's header and first leaves are still asked for (without them a walk
// of 10^3 edited tensors, two levels, read 171 -> 214 ns; docs/decisions.md, "Traversal").
template <class T, unsigned Bits, unsigned LBits>
template <class F>
inline void rrb_tree<T, Bits, LBits>::for_each_leaf(const node_t* n, unsigned h, F& f, const node_t* next, bool first,
                                                    bool ahead_reads) {
  if (h == 0) {
    const leaf_t* l = as_leaf(n);
    f(l->data(), l->data() + l->count);
    return;
  }
  const inner_t* in = as_inner(n);
  if (h == 1) {
    const inner_t* nx = next != nullptr ? as_inner(next) : nullptr;
    if (in->dense) {
      leaves_of<true>(in, nx, f, first, ahead_reads);
    } else {
      leaves_of<false>(in, nx, f, first, ahead_reads);
    }
    return;
  }
  for (std::uint32_t i = 0; i < in->count; ++i) {
    // The node after child i at its height: its right sibling, else the first child of next.
    const node_t* after = nullptr;
    if (i + 1 < in->count) {
      after = in->child()[i + 1];
    } else if (next != nullptr) {
      after = as_inner(next)->child()[0];
    }
    if (after != nullptr) prefetch(as_inner(after));
    for_each_leaf(in->child()[i], h - 1, f, after, first && i == 0, ahead_reads);
  }
}

// for_each_leaf at height 1: f on each leaf of `in`, whose next node at its height is nx (or
// null). Dense: in is dense, so its leaves but the last hold BL each (I4).
template <class T, unsigned Bits, unsigned LBits>
template <bool Dense, class F>
inline void rrb_tree<T, Bits, LBits>::leaves_of(const inner_t* in, const inner_t* nx, F& f, bool first,
                                                bool ahead_reads) {
  // Leaves prefetched ahead of the one visited (fewer than B: less when B is tiny).
  constexpr std::uint32_t ahead = B > 8 ? 4 : B / 2;
  const std::uint32_t c = in->count;
  if (first && ahead_reads) {
    for (std::uint32_t i = 0; i < c && i < ahead; ++i) prefetch(as_leaf(in->child()[i]));
  }
  // Leaf i + ahead: here while there is one (i < split <= c - 1: leaf i is not the last),
  // then in the next node. Without ahead_reads split is 0, and the second loop asks only for
  // the next node's first leaves, while it visits this node's last `ahead`.
  const std::uint32_t split = ahead_reads && c > ahead ? c - ahead : 0;
  for (std::uint32_t i = 0; i < split; ++i) {
    prefetch(as_leaf(in->child()[i + ahead]));
    const leaf_t* l = as_leaf(in->child()[i]);
    if constexpr (Dense) {
      visit_full(l, f);
    } else {
      f(l->data(), l->data() + l->count);
    }
  }
  for (std::uint32_t i = split; i < c; ++i) {
    if (nx != nullptr && i + ahead >= c && i + ahead - c < nx->count) prefetch(as_leaf(nx->child()[i + ahead - c]));
    const leaf_t* l = as_leaf(in->child()[i]);
    if (Dense && i + 1 < c) {
      visit_full(l, f);
    } else {
      f(l->data(), l->data() + l->count);
    }
  }
}

// f on a leaf holding BL elements. The run's length is a constant here, in a function of its
// own: inlined from here, gcc unrolls a loop over a fixed-length leaf in f (a sum over a leaf
// of 32 tensor handles: 16 vector steps unrolled), and it did not when the same constant
// appeared in for_each_leaf's loop.
template <class T, unsigned Bits, unsigned LBits>
template <class F>
inline void rrb_tree<T, Bits, LBits>::visit_full(const leaf_t* l, F& f) {
  const T* d = l->data();
  f(d, d + BL);
}

// Bytes of node n's allocation (a leaf or an inner node).
template <class T, unsigned Bits, unsigned LBits>
inline std::size_t rrb_tree<T, Bits, LBits>::node_bytes(const node_t* n) noexcept {
  return n->is_leaf ? leaf_t::bytes(n->cap) : inner_t::bytes(n->cap);
}

// Adds the leaves, inner nodes and their bytes below n (height h) to the counts; reads
// each node's header, no element.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::count_nodes(const node_t* n, unsigned h, std::size_t& leaves, std::size_t& inners,
                                                  std::size_t& bytes) noexcept {
  bytes += node_bytes(n);
  if (h == 0) {
    ++leaves;
    return;
  }
  ++inners;
  const inner_t* in = as_inner(n);
  if (h == 1) {
    leaves += in->count;
    for (std::uint32_t i = 0; i < in->count; ++i) bytes += node_bytes(in->child()[i]);
    return;
  }
  for (std::uint32_t i = 0; i < in->count; ++i) count_nodes(in->child()[i], h - 1, leaves, inners, bytes);
}

}  // namespace tseq::detail
