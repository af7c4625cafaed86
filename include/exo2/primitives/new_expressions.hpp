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

// What a new expression must be, by where it goes: a loop bound or an
// index (Control: int, index, size or stride), a condition (Bool), a data
// value (Data), or anything the primitive checks itself (Any).
enum class ExprCategory { Any, Control, Bool, Data };

// The category of a value type (Any for tensors and windows).
ExprCategory category_of(const Type& type);

// `size or index type expression`, `a bool expression`, ...: what the
// error of a mismatch says was expected.
const char* category_description(ExprCategory category);

// `untyped` typed with the variables visible before `stmt`; CheckError
// (Python: TypeError) when it does not typecheck or is not of the
// `expected` category. The check keeps a wrong kind of expression (a bool
// for a loop bound) from reaching a primitive's analysis.
Expr typecheck_in_scope(const Proc& proc, const cursors::Path& stmt,
                        const Expr& untyped, ExprCategory expected);

}  // namespace exo2::primitives
