#pragma once

// The tree behind tseq::rrb_vector: the struct rrb_tree<T, Bits, LBits>, a namespace of static
// functions on nodes. Here: its types and constants, the node queries (defined here), and the
// declaration of every algorithm, grouped by the header that defines it (include
// tseq/detail/rrb_tree.hpp, which includes them all). See docs/design.md for the invariants:
//  (I1) all leaves are at height 0, the root at `height`;
//  (I2) every inner node holds 1..B entries, every leaf 1..BL; an inner root holds at least 2;
//  (I3) every node that is neither the root nor on an outer path holds >= m = B/2 entries
//       (a leaf >= leaf_floor = BL/4; updates other than a concatenation's seam leave
//       leaves >= mL = BL/2);
//  (I4) inner sizes[] are the cumulative element counts; `dense` implies all children but the
//       last are full subtrees; `regular` implies `dense` and, above height 1, a `regular`
//       last child;
//  (I6) every inner node holds hint_of(itself), where relaxed_child starts (1.0 in a
//       dense one); one marked `bucketed` is a leaf parent not marked dense, bucketable
//       allows it and its bucket[] table is bucket_of's. Updates bucket every node they may (erase,
//       insert, set and what they call); slicing and concatenation leave theirs unbucketed
//       (set_lookup).
// Every function consumes the references it is given ("ref" arguments) and returns new ones.
// A node reached only through references we hold alone (refcount 1) is edited in place; any
// other node on an affected path is copied first. Persistent callers therefore pass an extra
// reference to their root and never see a change.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/config.hpp"
#include "tseq/detail/intrusive_ref.hpp"
#include "tseq/detail/rrb_node.hpp"

namespace tseq::detail {

template <class T, unsigned Bits, unsigned LBits>
struct rrb_tree {
  static_assert(Bits >= 2 && Bits <= 7, "branching factor must be 4 .. 128");

  using node_t = node<T, Bits>;
  using leaf_t = leaf_node<T, Bits>;
  using inner_t = inner_node<T, Bits>;
  using ref = intrusive_ref<node_t>;

  static_assert(LBits >= Bits && LBits <= 7, "leaves hold 2^Bits .. 128 elements");

  // Inner nodes hold up to B children, leaves up to BL elements. m is an inner node's minimum
  // fill (I3); a leaf's is leaf_floor = BL/4. mL = BL/2 is the fill the updates restore: an
  // erase merges or evens out a leaf below it, a layout of two or more leaves gives each at
  // least it, and a tail flush lays out a last leaf below it again. Only the seam of two
  // trees keeps leaves of leaf_floor .. mL - 1 elements as they are (merging them would copy
  // every element of both; docs/design.md, I3).
  static constexpr std::size_t B = node_t::width;
  static constexpr std::size_t m = B / 2;
  static constexpr std::size_t BL = std::size_t{1} << LBits;
  static constexpr std::size_t mL = BL / 2;
  static constexpr std::size_t leaf_floor = BL / 4;
  // Capacity, fill restored by updates, and minimum fill (I3) of a node at height h (leaves at 0).
  static constexpr std::size_t width_at(unsigned h) noexcept { return h == 0 ? BL : B; }
  static constexpr std::size_t min_at(unsigned h) noexcept { return h == 0 ? mL : m; }
  static constexpr std::size_t floor_at(unsigned h) noexcept { return h == 0 ? leaf_floor : m; }
  // The height bound's unit (levels_bound, docs/design.md): a subtree of height h off the
  // outer paths holds at least m^h * leaf_floor >= m^h * u elements. u = min(m, leaf_floor)
  // keeps the bound m^(h-1) of leaves of BL >= 2B (where leaf_floor >= m) as it was.
  static constexpr std::size_t subtree_floor_unit = leaf_floor < m ? leaf_floor : m;
  // More levels than any tree of max_size() elements has: bounds the per-level arrays of the
  // builder and the in-place flush.
  static constexpr unsigned max_levels = 64 / Bits + 2;

  // ---- node queries (defined here) ----------------------------------------------------------

