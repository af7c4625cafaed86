// Structural equality of IR trees, with symbols compared by identity.
#pragma once

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

bool equal(const Expr& a, const Expr& b);
bool equal(const Stmt& a, const Stmt& b);
bool equal(const Block& a, const Block& b);
bool equal(const Type& a, const Type& b);
// Same name, arguments, preconditions, body and instruction info. Callees
// are compared by identity of their IR.
bool equal(const Proc& a, const Proc& b);

}  // namespace exo2
