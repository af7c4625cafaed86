#pragma once

#include <vector>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// specialize (primitives.md §6). The block `B` becomes
// `if c0: B0 elif c1: B1 ... else: Bn` for the n conditions `conds`
// (untyped new expressions, typed before the block; at least one), each Bk
// a copy of B with fresh bound symbols. Checks: every condition is a
// comparison of control expressions, or `and` / `or` of such
// (`Invalid specialization condition.`); no allocation or window
// statement of the block is used after it in its statement list (`Block
// contains allocations ('x',) which are used outside the block.`; [fix]
// window statements are named as such: `Block contains window statements
// ('w',) ...`, where Exo calls them allocations). Safety: exactly one copy
// runs, and each is B, so nothing needs proving. Forwarding: a block location
// equal to `block` → the new if; locations inside the block are invalid.
cursors::EditResult specialize(const Proc& proc, const cursors::Location& block,
                               const std::vector<Expr>& conds);

}  // namespace exo2::primitives