  static leaf_t* as_leaf(node_t* n) noexcept { return static_cast<leaf_t*>(n); }
  static inner_t* as_inner(node_t* n) noexcept { return static_cast<inner_t*>(n); }
  static const leaf_t* as_leaf(const node_t* n) noexcept { return static_cast<const leaf_t*>(n); }
  static const inner_t* as_inner(const node_t* n) noexcept { return static_cast<const inner_t*>(n); }

  static bool editable(const node_t* n) noexcept { return n->refs.load(std::memory_order_acquire) == 1; }

  static std::size_t size_of(const node_t* n) noexcept {
    return n->is_leaf ? n->count : as_inner(n)->sizes()[n->count - 1];
  }

  // log2 of the elements in a full subtree of height h - 1: the granularity of a child of a
  // node at height h (LBits at h = 1, then Bits more per level); 0 at h = 0.
  static constexpr unsigned shift(unsigned h) noexcept { return h == 0 ? 0 : LBits + Bits * (h - 1); }
  // A bucketed node's buckets: one per leaf-sized run of elements (only leaf parents are
  // bucketed, I6), so bucket b holds the elements whose radix at height 1 is b.
  static constexpr unsigned bucket_shift = LBits;
  // The fewest elements a bucketed node's children but the last may hold: half a bucket
  // (bucketable; a bucket then meets at most three children).
  static constexpr std::size_t bucket_floor = (std::size_t{1} << bucket_shift) / 2;

  // Elements in a full subtree of height h (leaf = 0); saturates instead of overflowing.
  static constexpr std::size_t full_size(unsigned h) noexcept {
    const unsigned s = shift(h + 1);
    return s >= std::numeric_limits<std::size_t>::digits ? std::numeric_limits<std::size_t>::max()
                                                         : std::size_t{1} << s;
  }

  // The bits of an index below child granularity at height h: i & low_mask(h) is the offset
  // inside child radix(i, h) of a dense node.
  static constexpr std::size_t low_mask(unsigned h) noexcept {
    const unsigned s = shift(h);
    return s >= std::numeric_limits<std::size_t>::digits ? ~std::size_t{0} : (std::size_t{1} << s) - 1;
  }

  static constexpr std::size_t radix(std::size_t i, unsigned h) noexcept {
    const unsigned s = shift(h);
    return s >= std::numeric_limits<std::size_t>::digits ? 0 : i >> s;
  }

  // Child of a dense node of height h holding element i; i becomes the offset inside it. Its
  // children before c are full, c << shift(h) elements (I4), so neither the size table nor a branch
  // on the random c is needed: the offset is i's bits below the child's granularity.
  static std::uint32_t dense_child(unsigned h, std::size_t& i) noexcept {
    const auto c = static_cast<std::uint32_t>(radix(i, h));
    i &= low_mask(h);
    return c;
  }

  // Whether i * hint fits in 64 bits at height h (i < 2^(shift(h) + Bits), hint < 2^16), and
  // so does count << (shift(h) + hint_bits): up to height 8 at Bits = 5, 2^45 elements.
  static constexpr bool hint_usable(unsigned h) noexcept { return shift(h) + Bits + 16 <= 64; }
  static constexpr auto hint_one = static_cast<std::uint16_t>(1u << node_t::hint_bits);

  // The child of an inner node at height h where element i would be if its children but the
  // last were all of their average size, from the node's `hint`; the radix guess where the
  // product could overflow. At most count - 1.
  TSEQ_ALWAYS_INLINE static std::uint32_t hint_guess(const inner_t* in, unsigned h, std::size_t i) noexcept {
    const std::size_t g = hint_usable(h) ? (i * std::size_t{in->hint}) >> (shift(h) + node_t::hint_bits) : radix(i, h);
    const std::size_t last = in->count - 1u;
    return static_cast<std::uint32_t>(g < last ? g : last);
  }

  // sizes[c - 1], 0 for c = 0, without a branch on c (a random c would mispredict it): an
  // inner node's table has the zero before its first entry (inner_node::table::before).
  template <class Table>
  TSEQ_ALWAYS_INLINE static std::size_t elements_before(const Table& sizes, std::uint32_t c) noexcept {
    if constexpr (requires { sizes.before(c); }) {
      return sizes.before(c);
    } else {
      const std::uint32_t nz = c != 0 ? 1u : 0u;
      return sizes[c - nz] & (std::size_t{0} - nz);
    }
  }

