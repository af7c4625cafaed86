#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// remove_loop (docs/primitives-loops.md). `for i in seq(lo, hi): s` becomes
// `s`, or `if hi > lo: s` when hi > lo cannot be proven. Checks: i does not
// occur in s. Safety (unless `unsafe_disable_check`): Idempotent(loop), so
// running s once equals running it hi - lo >= 1 times. Forwarding: the loop
// dies; the body's statements follow.
cursors::EditResult remove_loop(const Proc& proc, const cursors::Location& loop,
                                bool unsafe_disable_check);

}  // namespace exo2::primitives
