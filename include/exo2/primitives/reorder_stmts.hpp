// reorder_stmts (docs/primitives-statements.md): swaps two adjacent statements.
//
// Rewrite: `s1; s2` → `s2; s1`.
// Safety: Commute(s1, s2) in the context of s1: no location written by one
// is read or written by the other (reductions commute with reductions), and
// neither uses an allocation of the other.
// Forwarding: both statements (and everything in them) follow.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `block` is a block of exactly two statements.
cursors::EditResult reorder_stmts(const Proc& proc,
                                  const cursors::Location& block);

}  // namespace exo2::primitives
