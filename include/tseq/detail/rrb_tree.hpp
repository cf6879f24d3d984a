#pragma once

// The tree behind tseq::rrb_vector: include this header for all of rrb_tree<T, Bits, LBits>. Its
// types, constants and declarations are in rrb_tree_decl.hpp; its algorithms are defined by job:
//   rrb_tree_build.hpp       building nodes and editing their slots
//   rrb_tree_rebalance.hpp   rebalancing
//   rrb_tree_update.hpp      point updates: set, erase, insert
//   rrb_tree_slice.hpp       slicing: take, drop
//   rrb_tree_concat.hpp      concatenation
//   rrb_tree_traverse.hpp    traversal
//   rrb_tree_check.hpp       checking the invariants
// Invariants (docs/design.md):
//  (I1) all leaves are at height 0, the root at `height`;
//  (I2) every inner node holds 1..B entries, every leaf 1..BL; an inner root holds at least 2;
//  (I3) every node that is neither the root nor on an outer path holds >= m = B/2 entries
//       (a leaf >= mL = BL/2);
//  (I4) inner sizes[] are the cumulative element counts; `dense` implies all children but the
//       last are full subtrees; `regular` implies `dense` and, above height 1, a `regular`
//       last child.
// Every function consumes the references it is given ("ref" arguments) and returns new ones.
// A node reached only through references we hold alone (refcount 1) is edited in place; any
// other node on an affected path is copied first. Persistent callers therefore pass an extra
// reference to their root and never see a change.

#include "tseq/detail/rrb_tree_build.hpp"
#include "tseq/detail/rrb_tree_check.hpp"
#include "tseq/detail/rrb_tree_concat.hpp"
#include "tseq/detail/rrb_tree_decl.hpp"
#include "tseq/detail/rrb_tree_rebalance.hpp"
#include "tseq/detail/rrb_tree_slice.hpp"
#include "tseq/detail/rrb_tree_traverse.hpp"
#include "tseq/detail/rrb_tree_update.hpp"
