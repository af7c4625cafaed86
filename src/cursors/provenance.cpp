#include "exo2/cursors/provenance.hpp"

#include <vector>

namespace exo2::cursors {

ProvenancePtr Provenance::root(Proc proc) {
  return std::make_shared<const Provenance>(std::move(proc), nullptr,
                                            std::nullopt);
}

ProvenancePtr Provenance::derived(Proc proc, ProvenancePtr parent,
                                  std::optional<Forwarding> forwarding) {
  return std::make_shared<const Provenance>(std::move(proc), std::move(parent),
                                            std::move(forwarding));
}

Location Provenance::forward(const Provenance& origin,
                             const Location& loc) const {
  // Newest step first; the origin must be on the chain.
  std::vector<const Provenance*> steps;
  const Provenance* p = this;
  while (p && p != &origin) {
    steps.push_back(p);
    p = p->parent_.get();
  }
  if (!p) throw InvalidCursorError("cannot forward from unknown root");
  for (const Provenance* step : steps)
    if (!step->forwarding_) throw ForwardingNotImplemented();
  Location out = loc;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    out = (*(*it)->forwarding_)(out);
  return out;
}

}  // namespace exo2::cursors
