#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// join_loops (primitives.md §6), the inverse of cut_loop.
//   for i in seq(lo, mid): s
//   for j in seq(mid', hi): s'
// becomes `for i in seq(lo, hi): s`.
// Checks: the second loop directly follows the first; s' is s up to the
// renaming j -> i and of the symbols the bodies bind.
// Safety: the first body writes no config field the second loop's bounds
// read (they are evaluated after it, ReadsUnchanged); ExprEqv(mid, mid')
// in the loops' context, and lo <= mid <= hi or hi <= mid <= lo (both loops
// empty): primitives may leave loops whose upper bound is below their lower
// bound (lift_scope of a loop out of the if that ordered its bounds), so
// the definition-time check that every loop runs a non-negative number of
// times does not hold here. The
// joined loop keeps the first loop's mode when both loops have the same
// mode, and is `seq` otherwise.
// Forwarding: the first loop → the joined loop, its body stays; the second
// loop and everything in it die.
cursors::EditResult join_loops(const Proc& proc, const cursors::Location& loop1,
                               const cursors::Location& loop2);

}  // namespace exo2::primitives
