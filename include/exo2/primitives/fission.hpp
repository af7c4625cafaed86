#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// fission (primitives.md §6). At a gap between two statements, for
// `n_lifts` enclosing levels, splits the enclosing loop or if in two: the
// first copy keeps the statements before the gap, the second those after
// (a level where one side is empty only moves the gap up). A loop
// `for i: A; B` becomes `for i: A` then `for i: B`; an if split in its
// then-branch becomes `if c: A` then `if c: B else: <orelse>`, in its
// else-branch `if c: <body> else: A` then `if c: pass else: B`.
// Checks: the gap is between statements (std::invalid_argument otherwise);
// the first part allocates nothing the second uses. Safety (unless
// `unsafe_disable_checks`): FissionSafe for loops; for ifs, the first part
// writes no config field the condition reads (require_condition_kept).
// Forwarding: statements follow their side; a loop cursor names the first loop,
// an if split in its then-branch the second if (which keeps the else branch),
// an if split in its else-branch the first one.
cursors::EditResult fission(const Proc& proc, const cursors::Location& gap,
                            int n_lifts, bool unsafe_disable_checks);

// Splitting the if `s` in its branch `slot` before the statements `before`
// of that branch evaluates the condition again, after the first if ran:
// ReadsUnchanged(cond, first part) (the first part is `before`, and for a
// split in the else branch also the then-branch). Refuses otherwise.
void require_condition_kept(const If& s, cursors::Slot slot,
                            const Block& before);

}  // namespace exo2::primitives
