// Procedure.add_assertion (docs/primitives-backend.md): appends a
// precondition, unchecked.
//
// Rewrite: the new expression, typed in the scope of the first statement
// (the parameters), is appended to the preconditions. It must be a bool
// (typechecking error `expected a bool expression` otherwise). Nothing is
// proven: the caller promises it, and later primitives may rely on it.
// The meaning changes (fewer valid calls), so the result has no parent: no
// forwarding.
#pragma once

#include "exo2/core_ir/proc.hpp"

namespace exo2::primitives {

Proc add_assertion(const Proc& proc, const Expr& untyped);

}  // namespace exo2::primitives