  // Child of a `bucketed` node (a leaf parent) holding element i; i becomes the offset inside
  // it. Bucket b holds elements [b << LBits, (b + 1) << LBits), the radix of i: it meets at
  // most three children, from bucket[b] on (bucketable: each child but the last holds at
  // least bucket_floor elements), so two compares with the size table find the child, and
  // one load the elements before it: no search, no branch on i, and the node's header is not
  // read. After 10^5 random edits of 10^3 8-byte elements not trivially copyable (leaves of 16
  // to 32), a loop of random reads took 7.2 ns a read against 9.8 with the hint's search.
  // Picking the elements before it by masks from sizes[t - 1], sizes[t] and sizes[t + 1],
  // loaded with the two compared, spared that load but took 15 more instructions, and fewer
  // independent look-ups overlapped: 10^3 edited tensors 5.0 -> 4.3 ns a read with the load
  // (docs/decisions.md, "Look-ups").
  TSEQ_ALWAYS_INLINE static std::uint32_t bucketed_child(const inner_t* in, std::size_t& i) noexcept {
    const auto sizes = in->sizes();
    const std::uint32_t t = in->bucket[i >> bucket_shift];  // <= count - 2: sizes[t + 1] exists
    const std::size_t s0 = sizes[t];
    const std::size_t s1 = sizes[std::size_t{t} + 1];  // (t + 1 in 32 bits would cost an address of its own)
    // (s <= i) as 0 or 1 from the sign of i - s (both < 2^63): written as compares, gcc turned
    // the second into a branch, which mispredicted as the hint's search did.
    constexpr unsigned top = std::numeric_limits<std::size_t>::digits - 1;
    const auto c = t + static_cast<std::uint32_t>((((i - s0) >> top) ^ 1u) + (((i - s1) >> top) ^ 1u));
    i -= sizes.before(c);
    return c;
  }

  // Child of `in` (height h) holding element i, dense or not, from the size table; i becomes
  // the offset inside that child. After 10^5 random edits of 10^3 to 10^6 elements the guess
  // from the node's hint (I6) was the child for 65 to 78% of the look-ups at each level and
  // next to it for nearly all the rest, where the radix guess (a hint of 1.0) was off by 7 or
  // more for a sixth of them at 10^6 (docs/decisions.md, "Look-ups"). The branches below then
  // mostly go one way; the loops fix any guess (correct from any c < count). Always inlined:
  // called out of line, the offset i went through memory at every level of a look-up.
  TSEQ_ALWAYS_INLINE static std::uint32_t relaxed_child(const inner_t* in, unsigned h, std::size_t& i) noexcept {
    std::size_t before = 0;  // elements before the child
    const std::uint32_t c = scan_from(in->sizes(), hint_guess(in, h, i), i, before);
    i -= before;
    return c;
  }
  // The child holding element i found from any c < count by a scan of the size table, the
  // elements before it in `before`.
  template <class Table>
  TSEQ_ALWAYS_INLINE static std::uint32_t scan_from(const Table& sizes, std::uint32_t c, std::size_t i,
                                                    std::size_t& before) noexcept {
    if (sizes[c] <= i) {
      do ++c;
      while (sizes[c] <= i);  // sizes[count - 1] > i ends it
      before = sizes[c - 1];
    } else {
      before = elements_before(sizes, c);
      while (before > i) before = elements_before(sizes, --c);  // 0 at c == 0 ends it
    }
    return c;
  }

