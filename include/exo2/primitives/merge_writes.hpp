// merge_writes (docs/primitives-statements.md): merges two writes to one
// location.
//
// Rewrite, for `s1; s2` writing the same element:
//   `a = b;  a = c`  → `a = c`        `a += b; a = c`  → `a = c`
//   `a = b;  a += c` → `a = b + c`    `a += b; a += c` → `a += b + c`
// Safety: the left-hand sides are the same element (ExprEqv of each index
// in the context of s1: `expected the left hand side's indices to be the
// same.`), and `c` does not read the buffer written by s1, through windows
// too (`expected the right hand side of the second statement to not depend
// on the left hand side of the first statement.`), so `c` has the same
// value before and after s1.
// Shape errors (std::invalid_argument, ValueError in Python): not two
// assignments/reductions, different buffers, non-numeric right-hand sides.
// Forwarding: s1 is deleted; when s2 is a reduction it is replaced by the
// merged statement (its cursors die), otherwise it stays.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `block` is a block of exactly two statements.
cursors::EditResult merge_writes(const Proc& proc,
                                 const cursors::Location& block);

}  // namespace exo2::primitives
