// Cursor locations as the primitives use them: typed access to the
// statement at a location, and the split point of a gap.
#pragma once

#include "exo2/analysis/queries.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// The statement at `loc` (a node location), which must have kind `kind`;
// std::invalid_argument otherwise (the Python layer checks argument kinds
// first, so this is a programming error).
Stmt stmt_of_kind(const Proc& proc, const cursors::Location& loc,
                  StmtKind kind);

// The index of the statement after `gap`, which must lie between two
// statements of one list (the split point of fission and autofission);
// std::invalid_argument otherwise.
int interior_gap_index(const Proc& proc, const cursors::Location& gap);

}  // namespace exo2::primitives
