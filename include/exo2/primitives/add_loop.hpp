#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// add_loop (docs/primitives-loops.md). Wraps the statement `s` at `stmt` in
// `for iter_name in seq(0, hi): s` (and, with `guard`, in
// `if iter_name == 0:` inside the loop). `hi` is an untyped new expression
// typed before `s`. Safety (unless `unsafe_disable_check`): Idempotent(s)
// and hi > 0 in the context of `s`. A declaration (allocation or window
// statement) is refused, even unchecked: its uses would leave its scope.
// Forwarding: the statement moves into the loop.
cursors::EditResult add_loop(const Proc& proc, const cursors::Location& stmt,
                             const std::string& iter_name, const Expr& hi,
                             bool guard, bool unsafe_disable_check);

}  // namespace exo2::primitives
