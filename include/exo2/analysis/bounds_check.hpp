// Definition-time bounds and effect checks, decided by Z3.
#pragma once

#include <string>
#include <vector>

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

// One failed condition, as a sentence (`Could not verify assertion n > 100
// in g at k.py:3:11`, `x is written out-of-bounds`) with the counterexample
// (` n = 1`, empty when the solver gave up or nothing is shown).
struct CheckFailure {
  SrcInfo srcinfo;
  std::string what;
  std::string counterexample;
};

// The definition-time checks of the call statement `call` of `p` (a node
// of p's body): windows passed inside their buffers, size arguments
// positive, argument shapes equal to the callee's, and the callee's
// preconditions, each in the context the procedure gives the call (its
// preconditions, enclosing loops and ifs, config values written before).
// For primitives that create or change a call. Empty when all hold.
std::vector<CheckFailure> check_call(const Proc& p, const StmtNode& call);

// What check_bounds would report about `p`, as failures (aliased call
// arguments are not reported); empty when `p` passes.
std::vector<CheckFailure> bounds_failures(const Proc& p);

}  // namespace exo2
