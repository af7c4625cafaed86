// Replacing every read of a control variable inside one statement by a new
// expression. The statement is rebuilt once and put back with one edit
// (`cursors::replace_leaves`), so that cursors to the surrounding
// statements and expressions survive, and a cursor to a replaced read
// names its replacement (docs/cursors.md, "Forwarding across rewrites").
#pragma once

#include <functional>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// Replaces each read `r` of `var` (a `Read` without indices) inside the
// statement at `stmt`, in its expressions, the statements inside it and
// the shapes of its allocations, by `make(r)`.
cursors::EditResult replace_reads(
    const Proc& proc, const cursors::Path& stmt, const Sym& var,
    const std::function<Expr(const Expr& read)>& make);

}  // namespace exo2::primitives
