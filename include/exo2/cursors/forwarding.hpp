// Forwarding: how locations in a procedure map to locations in the
// procedure an edit made from it (spec/cursors.md §7).
//
// Every edit (edits.hpp) returns a `Forwarding`; forwardings compose by
// concatenation, so a primitive made of several edits returns the
// composition of theirs, and a procedure's provenance chain composes the
// forwardings of every step since an ancestor (provenance.hpp).
#pragma once

#include <memory>
#include <stdexcept>
#include <vector>

#include "exo2/cursors/location.hpp"

namespace exo2::cursors {

// A location that no longer exists, or a cursor that cannot be used; the
// message is one of the texts of docs/errors.md (`node no longer exists`, ...).
class InvalidCursorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Forwarding across a procedure step that recorded none (legacy ops).
class ForwardingNotImplemented : public std::logic_error {
 public:
  ForwardingNotImplemented()
      : std::logic_error("This forwarding function has not been implemented") {}
};

// The forwarding of one edit.
class ForwardingStep {
 public:
  virtual ~ForwardingStep() = default;
  // The location after the edit; throws InvalidCursorError when the
  // location did not survive it.
  virtual Location forward(const Location& loc) const = 0;
};

// A composable map from old locations to new ones. Default-constructed, it
// is the identity.
class Forwarding {
 public:
  Forwarding() = default;
  explicit Forwarding(std::shared_ptr<const ForwardingStep> step);

  // Throws InvalidCursorError as the first failing step does.
  Location operator()(const Location& loc) const;
  // This forwarding, then `next`.
  Forwarding then(const Forwarding& next) const;
  bool is_identity() const { return steps_.empty(); }

 private:
  std::vector<std::shared_ptr<const ForwardingStep>> steps_;
};

// A statement list: the path of the statement that owns it (empty for the
// procedure body) and which of its lists it is.
struct ListAddress {
  Path owner;
  Slot slot = Slot::Body;
  friend bool operator==(const ListAddress&, const ListAddress&) = default;
};
// The list holding the statement at `stmt_path`.
ListAddress list_of(const Path& stmt_path);

// The forwarding rules of the edits; each is documented with its edit in
// edits.hpp.
Forwarding forward_through_insert(const ListAddress& list, int at, int count);
Forwarding forward_through_replace(const ListAddress& list, int lo, int hi,
                                   int count);
Forwarding forward_through_wrap(const ListAddress& list, int lo, int hi,
                                Slot wrapper_slot);
// `destination` is the path of the first moved statement after the move;
// `others` forwards every location outside the moved range.
Forwarding forward_through_move(const ListAddress& list, int lo, int hi,
                                Path destination, Forwarding others);
Forwarding forward_through_expr_replace(Path replaced);
// The statement at `stmt` changed some attributes; `kept_slots` lists its
// expression slots that still exist.
Forwarding forward_through_stmt_update(Path stmt, std::vector<Step> kept_slots);

}  // namespace exo2::cursors
