#pragma once

// rrb_tree (tseq/detail/rrb_tree_decl.hpp): building nodes and editing their child slots.
// Allocating leaves and inner nodes (room for `cap` entries: BL or B for nodes that grow in place,
// exactly their entries for the copies a persistent update makes); filling leaves from runs of
// elements (seg); laying child references out again over one or two inner nodes (kids,
// explode, build_inner); copying a shared inner node before it is edited (own, copy_inner);
// inserting, removing and appending child slots, splitting a full node (add_child); making a
// root of two subtrees and collapsing single-child roots.
// Invariants kept here: an inner node's sizes[] are the running element counts of its
// children (I4), and `dense` is set only when it is true (mark_dense); count <= cap <= BL for
// a leaf, B for an inner node.
// The other parts build on these; none of these calls them.
// Included through tseq/detail/rrb_tree.hpp.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/config.hpp"
#include "tseq/detail/rrb_tree_decl.hpp"

namespace tseq::detail {

// A node with room for `cap` entries (1..BL or 1..B): all for nodes that grow in place, the exact
// count for the copies a persistent update makes (docs/design.md, "Node sizes").
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::new_leaf(std::size_t cap) -> ref {
  return ref(allocate_node<leaf_t>(checked_cap(cap, BL)), false);
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::new_inner(std::size_t cap) -> ref {
  return ref(allocate_node<inner_t>(checked_cap(cap, B)), false);
}

template <class T, unsigned Bits, unsigned LBits>
inline std::size_t rrb_tree<T, Bits, LBits>::checked_cap(std::size_t cap, [[maybe_unused]] std::size_t width) noexcept {
  TSEQ_ASSERT(cap >= 1 && cap <= width, "a node's room is 1..its width entries");
  return cap;
}

// Room for `count` entries in a node of `width` (BL or B): all of it when `room`, else exactly
// count.
template <class T, unsigned Bits, unsigned LBits>
constexpr std::size_t rrb_tree<T, Bits, LBits>::cap_for(std::size_t count, bool room, std::size_t width) noexcept {
  return room ? width : count;
}

template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::seg_of(node_t* l, std::size_t from, std::size_t to, bool steal) noexcept -> seg {
  T* d = as_leaf(l)->data();
  return {d + from, d + to, steal};
}

// Moves v to the end of leaf l (which has room: count < cap).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::append(leaf_t* l, T&& v) {
  // count read once: a T such as int may alias it (a uint32_t), so `++l->count` after the
  // store would load it again (docs/decisions.md, "Look-ups").
  const std::uint32_t c = l->count;
  TSEQ_ASSERT(c < l->cap, "append: leaf without room");
  ::new (static_cast<void*>(l->data() + c)) T(std::move(v));
  l->count = c + 1;
}

template <class T, unsigned Bits, unsigned LBits>
inline std::size_t rrb_tree<T, Bits, LBits>::entries(const seg* segs, std::size_t nsegs) noexcept {
  std::size_t k = 0;
  for (std::size_t s = 0; s < nsegs; ++s) k += static_cast<std::size_t>(segs[s].last - segs[s].first);
  return k;
}

// std::move(first, last, out) and std::move_backward(first, last, out_last) on elements inside
// leaves, without <algorithm>: memmove for trivially copyable T, as the standard library does.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::move_elements(T* first, T* last, T* out) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    std::memmove(static_cast<void*>(out), first, static_cast<std::size_t>(last - first) * sizeof(T));
  } else {
    for (; first != last; ++first, ++out) *out = std::move(*first);
  }
}

template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::move_elements_backward(T* first, T* last, T* out_last) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    const auto n = static_cast<std::size_t>(last - first);
    std::memmove(static_cast<void*>(out_last - n), first, n * sizeof(T));
  } else {
    while (last != first) *--out_last = std::move(*--last);
  }
}

