#pragma once

// Algorithms on the tree behind tseq::rrb_vector. See docs/design.md for the invariants:
//  (I1) all leaves are at height 0, the root at `height`;
//  (I2) every node holds 1..B entries; an inner root holds at least 2;
//  (I3) every node that is neither the root nor on the rightmost path holds >= m = B/2 entries;
//  (I4) inner sizes[] are the cumulative element counts; `dense` implies all children but the
//       last are full subtrees.
// Every function here consumes the references it is given ("ref" arguments) and returns new
// ones. A node reached only through references we hold alone (refcount 1) is edited in place;
// any other node on an affected path is copied first. Persistent callers therefore pass an
// extra reference to their root and never see a change.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/intrusive_ref.hpp"
#include "tseq/detail/rrb_node.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define TSEQ_ALWAYS_INLINE __attribute__((always_inline))
#else
#define TSEQ_ALWAYS_INLINE
#endif

namespace tseq::detail {

template <class T, unsigned Bits>
struct rrb_tree {
  static_assert(Bits >= 2 && Bits <= 7, "branching factor must be 4 .. 128");

  using node_t = node<T, Bits>;
  using leaf_t = leaf_node<T, Bits>;
  using inner_t = inner_node<T, Bits>;
  using ref = intrusive_ref<node_t>;

  static constexpr std::size_t B = node_t::width;
  static constexpr std::size_t m = B / 2;

  // ---- basic queries ------------------------------------------------------------------------

  static leaf_t* as_leaf(node_t* n) noexcept { return static_cast<leaf_t*>(n); }
  static inner_t* as_inner(node_t* n) noexcept { return static_cast<inner_t*>(n); }
  static const leaf_t* as_leaf(const node_t* n) noexcept { return static_cast<const leaf_t*>(n); }
  static const inner_t* as_inner(const node_t* n) noexcept { return static_cast<const inner_t*>(n); }

  static bool editable(const node_t* n) noexcept { return n->refs.load(std::memory_order_acquire) == 1; }

  static std::size_t size_of(const node_t* n) noexcept {
    return n->is_leaf ? n->count : as_inner(n)->sizes[n->count - 1];
  }

  // Elements in a full subtree of height h (leaf = 0); saturates instead of overflowing.
  static constexpr std::size_t full_size(unsigned h) noexcept {
    const unsigned s = Bits * (h + 1);
    return s >= std::numeric_limits<std::size_t>::digits ? std::numeric_limits<std::size_t>::max()
                                                         : std::size_t{1} << s;
  }

  static constexpr std::size_t radix(std::size_t i, unsigned h) noexcept {
    const unsigned s = Bits * h;
    return s >= std::numeric_limits<std::size_t>::digits ? 0 : i >> s;
  }

  // Child of `in` (height h) holding element i; i becomes the offset inside that child.
  static std::uint32_t child_index(const inner_t* in, unsigned h, std::size_t& i) noexcept {
    auto c = static_cast<std::uint32_t>(radix(i, h));
    if (!in->dense) {
      while (in->sizes[c] <= i) ++c;
    }
    if (c != 0) i -= in->sizes[c - 1];
    return c;
  }

  static const leaf_t* find_leaf(const node_t* n, unsigned h, std::size_t& i) noexcept {
    for (; h > 0; --h) {
      const inner_t* in = as_inner(n);
      n = in->child[child_index(in, h, i)];
    }
    return as_leaf(n);
  }

  // ---- node construction ----------------------------------------------------------------------

  static ref new_leaf() { return ref(allocate_node<leaf_t>(), false); }
  static ref new_inner() { return ref(allocate_node<inner_t>(), false); }

  // A run of elements to copy (or move, when `steal`) into new leaves.
  struct seg {
    T* first;
    T* last;
    bool steal;
  };

  static seg seg_of(node_t* l, std::size_t from, std::size_t to, bool steal) noexcept {
    T* d = as_leaf(l)->data();
    return {d + from, d + to, steal};
  }

  // Moves v to the end of leaf l (which has room).
  static void append(leaf_t* l, T&& v) {
    ::new (static_cast<void*>(l->data() + l->count)) T(std::move(v));
    ++l->count;
  }

