// Cursor locations as the primitives use them: the analysis path of a
// statement (queries.hpp's StmtPath) and typed access to the statement.
#pragma once

#include "exo2/analysis/queries.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// The analysis path of the statement at a cursor path (Body/Orelse steps
// only).
StmtPath to_stmt_path(const cursors::Path& stmt);

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