// Constructs in the empty leaf l elements [from, to) of the concatenation of segs. On an
// exception, l->count covers exactly the elements constructed. Kept out of line: inlined
// into build_leaves, a 10-element persistent erase of tensors measured 1.1-1.3x slower
// (three alternating runs of each build at --benchmark_min_time=1).
template <class T, unsigned Bits, unsigned LBits>
TSEQ_NOINLINE void rrb_tree<T, Bits, LBits>::fill(leaf_t* l, const seg* segs, std::size_t nsegs, std::size_t from,
                                                  std::size_t to) {
  TSEQ_ASSERT(to - from <= l->cap, "fill: more elements than the leaf has room for");
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
      T* end = p + min_of(len - skip, left);
      skip = 0;
      left -= static_cast<std::size_t>(end - p);
      if constexpr (std::is_trivially_copyable_v<T>) {
        std::memcpy(static_cast<void*>(d + k), p, static_cast<std::size_t>(end - p) * sizeof(T));
        k += static_cast<std::uint32_t>(end - p);
      } else if (segs[s].steal) {
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
// second (returned in `extra`) the rest, if any. Each has room for BL elements when `room`
// (an in-place update), else exactly its elements.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::build_leaves(const seg* segs, std::size_t nsegs, std::size_t left, ref& extra,
                                                   bool room) -> ref {
  const std::size_t total = entries(segs, nsegs);
  ref out = new_leaf(cap_for(min_of(total, left), room, BL));
  fill(as_leaf(out.get()), segs, nsegs, 0, min_of(total, left));
  if (total > left) {
    extra = new_leaf(cap_for(total - left, room, BL));
    fill(as_leaf(extra.get()), segs, nsegs, left, total);
  }
  return out;
}

// Where to cut k > width entries (width: BL for leaves, B for inner nodes) into two nodes:
// the right one is on the rightmost path (may stay small, so the left is filled for density)
// or must hold >= width / 2 like the left.
template <class T, unsigned Bits, unsigned LBits>
inline std::size_t rrb_tree<T, Bits, LBits>::split_point(std::size_t k, bool rightmost, std::size_t width) noexcept {
  if (k <= width) return k;
  if (rightmost || k - width >= width / 2) return width;
  return (k + 1) / 2;
}

// Whether children [0, k) of `in` (height h) are all full subtrees, from the size table
// alone: exactly when together they hold k << shift(h) elements, since none can hold more.
// s == k << shift(h) without a division (a 64-bit divide was a few percent of a push_back of
// ints); a subtree too large for size_t is never full.
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::children_full(const inner_t* in, unsigned h, std::uint32_t k) noexcept {
  const unsigned sh = shift(h);
  const std::size_t s = in->sizes().before(k);
  return k == 0 || (sh < std::numeric_limits<std::size_t>::digits && (s >> sh) == k && (s & low_mask(h)) == 0);
}

// Sets `dense` (I4): all children but the last full. Then the look-up's `bucketed`, `hint`
// and bucket table (I6), from the same children (`bucket`: see set_lookup).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::mark_dense(inner_t* in, unsigned h, bool bucket) noexcept {
  in->dense = children_full(in, h, in->count - 1u);
  set_lookup(in, h, bucket);
  mark_regular(in, h);
}