  static std::size_t entries(const seg* segs, std::size_t nsegs) noexcept {
    std::size_t k = 0;
    for (std::size_t s = 0; s < nsegs; ++s) k += static_cast<std::size_t>(segs[s].last - segs[s].first);
    return k;
  }

  // Constructs in the empty leaf l elements [from, to) of the concatenation of segs. On an
  // exception, l->count covers exactly the elements constructed.
  static void fill(leaf_t* l, const seg* segs, std::size_t nsegs, std::size_t from, std::size_t to) {
    T* d = l->data();
    std::uint32_t k = 0;
    // Inlined by force: this is the copy loop of every update; GCC's unit-growth limits would
    // otherwise leave it out of line in large translation units (20-35% on n = 10 updates).
    auto run = [&]() TSEQ_ALWAYS_INLINE {
      std::size_t skip = from;
      std::size_t left = to - from;
      for (std::size_t s = 0; s < nsegs && left > 0; ++s) {
        const auto len = static_cast<std::size_t>(segs[s].last - segs[s].first);
        if (skip >= len) {
          skip -= len;
          continue;
        }
        T* p = segs[s].first + skip;
        T* end = p + std::min(len - skip, left);
        skip = 0;
        left -= static_cast<std::size_t>(end - p);
        if (segs[s].steal) {
          for (; p != end; ++p, ++k) ::new (static_cast<void*>(d + k)) T(std::move(*p));
        } else {
          for (; p != end; ++p, ++k) ::new (static_cast<void*>(d + k)) T(*p);
        }
      }
    };
    if constexpr (std::is_nothrow_copy_constructible_v<T> && std::is_nothrow_move_constructible_v<T>) {
      run();
    } else {
      try {
        run();
      } catch (...) {
        l->count = k;
        throw;
      }
    }
    l->count = k;
  }

  // Fills new leaves with the concatenation of segs: the first holds `left` elements, a
  // second (returned in `extra`) the rest, if any.
  static ref build_leaves(const seg* segs, std::size_t nsegs, std::size_t left, ref& extra) {
    const std::size_t total = entries(segs, nsegs);
    ref out = new_leaf();
    fill(as_leaf(out.get()), segs, nsegs, 0, std::min(total, left));
    if (total > left) {
      extra = new_leaf();
      fill(as_leaf(extra.get()), segs, nsegs, left, total);
    }
    return out;
  }

  // Where to cut k > B entries into two nodes: the right one is on the rightmost path (may stay
  // small, so the left is filled for density) or must hold >= m like the left.
  static std::size_t split_point(std::size_t k, bool rightmost) noexcept {
    if (k <= B) return k;
    if (rightmost || k - B >= m) return B;
    return (k + 1) / 2;
  }

  // Recomputes sizes[] and `dense` of an inner node at height h.
  static void refresh(inner_t* in, unsigned h) noexcept {
    const std::size_t full = full_size(h - 1);
    std::size_t acc = 0;
    bool dense = true;
    for (std::uint32_t i = 0; i < in->count; ++i) {
      const std::size_t s = size_of(in->child[i]);
      acc += s;
      in->sizes[i] = acc;
      if (s != full && i + 1 < in->count) dense = false;
    }
    in->dense = dense;
  }

  // A growable list of child references, for rebuilding inner nodes.
  struct kids {
    ref v[2 * B + 2];
    std::size_t n = 0;
    void push(ref r) noexcept { v[n++] = std::move(r); }
  };

  // Moves (editable) or copies the child references of inner node `r` into `out`.
  static void explode(ref r, kids& out) {
    inner_t* in = as_inner(r.get());
    const bool steal = editable(in);
    for (std::uint32_t i = 0; i < in->count; ++i) {
      if (steal) {
        out.push(ref(in->child[i], false));
        in->child[i] = nullptr;
      } else {
        out.push(ref(in->child[i]));
      }
    }
    if (steal) in->count = 0;
  }

  // New inner nodes at height h from k[from, to): `left` children in the first, the rest in a
  // second (`extra`) if any.
  static ref build_inner(kids& k, std::size_t from, std::size_t to, std::size_t left, unsigned h, ref& extra) {
    ref out = new_inner();
    if (to - from > left) extra = new_inner();
    inner_t* a = as_inner(out.get());
    for (std::size_t i = from; i < to; ++i) {
      inner_t* dst = (i - from < left) ? a : as_inner(extra.get());
      dst->child[dst->count++] = k.v[i].detach();
    }
    refresh(a, h);
    if (extra) refresh(as_inner(extra.get()), h);
    return out;
  }

