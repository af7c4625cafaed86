// reuse_buffer (docs/primitives-buffers.md): stores a buffer in an earlier one
// that is no longer needed.
//
// Rewrite: `x : T; ...; y : T; s` → `x : T; ...; s[y -> x]`: the allocation
// of `y` is deleted and every later use of `y` (reads, writes, windows,
// strides, call arguments) names `x`.
// Checks: both are allocations of identical types (`Cannot reuse buffer x
// for y because their types differ: f32[4] vs. f32[8]`); `y` is allocated
// after `x`, in `x`'s scope (`Cannot reuse buffer x for y because y is not
// allocated after x in the scope of x`).
// Safety: DeadAfter(x, first write to y): the first statement that writes or
// reduces `y` in program order (nested ones included, through windows and
// calls) is followed by no read or write of `x` (`The variable x can
// potentially be used after the statement at <loc> executes.`). Every later
// write of `y` runs after that statement, and reads of `y` before it saw
// undefined contents. Without writes to `y` there is nothing to check.
// NoAlias: no call may end up passing `x` twice.
// Forwarding: `y`'s allocation becomes invalid; everything else keeps its
// place (uses of `y` are renamed in place).
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult reuse_buffer(const Proc& proc,
                                 const cursors::Location& buffer,
                                 const cursors::Location& replaced);

}  // namespace exo2::primitives
