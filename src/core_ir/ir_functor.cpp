#include "exo2/core_ir/ir_functor.hpp"

namespace exo2 {

namespace {

// The statement with statement list `which` replaced.
class WithChildBlock final : public StmtFunctor<Stmt(int, Block)> {
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

Stmt with_child_block(const Stmt& s, int which, Block body) {
  if (!child_block(s, which))
    throw std::invalid_argument(std::string(kind_name(s->kind)) +
                                " statement has no statement list " +
                                std::to_string(which));
  return WithChildBlock().visit(s, which, std::move(body));
}

}  // namespace exo2
