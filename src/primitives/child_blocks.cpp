#include "exo2/primitives/child_blocks.hpp"

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

std::vector<ChildBlock> child_blocks(const Stmt& s) {
  std::vector<ChildBlock> blocks;
  for (int which = 0; const Block* b = child_block(s, which); ++which)
    blocks.push_back({cursors::block_slot(which), *b});
  return blocks;
}

}  // namespace exo2::primitives
