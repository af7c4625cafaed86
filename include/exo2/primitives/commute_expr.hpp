// commute_expr (docs/primitives-statements.md): swaps the operands of data `+`
// / `*`.
//
// Rewrite: each `a + b` → `b + a` and `a * b` → `b * a`.
// Safety: none needed; `+` and `*` of data values are commutative (code
// generation keeps the written order, so this is a rewrite of the exact
// arithmetic the IR means). The expressions must be `+` or `*` of numeric
// (not index or size) values: std::invalid_argument otherwise (the Python
// layer reports these as TypeError first).
// Forwarding: cursors to the operands are positional: the cursor to the
// left operand now names the old right one, and vice versa; cursors below
// the operands die.
#pragma once

#include <vector>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult commute_expr(const Proc& proc,
                                 const std::vector<cursors::Location>& exprs);

}  // namespace exo2::primitives
