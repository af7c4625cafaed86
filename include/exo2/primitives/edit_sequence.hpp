// A primitive's edits applied one after another: each edit works on the
// current procedure, and the forwardings compose into the primitive's
// forwarding (`Forwarding::then`).
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

class EditSequence {
 public:
  explicit EditSequence(Proc proc) : proc_(std::move(proc)) {}

  const Proc& proc() const { return proc_; }
  // A location of the original procedure, in the current one.
  cursors::Location forward(const cursors::Location& original) const {
    return forwarding_(original);
  }
  // Records an edit made on `proc()`.
  void apply(cursors::EditResult edit) {
    proc_ = std::move(edit.proc);
    forwarding_ = forwarding_.then(edit.forwarding);
  }
  cursors::EditResult result() const { return {proc_, forwarding_}; }

 private:
  Proc proc_;
  cursors::Forwarding forwarding_;
};

}  // namespace exo2::primitives
