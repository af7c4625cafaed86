// add_unsafe_guard (docs/primitives-subprocs-configs.md, legacy, deprecated):
// guards a statement with a condition, unchecked.
//
// Rewrite: the first statement `s` of the block becomes `if cond: s'` where
// `s'` is a copy with fresh bound symbols. `cond` (untyped) is typed in the
// scope before `s` and must be a bool (typechecking error otherwise).
// Safety: none: the op is unsafe by design (as in Exo).
// Forwarding: none (the binding records the result without forwarding).
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

Proc add_unsafe_guard(const Proc& proc, const cursors::Location& block,
                      const Expr& cond);

}  // namespace exo2::primitives
