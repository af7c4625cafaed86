// sink_alloc (primitives.md §5): moves an allocation into the loop or if
// that follows it.
//
// Rewrite: `x : T; S` with S a loop or if → the allocation starts S's body;
// an if's else branch gets its own copy (a fresh symbol of the same name,
// which the else branch's uses are renamed to).
// Safety: nothing after S uses `x` (`Cannot sink allocation <alloc> because
// the buffer is accessed outside of the scope provided.`). The next
// statement must be a loop or if (ValueError `Cannot sink alloc because the
// statement after the allocation is not a loop or if statement, it is
// <stmt>`; [fix] also when there is none: `it is None`).
// Into a loop, also: no value flows through `x` from one iteration to a
// later one (prove_no_carried_flow: nothing written at iteration i is read
// at j > i), since each iteration now gets a fresh buffer with undefined
// contents (`Cannot sink allocation <alloc> because values of x may flow
// from one iteration of the loop to the next.`; [fix] Exo does not check),
// and the loop body writes no config field the shape reads, since every
// iteration evaluates the shape again (ReadsUnchanged).
// Forwarding: the allocation follows into the body; the else copy is new
// and the else branch is rebuilt (cursors inside it are invalidated).
#pragma once

#include <stdexcept>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// The next statement is not a loop or if (Python: ValueError).
class SinkAllocTargetError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

cursors::EditResult sink_alloc(const Proc& proc,
                               const cursors::Location& alloc);

}  // namespace exo2::primitives
