// The typechecker: turns a procedure built by the frontend (expression types
// Unknown, some windows still written as reads) into a typed procedure.
#pragma once

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// Returns the typed procedure, or throws CheckError (typecheck_error) with
// every problem found, in source order. Calls to other procedures must
// already point at typed callees.
Proc typecheck(const Proc& untyped);

}  // namespace exo2
