#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// cut_loop (primitives.md §6). `for i in seq(lo, hi): s` becomes
// `for i in seq(lo, cut): s` followed by `for i in seq(cut, hi): s'` (s' a
// copy with fresh bound symbols). `cut` is an untyped new expression, typed
// before the loop. Safety: lo <= cut and cut <= hi in the loop's context;
// the second loop evaluates `cut` and `hi` after the first ran, so the body
// writes no config field they read (ReadsUnchanged).
// Forwarding: the loop → the first loop; the second is its next statement.
cursors::EditResult cut_loop(const Proc& proc, const cursors::Location& loop,
                             const Expr& cut);

}  // namespace exo2::primitives
