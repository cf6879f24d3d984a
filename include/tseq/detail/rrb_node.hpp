#pragma once

// Nodes of the relaxed radix balanced tree behind tseq::rrb_vector.
// Invariants and algorithms: docs/design.md.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>

#include "tseq/detail/config.hpp"
#include "tseq/detail/intrusive_ref.hpp"
#include "tseq/detail/node_cache.hpp"

// A test (tests/unit/rrb_cost_test.cpp, its own executable) defines TSEQ_COUNT_NODE_REFS to
// count the reference-count updates on nodes per operation. Never defined in the library.
#if defined(TSEQ_COUNT_NODE_REFS)
namespace tseq::detail {
inline thread_local long node_ref_updates = 0;
}  // namespace tseq::detail
#define TSEQ_NODE_REF_UPDATE() (++::tseq::detail::node_ref_updates)
#else
#define TSEQ_NODE_REF_UPDATE() ((void)0)
#endif

namespace tseq::detail {

// Every node is allocated through these. A block of default alignment up to
// node_cache::max_block bytes comes from the calling thread's node cache, else from the global
// operator new (tseq/detail/node_cache.hpp); a test that counts or fails every allocation
// turns the cache off for its thread. Leaves and inner nodes are allocated with room for `cap`
// entries (their element or child arrays follow the header in the same allocation).
inline void* allocate_bytes(std::size_t bytes, std::size_t align) {
  if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new (bytes, std::align_val_t{align});
  return cached_allocate(bytes);
}

inline void free_bytes(void* p, std::size_t bytes, std::size_t align) noexcept {
  if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    ::operator delete (p, std::align_val_t{align});
  } else {
    cached_free(p, bytes);
  }
}

// A node type's allocation may start before the node: N::prefix(cap) bytes (an inner node's
// size table), 0 for the others.
template <class N, class... A>
N* allocate_node(A... args) {
  auto* p = static_cast<unsigned char*>(allocate_bytes(N::bytes(args...), N::alloc_align));
  return ::new (static_cast<void*>(p + N::prefix(args...))) N(args...);
}

template <class N>
void deallocate_node(N* n) noexcept {
  std::size_t bytes = 0;
  std::size_t prefix = 0;
  if constexpr (requires { N::bytes(); }) {
    bytes = N::bytes();
    prefix = N::prefix();
  } else {
    bytes = N::bytes(n->cap);
    prefix = N::prefix(n->cap);
  }
  n->~N();
  free_bytes(static_cast<void*>(reinterpret_cast<unsigned char*>(n) - prefix), bytes, N::alloc_align);
}

// The leaf width (log2 of a leaf's capacity) of rrb_vector<T, Bits> unless one is given:
// leaves of about the bytes of an inner node's child array (2^bits pointers), as immer sizes
// its leaves. Elements of pointer size or more: bits; each halving of sizeof(T) below it
// doubles the leaf (int: 64 elements at bits = 5), up to 7 (128, what `cap` holds). Never
// narrower than the inner nodes: the height bound (levels_bound) counts on it.
template <class T>
constexpr unsigned default_leaf_bits(unsigned bits) noexcept {
  unsigned l = bits;
  for (std::size_t s = sizeof(T); s < sizeof(void*) && l < 7; s *= 2) ++l;
  return l;
}

template <class T, unsigned Bits>
struct node;

template <class T, unsigned Bits>
void destroy_node(node<T, Bits>* n) noexcept;

// Common header. `count` is the number of elements (leaf) or children (inner).
template <class T, unsigned Bits>
struct node {
  static constexpr std::size_t width = std::size_t{1} << Bits;

  // Scale of `hint` below: 2^hint_bits stands for 1.0.
  static constexpr unsigned hint_bits = 12;

