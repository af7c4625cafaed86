// parallelize_loop (docs/primitives-statements.md): marks a loop as parallel.
//
// Rewrite: `for i in seq(lo, hi): s` → `for i in par(lo, hi): s`.
// Safety: a loop mode does not change the sequential meaning of a procedure
// (docs/cuda.md, "The model"); whether the iterations may really run
// concurrently (ParallelSafe) is checked when the procedure is compiled, after
// the rest of the schedule has shaped the loop. Forwarding: everything stays
// (cursors::replace_stmt_attributes).
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult parallelize_loop(const Proc& proc,
                                     const cursors::Location& loop);

}  // namespace exo2::primitives
