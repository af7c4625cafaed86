// The analyses code generation runs on each procedure before emitting it
// (docs/reference/generated-c.md), in this order.
#pragma once

#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// All procedures reachable from `procs` through calls (instructions
// included, their bodies not followed), each once. Throws CodegenError
// (Value) `found call cycle involving f` when a procedure calls itself
// transitively.
std::vector<Proc> reachable_procs(const std::vector<Proc>& procs);

// Proves with Z3 that no two iterations of any `par` loop touch the same
// element when one of them writes it. Throws CodegenError (Type) listing
// every loop it cannot prove, under the heading `Errors occurred during
// precision checking:` (Exo's wording).
void check_parallel_loops(const Proc& p);

// Lowers the generic real type `R` to `default_precision` (parameters,
// allocations, literals) and gives every data expression its concrete
// precision. Throws CodegenError (Type) listing inconsistent precisions.
Proc lower_precision(const Proc& p, TypeKind default_precision);

// A tensor passed to a window parameter becomes the window of the whole
// tensor; a window passed to a tensor parameter is a CodegenError (Type).
Proc promote_windows(const Proc& p);

// Checks that every data argument of a call lives in the parameter's memory
// (or a subclass of it), and inserts a Free after the last statement of the
// allocating block that uses each allocation (directly or through windows
// derived from it).
Proc place_frees(const Proc& p);

}  // namespace exo2
