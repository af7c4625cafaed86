#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// shift_loop (primitives.md §6). `for i in seq(lo, hi): s` becomes
// `for i in seq(new_lo, new_lo + (hi - lo)): s[i -> i + (lo - new_lo)]`.
// `new_lo` is an untyped new expression, typed before the loop. Safety:
// new_lo >= 0; the body, which now evaluates `lo - new_lo` in every
// iteration, writes no config field `lo` or `new_lo` reads
// (ReadsUnchanged). Forwarding: everything stays; reads of i name their
// replacement.
cursors::EditResult shift_loop(const Proc& proc, const cursors::Location& loop,
                               const Expr& new_lo);

}  // namespace exo2::primitives
