#pragma once

// rrb_tree (tseq/detail/rrb_tree_decl.hpp): the full check of (I1)-(I4) and (I3L) below a
// node, for rrb_vector::check_invariants() and the tests: O(n), reads every node's header and
// size table, throws std::logic_error naming the first broken invariant and where.
// Included through tseq/detail/rrb_tree.hpp.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tseq/detail/rrb_tree_decl.hpp"

namespace tseq::detail {

template <class T, unsigned Bits, unsigned LBits>
[[noreturn]] inline void rrb_tree<T, Bits, LBits>::broken(const std::string& what) {
  throw std::logic_error("rrb_vector invariant broken: " + what);
}

// Checks (I1)-(I4) and (I3L) below n; returns the element count.
template <class T, unsigned Bits, unsigned LBits>
inline std::size_t rrb_tree<T, Bits, LBits>::check(const node_t* n, unsigned h, bool is_root, bool leftmost,
                                                   bool rightmost, const std::string& path) {
  if (n == nullptr) broken("null node at " + path);
  if (n->refs.load() == 0) broken("node with no references at " + path);
  if (n->is_leaf != (h == 0)) broken("leaf at wrong height at " + path);
  if (n->count == 0 || n->count > width_at(h)) {
    broken("node at " + path + " holds " + std::to_string(n->count) + " entries");
  }
  if (n->count > n->cap) {
    broken("node at " + path + " holds " + std::to_string(n->count) + " entries but has room for " +
           std::to_string(n->cap));
  }
  if (!is_root && !leftmost && !rightmost && n->count < floor_at(h)) {
    broken("node at " + path + " holds " + std::to_string(n->count) + " < " + std::to_string(floor_at(h)) +
           " entries and is neither root nor on an outer path");
  }
  if (!is_root && leftmost && h > 0 && n->count < 2) {
    broken("inner node at " + path + " on the leftmost path holds a single child");
  }
  if (h == 0) {
    if (n->regular) broken("leaf at " + path + " marked regular");
    return n->count;
  }
  const inner_t* in = as_inner(n);
  if (is_root && in->count < 2) broken("inner root with a single child");
  std::size_t acc = 0;
  bool dense = true;
  for (std::uint32_t i = 0; i < in->count; ++i) {
    const bool last = i + 1 == in->count;
    const std::size_t s =
        check(in->child()[i], h - 1, false, leftmost && i == 0, rightmost && last, path + "/" + std::to_string(i));
    acc += s;
    if (in->sizes()[i] != acc) broken("size table wrong at " + path + " slot " + std::to_string(i));
    if (!last && s != full_size(h - 1)) dense = false;
  }
  if (in->dense && !dense) broken("node at " + path + " marked dense but is not");
  if (in->regular && (!dense || (h > 1 && !in->child()[in->count - 1]->regular))) {
    broken("node at " + path + " marked regular but is not");
  }
  // I6: the hint, and a bucketed node's table as set_lookup would write it now.
  if (in->hint != hint_of(in, h)) {
    broken("node at " + path + " has hint " + std::to_string(in->hint) + ", not " + std::to_string(hint_of(in, h)));
  }
  if (in->bucketed && (in->dense || !bucketable(in, h))) broken("node at " + path + " is bucketed and may not be");
  for (std::size_t b = 0; in->bucketed && b < B; ++b) {
    if (in->bucket[b] != bucket_of(in, b)) {
      broken("node at " + path + " has bucket " + std::to_string(b) + " at child " + std::to_string(in->bucket[b]) +
             ", not " + std::to_string(bucket_of(in, b)));
    }
  }
  return acc;
}

}  // namespace tseq::detail
