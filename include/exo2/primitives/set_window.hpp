// set_window (docs/primitives-backend.md): makes a tensor parameter a window
// parameter, or (**[fix]**, `is_window=false`) a window parameter a dense
// tensor again; Exo crashes on the latter.
//
// Rewrite: `x : f32[n]` ↔ `x : [f32][n]`; whole-buffer reads of `x` (call
// arguments) get the new type.
// Safety: the procedure's meaning does not depend on how its caller lays
// the buffer out. Refused: a parameter that is not a tensor or window
// (`cannot change windowing of a non-tensor/window argument`) and
// **[fix]** making a window of a buffer the body passes whole to a dense
// tensor parameter, which a window cannot be passed to (`cannot make x a
// window: it is passed to f at <loc>, whose parameter y is not a window`);
// Exo accepts it and the procedure no longer compiles.
// Forwarding: everything stays.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `param` is a parameter's location (std::invalid_argument otherwise).
cursors::EditResult set_window(const Proc& proc, const cursors::Location& param,
                               bool is_window);

}  // namespace exo2::primitives
