// Definition-time bounds and effect checks, decided by Z3.
#pragma once

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// Checks a typed procedure: every access in bounds, every tensor dimension
// positive, every window inside its buffer, every call satisfies the
// callee's preconditions and argument shapes, every precondition
// satisfiable, and no call passes one buffer twice. Throws CheckError
// (effect_check_error) listing every failure with a counterexample, or
// SchedulingError for aliased call arguments.
void check_bounds(const Proc& p);

}  // namespace exo2
