#pragma once

// The value of a tseq::rrb_vector and the updates on it. An rrb_vector holds one counted
// reference, its holder: null (empty), a leaf (a small vector of 1..B elements) or a
// header_node (tree root, tail leaf, size, height). Updates unpack the holder into a state,
// transform the state (consuming its references, editing nodes held alone in place: see
// rrb_tree.hpp) and pack it again with finish(). Invariants of a state (docs/design.md):
//  (S1) size == elements under root + tail->count; tail is null iff size == 0;
//  (S2) tail holds 1..B elements; root is null or a tree satisfying (I1)-(I4) at `height`;
//  (S3) a holder is a bare leaf exactly when there is no root (a header always has a tree).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "tseq/detail/assert.hpp"
#include "tseq/detail/intrusive_ref.hpp"
#include "tseq/detail/rrb_node.hpp"
#include "tseq/detail/rrb_tree.hpp"

namespace tseq::detail {

// The parts of a vector's value. P is intrusive_ref (owning: updates) or a const pointer
// (reading: lookups and iterators).
template <class P>
struct basic_state {
  P root{};              // tree of all elements but the tail's (null when none)
  P tail{};              // last 1..B elements (null iff the vector is empty)
  std::size_t size = 0;  // elements in tree + tail
  unsigned height = 0;   // height of root: 0 when it is a leaf

  [[nodiscard]] std::size_t tree_size() const noexcept { return size - (tail ? tail->count : 0); }
};

// ---- argument checks of the public API (std::out_of_range / std::length_error) ----------------

[[noreturn]] inline void throw_range(const char* op, const std::string& what) {
  throw std::out_of_range(std::string("rrb_vector::") + op + ": " + what);
}
inline void check_index(const char* op, std::size_t i, std::size_t n) {
  if (i >= n) {
    throw_range(op, n == 0 ? "index " + std::to_string(i) + " on an empty vector"
                           : "index " + std::to_string(i) + " is out of range [0, " + std::to_string(n - 1) +
                                 "] for a vector of " + std::to_string(n) + " elements");
  }
}
inline void check_position(const char* op, std::size_t i, std::size_t n) {
  if (i > n) {
    throw_range(op, "position " + std::to_string(i) + " is out of range [0, " + std::to_string(n) +
                        "] for a vector of " + std::to_string(n) + " elements");
  }
}
inline void check_range(std::size_t first, std::size_t last, std::size_t n) {
  if (first > last || last > n) {
    throw_range("erase", "range [" + std::to_string(first) + ", " + std::to_string(last) + ") is not within [0, " +
                             std::to_string(n) + "]");
  }
}
inline void check_concat(std::size_t a, std::size_t b, std::size_t max) {
  if (a > max || b > max - a) {
    throw std::length_error("rrb_vector::operator+: " + std::to_string(a) + " + " + std::to_string(b) +
                            " elements exceed max_size() " + std::to_string(max));
  }
}

template <class T, unsigned Bits>
struct rrb_state_ops {
  using tree = rrb_tree<T, Bits>;
  using ref = typename tree::ref;
  using node_t = typename tree::node_t;
  using header_t = header_node<T, Bits>;
  using state = basic_state<ref>;
  using view = basic_state<const node_t*>;
  static constexpr std::size_t B = tree::B;
  static constexpr std::size_t max_size =
      static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T);

  // ---- packing and unpacking the holder ----------------------------------------------------

  static std::size_t size_of(const node_t* h) noexcept {
    if (h == nullptr) return 0;
    return h->is_leaf ? h->count : static_cast<const header_t*>(h)->size;
  }

  static view view_of(const node_t* h) noexcept {
    if (h == nullptr) return {};
    if (h->is_leaf) return {nullptr, h, h->count, 0};
    const auto* r = static_cast<const header_t*>(h);
    return {r->root.get(), r->tail.get(), r->size, r->height};
  }

  // A state sharing every node of holder h (for const& updates).
  static state copy_of(const ref& h) {
    if (!h) return {};
    if (h->is_leaf) return {nullptr, h, h->count, 0};
    const auto* r = static_cast<const header_t*>(h.get());
    return {r->root, r->tail, r->size, r->height};
  }

