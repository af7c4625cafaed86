#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// mult_loops (primitives.md §6), the inverse of divide_loop.
//   for i in seq(0, e): for j in seq(0, c): s
// becomes
//   for k in seq(0, e * c): s[i -> k / c, j -> k % c]
// Checks: the outer loop's body is exactly one loop (std::invalid_argument
// otherwise; Python checks it first), `c` is a positive literal (with
// c < 0, `e * c` could be positive while the inner loop runs nothing) and
// both loops start at 0. Safety: none beyond these structural checks: k runs
// through the pairs (k / c, k % c) = (i, j) exactly once each, in the original
// lexicographic order. The fused loop keeps the outer loop's mode when both
// loops have the same mode, and is `seq` otherwise.
// Forwarding: the outer loop → the fused loop; the inner loop dies; body
// statements follow into the fused loop; reads of i and j → their
// replacements.
cursors::EditResult mult_loops(const Proc& proc, const cursors::Location& outer,
                               const std::string& new_iter_name);

}  // namespace exo2::primitives
