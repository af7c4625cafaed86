// A Z3 check bounded by a deadline that exo2's own watchdog thread keeps,
// rather than Z3's timer (docs/internals/effect-analysis.md, "Timeouts").
//
// Z3 4.8.12 (Debian 12's libz3) deadlocks in its timer: a worker whose
// timer fired goes back to the pool while the scope that started it still
// holds its mutex, and the next timer of that scope (a `try_for` tactic
// inside a check with a timeout, say) takes that worker and locks the
// mutex again. A query that ran past its timeout could so hang the
// process.
#pragma once

#include <z3++.h>

namespace exo2 {

struct DeadlineCheck {
  z3::check_result result;
  bool timed_out;  // the deadline passed (an `unknown` is then a timeout)
};

// `solver.check()`, interrupted once `timeout_ms` milliseconds have passed.
DeadlineCheck check_within(z3::solver& solver, unsigned timeout_ms);

}  // namespace exo2