  // relaxed_child for a node in cache (a tree of at most bucket_lookup_max elements): the
  // hint's guess moved one child either way without a branch (the signs of i - sizes[c] and
  // i - sizes[c - 1]), then one test, which the processor predicts, that it is the child (else
  // the loops fix it, from any c < count). The hint's guess branches on i, and a guess off by
  // one mispredicts; in cache the loads this waits on are short. After 10^5 random edits,
  // random reads of 10^5 `int`s 13.3 -> 10.8 ns and of 10^5 tensors 14.5 -> 12.7
  // (docs/decisions.md, "Look-ups"). Out of cache the child would wait on the size table's
  // loads (as with the bucket tables: bucket_lookup_max).
  TSEQ_ALWAYS_INLINE static std::uint32_t relaxed_child_near(const inner_t* in, unsigned h, std::size_t& i) noexcept {
    const auto sizes = in->sizes();
    std::uint32_t c = hint_guess(in, h, i);
    constexpr unsigned top = std::numeric_limits<std::size_t>::digits - 1;
    // up: sizes[c] <= i, so c < count - 1 (sizes[count - 1] > i); down: i < sizes[c - 1], so
    // c > 0. Not both.
    const auto up = static_cast<std::uint32_t>(((i - sizes[c]) >> top) ^ 1u);
    const auto down = static_cast<std::uint32_t>((i - sizes.before(c)) >> top);
    c = c + up - down;
    std::size_t before = sizes.before(c);
    if (before > i || sizes[c] <= i) [[unlikely]]
      c = scan_from(sizes, c, i, before);
    i -= before;
    return c;
  }
  // The child of a relaxed node above the leaf parents. A node of at most B / 4 children (a
  // root, mostly: the root of 10^3 edited tensors has 2) counts the entries of its size table
  // that i has passed, without a branch on i, in a loop whose length the processor learns
  // (relaxed_child_few): random reads after 10^5 edits against the hint's guess and search,
  // tensors 4.3 -> 4.1 ns at 10^3, 12.4 -> 11.1 at 10^5, 29.0 -> 28.2 at 10^6, `int`s 19.4 ->
  // 19.8 at 10^6 (docs/decisions.md, "Look-ups"). A larger node takes relaxed_child_near in
  // cache, else relaxed_child. The correction of relaxed_child_near at a node of 2 children
  // made the look-up longer (5.9 -> 7.5 ns, in the loop before relaxed_descend<H>): it loads
  // two entries and still tests one.
  static constexpr std::uint32_t few_max_children = B / 4;
  TSEQ_ALWAYS_INLINE static std::uint32_t upper_child(const inner_t* in, unsigned h, std::size_t& i,
                                                      bool buckets) noexcept {
    if (in->count <= few_max_children) return relaxed_child_few(in, i);
    return buckets ? relaxed_child_near(in, h, i) : relaxed_child(in, h, i);
  }
  // The child of a node of few children holding element i: the number of sizes[k] <= i for
  // k < count - 1, added without a branch on i.
  TSEQ_ALWAYS_INLINE static std::uint32_t relaxed_child_few(const inner_t* in, std::size_t& i) noexcept {
    const auto sizes = in->sizes();
    const std::uint32_t last = in->count - 1u;
    std::uint32_t c = 0;
    for (std::uint32_t k = 0; k < last; ++k) c += sizes[k] <= i ? 1u : 0u;
    i -= sizes.before(c);
    return c;
  }

  // Child of `in` (height h) holding element i; i becomes the offset inside that child.
  // A dense node needs no size table, so a descent reads one cache line of it (child[c])
  // instead of two.
  static std::uint32_t child_index(const inner_t* in, unsigned h, std::size_t& i) noexcept {
    if (in->dense) return dense_child(h, i);
    return relaxed_child(in, h, i);
  }

  // std::min and std::max on sizes, without <algorithm>.
  static constexpr std::size_t min_of(std::size_t a, std::size_t b) noexcept { return b < a ? b : a; }
  static constexpr std::size_t max_of(std::size_t a, std::size_t b) noexcept { return a < b ? b : a; }

  // A leaf and an offset inside it: what a descent returns, by value, so that the offset stays
  // in a register (through a std::size_t& it went to the stack and back at every call, and the
  // holder's fields were read again at every look-up of a loop).
  struct leaf_pos {
    const leaf_t* leaf;
    std::size_t offset;
  };