  std::atomic<std::size_t> refs{1};
  std::uint32_t count = 0;
  bool is_leaf : 1;
  bool is_header : 1 = false;  // a header_node: the handle of a vector with a tree
  // Inner only: every child but the last holds a full subtree, so the radix of an index picks
  // the child directly. Never set when it is not true; may be clear when it is.
  bool dense : 1 = false;
  // Inner only: `dense`, and so is its last child if inner, and that child's last child, down
  // to height 1; so the radix of an index picks the child at every level below (the other
  // children are full). Never set when it is not true; may be clear when it is.
  bool regular : 1 = false;
  // Leaf parents only, not `dense`: the child holding element i is one of the three from
  // inner_node::bucket[i >> LBits] on (rrb_tree::set_lookup, I6). Set only where the node's
  // sizes allow it (by erase and insert wherever they do): unlike the hint, the table decides
  // a look-up, so a stale one would give a wrong element (the invariant check recomputes it).
  bool bucketed : 1 = false;
  // Leaf or inner: the entries its allocation has room for (count <= cap <= the tree's leaf
  // or inner width). A copy made for a persistent update is allocated exactly (cap = count); nodes that grow in place
  // (the tail, the builder's, the rightmost path) get the full width.
  std::uint8_t cap = 0;
  // Inner only, where to start looking for a child: a full child's elements over the average
  // child's (the last child left out), times 2^hint_bits; 1.0 in a dense node and in one
  // whose children but the last two are full, at most 16.
  // Child (i * hint) >> (shift + hint_bits) is then the child holding element i or next to
  // it nearly always, where the radix guess i >> shift falls a child behind per 1/hint
  // missing. A wrong value would cost time, never correctness (rrb_tree::relaxed_child).
  std::uint16_t hint = std::uint16_t{1} << hint_bits;

  static_assert(Bits <= 7, "cap holds at most 128 entries");

  explicit node(bool leaf, std::size_t c = 0) noexcept : is_leaf(leaf), cap(static_cast<std::uint8_t>(c)) {}
  node(const node&) = delete;
  node& operator=(const node&) = delete;
  ~node() = default;

  friend void intrusive_ptr_add_ref(node* n) noexcept {
    TSEQ_NODE_REF_UPDATE();
    n->refs.fetch_add(1, std::memory_order_relaxed);
  }
  friend void intrusive_ptr_release(node* n) noexcept {
    TSEQ_NODE_REF_UPDATE();
    // Holding the only reference, nobody else can add one: no atomic update is needed.
    if (n->refs.load(std::memory_order_acquire) == 1 || n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      destroy_node(n);
    }
  }
};

// The hint fits beside the flags: a node's header is the reference count and 8 bytes.
static_assert(sizeof(node<int, 5>) == sizeof(std::atomic<std::size_t>) + 8);

// Up to `cap` elements, stored after the header in the same allocation; [0, count) are
// constructed.
template <class T, unsigned Bits>
struct leaf_node : node<T, Bits> {
  using base = node<T, Bits>;
  static constexpr std::size_t alloc_align = alignof(T) > alignof(base) ? alignof(T) : alignof(base);

  explicit leaf_node(std::size_t c) noexcept : base(true, c) {}
  leaf_node(const leaf_node&) = delete;
  leaf_node& operator=(const leaf_node&) = delete;
  ~leaf_node() {
    T* d = data();
    for (std::uint32_t i = 0; i < this->count; ++i) d[i].~T();
  }
  // Where the elements start: after the header, aligned for T.
  static constexpr std::size_t data_offset() noexcept {
    return (sizeof(leaf_node) + alignof(T) - 1) / alignof(T) * alignof(T);
  }
  // Bytes of a leaf with room for c elements, a multiple of 8 (a node cache size class).
  static constexpr std::size_t bytes(std::size_t c) noexcept {
    return node_cache::round_up(data_offset() + c * sizeof(T));
  }
  static constexpr std::size_t prefix(std::size_t /*c*/) noexcept { return 0; }
  [[nodiscard]] T* data() noexcept {
    return std::launder(reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(this) + data_offset()));
  }
  [[nodiscard]] const T* data() const noexcept {
    return std::launder(reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(this) + data_offset()));
  }
};

// Up to `cap` children. One allocation holds the size table, the header, the bucket table and
// the children:
//
//   sizes[cap-1] .. sizes[0] 0 | header | bucket[0 .. B) | child[0] .. child[cap-1]
//                              ^ the node's address
//
// child[c] lies 16 + B + 8c bytes after the node and sizes[c] 8(c + 2) bytes before it:
// offsets fixed by c alone, so that a descent asks for both before the header arrives, and a
// node allocated for fewer than B children takes no room for the rest (docs/design.md, "Node
// sizes"). sizes()[i] is the number of elements in children [0, i]; the zero before the
// header is sizes().before(0), so that the elements before child c are one load for any c,
// no test of c == 0 (written by the constructor, never changed). bucket[] is read only
// when the node is `bucketed` (B bytes: 32 at B = 32, beside a table of 8 per child). A null
// child slot only exists transiently while an algorithm holds that child.
template <class T, unsigned Bits>
struct inner_node : node<T, Bits> {
  using base = node<T, Bits>;
  static_assert(alignof(base*) <= alignof(base) && alignof(std::size_t) <= alignof(base));
  static_assert(sizeof(base) % alignof(std::size_t) == 0);
  static_assert(sizeof(std::size_t) % alignof(base) == 0, "the node at p + 8 cap stays aligned");
  static constexpr std::size_t alloc_align = alignof(base);