  // Returns an editable version of inner node r (r itself when we hold the only reference).
  // (Leaves are never copied whole: each update builds the leaf it needs directly.)
  static ref own(ref r) {
    if (editable(r.get())) return r;
    const inner_t* src = as_inner(r.get());
    ref out = new_inner();
    inner_t* dst = as_inner(out.get());
    for (std::uint32_t i = 0; i < src->count; ++i) {
      intrusive_ptr_add_ref(src->child[i]);
      dst->child[i] = src->child[i];
      dst->sizes[i] = src->sizes[i];
    }
    dst->count = src->count;
    dst->dense = src->dense;
    return out;
  }

  // Takes child c out of the editable node `in` (the slot is null until put back).
  static ref take_child(inner_t* in, std::uint32_t c) noexcept {
    ref r(in->child[c], false);
    in->child[c] = nullptr;
    return r;
  }

  static void remove_slot(inner_t* in, std::uint32_t c) noexcept {
    for (std::uint32_t j = c; j + 1 < in->count; ++j) in->child[j] = in->child[j + 1];
    --in->count;
  }

  static void insert_slot(inner_t* in, std::uint32_t c, ref r) noexcept {
    for (std::uint32_t j = in->count; j > c; --j) in->child[j] = in->child[j - 1];
    in->child[c] = r.detach();
    ++in->count;
  }

  // While the root is an inner node with a single child, that child becomes the root.
  static ref collapse(ref r, unsigned& h) {
    while (r && !r->is_leaf && r->count == 1) {
      ref c(as_inner(r.get())->child[0]);
      r = std::move(c);
      --h;
    }
    return r;
  }

  // ---- rebalancing ----------------------------------------------------------------------------

  // Children c and c+1 of the editable node `in` (height h) are merged into one node, or their
  // entries shared out between two, so that both satisfy (I3). `pair_rightmost`: c+1 is on the
  // rightmost path.
  static void rebalance_pair(inner_t* in, unsigned h, std::uint32_t c, bool pair_rightmost) {
    ref x = take_child(in, c);
    ref y = take_child(in, c + 1);
    ref r1;
    ref r2;
    if (h == 1) {
      const seg segs[2] = {seg_of(x.get(), 0, x->count, editable(x.get())),
                           seg_of(y.get(), 0, y->count, editable(y.get()))};
      r1 = build_leaves(segs, 2, split_point(entries(segs, 2), pair_rightmost), r2);
    } else {
      kids k;
      explode(std::move(x), k);
      explode(std::move(y), k);
      r1 = build_inner(k, 0, k.n, split_point(k.n, pair_rightmost), h - 1, r2);
    }
    in->child[c] = r1.detach();
    if (r2) {
      in->child[c + 1] = r2.detach();
    } else {
      in->child[c + 1] = nullptr;
      remove_slot(in, c + 1);
    }
    refresh(in, h);
  }

  // Restores (I3) along the chain of first children below root n, which drop() left possibly
  // under-full. Top-down: each inner child on the chain is first given m + 1 entries, so that
  // the merge one level further down, which takes one, still leaves it m. Nodes we do not
  // hold alone were not touched by the drop: the chain ends there.
  static void fix_left_spine(node_t* n, unsigned h) {
    bool rightmost = true;
    for (; h > 0 && editable(n); --h) {
      inner_t* in = as_inner(n);
      const std::size_t need = h == 1 ? m : m + 1;
      if (!(rightmost && in->count == 1) && in->child[0]->count < need) {
        rebalance_pair(in, h, 0, rightmost && in->count == 2);
      }
      rightmost = rightmost && in->count == 1;
      n = in->child[0];
    }
  }

  // ---- element access and update ------------------------------------------------------------