// The look-up fields (I6) from `dense` and the size table. The hint always: 1.0 in a dense
// node (nothing to compute on push_back's path, and never bucketed), else one division.
// Then bucketed where bucketable allows, the table filled without a branch on the sizes:
// each child before the last two marks the first bucket starting after its end, and a
// running sum over the B buckets counts the children ending at or before each bucket's start
// (O(count + B)). Without `bucket` (slicing and concatenation; I6 allows a node that could be
// bucketed not to be) no table: one filled for each node on a take's or drop's cut cost them
// 5 to 8% (10^5 and 10^6 ints, side by side 2026-12-07), where the trees a loop indexes come
// from erase and insert, whose path copies keep their table up to date by the buckets that
// moved (resized_by_one).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::set_lookup(inner_t* in, unsigned h, bool bucket) noexcept {
  // (A dense node's hint is exactly 1.0: no division on push_back's path.)
  in->hint = in->dense ? hint_one : hint_of(in, h);
  if (in->dense || !bucket || !bucketable(in, h)) {
    in->bucketed = false;
    return;
  }
  in->bucketed = true;
  const auto sizes = in->sizes();
  const std::uint32_t stop = in->count - 2u;  // the last child's buckets start a child early
  std::uint8_t* table = in->bucket;
  constexpr unsigned sh = bucket_shift;
  const std::size_t round = (std::size_t{1} << sh) - 1;
  if constexpr (std::endian::native == std::endian::little && B % 8 == 0) {
    // Each child before the last two marks the first bucket starting after its end (< B:
    // bucketable), in words of eight byte counters (counted in bytes, the words' loads below
    // waited on the byte stores: a failed store forward; a byte loop throughout took the
    // in-place erase + push_back of 10^6 tensors 385 -> 552 ns). Then the running sum eight
    // buckets at a time: times 0x0101..01, byte k of a word becomes the sum of its bytes 0..k (no sum
    // exceeds B - 2 < 256, so no byte carries into the next).
    std::uint64_t words[B / 8] = {};
    for (std::uint32_t c = 0; c < stop; ++c) {
      const std::size_t b = (sizes[c] + round) >> sh;
      words[b / 8] += std::uint64_t{1} << (8 * (b % 8));
    }
    std::uint64_t carry = 0;
    for (std::size_t k = 0; k < B / 8; ++k) {
      const std::uint64_t w = words[k] * 0x0101010101010101u + carry;
      std::memcpy(table + 8 * k, &w, 8);
      carry = (w >> 56) * 0x0101010101010101u;
    }
  } else {
    std::memset(table, 0, B);
    for (std::uint32_t c = 0; c < stop; ++c) ++table[(sizes[c] + round) >> sh];
    std::uint8_t sum = 0;
    for (std::size_t b = 0; b < B; ++b) {
      sum = static_cast<std::uint8_t>(sum + table[b]);
      table[b] = sum;
    }
  }
}

// Child c grew or shrank by one element, sizes[c, count) already moved: the look-up fields
// (I6) as mark_resized would set them. A bucketed node that stays so (child c keeps half a
// full subtree; the node neither becomes dense nor full but its last two children) changes
// only the buckets whose start one of the moved ends crossed, one in 2^shift(h) of them
// (refilling instead took the in-place erase + push_back of 10^6 ints 265 -> 420 ns:
// docs/decisions.md, "Look-ups").
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::resized_by_one(inner_t* in, unsigned h, std::uint32_t c, bool grew) noexcept {
  if (!in->bucketed || c + 1 >= in->count) {
    mark_resized(in, h, c);
    return;
  }
  TSEQ_ASSERT(h == 1, "resized_by_one: a bucketed node above the leaf parents");
  const auto sizes = in->sizes();
  constexpr unsigned sh = bucket_shift;
  const std::uint32_t k = in->count - 1u;  // the last child
  // Still bucketed unless it became dense or full but its last two (bucketable), or child
  // c fell under bucket_floor; the other children did not change.
  if (children_full(in, h, k) || (k >= 2 && children_full(in, h, k - 1u)) ||
      sizes[c] - sizes.before(c) < bucket_floor) {
    mark_dense(in, h);
    return;
  }
  in->hint = hint_of(in, h);
  const std::size_t low = (std::size_t{1} << sh) - 1;
  const std::uint32_t stop = in->count - 2u;
  for (std::uint32_t j = c; j < stop; ++j) {
    const std::size_t end = grew ? sizes[j] - 1 : sizes[j];  // the one of old and new ends that is lower
    if ((end & low) == 0) {
      // The bucket starting at `end` had child j end at its start (grew: no longer) or not
      // (shrank: now it does).
      std::uint8_t& e = in->bucket[end >> sh];
      e = static_cast<std::uint8_t>(grew ? e - 1 : e + 1);
    }
  }
}