  // The size table: indexed forward, stored backward before the node.
  template <class S, class P>
  class table {
   public:
    explicit table(P* node) noexcept : node_(node) {}
    // Entry i lies at word -(i + 2) from the node, written as a signed word index so that the
    // compiler negates i once for the loads near it and folds the rest into the address (as
    // node_ - (i + 2) * 8 it computed each address with a lea and a sub).
    S& operator[](std::size_t i) const noexcept {
      return *std::launder(reinterpret_cast<S*>(node_) + (-static_cast<std::ptrdiff_t>(i) - 2));
    }
    // The elements in children [0, c): sizes[c - 1], and 0 for c = 0.
    [[nodiscard]] const std::size_t& before(std::size_t c) const noexcept {
      return *std::launder(reinterpret_cast<const std::size_t*>(node_) + (-static_cast<std::ptrdiff_t>(c) - 1));
    }

   private:
    P* node_;
  };

  // In a `bucketed` node (a leaf parent), bucket[b] is the child holding element b << LBits,
  // at most count - 2 (rrb_tree::bucket_of); unset otherwise.
  std::uint8_t bucket[base::width];

  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-member-init): [0, count) are set; bucket[] when bucketed
  explicit inner_node(std::size_t c) noexcept : base(false, c) {
    ::new (static_cast<void*>(reinterpret_cast<unsigned char*>(this) - sizeof(std::size_t))) std::size_t{0};
  }
  inner_node(const inner_node&) = delete;
  inner_node& operator=(const inner_node&) = delete;
  ~inner_node() {
    base** ch = child();
    for (std::uint32_t i = 0; i < this->count; ++i) {
      if (ch[i] != nullptr) intrusive_ptr_release(ch[i]);
    }
  }
  [[nodiscard]] base** child() noexcept {
    return std::launder(reinterpret_cast<base**>(reinterpret_cast<unsigned char*>(this) + sizeof(inner_node)));
  }
  [[nodiscard]] base* const* child() const noexcept {
    return std::launder(
        reinterpret_cast<base* const*>(reinterpret_cast<const unsigned char*>(this) + sizeof(inner_node)));
  }
  [[nodiscard]] table<std::size_t, unsigned char> sizes() noexcept {
    return table<std::size_t, unsigned char>(reinterpret_cast<unsigned char*>(this));
  }
  [[nodiscard]] table<const std::size_t, const unsigned char> sizes() const noexcept {
    return table<const std::size_t, const unsigned char>(reinterpret_cast<const unsigned char*>(this));
  }
  // Bytes of an inner node with room for c children (table and its zero, header, buckets,
  // children), a multiple of 8; the first prefix(c) of them hold the table and its zero.
  static constexpr std::size_t bytes(std::size_t c) noexcept {
    return node_cache::round_up(prefix(c) + sizeof(inner_node) + c * sizeof(base*));
  }
  static constexpr std::size_t prefix(std::size_t c) noexcept { return (c + 1) * sizeof(std::size_t); }
};

// The header of an rrb_vector that has a tree: the tree's root, the tail leaf (the last 1..BL
// elements), the element count, the count in the tree (so that an index finds its side
// without reading the tail) and the height of the root (0: a leaf). (A vector of at most BL
// elements has no header: it is just its leaf.)
template <class T, unsigned Bits>
struct header_node : node<T, Bits> {
  using base = node<T, Bits>;
  intrusive_ref<base> root;
  intrusive_ref<base> tail;
  std::size_t size = 0;
  std::size_t tree_size = 0;  // size - tail->count
  unsigned height = 0;

  header_node() noexcept : base(false) { this->is_header = true; }
  static constexpr std::size_t alloc_align = alignof(base);  // its members: pointers and counts
  static constexpr std::size_t bytes() noexcept { return node_cache::round_up(sizeof(header_node)); }
  static constexpr std::size_t prefix() noexcept { return 0; }
};

template <class T, unsigned Bits>
void destroy_node(node<T, Bits>* n) noexcept {
  static_assert(alignof(header_node<T, Bits>) == header_node<T, Bits>::alloc_align);
  if (n->is_leaf) {
    deallocate_node(static_cast<leaf_node<T, Bits>*>(n));
  } else if (n->is_header) {
    deallocate_node(static_cast<header_node<T, Bits>*>(n));
  } else {
    deallocate_node(static_cast<inner_node<T, Bits>*>(n));
  }
}

}  // namespace tseq::detail
