// Replacing every read of a control variable inside one statement by a new
// expression, one expression edit per read, so that cursors to the
// surrounding statements and expressions survive (docs/cursors.md, "Forwarding
// across rewrites": a cursor to a replaced read names its replacement).
#pragma once

#include <functional>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// The paths of the reads of `var` (a `Read` without indices) in the
// statement at `stmt` and everything inside it, in pre-order.
std::vector<cursors::Path> paths_of_reads(const Proc& proc,
                                          const cursors::Path& stmt,
                                          const Sym& var);

// Replaces each read `r` of `var` inside the statement at `stmt` by
// `make(r)`.
cursors::EditResult replace_reads(
    const Proc& proc, const cursors::Path& stmt, const Sym& var,
    const std::function<Expr(const Expr& read)>& make);

}  // namespace exo2::primitives
