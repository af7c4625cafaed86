// Rewriting one statement apart from its procedure, so that a primitive
// made of several edits rebuilds the procedure's spine once.
//
// The statement is taken out into a local procedure whose body is
// `[pass, statement, pass]` (the passes stand for its neighbours). The
// primitive applies its edits there, where each one rebuilds only the
// local tree; `result()` then puts the statements that replaced it back
// into the real procedure with one spine rebuild and one forwarding step,
// which forwards a location by translating it into the local procedure,
// running the local edits' forwarding, and translating it back. Locations
// forward exactly as through the same edits made on the real procedure.
// docs/internals/cursor-forwarding.md explains the rule.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::cursors {

class StatementRewrite {
 public:
  // `stmt` is a node location of a statement of `proc`.
  StatementRewrite(Proc proc, const Location& stmt);

  // The local procedure as the edits so far left it.
  const Proc& proc() const { return local_; }
  // A location of the original procedure inside the statement (the
  // statement itself included), in the local procedure before any edit.
  Location to_local(const Location& loc) const;
  // The statement's path in the local procedure, `[(Body, 1)]`.
  Path stmt() const { return Path{Step{Slot::Body, 1}}; }
  // A location of the original procedure inside the statement, in the
  // local procedure as the edits so far left it.
  Location forward(const Location& loc) const {
    return local_forwarding_(to_local(loc));
  }

  // Records an edit made on `proc()`. The edits must leave at least one
  // statement between the two passes, and keep the passes.
  void apply(EditResult local_edit);
  // The real procedure with the rewritten statement, and the forwarding.
  EditResult result() const;

 private:
  Proc original_;
  Path stmt_path_;
  Proc local_;
  Forwarding local_forwarding_;
};

}  // namespace exo2::cursors