  static ref set(ref n, unsigned h, std::size_t i, T& v) {
    if (h == 0) {
      if (editable(n.get())) {
        as_leaf(n.get())->data()[i] = std::move(v);
        return n;
      }
      T* val = &v;
      const seg segs[3] = {seg_of(n.get(), 0, i, false), {val, val + 1, true}, seg_of(n.get(), i + 1, n->count, false)};
      ref none;
      return build_leaves(segs, 3, B, none);
    }
    n = own(std::move(n));
    inner_t* in = as_inner(n.get());
    const std::uint32_t c = child_index(in, h, i);
    in->child[c] = set(take_child(in, c), h - 1, i, v).detach();
    return n;
  }

  // Removes element i; the result may be null (empty) or under-full (the caller fixes it).
  static ref erase(ref n, unsigned h, std::size_t i, bool rightmost) {
    if (h == 0) {
      if (n->count == 1) return nullptr;
      leaf_t* l = as_leaf(n.get());
      if (editable(l)) {
        T* d = l->data();
        std::move(d + i + 1, d + l->count, d + i);
        d[l->count - 1].~T();
        --l->count;
        return n;
      }
      const seg segs[2] = {seg_of(l, 0, i, false), seg_of(l, i + 1, l->count, false)};
      ref none;
      return build_leaves(segs, 2, B, none);
    }
    n = own(std::move(n));
    inner_t* in = as_inner(n.get());
    const std::uint32_t c = child_index(in, h, i);
    const bool child_rightmost = rightmost && c + 1 == in->count;
    ref child = erase(take_child(in, c), h - 1, i, child_rightmost);
    if (!child) {
      remove_slot(in, c);
      if (in->count == 0) return nullptr;
      refresh(in, h);
      return n;
    }
    const bool small = child->count < m && !child_rightmost;
    in->child[c] = child.detach();
    if (!small) {
      for (std::uint32_t j = c; j < in->count; ++j) --in->sizes[j];
      if (c + 1 < in->count) in->dense = false;
      return n;
    }
    // An under-full child borrows from or merges with a sibling (the left one when it has one).
    const std::uint32_t a = c > 0 ? c - 1 : c;
    rebalance_pair(in, h, a, rightmost && a + 2 == in->count);
    return n;
  }

  // Inserts v before element i (i < size; a leaf also takes i == size). Returns the node, and a
  // right sibling in `extra` when it overflowed.
  static ref insert(ref n, unsigned h, std::size_t i, T& v, bool rightmost, ref& extra) {
    if (h == 0) {
      leaf_t* l = as_leaf(n.get());
      T* val = &v;
      if (!editable(l)) {
        const seg segs[3] = {seg_of(l, 0, i, false), {val, val + 1, true}, seg_of(l, i, l->count, false)};
        return build_leaves(segs, 3, split_point(l->count + std::size_t{1}, rightmost), extra);
      }
      if (l->count == B) {
        // Split in place: the elements after the cut move to a new right leaf; the left part
        // stays where it is (an in-place history keeps most leaves where they were built).
        const std::size_t left = split_point(B + 1, rightmost);
        const seg tail[3] = {
            seg_of(l, std::min(left, i), i, true), {val, val + 1, true}, seg_of(l, std::max(left, i + 1) - 1, B, true)};
        const seg* from = i >= left ? tail : tail + 2;  // v in the right part, or not
        ref none;
        extra = build_leaves(from, i >= left ? 3 : 1, B, none);
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
        std::move_backward(d + i, d + l->count - 2, d + l->count - 1);
        d[i] = std::move(v);
      }
      return n;
    }
    n = own(std::move(n));
    inner_t* in = as_inner(n.get());
    const std::size_t at = i;
    std::uint32_t c = child_index(in, h, i);  // i < size: appends go to the tail
    bool child_rightmost = rightmost && c + 1 == in->count;
    if (h == 1 && !child_rightmost && share_with_sibling(in, c)) {
      i = at;  // the leaves' bounds moved: look again
      c = child_index(in, h, i);
      child_rightmost = rightmost && c + 1 == in->count;
    }
    ref ex;
    in->child[c] = insert(take_child(in, c), h - 1, i, v, child_rightmost, ex).detach();
    if (!ex) {
      for (std::uint32_t j = c; j < in->count; ++j) ++in->sizes[j];
      if (c + 1 < in->count) in->dense = false;
      return n;
    }
    if (in->count < B) {
      insert_slot(in, c + 1, std::move(ex));
      refresh(in, h);
      return n;
    }
    kids k;
    explode(std::move(n), k);
    for (std::size_t j = k.n; j > c + 1; --j) k.v[j] = std::move(k.v[j - 1]);
    k.v[c + 1] = std::move(ex);
    ++k.n;
    return build_inner(k, 0, k.n, split_point(k.n, rightmost), h, extra);
  }