  // The leaf holding element i of the tree n (height h >= 1, n->regular), and i's offset: the
  // radix of i at every level, reading no node's header (I4). A regular tree has more than
  // full_size(h - 1) = 2^shift(h) elements, so shift(h) < 64. Small enough to inline where the
  // caller tests `regular` (rrb_state_ops::lookup). Heights 1 to 4 (2^26 `int`s at B = 32) go
  // through code made for their height, shifts constant, no test per level: random reads of
  // fresh `int`s 2.5 -> 1.9 ns at 10^5 and 6.7 -> 5.5 at 10^6 against the loop below. Height
  // 1 first, by a compare (through the switch's indirect jump, 10^3 tensors read 1.3 ns
  // against 1.1; docs/decisions.md, "Look-ups").
  TSEQ_ALWAYS_INLINE static leaf_pos find_leaf_regular(const node_t* n, unsigned h, std::size_t i) noexcept {
    TSEQ_ASSERT(h >= 1 && n->regular && shift(h) < std::numeric_limits<std::size_t>::digits,
                "find_leaf_regular: not a regular tree");
    if (h == 1) return regular_descend<1>(n, i);
    switch (h) {
      case 2:
        return regular_descend<2>(n, i);
      case 3:
        return regular_descend<3>(n, i);
      case 4:
        return regular_descend<4>(n, i);
      default:
        break;
    }
    for (unsigned s = shift(h);; s -= Bits) {
      n = as_inner(n)->child()[(i >> s) & (B - 1)];
      if (s == LBits) return {as_leaf(n), i & (BL - 1)};
    }
  }
  template <unsigned H>
  TSEQ_ALWAYS_INLINE static leaf_pos regular_descend(const node_t* n, std::size_t i) noexcept {
    if constexpr (H == 0) {
      return {as_leaf(n), i & (BL - 1)};
    } else {
      return regular_descend<H - 1>(as_inner(n)->child()[(i >> shift(H)) & (B - 1)], i);
    }
  }

  // The leaf holding element i of the tree n of height h, and i's offset inside it.
  // Dense levels descend through code made for their height (heights up to 6: 2^35 elements at
  // B = 32), whose shift and mask are constants: a flag test and one load per level. The first
  // relaxed node hands the rest of the walk to relaxed_descend<H> at heights up to 4, inlined
  // with its heights constant, and above to the loop (descend_relaxed), down to height 4. Measured against the
  // loop alone: docs/decisions.md, "Look-ups". `buckets`: bucketed nodes go by their
  // table (bucketed_child), else by the hint (see bucket_lookup_max).
  static leaf_pos find_leaf(const node_t* n, unsigned h, std::size_t i, bool buckets = false) noexcept {
    switch (h) {
      case 0:
        return {as_leaf(n), i};
      case 1:
        return descend_inline<1>(n, i, buckets);
      case 2:
        return descend<2>(n, i, buckets);
      case 3:
        return descend<3>(n, i, buckets);
      case 4:
        return descend<4>(n, i, buckets);
      case 5:
        return descend<5>(n, i, buckets);
      case 6:
        return descend<6>(n, i, buckets);
      default:
        return descend_relaxed(n, h, i, buckets);
    }
  }
  template <unsigned H>
  static leaf_pos descend(const node_t* n, std::size_t i, bool buckets) noexcept {
    return descend_inline<H>(n, i, buckets);
  }
  // descend's body; inlined where a tree of one leaf parent is read (find_leaf), so that the
  // look-up makes no call (a tree of up to B leaves: 10^3 tensors).
  template <unsigned H>
  TSEQ_ALWAYS_INLINE static leaf_pos descend_inline(const node_t* n, std::size_t i, bool buckets) noexcept {
    if constexpr (H == 0) {
      return {as_leaf(n), i};
    } else {
      const inner_t* in = as_inner(n);
      if (!in->dense) {
        if constexpr (H <= 4) {
          return relaxed_descend<H>(in, i, buckets);
        } else {
          return descend_relaxed(n, H, i, buckets);
        }
      }
      const node_t* next = in->child()[dense_child(H, i)];
      return descend<H - 1>(next, i, buckets);
    }
  }
  // Below a relaxed node dense and relaxed nodes mix, so a test of `dense` would mispredict:
  // every node goes through its size table (a dense one's hint is 1.0, its guess exact). Only
  // a leaf parent may be bucketed (I6); the test of `buckets` goes the same way for a whole
  // look-up, and of `bucketed` nearly always the same way after random edits. Heights up to 4
  // go through relaxed_descend<H>, always inlined: through the loop, out of line, random reads
  // after 10^5 edits took 35.0 against 29.3 ns for 10^6 tensors and 22.7 against 20.0 for 10^6
  // `int`s (heights 3 and 4), 5.9 against 5.4 for 10^3 tensors (height 2; docs/decisions.md,
  // "Look-ups").
  template <unsigned H>
  TSEQ_ALWAYS_INLINE static leaf_pos relaxed_descend(const inner_t* in, std::size_t i, bool buckets) noexcept {
    if constexpr (H == 1) {
      const std::uint32_t c = buckets && in->bucketed ? bucketed_child(in, i) : relaxed_child(in, 1, i);
      return {as_leaf(in->child()[c]), i};
    } else {
      const inner_t* next = as_inner(in->child()[upper_child(in, H, i, buckets)]);  // (before i is read below)
      return relaxed_descend<H - 1>(next, i, buckets);
    }
  }
  // Taller trees (h > 4) step down to height 4, then go on as the ones above.
  static leaf_pos descend_relaxed(const node_t* n, unsigned h, std::size_t i, bool buckets) noexcept {
    TSEQ_ASSERT(h > 4, "descend_relaxed: a tree that relaxed_descend<H> serves");
    for (; h > 4; --h) n = as_inner(n)->child()[upper_child(as_inner(n), h, i, buckets)];
    return relaxed_descend<4>(as_inner(n), i, buckets);
  }
  // The bucket tables serve a look-up in a tree of at most this many elements. Their child
  // waits on the size table's loads, where a hint's guess that is right lets the processor
  // load the child at once: in cache the table wins (random reads of 10^3 and 10^5 edited
  // tensors 10.6 -> 8.0 and 22.4 -> 19.0 ns), out of it the guess (10^6: 53.9 -> 61.5 ns
  // with tables at every height; with them at the leaf parents only, 22.6 -> 23.9 ns for
  // `int`s and 33.9 -> 34.6 for tensors; docs/decisions.md, "Look-ups"). 2^17 elements of
  // 8 bytes and their nodes take about 1.2 MB.
  static constexpr std::size_t bucket_lookup_max = std::size_t{1} << 17;

