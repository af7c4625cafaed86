#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

enum class TailStrategy { Guard, Cut, CutAndGuard };

// divide_loop (primitives.md §6). `for i in seq(0, hi): s` becomes
//   for io in seq(0, H): for ii in seq(0, q): s[i -> q * io + ii]
// with, by tail strategy:
//   guard:         H = (hi + (q - 1)) / q, body wrapped in
//                  `if q * io + ii < hi:`;
//   cut:           H = hi / q, then the tail loop
//                  `for ii in seq(0, hi % q): s[i -> ii + hi / q * q]`
//                  (a copy of the body with fresh bound symbols);
//   cut_and_guard: as cut, the tail loop wrapped in `if hi % q > 0:`;
//   perfect:       H = hi / q (a literal when hi is), no guard, no tail.
// Safety: the loop starts at 0; with `perfect`, Divisible(hi, q) holds in
// the loop's context; otherwise (the guard and the tail evaluate `hi` again
// after body iterations ran) the body writes no config field `hi` reads;
// with a cut tail, hi >= 0 (a loop with hi < 0 runs nothing, but the
// floor-division tail `hi % q` would run). Forwarding: the loop → the outer
// loop, body statements → inside the inner loop (and guard), reads of i →
// their replacement; the tail loop follows the outer one.
cursors::EditResult divide_loop(const Proc& proc, const cursors::Location& loop,
                                int64_t quotient, const std::string& outer_name,
                                const std::string& inner_name,
                                TailStrategy tail, bool perfect);

}  // namespace exo2::primitives
