// rewrite_expr (docs/primitives-statements.md): replaces an expression by an
// equal one.
//
// Rewrite: `s[e]` → `s[e']` for the expression `e` at `expr`.
// Safety: ExprEqv(e, e'): the two are equal in every state of the context
// of the statement holding `e` (size arguments, preconditions, enclosing
// loop ranges and if conditions). Refusal: `Expressions are not
// equivalent:\n<e>\nvs.\n<e'>`.
// Forwarding: the cursor to `e` names `e'`; cursors inside `e` die.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `new_expr` is typed in the scope of the statement (typecheck_in_scope;
// CheckError when it does not typecheck).
cursors::EditResult rewrite_expr(const Proc& proc,
                                 const cursors::Location& expr,
                                 const Expr& new_expr);

}  // namespace exo2::primitives
