// set_precision (docs/primitives-backend.md): changes the element type of a
// buffer.
//
// Rewrite: `x : f32[n] @ M` → `x : f64[n] @ M` (a parameter or an
// allocation), and every read, write and window of `x`, and of the windows
// taken from it, gets the new element type.
// Safety: none at schedule time; code generation's precision analysis
// checks that no operation mixes two concrete precisions. **[fix]** A
// control-typed declaration (`n : size`) is refused (`cannot set the
// precision or memory of a control value`); Exo fails an assertion.
// Forwarding: everything stays.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `decl` is a parameter or an allocation; `precision` a data type kind
// (std::invalid_argument otherwise).
cursors::EditResult set_precision(const Proc& proc,
                                  const cursors::Location& decl,
                                  TypeKind precision);

}  // namespace exo2::primitives