// Whether the node (count >= 2) at height h can be `bucketed`: a leaf parent (h = 1) whose
// every child but the last holds at least half a full leaf, BL/2 (bucket b then holds the
// elements whose radix is b: no child holds more than BL, so i >> bucket_shift < B). Two
// starts of children strictly inside one bucket would need two children holding less than a
// bucket between them, so a bucket meets at most three children (bucketed_child). After
// random edits leaves hold BL/2 to BL (I3), so a leaf parent is bucketable unless a
// concatenation left a shorter seam leaf or its children but the last two are full (the
// hint's guess is then exact: hint_of). Above the leaf parents the hint's guess is right
// often enough that the table's dependent loads cost more than the misses they save
// (docs/decisions.md, "Look-ups": bucketed there too, random reads of 10^5 edited `int`s took
// 17.2 ns, against 15.1 with the leaf parents alone).
template <class T, unsigned Bits, unsigned LBits>
inline bool rrb_tree<T, Bits, LBits>::bucketable(const inner_t* in, unsigned h) noexcept {
  static_assert(bucket_shift + Bits < std::numeric_limits<std::size_t>::digits);
  if (h != 1) return false;
  const auto sizes = in->sizes();
  const std::uint32_t last = in->count - 1u;
  TSEQ_ASSERT(last >= 1, "bucketable: a node of one child");
  if (last >= 2 && children_full(in, h, last - 1u)) return false;
  std::size_t prev = 0;
  for (std::uint32_t c = 0; c < last; ++c) {
    if (sizes[c] - prev < bucket_floor) return false;
    prev = sizes[c];
  }
  return true;
}

// The bucket table entry b that set_lookup writes: the child holding element
// b << bucket_shift, at most count - 2 (so that bucketed_child reads sizes[t + 1] without a
// test: a bucket starting in the last child gives the one before, and the compare with its
// size moves on). For the invariant check.
template <class T, unsigned Bits, unsigned LBits>
inline std::uint32_t rrb_tree<T, Bits, LBits>::bucket_of(const inner_t* in, std::size_t b) noexcept {
  const auto sizes = in->sizes();
  const std::uint32_t stop = in->count - 2u;
  std::uint32_t c = 0;
  while (c < stop && sizes[c] <= (b << bucket_shift)) ++c;
  return c;
}

// Sets `regular` (I4) from `dense` and the last child's `regular`: called after that child's
// own is set (the updates go bottom-up), and by itself where only the last child changed.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::mark_regular(inner_t* in, unsigned h) noexcept {
  const node_t* last = in->child()[in->count - 1u];  // null while an algorithm holds it
  in->regular = in->dense && (h == 1 || (last != nullptr && last->regular));
}

// Child c changed its element count, the table already moved: `dense` and the hint count the
// children before the last only, so when c is the last only `regular` can change.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::mark_resized(inner_t* in, unsigned h, std::uint32_t c) noexcept {
  if (c + 1 < in->count) {
    mark_dense(in, h);
  } else {
    mark_regular(in, h);
  }
}

// The `hint` an inner node at height h should hold (I6): its children but the last, times
// 2^(shift(h) + hint_bits), over their elements, at most 0xFFFF; 1.0 for a single child or
// where hint_usable(h) is false. The last child is left out because it is often partial (the
// right edge of a tree): counted in, a root of a full child and a short one guessed wrong
// for a third of its indexes. 1.0 also when all children but the last two are full.
template <class T, unsigned Bits, unsigned LBits>
inline std::uint16_t rrb_tree<T, Bits, LBits>::hint_of(const inner_t* in, unsigned h) noexcept {
  if (in->count < 2 || !hint_usable(h)) return hint_one;
  // All children but the last two full (a repacked leaf parent's evened-out end): the radix
  // guess is right up to the last two, where an average would drift a child ahead.
  if (in->count >= 3 && children_full(in, h, in->count - 2u)) return hint_one;
  const std::size_t before_last = in->sizes()[in->count - 2];
  const std::size_t f = (std::size_t{in->count - 1u} << (shift(h) + node_t::hint_bits)) / before_last;
  return static_cast<std::uint16_t>(f < 0xFFFF ? f : 0xFFFF);
}

