#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// simplify (docs/primitives-loops.md): analysis/simplify.hpp's rewrite of every
// control expression into affine normal form, constant folding, and removal
// of ifs with literal conditions and empty loops. Equivalent by
// construction; no check. Forwarding follows the statements simplify keeps
// (`KeptStatements`): a node or a gap moves with its statement (expression
// cursors then name the simplified expression), a block spans what its
// statements became; the locations of deleted loops and of ifs replaced by
// a branch die.
cursors::EditResult simplify(const Proc& proc);

}  // namespace exo2::primitives
