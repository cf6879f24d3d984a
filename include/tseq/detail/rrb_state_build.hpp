#pragma once

// rrb_state_ops (tseq/detail/rrb_state_decl.hpp): bulk construction from an iterator range
// in one pass, O(1) amortised per element and no scratch memory: full leaves go into open[0],
// the inner node (height 1) being filled; a node that becomes full goes into the one a level
// up. At the end each open node takes the one below as its last child: a dense, left-packed
// tree (I4: every child but the last full). The last 1..BL elements become the tail (S2).
// Included through tseq/detail/rrb_state.hpp.

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "tseq/detail/rrb_state_decl.hpp"

namespace tseq::detail {

// Copies elements from [first, last) into the empty leaf l until it is full or the range
// ends (the count kept in a register; on an exception l->count covers what was built).
template <class T, unsigned Bits, unsigned LBits>
template <class It>
inline void rrb_state_ops<T, Bits, LBits>::fill_leaf(node_t* n, It& first, const It& last) {
  auto* l = tree::as_leaf(n);
  T* d = l->data();
  std::uint32_t k = 0;
  try {
    for (; k < BL && first != last; ++k, ++first) ::new (static_cast<void*>(d + k)) T(*first);
  } catch (...) {
    l->count = k;
    throw;
  }
  l->count = k;
}

template <class T, unsigned Bits, unsigned LBits>
template <class It>
inline auto rrb_state_ops<T, Bits, LBits>::build(It first, It last) -> state {
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
template <class T, unsigned Bits, unsigned LBits>
template <class It>
inline auto rrb_state_ops<T, Bits, LBits>::build_tree(state s, ref cur, It first, It last) -> state {
  ref open[tree::max_levels];  // open[h]: the node at height h + 1 being filled, or null
  unsigned levels = 0;         // open[0, levels) have been used
  const auto push = [&](ref child) {
    for (unsigned h = 0;; ++h) {
      if (!open[h]) {
        open[h] = tree::new_inner();
        levels = h + 1 > levels ? h + 1 : levels;
      }
      auto* in = tree::as_inner(open[h].get());
      in->child()[in->count++] = child.detach();
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
      in->child()[in->count++] = carry.detach();
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

}  // namespace tseq::detail
