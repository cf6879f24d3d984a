#pragma once

// The value of a tseq::rrb_vector and the updates on it: include this header for all of
// rrb_state_ops<T, Bits, LBits>. An rrb_vector holds one counted reference, its holder: null (empty),
// a leaf (a small vector of 1..BL elements) or a header_node (tree root, tail leaf, size,
// height). Updates unpack the holder into a state, transform the state (consuming its
// references, editing nodes held alone in place: see tseq/detail/rrb_tree.hpp) and pack it
// again with finish(). The parts:
//   rrb_state_decl.hpp        basic_state, rrb_state_ops' types and declarations
//   rrb_argument_checks.hpp   argument checks of the public API (IndexError, LengthError)
//   rrb_state_pack.hpp        packing and unpacking the holder; lookups
//   rrb_state_build.hpp       bulk construction from a range
//   rrb_state_update.hpp      updates of a state
// Invariants of a state (docs/design.md):
//  (S1) size == elements under root + tail->count; tail is null iff size == 0;
//  (S2) tail holds 1..BL elements; root is null or a tree satisfying (I1)-(I4) at `height`;
//  (S3) a holder is a bare leaf exactly when there is no root (a header always has a tree).

#include "tseq/detail/rrb_argument_checks.hpp"
#include "tseq/detail/rrb_state_build.hpp"
#include "tseq/detail/rrb_state_decl.hpp"
#include "tseq/detail/rrb_state_pack.hpp"
#include "tseq/detail/rrb_state_update.hpp"
