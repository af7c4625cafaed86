// lift_reduce_constant (docs/primitives-statements.md): factors a constant
// scale out of an accumulation loop.
//
// Rewrite:
//   x = 0.0                       x = 0.0
//   for i in ...:           →     for i in ...:
//       x += c * e                    x += e
//                                 x = c * x
// Every reduction into `x` in the loop (at any depth) must have the form
// `c * e` with the same `c`: a literal, or a read of a buffer that is not
// written in the loop and whose indices use no variable defined in it.
// Safety: sum(c * e_i) = c * sum(e_i) from a zero start, so:
// - **[fix]** the first statement assigns the literal zero (`cannot lift
//   constant because the buffer is not initialized to zero`; Exo accepts
//   any value, which is unsound);
// - `x` is not read in the loop, and every write to it (through windows
//   too) is one of those reductions to the element the first statement
//   assigns (ExprEqv of the indices in the reduction's context);
// - the other refusals (`... did not find a reduce in the
//   loop body of the form ...`, `... have different constants`, `<c>
//   depends on the variable <v> which is defined within the loop`, `... it
//   is a buffer that is written in the loop body`).
// Calls, window statements and config writes in the loop are not handled:
// UnsupportedStatementError (Python: NotImplementedError).
// Forwarding: the reductions' right-hand sides are replaced (cursors to
// them name `e`); the new assignment is `loop.next()`.
#pragma once

#include <stdexcept>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

class UnsupportedStatementError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// `block` is a block of exactly two statements.
cursors::EditResult lift_reduce_constant(const Proc& proc,
                                         const cursors::Location& block);

}  // namespace exo2::primitives
