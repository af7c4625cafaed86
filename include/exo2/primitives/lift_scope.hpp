#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// lift_scope (docs/primitives-loops.md). Moves the if or loop at `scope` above
// its parent if or loop, which may hold nothing else in that branch
// (`expected if statement to be directly nested in parent` / `for loop`):
//  - if in if-then: `if O: (if I: A else: B) else: C` becomes
//    `if I: (if O: A else: C) else: (if O: B else: C')`; a missing `else: C`
//    stays missing, and a missing `else: B` counts as `pass` ([fix] 11:
//    the false branch of I becomes `if O: pass else: C'`, and disappears
//    when C is missing too);
//  - if in if-else: `if O: A else: (if I: B else: C)` becomes
//    `if I: (if O: A else: B) else: (if O: A' else: C)` (a missing `else: C`
//    leaves `if O: A'` without else);
//  - loop in if: `if O: for i: A` becomes `for i: if O: A` (the if may not
//    have an else: `cannot lift for loop when if has an orelse clause`);
//  - if in loop: `for i: (if c: A else: B)` becomes
//    `if c: (for i: A) else: (for i': B)`; `c` may not read `i`
//    (`if statement depends on iteration variable`);
//  - loop in loop: reorder_loops on the parent.
// Primed code is a copy with fresh bound symbols. Safety: the rewrites
// evaluate the condition once per iteration instead of once, or the other
// way round (loop in if, if in loop), so the moved code may not write a
// configuration field the condition reads; if-in-if evaluates both
// conditions before any of the code, as before. A top-level statement is
// refused (`Cannot lift scope of top-level statement`).
// Forwarding: the lifted statement (and its condition or bounds) → its
// outer position; the code it held follows into the first copy (for if in
// if, the parent's other branch too); the parent if or loop is invalid
// except for loop in if, where it moves inside the loop.
cursors::EditResult lift_scope(const Proc& proc,
                               const cursors::Location& scope);

}  // namespace exo2::primitives
