#pragma once

// The value of a tseq::rrb_vector: the struct basic_state (root, tail, size, height) and the
// struct rrb_state_ops<T, Bits, LBits>, a namespace of static functions on states, with its types and
// the declaration of every function, grouped by the header that defines it (include
// tseq/detail/rrb_state.hpp, which includes them all). Invariants of a state (docs/design.md):
//  (S1) size == elements under root + tail->count; tail is null iff size == 0;
//  (S2) tail holds 1..BL elements; root is null or a tree satisfying (I1)-(I4) at `height`;
//  (S3) a holder is a bare leaf exactly when there is no root (a header always has a tree).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "tseq/detail/config.hpp"
#include "tseq/detail/rrb_node.hpp"
#include "tseq/detail/rrb_tree.hpp"

namespace tseq::detail {

// The parts of a vector's value. P is intrusive_ref (owning: updates) or a const pointer
// (reading: lookups and iterators).
template <class P>
struct basic_state {
  P root{};              // tree of all elements but the tail's (null when none)
  P tail{};              // last 1..BL elements (null iff the vector is empty)
  std::size_t size = 0;  // elements in tree + tail
  unsigned height = 0;   // height of root: 0 when it is a leaf

  [[nodiscard]] std::size_t tree_size() const noexcept { return size - (tail ? tail->count : 0); }
};

template <class T, unsigned Bits, unsigned LBits>
struct rrb_state_ops {
  using tree = rrb_tree<T, Bits, LBits>;
  using ref = typename tree::ref;
  using node_t = typename tree::node_t;
  using header_t = header_node<T, Bits>;
  using state = basic_state<ref>;
  using view = basic_state<const node_t*>;

  static constexpr std::size_t B = tree::B;
  static constexpr std::size_t BL = tree::BL;
  static constexpr std::size_t max_size =
      static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / sizeof(T);

  // ---- packing and unpacking the holder; lookups: rrb_state_pack.hpp ---------------------

  // Holder <-> state.
  static std::size_t size_of(const node_t* h) noexcept;
  static view view_of(const node_t* h) noexcept;
  static state copy_of(const ref& h);
  static state steal(ref& h);
  static ref finish(state s, ref reuse);
  static ref small(std::initializer_list<typename tree::seg> segs);
  // Reads and checks.
  static const T& lookup(const node_t* h, std::size_t i) noexcept;
  static unsigned levels_bound(std::size_t n) noexcept;
  static void assert_valid(const view& s) noexcept;

  // ---- bulk construction from a range: rrb_state_build.hpp -------------------------------

  template <class It>
  static void fill_leaf(node_t* n, It& first, const It& last);
  template <class It>
  static state build(It first, It last);
  template <class It>
  static state build_tree(state s, ref cur, It first, It last);

  // ---- updates of a state (each consumes it): rrb_state_update.hpp ------------------------

  // Moving leaves between tree and tail; setting a root.
  static void flush_tail(state& s);
  static void refill_tail(state& s);
  static bool overflow_into_root(state& s, ref& extra);
  static void set_root(state& s, ref r);
  // push_back's in-place fast paths.
  TSEQ_ALWAYS_INLINE static bool append_in_place(ref& h, T& v);  // inlined into push_back &&
  static bool append_to_tail(state& s, T& v);
  // The updates of rrb_vector.
  static state push_back(state s, T v);
  static state pop_back(state s);
  static state set(state s, std::size_t i, T& v);
  static state insert(state s, std::size_t i, T& v);
  static state erase(state s, std::size_t i);
  static bool repacked(state& s, std::size_t i, T* v);
  static state take(state s, std::size_t n);
  static state drop(state s, std::size_t n);
  // take and drop of a vector only read (a const& update): 0 < n < its size.
  static state take_shared(const header_t* r, std::size_t n);
  static state drop_shared(const header_t* r, std::size_t n);
  static state erase_range(state s, std::size_t first, std::size_t last);
  static state concat(state a, state b);
};

}  // namespace tseq::detail
