// autofission (primitives.md §11, legacy): Exo's older fission, which also
// removes the loops it leaves trivially repeated.
//
// Rewrite: at a gap between two statements, for `n_lifts` enclosing levels
// (each level where both sides are non-empty counts; it stops silently at
// the procedure body), splits the enclosing loop or if in two as fission
// does: `for i: A; B` → `for i: A` then `for i: B`; an if split in its
// then-branch → `if c: A` then `if c: B else: <orelse>`, in its else-branch
// → `if c: <body> else: A` then `if c: pass else: B`. A side of a split loop
// that does not mention the iterator loses its loop when that is sound: the
// side is Idempotent and either the loop provably runs (hi > lo) or the side
// has no effects at all (only `pass`, or only local buffers) — repeating it
// then means running it once.
// Checks: the gap is between statements (std::invalid_argument: `expected
// cursor to point to a gap between statements, not at an edge`); the first
// part allocates nothing the second uses (`Will not fission here, because
// an allocation might be buried in a different scope than some use-site`);
// only loops and ifs can be split (`Can only lift past a for loop or an if
// statement`). Safety: FissionSafe for every split loop (`Cannot fission
// loop over i at <loc>.`), proven on the loop as split so far ([fix] Exo's
// autofission checks nothing); for every split if, the first part writes no
// config field the condition reads (require_condition_kept, fission.hpp).
// Forwarding: none (the binding records the result without one).
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// The new procedure (no forwarding); `n_lifts` >= 1.
Proc autofission(const Proc& proc, const cursors::Location& gap, int n_lifts);

}  // namespace exo2::primitives
