#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// simplify (primitives.md §10): analysis/simplify.hpp's rewrite of every
// control expression into affine normal form, constant folding, and removal
// of ifs with literal conditions and empty loops. Equivalent by
// construction; no check. Forwarding: a location survives when every
// statement list on its path keeps its length and the statements on the
// path keep their kinds (expression cursors then name the simplified
// expression); other locations die.
cursors::EditResult simplify(const Proc& proc);

}  // namespace exo2::primitives
