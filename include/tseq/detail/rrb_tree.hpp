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
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/intrusive_ref.hpp"
#include "tseq/detail/rrb_node.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define TSEQ_ALWAYS_INLINE __attribute__((always_inline))
#define TSEQ_NOINLINE __attribute__((noinline))
#else
#define TSEQ_ALWAYS_INLINE
#define TSEQ_NOINLINE
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
  // More levels than any tree of max_size() elements has: bounds the per-level arrays of the
  // builder and the in-place flush.
  static constexpr unsigned max_levels = 64 / Bits + 2;

  // ---- basic queries ------------------------------------------------------------------------

  static leaf_t* as_leaf(node_t* n) noexcept { return static_cast<leaf_t*>(n); }
  static inner_t* as_inner(node_t* n) noexcept { return static_cast<inner_t*>(n); }
  static const leaf_t* as_leaf(const node_t* n) noexcept { return static_cast<const leaf_t*>(n); }
  static const inner_t* as_inner(const node_t* n) noexcept { return static_cast<const inner_t*>(n); }

  static bool editable(const node_t* n) noexcept { return n->refs.load(std::memory_order_acquire) == 1; }

  static std::size_t size_of(const node_t* n) noexcept {
    return n->is_leaf ? n->count : as_inner(n)->sizes()[n->count - 1];
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
  // A dense node needs no size table: its children before c are full, c * B^h elements (I4),
  // so a descent reads one cache line of it (child[c]) instead of two.
  static std::uint32_t child_index(const inner_t* in, unsigned h, std::size_t& i) noexcept {
    auto c = static_cast<std::uint32_t>(radix(i, h));
    if (in->dense) {
      if (c != 0) i -= std::size_t{c} << (Bits * h);  // c != 0: the shift is below the width
      return c;
    }
    while (in->sizes()[c] <= i) ++c;
    if (c != 0) i -= in->sizes()[c - 1];
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

  // A node with room for `cap` entries (1..B): B for nodes that grow in place, the exact
  // count for the copies a persistent update makes (docs/design.md, "Node sizes").
  static ref new_leaf(std::size_t cap = B) { return ref(allocate_node<leaf_t>(checked_cap(cap)), false); }
  static ref new_inner(std::size_t cap = B) { return ref(allocate_node<inner_t>(checked_cap(cap)), false); }
  static std::size_t checked_cap(std::size_t cap) noexcept {
    TSEQ_ASSERT(cap >= 1 && cap <= B, "a node's room is 1..B entries");
    return cap;
  }
  // Room for `count` entries: all of B when `room`, else exactly count.
  static constexpr std::size_t cap_for(std::size_t count, bool room) noexcept { return room ? B : count; }

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

  // Moves v to the end of leaf l (which has room: count < cap).
  static void append(leaf_t* l, T&& v) {
    TSEQ_ASSERT(l->count < l->cap, "append: leaf without room");
    ::new (static_cast<void*>(l->data() + l->count)) T(std::move(v));
    ++l->count;
  }

  static std::size_t entries(const seg* segs, std::size_t nsegs) noexcept {
    std::size_t k = 0;
    for (std::size_t s = 0; s < nsegs; ++s) k += static_cast<std::size_t>(segs[s].last - segs[s].first);
    return k;
  }

  // Constructs in the empty leaf l elements [from, to) of the concatenation of segs. On an
  // exception, l->count covers exactly the elements constructed. Kept out of line: inlined
  // into build_leaves, a 10-element persistent erase of tensors measured 1.1-1.3x slower
  // (three alternating runs of each build at --benchmark_min_time=1).
  TSEQ_NOINLINE static void fill(leaf_t* l, const seg* segs, std::size_t nsegs, std::size_t from, std::size_t to) {
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
        T* end = p + std::min(len - skip, left);
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
  // second (returned in `extra`) the rest, if any. Each has room for B elements when `room`
  // (an in-place update), else exactly its elements.
  static ref build_leaves(const seg* segs, std::size_t nsegs, std::size_t left, ref& extra, bool room = false) {
    const std::size_t total = entries(segs, nsegs);
    ref out = new_leaf(cap_for(std::min(total, left), room));
    fill(as_leaf(out.get()), segs, nsegs, 0, std::min(total, left));
    if (total > left) {
      extra = new_leaf(cap_for(total - left, room));
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

  // Sets `dense` (I4) from the size table alone: the first count-1 children are all full
  // exactly when together they hold (count-1) * B^h elements, since none can hold more.
  static void mark_dense(inner_t* in, unsigned h) noexcept {
    const std::uint32_t k = in->count - 1u;
    if (k == 0) {
      in->dense = true;
      return;
    }
    const std::size_t full = full_size(h - 1);
    const std::size_t s = in->sizes()[k - 1];
    in->dense = full <= s / k && s == full * k;
  }

  // Recomputes sizes[from, count) from those children (reading only them), then `dense`.
  static void resize_from(inner_t* in, unsigned h, std::uint32_t from) noexcept {
    std::size_t acc = from == 0 ? 0 : in->sizes()[from - 1];
    for (std::uint32_t i = from; i < in->count; ++i) {
      acc += size_of(in->child[i]);
      in->sizes()[i] = acc;
    }
    mark_dense(in, h);
  }

  // Recomputes sizes[] and `dense` of an inner node at height h (reads every child).
  static void refresh(inner_t* in, unsigned h) noexcept { resize_from(in, h, 0); }

  // Elements under child c, from the size table.
  static std::size_t slot_size(const inner_t* in, std::uint32_t c) noexcept {
    return in->sizes()[c] - (c == 0 ? 0 : in->sizes()[c - 1]);
  }

  // Child c now holds `now` elements instead of `was`: the table from c on moves by the
  // difference (no child is read). The caller then calls mark_dense.
  static void resize_slot(inner_t* in, std::uint32_t c, std::size_t was, std::size_t now) noexcept {
    for (std::uint32_t j = c; j < in->count; ++j) in->sizes()[j] = in->sizes()[j] - was + now;
  }

  // A growable list of child references with their element counts, for rebuilding inner
  // nodes without reading the children again. Owns the references in v[0, n) (a taken one is
  // null). The arrays are left uninitialised: zeroing ~1 KB per level and checking 66 slots
  // on destruction were over half of merge_seam's time (perf, docs/design.md).
  struct kids {
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
  static ref explode(ref r, kids& out) {
    inner_t* in = as_inner(r.get());
    const bool steal = editable(in);
    if (!steal) prefetch_for_refcount(in->child, in->count);
    for (std::uint32_t i = 0; i < in->count; ++i) {
      const std::size_t size = slot_size(in, i);
      if (steal) {
        out.push(ref(in->child[i], false), size);
        in->child[i] = nullptr;
      } else {
        out.push(ref(in->child[i]), size);
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
  static ref build_inner(kids& k, std::size_t from, std::size_t to, std::size_t left, unsigned h, ref& extra,
                         ref spare = nullptr, bool room = false) {
    const std::size_t first = std::min(to - from, left);
    ref out = spare && spare->cap >= first ? std::move(spare) : new_inner(cap_for(first, room));
    if (to - from > left) extra = new_inner(cap_for(to - from - left, room));
    inner_t* a = as_inner(out.get());
    std::size_t acc = 0;
    for (std::size_t i = from; i < to; ++i) {
      inner_t* dst = (i - from < left) ? a : as_inner(extra.get());
      if (i - from == left) acc = 0;
      acc += k.s[i];
      dst->sizes()[dst->count] = acc;
      dst->child[dst->count++] = k.v[i];
      k.v[i] = nullptr;
    }
    mark_dense(a, h);
    if (extra) mark_dense(as_inner(extra.get()), h);
    return out;
  }

  // A new inner node with room for `cap` entries holding src's (children, sizes, dense).
  // Share: src keeps its children too, each gains a reference; else they change hands (no
  // reference count is touched) and src is left empty.
  template <bool Share>
  static ref copy_inner(inner_t* src, std::size_t cap) {
    if constexpr (Share) prefetch_for_refcount(src->child, src->count);
    ref out = new_inner(cap);
    inner_t* dst = as_inner(out.get());
    for (std::uint32_t i = 0; i < src->count; ++i) {
      if constexpr (Share) intrusive_ptr_add_ref(src->child[i]);
      dst->child[i] = src->child[i];
      dst->sizes()[i] = src->sizes()[i];
    }
    dst->count = src->count;
    dst->dense = src->dense;
    if constexpr (!Share) src->count = 0;
    return out;
  }

  // Returns an editable version of inner node r: r itself when we hold the only reference,
  // else a copy with room for `grow` more children than it holds (up to B).
  // (Leaves are never copied whole: each update builds the leaf it needs directly.)
  static ref own(ref r, std::uint32_t grow = 0) {
    if (editable(r.get())) return r;
    return copy_inner<true>(as_inner(r.get()), std::min<std::size_t>(B, std::size_t{r->count} + grow));
  }

  // Before an entry is added to the editable inner node r: if it is not full (count < B) but
  // its allocation is (count == cap), its children move to a node with room for B. Once per
  // node: the new one has room.
  static void make_room(ref& r) {
    if (r->count == r->cap && r->count < B) r = copy_inner<false>(as_inner(r.get()), B);
  }

  // Takes child c out of the editable node `in` (the slot is null until put back).
  static ref take_child(inner_t* in, std::uint32_t c) noexcept {
    ref r(in->child[c], false);
    in->child[c] = nullptr;
    return r;
  }

  // Removes child slot c (already released or taken) and its elements from the table.
  static void remove_slot(inner_t* in, std::uint32_t c) noexcept {
    const std::size_t was = slot_size(in, c);
    for (std::uint32_t j = c; j + 1 < in->count; ++j) {
      in->child[j] = in->child[j + 1];
      in->sizes()[j] = in->sizes()[j + 1] - was;
    }
    --in->count;
  }

  // Inserts r, holding `size` elements, as child c (the node has room: count < cap).
  static void insert_slot(inner_t* in, std::uint32_t c, ref r, std::size_t size) noexcept {
    TSEQ_ASSERT(in->count < in->cap, "insert_slot: node without room");
    for (std::uint32_t j = in->count; j > c; --j) {
      in->child[j] = in->child[j - 1];
      in->sizes()[j] = in->sizes()[j - 1] + size;
    }
    in->child[c] = r.detach();
    in->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + size;
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

  // When child c is ours alone and c, c+1 fit in one node: c+1's entries are appended to c
  // (copied, or moved when c+1 is ours too) and c+1 is dropped. No allocation. Returns false,
  // having done nothing, otherwise.
  static bool merge_into_first(inner_t* in, unsigned h, std::uint32_t c) {
    node_t* x = in->child[c];
    node_t* y = in->child[c + 1];
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
      if (!steal) prefetch_for_refcount(b->child, b->count);
      const std::size_t base = a->sizes()[a->count - 1];
      for (std::uint32_t j = 0; j < b->count; ++j) {
        if (!steal) intrusive_ptr_add_ref(b->child[j]);
        a->child[a->count] = b->child[j];
        a->sizes()[a->count] = base + b->sizes()[j];
        ++a->count;
      }
      if (steal) b->count = 0;  // its children now belong to x
      mark_dense(a, h - 1);
    }
    intrusive_ptr_release(y);
    in->child[c + 1] = nullptr;
    in->sizes()[c] = in->sizes()[c + 1];
    remove_slot(in, c + 1);
    mark_dense(in, h);
    return true;
  }

  // The entries of the adjacent nodes x and y (height h; either may be shared) laid out again
  // as one node, or two (the second in r2) splitting them evenly, or B + 1 when
  // `pair_rightmost` (y on the rightmost path): each then holds >= m unless the pair holds
  // fewer. Entries of a node held alone are moved, of a shared one copied.
  static ref relayout_pair(ref x, ref y, unsigned h, bool pair_rightmost, ref& r2) {
    if (h == 0) {
      const seg segs[2] = {seg_of(x.get(), 0, x->count, editable(x.get())),
                           seg_of(y.get(), 0, y->count, editable(y.get()))};
      return build_leaves(segs, 2, split_point(entries(segs, 2), pair_rightmost), r2);
    }
    kids k;
    ref spare = explode(std::move(x), k);
    ref spare2 = explode(std::move(y), k);
    return build_inner(k, 0, k.n, split_point(k.n, pair_rightmost), h, r2, spare ? std::move(spare) : std::move(spare2),
                       pair_rightmost);
  }

  // Children c and c+1 of the editable node `in` (height h) are merged into one node, or their
  // entries shared out between two, so that both satisfy (I3). `pair_rightmost`: c+1 is on the
  // rightmost path.
  static void rebalance_pair(inner_t* in, unsigned h, std::uint32_t c, bool pair_rightmost) {
    if (merge_into_first(in, h, c)) return;
    ref r2;
    ref r1 = relayout_pair(take_child(in, c), take_child(in, c + 1), h - 1, pair_rightmost, r2);
    // The pair holds as many elements as before: only the boundary between them moves.
    const std::size_t first = size_of(r1.get());
    in->child[c] = r1.detach();
    if (r2) {
      in->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + first;
      in->child[c + 1] = r2.detach();
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
  static bool absorb_split(inner_t* in, unsigned h, std::uint32_t c, ref& ex, bool rightmost) {
    const bool right = c + 1 < in->count && in->child[c + 1]->count < B;
    const bool left = !right && c > 0 && in->child[c - 1]->count < B;
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
    ref r1 = build_inner(k, 0, k.n, split_point(k.n, pair_rightmost), h - 1, r2, std::move(spare), pair_rightmost);
    TSEQ_ASSERT(r2, "absorb_split: more than B children make two nodes");
    for (std::uint32_t j = a + 1; j < in->count; ++j) ++in->sizes()[j];  // the inserted element
    in->sizes()[a] = (a == 0 ? 0 : in->sizes()[a - 1]) + size_of(r1.get());
    in->child[a] = r1.detach();
    in->child[a + 1] = r2.detach();
    mark_dense(in, h);
    return true;
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
      mark_dense(in, h);
      return n;
    }
    const bool small = child->count < m && !child_rightmost;
    in->child[c] = child.detach();
    for (std::uint32_t j = c; j < in->count; ++j) --in->sizes()[j];
    if (!small) {
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
      const bool ours = editable(l);
      if (!ours || (l->count == l->cap && l->count < B)) {
        // A shared leaf is copied (exactly sized); a leaf of ours without room moves to one
        // with room for B.
        const seg segs[3] = {seg_of(l, 0, i, ours), {val, val + 1, true}, seg_of(l, i, l->count, ours)};
        return build_leaves(segs, 3, split_point(l->count + std::size_t{1}, rightmost), extra, ours);
      }
      if (l->count == B) {
        // Split in place: the elements after the cut move to a new right leaf; the left part
        // stays where it is (an in-place history keeps most leaves where they were built).
        const std::size_t left = split_point(B + 1, rightmost);
        const seg tail[3] = {
            seg_of(l, std::min(left, i), i, true), {val, val + 1, true}, seg_of(l, std::max(left, i + 1) - 1, B, true)};
        const seg* from = i >= left ? tail : tail + 2;  // v in the right part, or not
        ref none;
        extra = build_leaves(from, i >= left ? 3 : 1, B, none, true);
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
    n = own(std::move(n), 1);
    inner_t* in = as_inner(n.get());
    const std::size_t at = i;
    std::uint32_t c = child_index(in, h, i);  // i < size: appends go to the tail
    bool child_rightmost = rightmost && c + 1 == in->count;
    if (h == 1 && in->child[c]->count == B) {
      if (!child_rightmost && share_with_sibling(in, c)) {
        i = at;  // the leaves' bounds moved: look again
        c = child_index(in, h, i);
        child_rightmost = rightmost && c + 1 == in->count;
      } else if (spread_insert(in, c, i, v)) {
        return n;
      }
    }
    ref ex;
    in->child[c] = insert(take_child(in, c), h - 1, i, v, child_rightmost, ex).detach();
    if (!ex) {
      for (std::uint32_t j = c; j < in->count; ++j) ++in->sizes()[j];
      if (c + 1 < in->count) in->dense = false;
      return n;
    }
    // Child c split in two: its first part stays in slot c, the second goes after it.
    if (h >= 2 && absorb_split(in, h, c, ex, rightmost)) return n;
    const std::size_t was = slot_size(in, c);
    const std::size_t now = size_of(in->child[c]);
    resize_slot(in, c, was, now);
    add_child(n, h, c + 1, std::move(ex), was + 1 - now, rightmost, extra);
    return n;
  }

  // Inserts r (holding `size` elements) as child c of the editable node n (height h); a node
  // that is not full but has no room in its allocation first moves to one that has
  // (make_room); a full node splits: it keeps the first split_point(B + 1) entries and a new
  // right sibling, returned in `extra`, takes the rest. Only the table is read, never the
  // children.
  static void add_child(ref& n, unsigned h, std::uint32_t c, ref r, std::size_t size, bool rightmost, ref& extra) {
    make_room(n);
    inner_t* in = as_inner(n.get());
    if (in->count < B) {
      insert_slot(in, c, std::move(r), size);
      mark_dense(in, h);
      return;
    }
    const std::size_t left = split_point(B + 1, rightmost);
    ref right = new_inner(cap_for(B + 1 - left, rightmost));  // first: if it throws, nothing has moved
    node_t* ep[B + 1];
    std::size_t es[B + 1];
    for (std::uint32_t e = 0; e <= B; ++e) {
      if (e == c) {
        ep[e] = r.get();
        es[e] = size;
      } else {
        const std::uint32_t j = e < c ? e : e - 1;
        ep[e] = in->child[j];
        es[e] = slot_size(in, j);
      }
    }
    (void)r.detach();  // now owned by whichever node receives ep[c]
    inner_t* b = as_inner(right.get());
    std::size_t acc = 0;
    for (std::size_t e = left; e <= B; ++e) {
      acc += es[e];
      b->sizes()[b->count] = acc;
      b->child[b->count++] = ep[e];
    }
    acc = 0;
    for (std::uint32_t e = 0; e < left; ++e) {
      acc += es[e];
      in->sizes()[e] = acc;
      in->child[e] = ep[e];
    }
    in->count = static_cast<std::uint32_t>(left);
    mark_dense(in, h);
    mark_dense(b, h);
    extra = std::move(right);
  }

  // How far (in leaves) an insert into a full leaf looks for a sibling with room.
  static constexpr std::uint32_t spread_window = 3;

  // A full leaf c of `in` (height 1) taking v at offset i: if a sibling within spread_window
  // has room (read from the size table, no leaf is touched), the leaves from c to the nearest
  // such sibling and v are laid out again evenly over as many new leaves, instead of splitting
  // c. The parent gains no entry, and room spreads out where later inserts find it: persistent
  // random edits then keep leaves ~90% full where splitting alone leaves them ~70% (the fill
  // figures in docs/design.md). Returns false, having done nothing, when no sibling has room.
  static bool spread_insert(inner_t* in, std::uint32_t c, std::size_t i, T& v) {
    std::uint32_t s = c;
    for (std::uint32_t d = 1; d <= spread_window && s == c; ++d) {
      std::size_t best = B;
      if (c >= d && slot_size(in, c - d) < best) {
        s = c - d;
        best = slot_size(in, s);
      }
      if (c + d < in->count && slot_size(in, c + d) < best) s = c + d;
    }
    if (s == c) return false;
    const std::uint32_t a = s < c ? s : c;
    const std::uint32_t b = s < c ? c : s;
    const std::uint32_t leaves = b - a + 1;
    seg segs[spread_window + 3];
    std::size_t nsegs = 0;
    T* val = &v;
    for (std::uint32_t j = a; j <= b; ++j) {
      node_t* l = in->child[j];
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
    ref out[spread_window + 1];
    std::size_t from = 0;
    const bool room = editable(in->child[c]);  // an in-place update: the leaves keep room
    for (std::uint32_t q = 0; q < leaves; ++q) {
      const std::size_t len = total / leaves + (q < total % leaves ? 1 : 0);
      out[q] = new_leaf(cap_for(len, room));
      fill(as_leaf(out[q].get()), segs, nsegs, from, from + len);
      from += len;
    }
    std::size_t acc = a == 0 ? 0 : in->sizes()[a - 1];
    for (std::uint32_t q = 0; q < leaves; ++q) {
      intrusive_ptr_release(in->child[a + q]);
      acc += out[q]->count;
      in->sizes()[a + q] = acc;
      in->child[a + q] = out[q].detach();
    }
    for (std::uint32_t j = b + 1; j < in->count; ++j) ++in->sizes()[j];
    mark_dense(in, 1);
    return true;
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
        in->sizes()[c] -= k;
      } else {
        const std::uint32_t k = (left->cap - left->count) / 2u;  // l's first k go last in left
        T* a = left->data();
        for (std::uint32_t j = 0; j < k; ++j) ::new (static_cast<void*>(a + left->count + j)) T(std::move(d[j]));
        left->count += k;
        std::move(d + k, d + B, d);
        for (std::uint32_t j = static_cast<std::uint32_t>(B) - k; j < B; ++j) d[j].~T();
        l->count = static_cast<std::uint32_t>(B) - k;
        in->sizes()[c - 1] += k;
      }
      mark_dense(in, 1);
      return true;
    }
  }

  // ---- slicing --------------------------------------------------------------------------------

  // Splits n after its first k elements (0 < k <= size of n): the leaf holding element k-1,
  // cut after it, is returned in `last` and the elements before that leaf as a tree (null when
  // there are none). The cut edge becomes the rightmost path, which (I3) exempts. Only what is
  // kept is copied: one reference taken per kept child of each copied node, none released, no
  // child read (sizes come from the table).
  static ref take(ref n, unsigned h, std::size_t k, ref& last) {
    if (h == 0) {
      if (k < n->count) {
        if (editable(n.get())) {
          leaf_t* l = as_leaf(n.get());
          T* d = l->data();
          while (l->count > k) d[--l->count].~T();
        } else {
          const seg s = seg_of(n.get(), 0, k, false);
          ref none;
          n = build_leaves(&s, 1, B, none);
        }
      }
      last = std::move(n);
      return nullptr;
    }
    inner_t* in = as_inner(n.get());
    std::size_t off = k - 1;
    const std::uint32_t c = child_index(in, h, off);
    ++off;  // elements kept in child c
    if (editable(in)) {
      prefetch_for_refcount(in->child + c + 1, in->count - c - 1);
      while (in->count > c + 1) intrusive_ptr_release(in->child[--in->count]);
      ref sub = take(take_child(in, c), h - 1, off, last);
      if (!sub) {
        in->count = c;  // slot c is empty
        if (c == 0) return nullptr;
      } else {
        in->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + size_of(sub.get());
        in->child[c] = sub.detach();
      }
      mark_dense(in, h);
      return n;
    }
    prefetch_for_refcount(in->child, c);
    ref sub = take(ref(in->child[c]), h - 1, off, last);
    if (!sub && c == 0) return nullptr;
    ref out = new_inner();
    inner_t* o = as_inner(out.get());
    for (std::uint32_t j = 0; j < c; ++j) {
      intrusive_ptr_add_ref(in->child[j]);
      o->child[j] = in->child[j];
      o->sizes()[j] = in->sizes()[j];
    }
    o->count = c;
    if (sub) {
      o->sizes()[c] = (c == 0 ? 0 : in->sizes()[c - 1]) + size_of(sub.get());
      o->child[c] = sub.detach();
      ++o->count;
    }
    mark_dense(o, h);
    return out;
  }

  // All but the first k elements (0 < k < size). Only the kept children are copied (one
  // reference each, none released; sizes from the table). The cut becomes the leftmost path,
  // which (I3L) exempts from (I3) but for one rule, which the caller restores with
  // fill_left_spine: an inner node there holds at least 2 children.
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
    inner_t* in = as_inner(n.get());
    std::size_t off = k;
    const std::uint32_t c = child_index(in, h, off);  // off: elements dropped inside child c
    if (editable(in)) {
      prefetch_for_refcount(in->child, c);
      for (std::uint32_t j = 0; j < c; ++j) intrusive_ptr_release(in->child[j]);
      for (std::uint32_t j = c; j < in->count; ++j) {
        in->child[j - c] = in->child[j];
        in->sizes()[j - c] = in->sizes()[j] - k;
      }
      in->count -= c;
      if (off > 0) in->child[0] = drop(take_child(in, 0), h - 1, off).detach();
      mark_dense(in, h);
      return n;
    }
    prefetch_for_refcount(in->child + c + 1, in->count - c - 1);
    ref sub = off > 0 ? drop(ref(in->child[c]), h - 1, off) : ref(in->child[c]);
    ref out = new_inner();
    inner_t* o = as_inner(out.get());
    o->child[0] = sub.detach();
    o->sizes()[0] = in->sizes()[c] - k;
    for (std::uint32_t j = c + 1; j < in->count; ++j) {
      intrusive_ptr_add_ref(in->child[j]);
      o->child[j - c] = in->child[j];
      o->sizes()[j - c] = in->sizes()[j] - k;
    }
    o->count = in->count - c;
    mark_dense(o, h);
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
  static bool fill_left_spine(node_t* r, unsigned h) {
    node_t* n = r;
    for (; h >= 2 && editable(n); --h) {
      inner_t* in = as_inner(n);
      if (in->child[0]->count < 2) {
        rebalance_pair(in, h, 0, n == r && in->count == 2);
        return true;
      }
      n = in->child[0];
    }
    return false;
  }

  // ---- concatenation --------------------------------------------------------------------------

  // L (height h) ends the left tree's rightmost path, whose nodes below L may be under-full;
  // R (height h) starts the right tree's leftmost path. Returns their contents as one node, or
  // two (`extra`), satisfying (I3) except that the last may be small when r_rightmost.
  static ref merge_seam(ref L, ref R, unsigned h, bool r_rightmost, ref& extra) {
    if (h == 0) {
      const std::size_t k = L->count + std::size_t{R->count};
      // Both kept as they are when both satisfy (I3), or when R, on the rightmost path, may
      // stay small: pushing a short tail onto a tree then copies no element.
      if (L->count >= m && (r_rightmost ? k > B || R->count < m : k > B && R->count >= m)) {
        extra = std::move(R);
        return L;
      }
      const seg segs[2] = {seg_of(L.get(), 0, L->count, editable(L.get())),
                           seg_of(R.get(), 0, R->count, editable(R.get()))};
      return build_leaves(segs, 2, split_point(k, r_rightmost), extra);
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
    if (!mid2 && mid->count < m && kr.n >= 2) {
      // R's first child came from the right tree's leftmost path, which (I3L) lets hold fewer
      // than m, and so may the one merged node: it is laid out again with R's second child
      // (>= m, or ending the rightmost path), as one node or two each >= m. The level above
      // does the same if this level's node ends up short in turn.
      mid = relayout_pair(std::move(mid), kr.take(1), h - 1, r_rightmost && kr.n == 2, mid2);
      next = 2;
    }
    k.push(std::move(mid));
    if (mid2) k.push(std::move(mid2));
    for (std::size_t i = next; i < kr.n; ++i) k.push(kr.take(i), kr.s[i]);
    return build_inner(k, 0, k.n, split_point(k.n, r_rightmost), h, extra, spare ? std::move(spare) : std::move(spare2),
                       r_rightmost);
  }

  // x (height h >= hb) is on the left tree's rightmost path; appends tree b after it.
  static ref join_right(ref x, unsigned h, ref b, unsigned hb, ref& extra) {
    if (h == hb) return merge_seam(std::move(x), std::move(b), h, true, extra);
    x = own(std::move(x), B);  // the rightmost path: appends grow it in place
    inner_t* in = as_inner(x.get());
    const std::uint32_t c = in->count - 1;
    ref ex;
    in->child[c] = join_right(take_child(in, c), h - 1, std::move(b), hb, ex).detach();
    resize_from(in, h, c);  // reads only the new last child
    if (ex) {
      const std::size_t size = size_of(ex.get());
      add_child(x, h, c + 1, std::move(ex), size, true, extra);
    }
    return x;
  }

  // y (height h >= ha) is on the right tree's leftmost path; prepends tree a before it.
  static ref join_left(ref y, unsigned h, bool rightmost, ref a, unsigned ha, ref& extra) {
    if (h == ha) return merge_seam(std::move(a), std::move(y), h, rightmost, extra);
    y = own(std::move(y), 1);
    inner_t* in = as_inner(y.get());
    ref ex;
    const bool first_rightmost = rightmost && in->count == 1;
    const std::size_t was = slot_size(in, 0);
    in->child[0] = join_left(take_child(in, 0), h - 1, first_rightmost, std::move(a), ha, ex).detach();
    resize_slot(in, 0, was, size_of(in->child[0]));
    if (ex) {
      const std::size_t size = size_of(ex.get());
      add_child(y, h, 1, std::move(ex), size, rightmost, extra);
    } else {
      mark_dense(in, h);
    }
    return y;
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

  // A chain of new single-child nodes of heights 1..top-1 over the full leaf l, taken from l
  // only once every node is allocated (bad_alloc leaves l as it was). Kept out of line: one
  // flush in B needs it.
  TSEQ_NOINLINE static ref chain_over(ref& l, unsigned top) {
    ref chain[max_levels];  // chain[k]: the new node at height k
    for (unsigned k = 1; k < top; ++k) chain[k] = new_inner();
    ref below = std::move(l);
    for (unsigned k = 1; k < top; ++k) {
      inner_t* c = as_inner(chain[k].get());
      insert_slot(c, 0, std::move(below), B);
      mark_dense(c, k);
      below = std::move(chain[k]);
    }
    return below;
  }

  // push_back's tail flush without the general join: appends the full leaf l (B elements)
  // after the last element of the tree rooted at r (height h >= 1), in place, when
  //  - every node on r's rightmost path is ours alone,
  //  - its last leaf holds >= m (merge_seam would keep both leaves as they are),
  //  - the lowest node on the path that is not full (count < B) has room in its allocation.
  // Then that node takes a new last child: l, under a chain of single-child nodes
  // down from that height (what join_right's add_child builds), and the nodes above add B to
  // their last size. One pass down and one up the path: no child beside the path is read.
  // Returns false, having changed nothing (l untouched), otherwise; then join does the work.
  // Throws only bad_alloc for the chain's nodes, before anything changed.
  static bool append_leaf_in_place(node_t* r, unsigned h, ref& l) {
    TSEQ_ASSERT(l && l->is_leaf && l->count == B, "append_leaf_in_place: not a full leaf");
    if (h == 0 || h >= max_levels) return false;
    inner_t* path[max_levels];  // path[k]: the node at height k
    unsigned room = 0;          // the lowest height with room, 0 when none
    node_t* n = r;
    for (unsigned k = h; k > 0; --k) {
      if (!editable(n)) return false;
      inner_t* in = as_inner(n);
      path[k] = in;
      if (in->count < B) room = k;
      n = in->child[in->count - 1];
    }
    // The nodes below `room` are full; the one at `room` must have room in its allocation
    // (else make_room's move: the general path).
    if (room == 0 || n->count < m || path[room]->count == path[room]->cap) return false;
    insert_slot(path[room], path[room]->count, room == 1 ? std::move(l) : chain_over(l, room), B);
    mark_dense(path[room], room);
    for (unsigned k = room + 1; k <= h; ++k) {
      resize_slot(path[k], path[k]->count - 1, 0, B);  // its last child grew by B
      mark_dense(path[k], k);
    }
    return true;
  }

  // ---- traversal and checking ------------------------------------------------------------------

  // Asks the cache for the first `bytes` of node n (leaves of a long-edited tree lie scattered).
  static void prefetch(const node_t* n, std::size_t bytes) noexcept {
    const char* p = reinterpret_cast<const char*>(n);
    for (std::size_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off);
  }
  // A leaf's room for B elements, an inner node's header and child array: fixed extents, so
  // that no header is read to prefetch (a read of a cold `count` stalls the walk: a walk of
  // the handles of the edited 10^6 tree measured 1.39x slower so). Past the end of a smaller
  // allocation a prefetch is harmless: it never faults.
  static void prefetch(const leaf_t* l) noexcept { prefetch(l, leaf_t::bytes(B)); }
  static void prefetch(const inner_t* in) noexcept { prefetch(in, sizeof(inner_t)); }

  // Calls f(first, last) on each leaf below n (height h) in order. `next` is the node after n
  // at the same height (null at the end): the prefetch window of `ahead` leaves runs on into
  // its children, so that it does not restart (and the walk stall) at each node of height 1.
  // `first`: no node before n in this walk (then nothing has asked for n's first leaves).
  template <class F>
  static void for_each_leaf(const node_t* n, unsigned h, F& f, const node_t* next = nullptr, bool first = true) {
    if (h == 0) {
      const leaf_t* l = as_leaf(n);
      f(l->data(), l->data() + l->count);
      return;
    }
    const inner_t* in = as_inner(n);
    if (h == 1) {
      // Leaves prefetched ahead of the one visited (fewer than B: less when B is tiny).
      constexpr std::uint32_t ahead = B > 8 ? 4 : B / 2;
      const std::uint32_t c = in->count;
      if (first) {
        for (std::uint32_t i = 0; i < c && i < ahead; ++i) prefetch(as_leaf(in->child[i]));
      }
      // Leaf i + ahead: here while there is one, then in the next node.
      const std::uint32_t split = c > ahead ? c - ahead : 0;
      for (std::uint32_t i = 0; i < split; ++i) {
        prefetch(as_leaf(in->child[i + ahead]));
        const leaf_t* l = as_leaf(in->child[i]);
        f(l->data(), l->data() + l->count);
      }
      const inner_t* nx = next != nullptr ? as_inner(next) : nullptr;
      for (std::uint32_t i = split; i < c; ++i) {
        if (nx != nullptr && i + ahead - c < nx->count) prefetch(as_leaf(nx->child[i + ahead - c]));
        const leaf_t* l = as_leaf(in->child[i]);
        f(l->data(), l->data() + l->count);
      }
      return;
    }
    for (std::uint32_t i = 0; i < in->count; ++i) {
      // The node after child i at its height: its right sibling, else the first child of next.
      const node_t* after = nullptr;
      if (i + 1 < in->count) {
        after = in->child[i + 1];
      } else if (next != nullptr) {
        after = as_inner(next)->child[0];
      }
      if (after != nullptr) prefetch(as_inner(after));
      for_each_leaf(in->child[i], h - 1, f, after, first && i == 0);
    }
  }

  // Bytes of node n's allocation (a leaf or an inner node).
  static std::size_t node_bytes(const node_t* n) noexcept {
    return n->is_leaf ? leaf_t::bytes(n->cap) : inner_t::bytes(n->cap);
  }

  // Adds the leaves, inner nodes and their bytes below n (height h) to the counts; reads
  // each node's header, no element.
  static void count_nodes(const node_t* n, unsigned h, std::size_t& leaves, std::size_t& inners,
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
      for (std::uint32_t i = 0; i < in->count; ++i) bytes += node_bytes(in->child[i]);
      return;
    }
    for (std::uint32_t i = 0; i < in->count; ++i) count_nodes(in->child[i], h - 1, leaves, inners, bytes);
  }

  [[noreturn]] static void broken(const std::string& what) {
    throw std::logic_error("rrb_vector invariant broken: " + what);
  }

  // Checks (I1)-(I4) and (I3L) below n; returns the element count.
  static std::size_t check(const node_t* n, unsigned h, bool is_root, bool leftmost, bool rightmost,
                           const std::string& path) {
    if (n == nullptr) broken("null node at " + path);
    if (n->refs.load() == 0) broken("node with no references at " + path);
    if (n->is_leaf != (h == 0)) broken("leaf at wrong height at " + path);
    if (n->count == 0 || n->count > B) {
      broken("node at " + path + " holds " + std::to_string(n->count) + " entries");
    }
    if (n->count > n->cap) {
      broken("node at " + path + " holds " + std::to_string(n->count) + " entries but has room for " +
             std::to_string(n->cap));
    }
    if (!is_root && !leftmost && !rightmost && n->count < m) {
      broken("node at " + path + " holds " + std::to_string(n->count) + " < " + std::to_string(m) +
             " entries and is neither root nor on an outer path");
    }
    if (!is_root && leftmost && h > 0 && n->count < 2) {
      broken("inner node at " + path + " on the leftmost path holds a single child");
    }
    if (h == 0) return n->count;
    const inner_t* in = as_inner(n);
    if (is_root && in->count < 2) broken("inner root with a single child");
    std::size_t acc = 0;
    bool dense = true;
    for (std::uint32_t i = 0; i < in->count; ++i) {
      const bool last = i + 1 == in->count;
      const std::size_t s =
          check(in->child[i], h - 1, false, leftmost && i == 0, rightmost && last, path + "/" + std::to_string(i));
      acc += s;
      if (in->sizes()[i] != acc) broken("size table wrong at " + path + " slot " + std::to_string(i));
      if (!last && s != full_size(h - 1)) dense = false;
    }
    if (in->dense && !dense) broken("node at " + path + " marked dense but is not");
    return acc;
  }
};

}  // namespace tseq::detail
