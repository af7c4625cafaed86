// bind_expr (docs/primitives-buffers.md): binds a data expression to a new
// scalar.
//
// Rewrite: inserts `new : <precision of e> @ DRAM; new = e` before the
// statement holding the first expression `e` (with several expressions,
// the statement at the level shared with the last one), then replaces the
// given expressions that print like `e`, in program order, by `new`.
// Replacement proceeds statement by statement through the rest of that
// block and stops at the first statement that modifies a location `e`
// reads (a loop or if holding such a write gets no replacement; a simple
// statement still does, since it evaluates `e` before writing).
// Safety: every given expression is replaced before the stop (`Unsafe to
// bind all of the provided exprs.`); [fix] the variables `e` reads are all
// visible where `new = e` goes (Exo may lift the binding out of the loop
// whose iterator `e` reads), and writes by calls and config writes stop the
// replacement too (Exo only looks at assignments and reductions).
// Forwarding: the bound expressions forward to the reads of `new`;
// everything else stays.
#pragma once

#include <string>
#include <vector>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `exprs` are data expressions (the first one is bound), in program order.
cursors::EditResult bind_expr(const Proc& proc,
                              const std::vector<cursors::Location>& exprs,
                              const std::string& new_name);

}  // namespace exo2::primitives