// Recomputes sizes[from, count) from those children (reading only them), then `dense`.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::resize_from(inner_t* in, unsigned h, std::uint32_t from, bool bucket) noexcept {
  std::size_t acc = from == 0 ? 0 : in->sizes()[from - 1];
  for (std::uint32_t i = from; i < in->count; ++i) {
    acc += size_of(in->child()[i]);
    in->sizes()[i] = acc;
  }
  mark_dense(in, h, bucket);
}

// Recomputes sizes[] and `dense` of an inner node at height h (reads every child).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::refresh(inner_t* in, unsigned h) noexcept {
  resize_from(in, h, 0);
}

// Elements under child c, from the size table.
template <class T, unsigned Bits, unsigned LBits>
inline std::size_t rrb_tree<T, Bits, LBits>::slot_size(const inner_t* in, std::uint32_t c) noexcept {
  return in->sizes()[c] - (c == 0 ? 0 : in->sizes()[c - 1]);
}

// Child c now holds `now` elements instead of `was`: the table from c on moves by the
// difference (no child is read). The caller then calls mark_dense.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::resize_slot(inner_t* in, std::uint32_t c, std::size_t was,
                                                  std::size_t now) noexcept {
  for (std::uint32_t j = c; j < in->count; ++j) in->sizes()[j] = in->sizes()[j] - was + now;
}

// A growable list of child references with their element counts, for rebuilding inner
// nodes without reading the children again. Owns the references in v[0, n) (a taken one is
// null). The arrays are left uninitialised: zeroing ~1 KB per level and checking 66 slots
// on destruction were over half of merge_seam's time (perf, docs/design.md).
template <class T, unsigned Bits, unsigned LBits>
struct rrb_tree<T, Bits, LBits>::kids {
  node_t* v[2 * B + 2];      // NOLINT(cppcoreguidelines-pro-type-member-init): [0, n) are set
  std::size_t s[2 * B + 2];  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::size_t n = 0;
  // The arrays are left uninitialised on purpose (see above).
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init,modernize-use-equals-default)
  kids() noexcept {}
  kids(const kids&) = delete;
  kids& operator=(const kids&) = delete;
  ~kids() {
    for (std::size_t i = 0; i < n; ++i) {
      if (v[i] != nullptr) intrusive_ptr_release(v[i]);
    }
  }
  void push(ref r, std::size_t size) noexcept {
    v[n] = r.detach();
    s[n++] = size;
  }
  void push(ref r) noexcept {
    const std::size_t size = size_of(r.get());
    push(std::move(r), size);
  }
  ref take(std::size_t i) noexcept {
    ref r(v[i], false);
    v[i] = nullptr;
    return r;
  }
};

// Moves (editable) or copies the child references of inner node `r`, with their sizes
// from its table, into `out`. Returns r emptied when it was editable (for build_inner to
// reuse), else null.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::explode(ref r, kids& out) -> ref {
  inner_t* in = as_inner(r.get());
  const bool steal = editable(in);
  for (std::uint32_t i = 0; i < in->count; ++i) {
    const std::size_t size = slot_size(in, i);
    if (steal) {
      out.push(ref(in->child()[i], false), size);
      in->child()[i] = nullptr;
    } else {
      out.push(ref(in->child()[i]), size);
    }
  }
  if (!steal) return nullptr;
  in->count = 0;
  return r;
}

