// How a primitive refuses a rewrite: a SchedulingError whose message is the
// text of docs/reference/primitives.md and whose report (diagnostics.hpp) says
// where, which condition, the counterexample and a hint.
#pragma once

#include <string>

#include "exo2/analysis/queries.hpp"
#include "exo2/core_ir/diagnostics.hpp"

namespace exo2::primitives {

[[noreturn]] void refuse(const std::string& message,
                         SchedulingReport report = {});

// Refuses with `message` unless `result` is proven; the report gets the
// result's counterexample and conflicting accesses, and the solver's detail
// as the hint when the primitive gives none.
void require_proven(const SafetyResult& result, const std::string& message,
                    SchedulingReport report);

}  // namespace exo2::primitives
