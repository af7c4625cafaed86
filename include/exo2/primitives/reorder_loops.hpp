#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// reorder_loops (docs/primitives-loops.md). `for i: for j: s` → `for j: for i:
// s`. Checks: the outer loop's body is exactly one loop, whose bounds do not
// mention i. Safety: ReorderSafe (body instances at (i, j) and (i', j')
// with i < i', j' < j commute; the bounds read nothing the body writes).
// Forwarding: each loop follows its iterator to its new nesting level; the
// body and everything else keep their locations.
cursors::EditResult reorder_loops(const Proc& proc,
                                  const cursors::Location& outer);

}  // namespace exo2::primitives