  // ---- building nodes and editing their slots: rrb_tree_build.hpp ---------------------------

  // A run of elements to copy (or move, when `steal`) into new leaves.
  struct seg {
    T* first;
    T* last;
    bool steal;
  };
  // Allocation: room for `cap` entries (1..BL for a leaf, 1..B for an inner node).
  static ref new_leaf(std::size_t cap = BL);
  static ref new_inner(std::size_t cap = B);
  static std::size_t checked_cap(std::size_t cap, std::size_t width) noexcept;
  static constexpr std::size_t cap_for(std::size_t count, bool room, std::size_t width) noexcept;
  // Leaves: elements from runs (seg), moved inside a leaf, appended.
  static seg seg_of(node_t* l, std::size_t from, std::size_t to, bool steal) noexcept;
  TSEQ_ALWAYS_INLINE static void append(leaf_t* l, T&& v);
  static std::size_t entries(const seg* segs, std::size_t nsegs) noexcept;
  static void move_elements(T* first, T* last, T* out);
  static void move_elements_backward(T* first, T* last, T* out_last);
  TSEQ_NOINLINE static void fill(leaf_t* l, const seg* segs, std::size_t nsegs, std::size_t from, std::size_t to);
  static ref build_leaves(const seg* segs, std::size_t nsegs, std::size_t left, ref& extra, bool room = false);
  static std::size_t split_point(std::size_t k, bool rightmost, std::size_t width) noexcept;
  // Inner nodes' size tables, `dense` and `regular` (I4), and hint (I6).
  static void mark_dense(inner_t* in, unsigned h, bool bucket = true) noexcept;
  static void mark_regular(inner_t* in, unsigned h) noexcept;
  static void mark_resized(inner_t* in, unsigned h, std::uint32_t c) noexcept;
  static bool children_full(const inner_t* in, unsigned h, std::uint32_t k) noexcept;
  static std::uint16_t hint_of(const inner_t* in, unsigned h) noexcept;
  static bool bucketable(const inner_t* in, unsigned h) noexcept;
  static std::uint32_t bucket_of(const inner_t* in, std::size_t b) noexcept;
  static void set_lookup(inner_t* in, unsigned h, bool bucket) noexcept;
  static void resized_by_one(inner_t* in, unsigned h, std::uint32_t c, bool grew) noexcept;
  static void resize_from(inner_t* in, unsigned h, std::uint32_t from, bool bucket = true) noexcept;
  static void refresh(inner_t* in, unsigned h) noexcept;
  static std::size_t slot_size(const inner_t* in, std::uint32_t c) noexcept;
  static void resize_slot(inner_t* in, std::uint32_t c, std::size_t was, std::size_t now) noexcept;
  // Children laid out again over new inner nodes.
  struct kids;
  static ref explode(ref r, kids& out);
  static ref build_inner(kids& k, std::size_t from, std::size_t to, std::size_t left, unsigned h, ref& extra,
                         ref spare = nullptr, bool room = false);
  // Copy on write and child slots of an editable inner node.
  template <bool Share>
  static ref copy_inner(inner_t* src, std::size_t cap);
  static void append_slots(inner_t* dst, const inner_t* src, std::uint32_t from, std::uint32_t to, bool share) noexcept;
  static ref own(ref r, std::uint32_t grow = 0);
  static void make_room(ref& r);
  static ref take_child(inner_t* in, std::uint32_t c) noexcept;
  static void remove_slot(inner_t* in, std::uint32_t c) noexcept;
  static void insert_slot(inner_t* in, std::uint32_t c, ref r, std::size_t size) noexcept;
  static void add_child(ref& n, unsigned h, std::uint32_t c, ref r, std::size_t size, bool rightmost, ref& extra);
  // Roots.
  static ref root_of_two(ref a, ref b, unsigned& h);
  static ref collapse(ref r, unsigned& h);

