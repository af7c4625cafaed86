// Copies a procedure with one statement list or one expression replaced.
// Only the nodes along the path are rebuilt; every other subtree is shared
// with the original.
#pragma once

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/forwarding.hpp"

namespace exo2::cursors {

Proc with_statement_list(const Proc& proc, const ListAddress& list,
                         Block new_list);
// `path` leads to an expression (of a statement, or of a parameter's shape).
Proc with_expr(const Proc& proc, const Path& path, Expr new_expr);

}  // namespace exo2::cursors