// Inner nodes at height h from k[from, to): `left` children in the first, the rest in a
// second (`extra`) if any. `spare`, an emptied node from explode, is used for the first if
// given and it has room (one allocation fewer). New nodes get room for B children when
// `room` (in-place updates, the rightmost path), else exactly their children.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::build_inner(kids& k, std::size_t from, std::size_t to, std::size_t left,
                                                  unsigned h, ref& extra, ref spare, bool room) -> ref {
  const std::size_t first = min_of(to - from, left);
  ref out = spare && spare->cap >= first ? std::move(spare) : new_inner(cap_for(first, room, B));
  if (to - from > left) extra = new_inner(cap_for(to - from - left, room, B));
  inner_t* a = as_inner(out.get());
  std::size_t acc = 0;
  for (std::size_t i = from; i < to; ++i) {
    inner_t* dst = (i - from < left) ? a : as_inner(extra.get());
    if (i - from == left) acc = 0;
    acc += k.s[i];
    dst->sizes()[dst->count] = acc;
    dst->child()[dst->count++] = k.v[i];
    k.v[i] = nullptr;
  }
  mark_dense(a, h);
  if (extra) mark_dense(as_inner(extra.get()), h);
  return out;
}

// A new inner node with room for `cap` entries holding src's (children, sizes, dense).
// Share: src keeps its children too, each gains a reference; else they change hands (no
// reference count is touched) and src is left empty.
template <class T, unsigned Bits, unsigned LBits>
template <bool Share>
inline auto rrb_tree<T, Bits, LBits>::copy_inner(inner_t* src, std::size_t cap) -> ref {
  ref out = new_inner(cap);
  inner_t* dst = as_inner(out.get());
  append_slots(dst, src, 0, src->count, Share);
  dst->dense = src->dense;
  dst->regular = src->regular;
  dst->hint = src->hint;
  dst->bucketed = src->bucketed;
  if (src->bucketed) {
    for (std::size_t b = 0; b < B; ++b) dst->bucket[b] = src->bucket[b];
  }
  if constexpr (!Share) src->count = 0;
  return out;
}

// Appends child slots [from, to) of src after dst's children (dst has room), their element
// counts continuing dst's table. `share`: each child gains a reference and src keeps it; else
// the children change hands (no reference count is touched) and the caller makes src forget
// them. dst's `dense` is the caller's to set.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::append_slots(inner_t* dst, const inner_t* src, std::uint32_t from,
                                                   std::uint32_t to, bool share) noexcept {
  TSEQ_ASSERT(dst->count + std::size_t{to - from} <= dst->cap, "append_slots: node without room");
  const std::size_t base = dst->count == 0 ? 0 : dst->sizes()[dst->count - 1];
  const std::size_t cut = from == 0 ? 0 : src->sizes()[from - 1];
  std::uint32_t k = dst->count;
  for (std::uint32_t j = from; j < to; ++j, ++k) {
    if (share) intrusive_ptr_add_ref(src->child()[j]);
    dst->child()[k] = src->child()[j];
    dst->sizes()[k] = base + (src->sizes()[j] - cut);
  }
  dst->count = k;
}

// Returns an editable version of inner node r: r itself when we hold the only reference,
// else a copy with room for `grow` more children than it holds (up to B).
// (Leaves are never copied whole: each update builds the leaf it needs directly.)
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::own(ref r, std::uint32_t grow) -> ref {
  if (editable(r.get())) return r;
  return copy_inner<true>(as_inner(r.get()), min_of(B, std::size_t{r->count} + grow));
}

// Before an entry is added to the editable inner node r: if it is not full (count < B) but
// its allocation is (count == cap), its children move to a node with room for B. Once per
// node: the new one has room.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::make_room(ref& r) {
  if (r->count == r->cap && r->count < B) r = copy_inner<false>(as_inner(r.get()), B);
}

