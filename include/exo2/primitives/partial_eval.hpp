// Procedure.partial_eval (docs/primitives-backend.md): fixes control
// parameters to literal values.
//
// Rewrite: every read of each fixed parameter (in the body, the shapes of
// the other parameters and the preconditions) becomes the literal, and the
// parameter leaves the signature. A `bool` parameter takes the truth of an
// integer value; a `size`/`index`/`stride` one the integer of a bool.
// Checks: only control parameters (`cannot partially evaluate numeric
// (non-index, non-bool) arguments`) and only integer or bool values
// (`cannot partially evaluate to a non-int, non-bool value`), in the order
// given.
// The signature changes, so the result has no parent: no forwarding.
#pragma once

#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2::primitives {

struct ParameterValue {
  int param;  // position in the signature
  ConstValue value;
};

Proc partial_eval(const Proc& proc, const std::vector<ParameterValue>& values);

}  // namespace exo2::primitives
