// New expressions given to primitives as text (primitives.md §3): the
// Python layer parses them with the variables visible at a context
// statement, and the primitive types them there.
#pragma once

#include <vector>

#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// The variables visible just before the statement at `stmt`: parameters,
// iterators of the enclosing loops, and allocations and window statements
// earlier in the enclosing blocks, outermost first.
std::vector<SymbolInfo> variables_in_scope(const Proc& proc,
                                           const cursors::Path& stmt);

// `untyped` typed with the variables visible before `stmt`; CheckError
// (Python: TypeError) when it does not typecheck.
Expr typecheck_in_scope(const Proc& proc, const cursors::Path& stmt,
                        const Expr& untyped);

}  // namespace exo2::primitives
