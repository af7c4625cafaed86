// Window promotion (Exo's win_analysis.py): a tensor passed to a window
// parameter is passed as the window of the whole tensor, so the emitter
// only meets windows where the callee expects them.
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"

namespace exo2 {

namespace {

Expr promote_arg(const Expr& a, const FnArg& param) {
  if (param.type.is_window() && a->type.is_tensor() && !a->type.is_window() &&
      a->kind == ExprKind::Read) {
    std::vector<WindowAccess> idx;
    for (const Expr& n : a->type.shape())
      idx.push_back(WindowAccess::interval(make_int(0, n->srcinfo), n));
    const Type wtyp =
        Type::tensor(a->type.basetype(), a->type.shape(), /*is_window=*/true);
    return make_window_expr(a->as<Read>().name, std::move(idx), a->srcinfo,
                            wtyp);
  }
  if (param.type.is_tensor() && !param.type.is_window() && a->type.is_window())
    throw CodegenError(CodegenError::Kind::Type,
                       a->srcinfo.str() + ": expected a non-window tensor");
  return a;
}

Block promote(const Block& b);

Stmt promote(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Call: {
      const auto& c = s->as<Call>();
      std::vector<Expr> args;
      for (size_t k = 0; k < c.args.size(); ++k)
        args.push_back(promote_arg(c.args[k], c.f->args[k]));
      return make_call(c.f, std::move(args), s->srcinfo, c.barriers);
    }
    case StmtKind::If: {
      const auto& i = s->as<If>();
      return make_if(i.cond, promote(i.body), promote(i.orelse), s->srcinfo);
    }
    case StmtKind::For: {
      const auto& f = s->as<For>();
      return make_for(f.iter, f.lo, f.hi, promote(f.body), f.mode, s->srcinfo);
    }
    case StmtKind::With: {
      const auto& w = s->as<With>();
      return make_with(w.ctx, promote(w.body), s->srcinfo);
    }
    default:
      return s;
  }
}

Block promote(const Block& b) {
  Block out;
  for (const Stmt& s : b) out.push_back(promote(s));
  return out;
}

}  // namespace

Proc promote_windows(const Proc& p) {
  return make_proc(p->name, p->args, p->preds, promote(p->body), p->instr,
                   p->srcinfo);
}

}  // namespace exo2
