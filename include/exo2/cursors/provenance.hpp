// Where a procedure came from: its IR, the procedure it was derived from,
// and the forwarding of that step. Python's `Procedure` wraps one, so that
// `proc.forward(cursor)` walks the chain here.
#pragma once

#include <memory>
#include <optional>

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/forwarding.hpp"

namespace exo2::cursors {

class Provenance;
using ProvenancePtr = std::shared_ptr<const Provenance>;

class Provenance {
 public:
  // A procedure with no parent (a `@proc`, or a result without provenance
  // such as `partial_eval`'s).
  static ProvenancePtr root(Proc proc);
  // A procedure derived from `parent`; without a forwarding, locations
  // cannot be forwarded across this step (legacy ops).
  static ProvenancePtr derived(Proc proc, ProvenancePtr parent,
                               std::optional<Forwarding> forwarding);

  const Proc& proc() const { return proc_; }
  const ProvenancePtr& parent() const { return parent_; }
  const std::optional<Forwarding>& forwarding() const { return forwarding_; }

  // The location in this procedure corresponding to `loc`, a location of
  // `origin` (this procedure or an ancestor). Throws InvalidCursorError
  // (`cannot forward from unknown root`, or the forwarding's reason) or
  // ForwardingNotImplemented.
  Location forward(const Provenance& origin, const Location& loc) const;

  Provenance(Proc proc, ProvenancePtr parent,
             std::optional<Forwarding> forwarding)
      : proc_(std::move(proc)),
        parent_(std::move(parent)),
        forwarding_(std::move(forwarding)) {}

 private:
  Proc proc_;
  ProvenancePtr parent_;
  std::optional<Forwarding> forwarding_;
};

}  // namespace exo2::cursors
