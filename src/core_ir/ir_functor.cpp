#include "exo2/core_ir/ir_functor.hpp"

namespace exo2 {

namespace {

// Statement list `which` of a statement (null where it has none).
class ChildBlock : public StmtFunctor<const Block*(int)> {
 protected:
  const Block* visit_if(const Stmt& s, int which) override {
    const auto& i = s->as<If>();
    return which == 0 ? &i.body : which == 1 ? &i.orelse : nullptr;
  }
  const Block* visit_for(const Stmt& s, int which) override {
    return which == 0 ? &s->as<For>().body : nullptr;
  }
  const Block* visit_with(const Stmt& s, int which) override {
    return which == 0 ? &s->as<With>().body : nullptr;
  }
  const Block* visit_default(const Stmt&, int) override { return nullptr; }
};

// The statement with statement list `which` replaced.
class WithChildBlock : public StmtFunctor<Stmt(int, Block)> {
 protected:
  Stmt visit_if(const Stmt& s, int which, Block body) override {
    const auto& i = s->as<If>();
    if (which == 0)
      return make_if(i.cond, std::move(body), i.orelse, s->srcinfo);
    return make_if(i.cond, i.body, std::move(body), s->srcinfo);
  }
  Stmt visit_for(const Stmt& s, int, Block body) override {
    const auto& f = s->as<For>();
    return make_for(f.iter, f.lo, f.hi, std::move(body), f.mode, s->srcinfo);
  }
  Stmt visit_with(const Stmt& s, int, Block body) override {
    return make_with(s->as<With>().ctx, std::move(body), s->srcinfo);
  }
};

}  // namespace

const Block* child_block(const Stmt& s, int which) {
  return ChildBlock().visit(s, which);
}

Stmt with_child_block(const Stmt& s, int which, Block body) {
  if (!child_block(s, which))
    throw std::invalid_argument(std::string(kind_name(s->kind)) +
                                " statement has no statement list " +
                                std::to_string(which));
  return WithChildBlock().visit(s, which, std::move(body));
}

}  // namespace exo2