  // In place, a full leaf about to take one more element first moves some of its elements to
  // a sibling with room (as a B*-tree does), so that in-place edit histories keep leaves full
  // rather than splitting them: fewer leaves, faster iteration. Both leaves must be ours alone
  // (moving is then free of allocation) and T's moves must not throw. Returns whether it did.
  static bool share_with_sibling(inner_t* in, std::uint32_t c) noexcept {
    if constexpr (!std::is_nothrow_move_constructible_v<T> || !std::is_nothrow_move_assignable_v<T>) {
      return false;
    } else {
      leaf_t* l = as_leaf(in->child[c]);
      if (l->count != B || !editable(l)) return false;
      leaf_t* left = c > 0 ? as_leaf(in->child[c - 1]) : nullptr;
      leaf_t* right = c + 1 < in->count ? as_leaf(in->child[c + 1]) : nullptr;
      if (left != nullptr && (left->count + 2 > B || !editable(left))) left = nullptr;
      if (right != nullptr && (right->count + 2 > B || !editable(right))) right = nullptr;
      if (left == nullptr && right == nullptr) return false;
      T* d = l->data();
      if (right != nullptr && (left == nullptr || right->count <= left->count)) {
        const std::uint32_t k = static_cast<std::uint32_t>(B - right->count) / 2;  // l's last k go first in right
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
          T& src = d[B - k + j];
          if (j < rn) {
            r[j] = std::move(src);
          } else {
            ::new (static_cast<void*>(r + j)) T(std::move(src));
          }
        }
        right->count = rn + k;
        for (std::uint32_t j = B - k; j < B; ++j) d[j].~T();
        l->count = static_cast<std::uint32_t>(B) - k;
      } else {
        const std::uint32_t k = static_cast<std::uint32_t>(B - left->count) / 2;  // l's first k go last in left
        T* a = left->data();
        for (std::uint32_t j = 0; j < k; ++j) ::new (static_cast<void*>(a + left->count + j)) T(std::move(d[j]));
        left->count += k;
        std::move(d + k, d + B, d);
        for (std::uint32_t j = static_cast<std::uint32_t>(B) - k; j < B; ++j) d[j].~T();
        l->count = static_cast<std::uint32_t>(B) - k;
      }
      refresh(in, 1);
      return true;
    }
  }

  // ---- slicing --------------------------------------------------------------------------------

  // The first k elements (0 < k < size). The cut becomes the rightmost path, which (I3) exempts.
  static ref take(ref n, unsigned h, std::size_t k) {
    if (h == 0) {
      if (editable(n.get())) {
        leaf_t* l = as_leaf(n.get());
        T* d = l->data();
        while (l->count > k) d[--l->count].~T();
        return n;
      }
      const seg s = seg_of(n.get(), 0, k, false);
      ref none;
      return build_leaves(&s, 1, B, none);
    }
    n = own(std::move(n));
    inner_t* in = as_inner(n.get());
    std::size_t off = k - 1;
    const std::uint32_t c = child_index(in, h, off);
    ++off;
    while (in->count > c + 1) intrusive_ptr_release(in->child[--in->count]);
    if (off < size_of(in->child[c])) in->child[c] = take(take_child(in, c), h - 1, off).detach();
    refresh(in, h);
    return n;
  }

