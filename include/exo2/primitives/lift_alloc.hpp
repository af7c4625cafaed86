// lift_alloc (primitives.md §5): moves an allocation out of enclosing loops
// and ifs.
//
// Rewrite: the allocation moves to just before its `n_lifts`-th enclosing
// loop or if.
// Safety: none needed (a fresh allocation has undefined contents, so a
// buffer allocated once and reused by every iteration means the same).
// Refused when there are fewer than `n_lifts` enclosing loops and ifs
// (`specified lift level 3 is more than 2, the number of loops and ifs
// above the allocation`), when a lifted-past loop's iterator occurs in
// the allocation's shape, and when code that runs before the allocation
// inside the lifted-past statements (earlier statements of its blocks,
// whole loop bodies) writes a config field the shape reads: the shape is
// now evaluated before that code (ReadsUnchanged).
// Forwarding: the allocation follows; everything else stays.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `alloc` is an allocation; `n_lifts` >= 1.
cursors::EditResult lift_alloc(const Proc& proc, const cursors::Location& alloc,
                               int n_lifts);

// The path of the statement before which lift_alloc moves `alloc` (shared
// with autolift_alloc).
cursors::Path lift_alloc_target(const Proc& proc,
                                const cursors::Location& alloc, int n_lifts);

}  // namespace exo2::primitives
