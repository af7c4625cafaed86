// inline_assign (primitives.md §10): forwards an assigned value to its
// later reads.
//
// Rewrite: deletes `x[idx] = e` and replaces every read of exactly
// `x[idx]` (same buffer, structurally equal indices) in the rest of its
// block by `e`.
// Safety:
// - `x` is not written afterwards in the block (`Cannot inline assign <s>
//   because the buffer is written afterwards.`);
// - **[fix]** `e` has the same value at each replaced read, and the read
//   `x[idx]` names the assigned element: no location `e` reads, nor config
//   field `idx` reads, is written by an earlier statement of the rest of
//   the block, nor inside a loop or if that holds a replaced read (a simple
//   statement reads before it writes, so `t = y[i]; y[i] = t * t` is fine)
//   (`Cannot inline assign <s> because a value it reads is written
//   afterwards.`);
// - **[fix]** after the replacement (reads in call arguments stay, since
//   those must be buffers), DeadAfter(x, s): nothing that may run
//   after `s` (the rest of the block, earlier statements of enclosing loop
//   bodies, ... up to the end of x's scope) still accesses `x`, and `x` is
//   not a parameter, whose final value the caller sees (`The variable x can
//   potentially be used after the statement at <loc> executes.`).
// Exo checks only the first condition. Windows of `x` count as `x`.
// Forwarding: the assignment dies; cursors to the replaced reads name `e`.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `assign` is an assignment.
cursors::EditResult inline_assign(const Proc& proc,
                                  const cursors::Location& assign);

}  // namespace exo2::primitives
