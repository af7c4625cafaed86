#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

void refuse(const std::string& message, SchedulingReport report) {
  throw SchedulingError(message, std::move(report));
}

void require_proven(const SafetyResult& result, const std::string& message,
                    SchedulingReport report) {
  if (result.proven()) return;
  report.counterexample = result.counterexample;
  if (result.first) report.conflicting_accesses.push_back(result.first->str());
  if (result.second)
    report.conflicting_accesses.push_back(result.second->str());
  if (report.hint.empty() && result.timed_out()) report.hint = result.detail;
  refuse(message, std::move(report));
}

}  // namespace exo2::primitives