  // All but the first k elements (0 < k < size). The cut becomes the leftmost path, which the
  // caller repairs with fix_left_spine.
  static ref drop(ref n, unsigned h, std::size_t k) {
    if (h == 0) {
      leaf_t* l = as_leaf(n.get());
      if (editable(l)) {
        T* d = l->data();
        std::move(d + k, d + l->count, d);
        const auto keep = static_cast<std::uint32_t>(l->count - k);
        while (l->count > keep) d[--l->count].~T();
        return n;
      }
      const seg s = seg_of(l, k, l->count, false);
      ref none;
      return build_leaves(&s, 1, B, none);
    }
    n = own(std::move(n));
    inner_t* in = as_inner(n.get());
    std::size_t off = k;
    const std::uint32_t c = child_index(in, h, off);
    for (std::uint32_t j = 0; j < c; ++j) intrusive_ptr_release(in->child[j]);
    for (std::uint32_t j = c; j < in->count; ++j) in->child[j - c] = in->child[j];
    in->count -= c;
    if (off > 0) in->child[0] = drop(take_child(in, 0), h - 1, off).detach();
    refresh(in, h);
    return n;
  }

  // Removes the last leaf (returned in `last`); the rest may be null.
  static ref pop_leaf(ref n, unsigned h, ref& last) {
    if (h == 0) {
      last = std::move(n);
      return nullptr;
    }
    n = own(std::move(n));
    inner_t* in = as_inner(n.get());
    ref c = pop_leaf(take_child(in, in->count - 1), h - 1, last);
    if (c) {
      in->child[in->count - 1] = c.detach();
    } else {
      --in->count;
      if (in->count == 0) return nullptr;
    }
    refresh(in, h);
    return n;
  }

  // ---- concatenation --------------------------------------------------------------------------

  // L (height h) ends the left tree's rightmost path, whose nodes below L may be under-full;
  // R (height h) starts the right tree's leftmost path. Returns their contents as one node, or
  // two (`extra`), satisfying (I3) except that the last may be small when r_rightmost.
  static ref merge_seam(ref L, ref R, unsigned h, bool r_rightmost, ref& extra) {
    if (h == 0) {
      const std::size_t k = L->count + std::size_t{R->count};
      if (k > B && L->count >= m && (r_rightmost || R->count >= m)) {
        extra = std::move(R);
        return L;
      }
      const seg segs[2] = {seg_of(L.get(), 0, L->count, editable(L.get())),
                           seg_of(R.get(), 0, R->count, editable(R.get()))};
      return build_leaves(segs, 2, split_point(k, r_rightmost), extra);
    }
    kids k;
    explode(std::move(L), k);
    ref lc = std::move(k.v[--k.n]);
    const bool r_single = R->count == 1;
    kids kr;
    explode(std::move(R), kr);
    ref mid2;
    ref mid = merge_seam(std::move(lc), std::move(kr.v[0]), h - 1, r_rightmost && r_single, mid2);
    k.push(std::move(mid));
    if (mid2) k.push(std::move(mid2));
    for (std::size_t i = 1; i < kr.n; ++i) k.push(std::move(kr.v[i]));
    return build_inner(k, 0, k.n, split_point(k.n, r_rightmost), h, extra);
  }

  // x (height h >= hb) is on the left tree's rightmost path; appends tree b after it.
  static ref join_right(ref x, unsigned h, ref b, unsigned hb, ref& extra) {
    if (h == hb) return merge_seam(std::move(x), std::move(b), h, true, extra);
    x = own(std::move(x));
    inner_t* in = as_inner(x.get());
    const std::uint32_t c = in->count - 1;
    ref ex;
    in->child[c] = join_right(take_child(in, c), h - 1, std::move(b), hb, ex).detach();
    if (!ex) {
      refresh(in, h);
      return x;
    }
    if (in->count < B) {
      insert_slot(in, c + 1, std::move(ex));
      refresh(in, h);
      return x;
    }
    kids k;
    explode(std::move(x), k);
    k.push(std::move(ex));
    return build_inner(k, 0, k.n, split_point(k.n, true), h, extra);
  }

  // y (height h >= ha) is on the right tree's leftmost path; prepends tree a before it.
  static ref join_left(ref y, unsigned h, bool rightmost, ref a, unsigned ha, ref& extra) {
    if (h == ha) return merge_seam(std::move(a), std::move(y), h, rightmost, extra);
    y = own(std::move(y));
    inner_t* in = as_inner(y.get());
    ref ex;
    const bool first_rightmost = rightmost && in->count == 1;
    in->child[0] = join_left(take_child(in, 0), h - 1, first_rightmost, std::move(a), ha, ex).detach();
    if (!ex) {
      refresh(in, h);
      return y;
    }
    if (in->count < B) {
      insert_slot(in, 1, std::move(ex));
      refresh(in, h);
      return y;
    }
    kids k;
    explode(std::move(y), k);
    for (std::size_t j = k.n; j > 1; --j) k.v[j] = std::move(k.v[j - 1]);
    k.v[1] = std::move(ex);
    ++k.n;
    return build_inner(k, 0, k.n, split_point(k.n, rightmost), h, extra);
  }

