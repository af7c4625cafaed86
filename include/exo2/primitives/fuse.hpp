#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// fuse (primitives.md §6). Two adjacent loops `for i in seq(lo, hi): A`,
// `for j in seq(lo', hi'): B` become `for i in seq(lo, hi): A; B[j -> i]`;
// two adjacent ifs `if c: A else: C`, `if c': B else: D` become
// `if c: A; B else: C; D`. Checks: both loops or both ifs (std::
// invalid_argument), the second right after the first. Safety: ExprEqv of
// the bounds (lo and hi) or conditions; for loops FissionSafe of the fused
// loop unless `unsafe_disable_check` (the first body writes no config field
// the second bounds read); for ifs, the first if writes no config field the
// second condition reads (ReadsUnchanged). Forwarding: the first statement →
// the fused one; the second dies, its body's statements follow into the fused
// body (loops); for ifs with else branches the fused if is rebuilt.
cursors::EditResult fuse(const Proc& proc, const cursors::Location& first,
                         const cursors::Location& second,
                         bool unsafe_disable_check);

}  // namespace exo2::primitives
