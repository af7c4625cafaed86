// Procedure.transpose (docs/primitives-backend.md): swaps the two
// dimensions of a 2-D parameter.
//
// Rewrite: `x : f32[m, n]` → `x : f32[n, m]`; every access `x[i, j]` (reads,
// writes, window points) → `x[j, i]`, and `stride(x, d)` → `stride(x, 1 -
// d)` (preconditions included).
// Checks (Exo's rearrange_dim texts): the whole of `x` is not passed to a
// call (`Cannot permute buffer 'x' because it is passed as a sub-procedure
// argument at <loc>`; a window with one interval may be), and no window
// keeps both dimensions, whose order would change (`Permuting the window
// expression at <loc> would change the meaning of the window; ...`).
// The signature changes, so the result has no parent: no forwarding.
#pragma once

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// `param` is the location of a 2-D tensor or window parameter
// (std::invalid_argument otherwise).
Proc transpose(const Proc& proc, const cursors::Location& param);

}  // namespace exo2::primitives
