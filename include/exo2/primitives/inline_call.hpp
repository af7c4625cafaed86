// inline (primitives.md §8; `inline` is a C++ keyword): replaces a call by
// the callee's body.
//
// Rewrite: `f(a1, ..., an)` becomes a copy of `f`'s body with every bound
// variable renamed apart, control parameters replaced by their argument
// expressions, buffer parameters renamed to the buffer passed, and each
// window argument bound first by a window statement `param = <window>`
// (in parameter order), whose name the body then uses. A config field
// passed to a scalar data parameter (`g(Cfg.f)`, passed by reference) is
// read and written in its place: `a = e` becomes `Cfg.f = e`, `a += e`
// becomes `Cfg.f = Cfg.f + e` ([fix] Exo leaves `a = e` with `a` unbound).
// Safety: the callee's preconditions held at the call (they are proven
// when the call is made), so dropping them changes nothing; the arguments
// (other than windows, bound once) are evaluated at each use of their
// parameter instead of once at the call, so the body writes no config
// field they read (ReadsUnchanged).
// Forwarding: the call and everything in it die (`node no longer exists`);
// other cursors survive.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `call` is a call statement.
cursors::EditResult inline_call(const Proc& proc,
                                const cursors::Location& call);

}  // namespace exo2::primitives
