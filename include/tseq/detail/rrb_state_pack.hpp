#pragma once

// rrb_state_ops (tseq/detail/rrb_state_decl.hpp): packing and unpacking the holder of an
// rrb_vector (null, a bare leaf, or a header_node over root and tail) into a state and back,
// the reads that need no unpacking (size, element lookup), and the debug check after every
// update (assert_valid). The holder invariant kept here is (S3): finish() packs a state without
// a tree as its bare tail leaf, and reuses a header only when we hold it alone.
// Included through tseq/detail/rrb_state.hpp.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/rrb_state_decl.hpp"

namespace tseq::detail {

template <class T, unsigned Bits, unsigned LBits>
inline std::size_t rrb_state_ops<T, Bits, LBits>::size_of(const node_t* h) noexcept {
  if (h == nullptr) return 0;
  return h->is_leaf ? h->count : static_cast<const header_t*>(h)->size;
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::view_of(const node_t* h) noexcept -> view {
  if (h == nullptr) return {};
  if (h->is_leaf) return {nullptr, h, h->count, 0};
  const auto* r = static_cast<const header_t*>(h);
  return {r->root.get(), r->tail.get(), r->size, r->height};
}

// A state sharing every node of holder h (for const& updates).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::copy_of(const ref& h) -> state {
  if (!h) return {};
  if (h->is_leaf) return {nullptr, h, h->count, 0};
  const auto* r = static_cast<const header_t*>(h.get());
  return {r->root, r->tail, r->size, r->height};
}

// The state of h, moved out of it where h holds the only reference. h keeps a header that
// finish() may reuse, and is null otherwise.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::steal(ref& h) -> state {
  if (!h) return {};
  if (h->is_leaf) {
    state s;
    s.size = h->count;
    s.tail = std::move(h);
    return s;
  }
  auto* r = static_cast<header_t*>(h.get());
  if (tree::editable(r)) return {std::move(r->root), std::move(r->tail), r->size, r->height};
  state s{r->root, r->tail, r->size, r->height};
  h = nullptr;
  return s;
}

// Packs s into a holder, reusing `reuse` (a header we hold alone) if given.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::finish(state s, ref reuse) -> ref {
  if (s.size == 0) return nullptr;
  if (!s.root) return std::move(s.tail);  // a small vector is just its leaf
  if (!reuse || reuse->is_leaf || !tree::editable(reuse.get())) {
    reuse = ref(allocate_node<header_t>(), false);
  }
  auto* r = static_cast<header_t*>(reuse.get());
  r->root = std::move(s.root);
  r->tail = std::move(s.tail);
  r->size = s.size;
  r->tree_size = s.size - r->tail->count;
  r->height = s.height;
  return reuse;
}

// A small vector's update: one new leaf from the given runs of elements (never more than BL),
// or none when they are empty (erasing the last element allocates nothing).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_state_ops<T, Bits, LBits>::small(std::initializer_list<typename tree::seg> segs) -> ref {
  if (tree::entries(segs.begin(), segs.size()) == 0) return nullptr;
  ref none;
  ref leaf = tree::build_leaves(segs.begin(), segs.size(), BL, none);
  TSEQ_ASSERT(!none, "a small update produced more than one leaf");
  return leaf;
}

// Element i of holder h: the header alone tells tree from tail, then one descent.
template <class T, unsigned Bits, unsigned LBits>
inline const T& rrb_state_ops<T, Bits, LBits>::lookup(const node_t* h, std::size_t i) noexcept {
  TSEQ_ASSERT(i < size_of(h), "rrb_vector: index out of range (operator[] precondition)");
  if (h->is_leaf) return tree::as_leaf(h)->data()[i];
  const auto* r = static_cast<const header_t*>(h);
  if (i >= r->tree_size) return tree::as_leaf(r->tail.get())->data()[i - r->tree_size];
  const node_t* root = r->root.get();
  const auto p = root->regular ? tree::find_leaf_regular(root, r->height, i)
                               : tree::find_leaf(root, r->height, i, r->tree_size <= tree::bucket_lookup_max);
  return p.leaf->data()[p.offset];
}

// The greatest number of tree levels (root height + 1) the invariants allow for n elements
// in the tree: height 1 only if n > 1, height h >= 2 only if n > m^(h-2) * u (m = B/2,
// u = min(m, BL/4); docs/design.md, height bound). For BL >= 2B (elements of half a
// pointer or less) u = m, and that is 1 + the smallest j with n <= m^j.
template <class T, unsigned Bits, unsigned LBits>
inline unsigned rrb_state_ops<T, Bits, LBits>::levels_bound(std::size_t n) noexcept {
  if (n == 0) return 0;
  if (n == 1) return 1;
  // Height h >= 2 only if n > f(h) = m^(h-2) * u, u = min(m, leaf_floor): the subtree of a
  // node of height h - 2 off the outer paths (docs/design.md, height bound).
  unsigned h = 1;
  std::size_t f = tree::subtree_floor_unit;  // f(h + 1)
  while (f < n) {
    ++h;
    if (f > std::numeric_limits<std::size_t>::max() / tree::m) break;
    f *= tree::m;
  }
  return h + 1;
}

// Debug-build check after every update: (S1), (S2) and the nodes on both outer spines of the
// tree (counts, size tables, heights): O(B log n), where updates change the tree.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_state_ops<T, Bits, LBits>::assert_valid(const view& s) noexcept {
#if TSEQ_ASSERTIONS
  TSEQ_ASSERT((s.tail == nullptr) == (s.size == 0), "rrb_vector: tail missing or present on an empty vector");
  if (s.size == 0) return;
  TSEQ_ASSERT(s.tail->is_leaf && s.tail->count >= 1 && s.tail->count <= s.tail->cap && s.tail->cap <= BL,
              "rrb_vector: tail holds 1..BL elements");
  if (!s.root) {
    TSEQ_ASSERT(s.size == s.tail->count && s.height == 0, "rrb_vector: size of a vector without a tree");
    return;
  }
  TSEQ_ASSERT(s.root->is_leaf == (s.height == 0), "rrb_vector: root height");
  TSEQ_ASSERT(s.height + 1 <= levels_bound(s.tree_size()), "rrb_vector: height exceeds the bound");
  TSEQ_ASSERT(tree::size_of(s.root) == s.tree_size(), "rrb_vector: size != tree + tail");
  if (!s.root->is_leaf) TSEQ_ASSERT(s.root->count >= 2, "rrb_vector: inner root with a single child");
  for (const bool right : {false, true}) {
    const node_t* n = s.root;
    for (unsigned h = s.height; h > 0; --h) {
      const auto* in = tree::as_inner(n);
      TSEQ_ASSERT(in->count >= 1 && in->count <= in->cap && in->cap <= B && !in->is_leaf,
                  "rrb_vector: inner node on a spine");
      std::size_t acc = 0;
      for (std::uint32_t i = 0; i < in->count; ++i) {
        TSEQ_ASSERT(in->child()[i] != nullptr, "rrb_vector: null child");
        acc += tree::size_of(in->child()[i]);
        TSEQ_ASSERT(in->sizes()[i] == acc, "rrb_vector: size table");
      }
      n = in->child()[right ? in->count - 1 : 0];
    }
    TSEQ_ASSERT(n->is_leaf && n->count >= 1 && n->count <= n->cap && n->cap <= BL, "rrb_vector: leaf on a spine");
  }
#else
  (void)s;
#endif
}

}  // namespace tseq::detail
