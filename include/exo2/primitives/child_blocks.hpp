// The statement lists directly inside a statement, for walks that carry
// cursor paths (the traversal bases do not: docs/internals/traversal.md):
// `child_block` of core_ir/ir_functor.hpp, with each list's path slot.
#pragma once

#include <vector>

#include "exo2/core_ir/stmt.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::primitives {

// A statement list and the slot a path step takes into it.
struct ChildBlock {
  cursors::Slot slot;
  const Block& block;
};

// A loop's and a with's body (Slot::Body); an if's body, then its else
// branch (Slot::Orelse), even when empty. Nothing for statements without
// bodies.
std::vector<ChildBlock> child_blocks(const Stmt& s);

}  // namespace exo2::primitives
