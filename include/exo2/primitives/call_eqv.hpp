// call_eqv (docs/primitives-subprocs-configs.md): calls an equivalent procedure
// instead.
//
// Rewrite: `f(args)` becomes `g(args)`.
// Safety: `g` must be recorded as equivalent to `f` (the Python layer keeps
// the records and passes the config fields `modulo` which the equivalence
// holds; `equivalent` false refuses with `<loc>: Cannot swap call because
// the two procedures are not equivalent`, as does a different parameter
// count). Each field of `modulo` may end with a different value, so it must
// not be read afterwards, by the code after the call, in later iterations
// of enclosing loops, or by either callee running again there (`Cannot
// rewrite at <loc> because the configuration field <C_f> might be read
// subsequently`). Then NoAlias on the result.
// Forwarding: the call and its arguments stay.
#pragma once

#include <vector>

#include "exo2/analysis/effects.hpp"
#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

struct CallSwapResult {
  cursors::EditResult edit;
  // The fields of `modulo` whose differing value may survive to the end of
  // `proc`: the result is equivalent to `proc` modulo these.
  std::vector<Location> visible_fields;
};

CallSwapResult call_eqv(const Proc& proc, const cursors::Location& call,
                        const Proc& eqv_proc, bool equivalent,
                        const std::vector<Location>& modulo);

}  // namespace exo2::primitives