// Takes child c out of the editable node `in` (the slot is null until put back).
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::take_child(inner_t* in, std::uint32_t c) noexcept -> ref {
  ref r(in->child()[c], false);
  in->child()[c] = nullptr;
  return r;
}

// Removes child slot c (already released or taken) and its elements from the table.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::remove_slot(inner_t* in, std::uint32_t c) noexcept {
  const std::size_t was = slot_size(in, c);
  for (std::uint32_t j = c; j + 1 < in->count; ++j) {
    in->child()[j] = in->child()[j + 1];
    in->sizes()[j] = in->sizes()[j + 1] - was;
  }
  --in->count;
}

// Inserts r, holding `size` elements, as child c (the node has room: count < cap).
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::insert_slot(inner_t* in, std::uint32_t c, ref r, std::size_t size) noexcept {
  TSEQ_ASSERT(in->count < in->cap, "insert_slot: node without room");
  for (std::uint32_t j = in->count; j > c; --j) {
    in->child()[j] = in->child()[j - 1];
    in->sizes()[j] = in->sizes()[j - 1] + size;
  }
  in->child()[c] = r.detach();
  in->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + size;
  ++in->count;
}

// Inserts r (holding `size` elements) as child c of the editable node n (height h); a node
// that is not full but has no room in its allocation first moves to one that has
// (make_room); a full node splits: it keeps the first split_point(B + 1) entries and a new
// right sibling, returned in `extra`, takes the rest. Only the table is read, never the
// children.
template <class T, unsigned Bits, unsigned LBits>
inline void rrb_tree<T, Bits, LBits>::add_child(ref& n, unsigned h, std::uint32_t c, ref r, std::size_t size,
                                                bool rightmost, ref& extra) {
  make_room(n);
  inner_t* in = as_inner(n.get());
  if (in->count < B) {
    insert_slot(in, c, std::move(r), size);
    mark_dense(in, h);
    return;
  }
  const std::size_t left = split_point(B + 1, rightmost, B);
  ref right = new_inner(cap_for(B + 1 - left, rightmost, B));  // first: if it throws, nothing has moved
  node_t* ep[B + 1];
  std::size_t es[B + 1];
  for (std::uint32_t e = 0; e <= B; ++e) {
    if (e == c) {
      ep[e] = r.get();
      es[e] = size;
    } else {
      const std::uint32_t j = e < c ? e : e - 1;
      ep[e] = in->child()[j];
      es[e] = slot_size(in, j);
    }
  }
  (void)r.detach();  // now owned by whichever node receives ep[c]
  inner_t* b = as_inner(right.get());
  std::size_t acc = 0;
  for (std::size_t e = left; e <= B; ++e) {
    acc += es[e];
    b->sizes()[b->count] = acc;
    b->child()[b->count++] = ep[e];
  }
  acc = 0;
  for (std::uint32_t e = 0; e < left; ++e) {
    acc += es[e];
    in->sizes()[e] = acc;
    in->child()[e] = ep[e];
  }
  in->count = static_cast<std::uint32_t>(left);
  mark_dense(in, h);
  mark_dense(b, h);
  extra = std::move(right);
}

// A new root over the trees a and b (both of height h, a's elements first): h becomes its
// height.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::root_of_two(ref a, ref b, unsigned& h) -> ref {
  ref root = new_inner();
  inner_t* in = as_inner(root.get());
  in->child()[0] = a.detach();
  in->child()[1] = b.detach();
  in->count = 2;
  ++h;
  refresh(in, h);
  return root;
}

// While the root is an inner node with a single child, that child becomes the root.
template <class T, unsigned Bits, unsigned LBits>
inline auto rrb_tree<T, Bits, LBits>::collapse(ref r, unsigned& h) -> ref {
  while (r && !r->is_leaf && r->count == 1) {
    ref c(as_inner(r.get())->child()[0]);
    r = std::move(c);
    --h;
  }
  return r;
}

}  // namespace tseq::detail
