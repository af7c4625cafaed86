// The typechecker: turns a procedure built by the frontend (expression types
// Unknown, some windows still written as reads) into a typed procedure.
#pragma once

#include <unordered_map>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// Returns the typed procedure, or throws CheckError (typecheck_error) with
// every problem found, in source order. Calls to other procedures must
// already point at typed callees.
Proc typecheck(const Proc& untyped);

// Types one expression built outside a procedure (a primitive's new
// expression), whose variables have the types in `env`; integer literals
// are control values. Throws CheckError (typecheck_error) on problems.
Expr typecheck_expr(const Expr& untyped,
                    const std::unordered_map<Sym, Type>& env);

}  // namespace exo2
