// left_reassociate_expr (docs/primitives-statements.md): regroups a chain of
// `+` / `*`.
//
// Rewrite: `a op (b op c)` → `(a op b) op c` for op `+` or `*`.
// Safety: none needed; `+` and `*` are associative in the exact arithmetic
// the IR means. The expression must be `+` or `*` whose right operand uses
// the same operator: std::invalid_argument otherwise (the Python layer
// reports these as TypeError first).
// Forwarding: as Exo's: the cursor to the left operand names the new
// `a op b`, the cursor to the right operand names `c`; cursors below the
// operands die.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult left_reassociate_expr(const Proc& proc,
                                          const cursors::Location& expr);

}  // namespace exo2::primitives
