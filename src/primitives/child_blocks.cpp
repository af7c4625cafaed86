#include "exo2/primitives/child_blocks.hpp"

#include "exo2/core_ir/ir_functor.hpp"

namespace exo2::primitives {

namespace {

class ChildBlocks : public StmtFunctor<std::vector<ChildBlock>()> {
 protected:
  std::vector<ChildBlock> visit_if(const Stmt& s) override {
    const If& i = s->as<If>();
    return {{cursors::Slot::Body, i.body}, {cursors::Slot::Orelse, i.orelse}};
  }
  std::vector<ChildBlock> visit_for(const Stmt& s) override {
    return {{cursors::Slot::Body, s->as<For>().body}};
  }
  std::vector<ChildBlock> visit_with(const Stmt& s) override {
    return {{cursors::Slot::Body, s->as<With>().body}};
  }
  std::vector<ChildBlock> visit_stmt_default(const Stmt&) override {
    return {};
  }
};

}  // namespace

std::vector<ChildBlock> child_blocks(const Stmt& s) {
  return ChildBlocks().visit(s);
}

}  // namespace exo2::primitives