  // ---- rebalancing two neighbours: rrb_tree_rebalance.hpp -----------------------------------

  static bool merge_into_first(inner_t* in, unsigned h, std::uint32_t c);
  static ref relayout_pair(ref x, ref y, unsigned h, bool pair_rightmost, ref& r2);
  static void rebalance_pair(inner_t* in, unsigned h, std::uint32_t c, bool pair_rightmost);
  static bool absorb_split(inner_t* in, unsigned h, std::uint32_t c, ref& ex, bool rightmost);

  // ---- point updates (set, erase, insert): rrb_tree_update.hpp ------------------------------

  static ref set(ref n, unsigned h, std::size_t i, T& v);
  static ref erase(ref n, unsigned h, std::size_t i, bool rightmost);
  static ref insert(ref n, unsigned h, std::size_t i, T& v, bool rightmost, ref& extra, bool root = false);
  // An insert into a full leaf: room found in a sibling instead of a split.
  static constexpr std::uint32_t spread_window = 6;  // how far (in leaves) spread_insert looks (docs/decisions.md)
  static bool spread_insert(inner_t* in, std::uint32_t c, std::size_t i, T& v, std::uint32_t window);
  static ref append_to_last_leaf(ref n, T& v);
  static bool share_with_sibling(inner_t* in, std::uint32_t c) noexcept;
  // A persistent erase or insert in a tree of height 1 (or 2 that fits in 1) of small
  // trivially copyable elements lays the leaves out full again from the edited one under one
  // leaf parent (docs/design.md, "Packed roots").
  static constexpr bool packs_root = std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(void*);
  static bool repack_root(const node_t* top, unsigned h, node_t* old_tail, std::size_t i, T* v, ref& root, ref& tail);
  static constexpr std::uint32_t packed_leaves = 2 * B + 8;  // leaves repack_two_levels lists
  TSEQ_NOINLINE static bool repack_two_levels(const inner_t* in, node_t* old_tail, std::size_t i, T* v, ref& root,
                                              ref& tail);
  // A persistent erase or insert in a leaf parent below the root does the same to it when it
  // keeps m..B leaves (docs/design.md, "Packed leaf parents").
  // (Out of line: its runs would otherwise sit in every recursive erase and insert frame.)
  TSEQ_NOINLINE static ref repack_leaf_parent(const inner_t* in, std::size_t i, T* v);
  // What both layouts share: where they start, the runs of the edited leaves, a cursor
  // copying them into new leaves one after another (fill() from an offset would walk the runs
  // before it again for every leaf: quadratic in B), and the new leaf parent.
  template <class Ends>
  static std::uint32_t first_laid_out(const Ends& ends, std::uint32_t c, bool dense) noexcept;
  template <class Kids>
  static std::size_t edited_runs(const Kids& kids, std::uint32_t a, std::uint32_t n, std::uint32_t c, std::size_t o,
                                 T* v, seg* segs) noexcept;
  struct run_copier {
    run_copier(const seg* first, std::size_t n) noexcept : segs(first), nsegs(n), p(first[0].first) {}
    void operator()(leaf_t* l, std::size_t len) noexcept;
    const seg* segs;
    std::size_t nsegs;
    std::size_t s = 0;
    const T* p;
  };
  template <class Kids, class Ends>
  static ref packed_parent(const Kids& kids, const Ends& ends, std::uint32_t a, std::size_t cap);
  static void append_packed_leaf(inner_t* r, run_copier& copy, std::size_t len);
  template <std::uint32_t N, class Kids, class Ends>
  static bool lay_out_root(const Kids& kids, const Ends& ends, std::uint32_t n, std::uint32_t c, std::size_t o,
                           bool dense, node_t* old_tail, T* v, ref& root, ref& tail);

