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
// The invariants (I1 to I6) and the reference rule every function follows are stated at the
// top of rrb_tree_decl.hpp (in full, with the reasons: docs/design.md, section 2).

#include "tseq/detail/rrb_tree_build.hpp"
#include "tseq/detail/rrb_tree_check.hpp"
#include "tseq/detail/rrb_tree_concat.hpp"
#include "tseq/detail/rrb_tree_decl.hpp"
#include "tseq/detail/rrb_tree_rebalance.hpp"
#include "tseq/detail/rrb_tree_slice.hpp"
#include "tseq/detail/rrb_tree_traverse.hpp"
#include "tseq/detail/rrb_tree_update.hpp"
