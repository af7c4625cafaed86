// insert_noop_call (docs/instruction-selection.md): inserts a call that does
// nothing.
//
// Rewrite: inserts `instr(args)` at the gap. `instr`'s body must be exactly
// `pass` (`Cannot insert a proc whose body is not pass`), so the call has
// no effect and nothing needs proving. The arguments are typed in the scope
// of the gap (CheckError/TypeError when they do not typecheck) and checked
// against the parameters as a call is (`Function argument type
// mismatch:<detail>`, with the typechecker's detail). The argument count is
// checked by the Python layer (TypeError `Function argument count
// mismatch`), and again here.
// Forwarding: as an insertion (everything stays valid).
#pragma once

#include <vector>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `gap` is a gap location; `args` untyped expressions (one per parameter).
cursors::EditResult insert_noop_call(const Proc& proc,
                                     const cursors::Location& gap,
                                     const Proc& instr,
                                     const std::vector<Expr>& args);

}  // namespace exo2::primitives
