#pragma once

#include <optional>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// widen_loop (docs/primitives-loops.md). `for i in seq(lo, hi): s` becomes
// `for i in seq(new_lo, new_hi): if lo <= i and i < hi: s`, with a test for
// each bound that changes (a bound given as nothing, or as the same
// expression, keeps the loop's and adds no test). `new_lo` and `new_hi`
// are untyped new expressions, typed before the loop. Safety: 0 <= new_lo
// <= lo and hi <= new_hi (Bound), so the added iterations are exactly those
// the test skips; the test evaluates `lo` and `hi` in every iteration, so
// the body writes no config field they read (ReadsUnchanged).
// Forwarding: the loop stays; the body's statements move into the test.
cursors::EditResult widen_loop(const Proc& proc, const cursors::Location& loop,
                               const std::optional<Expr>& new_lo,
                               const std::optional<Expr>& new_hi);

}  // namespace exo2::primitives
