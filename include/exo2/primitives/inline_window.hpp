// inline_window (primitives.md §10): replaces a window by its definition.
//
// Rewrite: deletes `y = x[w]` and rewrites every later use of `y` in terms
// of `x`: a point access `y[i, ...]` becomes `x[...]` with the window's
// point coordinates re-inserted and each interval coordinate shifted by its
// lower bound (`x[k, i + lo]`); a window `y[a:b, c]` becomes the window of
// `x` shifted the same way; `stride(y, d)` becomes `stride(x, d')` where d'
// is the d-th interval dimension of `w`; `y` passed whole to a call becomes
// the window expression `x[w]`.
// Safety: the window's bounds are evaluated when the window statement runs
// and, inlined, at every use: the statements after it write no config
// field they read (ReadsUnchanged); everything else they read is a control
// value still in scope at every use.
// Forwarding: the window statement becomes invalid; every other statement
// and expression keeps its place (uses of `y` are replaced in place).
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `window` is a window statement.
cursors::EditResult inline_window(const Proc& proc,
                                  const cursors::Location& window);

}  // namespace exo2::primitives
