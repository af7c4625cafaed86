#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// divide_with_recompute (primitives.md §6). With q = outer_stride,
//   for i in seq(0, hi): s
// becomes
//   for io in seq(0, outer_hi):
//     for ii in seq(0, q + (hi - N)): s[i -> io * q + ii]
// where N = outer_hi * q, or E - E % q when outer_hi is `E / q`. The inner
// ranges [io * q, io * q + q + (hi - N)) overlap, so iterations near their
// ends run twice; together they cover [0, hi) exactly.
// `outer_hi` is an untyped new expression, typed before the loop.
// Checks: the loop starts at 0 (as divide_loop).
// Safety, in the loop's context: Bound(hi - N >= 0), so that the last inner
// range ends at hi; Idempotent of the whole loop (no reduction, no location
// written and read by any of its iterations: each write's value depends on
// i only, and the last write of every location is still the one of the
// largest iteration writing it) — **[fix]** Exo proves Idempotent(body) for
// one iteration only, which accepts `y[i] = x[i + 1]; x[i] = 0`, whose
// recomputed iterations read the zeros; and — **[fix]** — outer_hi > 0
// unless hi is 0, since with no outer iteration nothing runs; the inner
// bound evaluates `hi` and `outer_hi` in every outer iteration, so the body
// writes no config field they read (ReadsUnchanged).
// Forwarding: the loop → the outer loop; body statements → inside the
// inner loop; reads of i → their replacement.
cursors::EditResult divide_with_recompute(const Proc& proc,
                                          const cursors::Location& loop,
                                          const Expr& outer_hi,
                                          int64_t outer_stride,
                                          const std::string& outer_name,
                                          const std::string& inner_name);

}  // namespace exo2::primitives
