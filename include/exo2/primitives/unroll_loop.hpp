#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// unroll_loop (docs/primitives-loops.md). A loop with literal bounds `seq(lo,
// hi)` becomes `hi - lo` copies of its body (fresh bound symbols) with the
// iterator replaced by lo, lo + 1, ... No safety condition: the copies run
// in the loop's order. Forwarding: the loop and everything in it die.
cursors::EditResult unroll_loop(const Proc& proc,
                                const cursors::Location& loop);

}  // namespace exo2::primitives