  // The state of h, moved out of it where h holds the only reference. h keeps a header that
  // finish() may reuse, and is null otherwise.
  static state steal(ref& h) {
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
  static ref finish(state s, ref reuse) {
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

  // A small vector's update: one new leaf from the given runs of elements (never more than B),
  // or none when they are empty (erasing the last element allocates nothing).
  static ref small(std::initializer_list<typename tree::seg> segs) {
    if (tree::entries(segs.begin(), segs.size()) == 0) return nullptr;
    ref none;
    ref leaf = tree::build_leaves(segs.begin(), segs.size(), B, none);
    TSEQ_ASSERT(!none, "a small update produced more than one leaf");
    return leaf;
  }

  // Element i of holder h: the header alone tells tree from tail, then one descent.
  static const T& lookup(const node_t* h, std::size_t i) noexcept {
    TSEQ_ASSERT(i < size_of(h), "rrb_vector: index out of range (operator[] precondition)");
    if (h->is_leaf) return tree::as_leaf(h)->data()[i];
    const auto* r = static_cast<const header_t*>(h);
    if (i >= r->tree_size) return tree::as_leaf(r->tail.get())->data()[i - r->tree_size];
    return tree::find_leaf(r->root.get(), r->height, i)->data()[i];
  }

  // The greatest number of tree levels (root height + 1) the invariants allow for n elements
  // in the tree: height h >= 1 only if n > m^(h-1) (m = B/2; docs/design.md, height bound),
  // so 1 + the smallest j with n <= m^j.
  static unsigned levels_bound(std::size_t n) noexcept {
    if (n == 0) return 0;
    unsigned j = 0;
    std::size_t p = 1;  // m^j
    while (p < n) {
      ++j;
      if (p > std::numeric_limits<std::size_t>::max() / tree::m) break;
      p *= tree::m;
    }
    return j + 1;
  }

  // Debug-build check after every update: (S1), (S2) and the nodes on both outer spines of the
  // tree (counts, size tables, heights): O(B log n), where updates change the tree.
  static void assert_valid(const view& s) noexcept {
#if TSEQ_ASSERTIONS
    TSEQ_ASSERT((s.tail == nullptr) == (s.size == 0), "rrb_vector: tail missing or present on an empty vector");
    if (s.size == 0) return;
    TSEQ_ASSERT(s.tail->is_leaf && s.tail->count >= 1 && s.tail->count <= s.tail->cap && s.tail->cap <= B,
                "rrb_vector: tail holds 1..B elements");
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
          TSEQ_ASSERT(in->child[i] != nullptr, "rrb_vector: null child");
          acc += tree::size_of(in->child[i]);
          TSEQ_ASSERT(in->sizes()[i] == acc, "rrb_vector: size table");
        }
        n = in->child[right ? in->count - 1 : 0];
      }
      TSEQ_ASSERT(n->is_leaf && n->count >= 1 && n->count <= n->cap && n->cap <= B, "rrb_vector: leaf on a spine");
    }
#else
    (void)s;
#endif
  }

  // ---- updates (each consumes its state) -----------------------------------------------------

  // Bulk construction in one pass, O(1) amortised per element and no scratch memory: full
  // leaves go into open[0], the inner node (height 1) being filled; a node that becomes full
  // goes into the one a level up. At the end each open node takes the one below as its last
  // child: a dense, left-packed tree. The last 1..B elements become the tail.
  // Copies elements from [first, last) into the empty leaf l until it is full or the range
  // ends (the count kept in a register; on an exception l->count covers what was built).
  template <class It>
  static void fill_leaf(node_t* n, It& first, const It& last) {
    auto* l = tree::as_leaf(n);
    T* d = l->data();
    std::uint32_t k = 0;
    try {
      for (; k < B && first != last; ++k, ++first) ::new (static_cast<void*>(d + k)) T(*first);
    } catch (...) {
      l->count = k;
      throw;
    }
    l->count = k;
  }

  template <class It>
  static state build(It first, It last) {
    state s;
    if (first == last) return s;
    ref cur = tree::new_leaf();
    fill_leaf(cur.get(), first, last);  // the first leaf: often the whole vector
    s.size = cur->count;
    if (first != last) return build_tree(std::move(s), std::move(cur), first, last);
    s.tail = std::move(cur);
    return s;
  }

  // The rest of build() once a first full leaf `cur` is made and elements remain.
  template <class It>
  static state build_tree(state s, ref cur, It first, It last) {
    ref open[tree::max_levels];  // open[h]: the node at height h + 1 being filled, or null
    unsigned levels = 0;         // open[0, levels) have been used
    const auto push = [&](ref child) {
      for (unsigned h = 0;; ++h) {
        if (!open[h]) {
          open[h] = tree::new_inner();
          levels = h + 1 > levels ? h + 1 : levels;
        }
        auto* in = tree::as_inner(open[h].get());
        in->child[in->count++] = child.detach();
        if (in->count < B) return;
        tree::refresh(in, h + 1);
        child = std::move(open[h]);  // full: it moves a level up
      }
    };
    while (first != last) {  // cur is full here
      push(std::move(cur));
      cur = tree::new_leaf();
      fill_leaf(cur.get(), first, last);
      s.size += cur->count;
    }
    ref carry;  // the finished node below level h
    for (unsigned h = 0; h < levels; ++h) {
      if (carry) {
        if (!open[h]) open[h] = tree::new_inner();
        auto* in = tree::as_inner(open[h].get());
        in->child[in->count++] = carry.detach();
      }
      if (open[h]) {
        tree::refresh(tree::as_inner(open[h].get()), h + 1);
        carry = std::move(open[h]);
      }
    }
    s.height = levels;
    if (carry) set_root(s, std::move(carry));
    s.tail = std::move(cur);
    return s;
  }

  // Moves the tail into the tree.
  static void flush_tail(state& s) {
    if (s.root && s.tail->count == B && tree::append_leaf_in_place(s.root.get(), s.height, s.tail)) {
      s.tail = nullptr;
      return;
    }
    if (s.root) {
      s.root = tree::join(std::move(s.root), s.height, std::move(s.tail), 0, s.height);
    } else {
      s.root = std::move(s.tail);
      s.height = 0;
    }
    s.tail = nullptr;
  }

  // Restores "tail non-empty when size > 0" by moving the tree's last leaf into the tail.
  static void refill_tail(state& s) {
    if (s.tail || !s.root) return;
    ref rest = tree::take(std::move(s.root), s.height, s.size, s.tail);
    set_root(s, std::move(rest));
  }

  static void set_root(state& s, ref r) {
    s.root = tree::collapse(std::move(r), s.height);
    if (!s.root) s.height = 0;
  }

  // push_back's common in-place case without unpacking the holder: h and its tail are ours
  // alone and the tail has room. Returns false, having done nothing, otherwise.
  static bool append_in_place(ref& h, T& v) {
    if (!h || !tree::editable(h.get())) return false;
    if (h->is_leaf) {
      if (h->count == h->cap) return false;
      tree::append(tree::as_leaf(h.get()), std::move(v));
      return true;
    }
    auto* r = static_cast<header_t*>(h.get());
    node_t* t = r->tail.get();
    if (t->count == t->cap || !tree::editable(t)) return false;
    tree::append(tree::as_leaf(t), std::move(v));
    ++r->size;
    return true;
  }

  // push_back's common case on a state: its tail is ours alone and has room. Returns false,
  // having done nothing, otherwise (then push_back does the general work).
  static bool append_to_tail(state& s, T& v) {
    if (!s.tail || s.tail->count == s.tail->cap || !tree::editable(s.tail.get())) return false;
    tree::append(tree::as_leaf(s.tail.get()), std::move(v));
    ++s.size;
    return true;
  }

  static state push_back(state s, T v) {
    if (append_to_tail(s, v)) return s;
    if (s.tail && s.tail->count == B) flush_tail(s);
    if (!s.tail) {
      s.tail = tree::new_leaf();
      tree::append(tree::as_leaf(s.tail.get()), std::move(v));
    } else {
      ref none;
      const std::size_t at = s.tail->count;
      s.tail = tree::insert(std::move(s.tail), 0, at, v, true, none);
    }
    ++s.size;
    return s;
  }

  static state pop_back(state s) {
    const std::size_t last = s.tail->count - 1u;
    s.tail = tree::erase(std::move(s.tail), 0, last, true);
    --s.size;
    refill_tail(s);
    return s;
  }

  static state set(state s, std::size_t i, T& v) {
    const std::size_t ts = s.tree_size();
    if (i >= ts) {
      s.tail = tree::set(std::move(s.tail), 0, i - ts, v);
    } else {
      s.root = tree::set(std::move(s.root), s.height, i, v);
    }
    return s;
  }

  static state insert(state s, std::size_t i, T& v) {
    if (i == s.size) return push_back(std::move(s), std::move(v));
    const std::size_t ts = s.tree_size();
    ref extra;
    if (i >= ts) {
      s.tail = tree::insert(std::move(s.tail), 0, i - ts, v, true, extra);
      if (extra) {  // the tail overflowed: its first B elements join the tree
        flush_tail(s);
        s.tail = std::move(extra);
      }
    } else {
      s.root = tree::insert(std::move(s.root), s.height, i, v, true, extra);
      if (extra) {
        ref root = tree::new_inner();
        auto* in = tree::as_inner(root.get());
        in->child[0] = s.root.detach();
        in->child[1] = extra.detach();
        in->count = 2;
        ++s.height;
        tree::refresh(in, s.height);
        s.root = std::move(root);
      }
    }
    ++s.size;
    return s;
  }

  static state erase(state s, std::size_t i) {
    const std::size_t ts = s.tree_size();
    if (i >= ts) {
      s.tail = tree::erase(std::move(s.tail), 0, i - ts, true);
    } else {
      set_root(s, tree::erase(std::move(s.root), s.height, i, true));
    }
    --s.size;
    refill_tail(s);
    return s;
  }

  // One walk down the cut: the leaf holding element n-1, cut after it, becomes the tail.
  static state take(state s, std::size_t n) {
    if (n >= s.size) return s;
    if (n == 0) return {};
    const std::size_t ts = s.tree_size();
    if (n > ts) {
      ref tail = std::move(s.tail);
      (void)tree::take(std::move(tail), 0, n - ts, s.tail);
    } else {
      ref rest = tree::take(std::move(s.root), s.height, n, s.tail);
      set_root(s, std::move(rest));
    }
    s.size = n;
    return s;
  }

  static state drop(state s, std::size_t n) {
    if (n >= s.size) return {};
    if (n == 0) return s;
    const std::size_t ts = s.tree_size();
    if (n >= ts) {
      s.root = nullptr;
      s.height = 0;
      if (n > ts) s.tail = tree::drop(std::move(s.tail), 0, n - ts);
    } else {
      set_root(s, tree::drop(std::move(s.root), s.height, n));
      while (tree::fill_left_spine(s.root.get(), s.height)) set_root(s, std::move(s.root));
    }
    s.size -= n;
    return s;
  }

  static state erase_range(state s, std::size_t first, std::size_t last) {
    if (first == last) return s;
    state right = drop(s, last);  // shares nodes with s: both sides copy what they change
    return concat(take(std::move(s), first), std::move(right));
  }

  static state concat(state a, state b) {
    check_concat(a.size, b.size, max_size);
    if (b.size == 0) return a;
    if (a.size == 0) return b;
    if (!b.root && a.tail->count + std::size_t{b.tail->count} <= B) {
      ref none;
      const typename tree::seg segs[2] = {tree::seg_of(a.tail.get(), 0, a.tail->count, tree::editable(a.tail.get())),
                                          tree::seg_of(b.tail.get(), 0, b.tail->count, tree::editable(b.tail.get()))};
      a.tail = tree::build_leaves(segs, 2, B, none);
      a.size += b.size;
      return a;
    }
    flush_tail(a);
    if (b.root) a.root = tree::join(std::move(a.root), a.height, std::move(b.root), b.height, a.height);
    a.tail = std::move(b.tail);
    a.size += b.size;
    return a;
  }
};

}  // namespace tseq::detail
