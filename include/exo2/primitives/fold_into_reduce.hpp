// fold_into_reduce (docs/primitives-statements.md): turns `a = a + e` into `a
// += e`.
//
// Rewrite: `x[idx] = x[idx] + e` → `x[idx] += e`, where the left operand
// of the addition is the same access as the left-hand side (same buffer,
// structurally equal indices).
// Safety: none beyond that shape; both statements add `e`, evaluated before
// the write, to the old value. Refusals: `The rhs of the assignment must be
// an add.`, `The lhs of the addition is not a read to the lhs of the
// assignment.`
// Forwarding: the statement and everything in it die.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `assign` is an assignment.
cursors::EditResult fold_into_reduce(const Proc& proc,
                                     const cursors::Location& assign);

}  // namespace exo2::primitives
