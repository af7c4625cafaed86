// Calls that primitives create or change must satisfy what the definition
// checks of a call statement require (bounds_check.hpp, check_call): windows
// inside their buffers, positive sizes, matching shapes, and the callee's
// preconditions. The generated C assumes the preconditions (`EXO_ASSUME`),
// so a false one is undefined behaviour, not only a wrong assertion.
#pragma once

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// Refuses (SchedulingError with the failed condition and counterexample)
// unless the call statement at `call` in `proc` passes check_call. With
// `before` (the procedure before a primitive changed the call at the same
// path), only conditions the call did not already fail there count: the
// primitive must not make the call worse.
void require_call_safe(const Proc& proc, const cursors::Path& call,
                       const Proc* before = nullptr);

}  // namespace exo2::primitives