  // Concatenation of two non-empty trees; `h` receives the height of the result.
  static ref join(ref a, unsigned ha, ref b, unsigned hb, unsigned& h) {
    ref extra;
    ref r;
    if (ha >= hb) {
      h = ha;
      r = join_right(std::move(a), ha, std::move(b), hb, extra);
    } else {
      h = hb;
      r = join_left(std::move(b), hb, true, std::move(a), ha, extra);
    }
    if (extra) {
      ref root = new_inner();
      inner_t* in = as_inner(root.get());
      in->child[0] = r.detach();
      in->child[1] = extra.detach();
      in->count = 2;
      ++h;
      refresh(in, h);
      return root;
    }
    return collapse(std::move(r), h);
  }

  // ---- traversal and checking ------------------------------------------------------------------

  // Asks the cache for the whole of node n (leaves of a long-edited tree lie scattered).
  template <class N>
  static void prefetch(const N* n) noexcept {
    const char* p = reinterpret_cast<const char*>(n);
    for (std::size_t off = 0; off < sizeof(N); off += 64) __builtin_prefetch(p + off);
  }

  template <class F>
  static void for_each_leaf(const node_t* n, unsigned h, F& f) {
    if (h == 0) {
      const leaf_t* l = as_leaf(n);
      f(l->data(), l->data() + l->count);
      return;
    }
    const inner_t* in = as_inner(n);
    if (h == 1) {
      constexpr std::uint32_t ahead = 4;  // leaves prefetched ahead of the one visited
      for (std::uint32_t i = 0; i < in->count && i < ahead; ++i) prefetch(as_leaf(in->child[i]));
      for (std::uint32_t i = 0; i < in->count; ++i) {
        if (i + ahead < in->count) prefetch(as_leaf(in->child[i + ahead]));
        const leaf_t* l = as_leaf(in->child[i]);
        f(l->data(), l->data() + l->count);
      }
      return;
    }
    for (std::uint32_t i = 0; i < in->count; ++i) {
      if (i + 1 < in->count) prefetch(as_inner(in->child[i + 1]));
      for_each_leaf(in->child[i], h - 1, f);
    }
  }

  [[noreturn]] static void broken(const std::string& what) {
    throw std::logic_error("rrb_vector invariant broken: " + what);
  }

  // Checks (I1)-(I4) below n; returns the element count.
  static std::size_t check(const node_t* n, unsigned h, bool is_root, bool rightmost, const std::string& path) {
    if (n == nullptr) broken("null node at " + path);
    if (n->refs.load() == 0) broken("node with no references at " + path);
    if (n->is_leaf != (h == 0)) broken("leaf at wrong height at " + path);
    if (n->count == 0 || n->count > B) {
      broken("node at " + path + " holds " + std::to_string(n->count) + " entries");
    }
    if (!is_root && !rightmost && n->count < m) {
      broken("node at " + path + " holds " + std::to_string(n->count) + " < " + std::to_string(m) +
             " entries and is neither root nor on the rightmost path");
    }
    if (h == 0) return n->count;
    const inner_t* in = as_inner(n);
    if (is_root && in->count < 2) broken("inner root with a single child");
    std::size_t acc = 0;
    bool dense = true;
    for (std::uint32_t i = 0; i < in->count; ++i) {
      const bool last = i + 1 == in->count;
      const std::size_t s = check(in->child[i], h - 1, false, rightmost && last, path + "/" + std::to_string(i));
      acc += s;
      if (in->sizes[i] != acc) broken("size table wrong at " + path + " slot " + std::to_string(i));
      if (!last && s != full_size(h - 1)) dense = false;
    }
    if (in->dense && !dense) broken("node at " + path + " marked dense but is not");
    return acc;
  }
};

}  // namespace tseq::detail
