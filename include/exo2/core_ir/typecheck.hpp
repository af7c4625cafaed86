// The typechecker: turns a procedure built by the frontend (expression types
// Unknown, some windows still written as reads) into a typed procedure.
#pragma once

#include <unordered_map>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// Whether two non-constant control values may be multiplied (`n * m`).
// Kernel source is affine, as Exo's frontend requires; scheduled code may
// hold products, as Exo's new expressions may: the checker proves them with
// nonlinear queries (docs/reference/primitives.md, "New expressions").
enum class ControlProducts { Refused, Allowed };

// Returns the typed procedure, or throws CheckError (typecheck_error) with
// every problem found, in source order. Calls to other procedures must
// already point at typed callees.
Proc typecheck(const Proc& untyped,
               ControlProducts products = ControlProducts::Refused);

// Types one expression built outside a procedure (a primitive's new
// expression, which may multiply control values), whose variables have the
// types in `env`; integer literals are control values. Throws CheckError
// (typecheck_error) on problems.
Expr typecheck_expr(const Expr& untyped,
                    const std::unordered_map<Sym, Type>& env);

}  // namespace exo2
