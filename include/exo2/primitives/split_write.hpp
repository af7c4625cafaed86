// split_write (docs/primitives-statements.md): splits a write of a sum into two
// writes.
//
// Rewrite: `a = b + c` → `a = b; a += c`;  `a += b + c` → `a += b; a += c`.
// Safety: **[fix]** `c` must not read the written buffer (through windows
// too): after the split it is evaluated after the first write, so it would
// see a new value (`a = x + a` is not `a = x; a += a`). Exo does not check
// this. Refusals: `Expected the rhs of the statement to be an addition.`,
// `Expected the second operand of the addition to not read the buffer a.`
// Forwarding: the statement and everything in it die.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `stmt` is an assignment or reduction.
cursors::EditResult split_write(const Proc& proc,
                                const cursors::Location& stmt);

}  // namespace exo2::primitives
