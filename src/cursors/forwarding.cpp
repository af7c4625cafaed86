#include "exo2/cursors/forwarding.hpp"

namespace exo2::cursors {

Forwarding::Forwarding(std::shared_ptr<const ForwardingStep> step) {
  steps_.push_back(std::move(step));
}

Location Forwarding::operator()(const Location& loc) const {
  Location out = loc;
  for (const auto& step : steps_) out = step->forward(out);
  return out;
}

Forwarding Forwarding::then(const Forwarding& next) const {
  Forwarding out = *this;
  out.steps_.insert(out.steps_.end(), next.steps_.begin(), next.steps_.end());
  return out;
}

ListAddress list_of(const Path& stmt_path) {
  return {Path(stmt_path.begin(), stmt_path.end() - 1), stmt_path.back().slot};
}

}  // namespace exo2::cursors