  // ---- slicing (take, drop): rrb_tree_slice.hpp ---------------------------------------------

  static ref take(ref n, unsigned h, std::size_t k, ref& last);
  static ref drop(ref n, unsigned h, std::size_t k);
  static ref take_shared(node_t* n, unsigned h, std::size_t k, ref& last);
  static ref drop_shared(node_t* n, unsigned h, std::size_t k);
  static bool fill_left_spine(node_t* r, unsigned h);

  // ---- concatenation: rrb_tree_concat.hpp ---------------------------------------------------

  static ref merge_seam(ref L, ref R, unsigned h, bool r_rightmost, ref& extra);
  static ref join_right(ref x, unsigned h, ref b, unsigned hb, ref& extra);
  static ref join_left(ref y, unsigned h, bool rightmost, ref a, unsigned ha, ref& extra);
  static ref join(ref a, unsigned ha, ref b, unsigned hb, unsigned& h);  // the entry point
  // push_back's tail flush in place.
  TSEQ_NOINLINE static ref chain_over(ref& l, unsigned top);
  static bool append_leaf_in_place(node_t* r, unsigned h, ref& l);

  // ---- traversal: rrb_tree_traverse.hpp -----------------------------------------------------

  static void prefetch(const node_t* n, std::size_t bytes) noexcept;
  static void prefetch(const leaf_t* l) noexcept;
  static void prefetch(const inner_t* in) noexcept;
  // Elements of at most this many bytes in all: a walk reads them from the cache, where the
  // prefetch window inside a node only costs (for_each_leaf's `ahead_reads`).
  static constexpr std::size_t cached_walk_bytes = std::size_t{32} * 1024;
  template <class F>
  static void for_each_leaf(const node_t* n, unsigned h, F& f, const node_t* next = nullptr, bool first = true,
                            bool ahead_reads = true);
  template <bool Dense, class F>
  static void leaves_of(const inner_t* in, const inner_t* nx, F& f, bool first, bool ahead_reads);
  template <class F>
  static void visit_full(const leaf_t* l, F& f);
  static std::size_t node_bytes(const node_t* n) noexcept;
  static void count_nodes(const node_t* n, unsigned h, std::size_t& leaves, std::size_t& inners,
                          std::size_t& bytes) noexcept;

  // ---- checking the invariants: rrb_tree_check.hpp ------------------------------------------

  [[noreturn]] static void broken(const std::string& what);
  static std::size_t check(const node_t* n, unsigned h, bool is_root, bool leftmost, bool rightmost,
                           const std::string& path);
};

}  // namespace tseq::detail
