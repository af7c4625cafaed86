#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

namespace {

// One pass over a tree, renaming symbols (`renames`, every occurrence) and
// replacing control reads (`subst`). With `fresh`, each symbol bound inside
// gets a fresh copy, recorded in `renames` before the code that uses it.
class Rewriter {
 public:
  Rewriter(Substitution subst, bool fresh,
           std::unordered_map<Sym, Sym> renames = {})
      : subst_(std::move(subst)), renames_(std::move(renames)), fresh_(fresh) {}

  Expr expr(const Expr& e) {
    if (!e) return e;
    switch (e->kind) {
      case ExprKind::Read: {
        const auto& r = e->as<Read>();
        if (r.idx.empty()) {
          auto it = subst_.find(r.name);
          if (it != subst_.end()) return it->second;
        }
        return make_read(sym(r.name), exprs(r.idx), r.srcinfo, type(r.type));
      }
      case ExprKind::Const:
      case ExprKind::ReadConfig:
        return e;
      case ExprKind::USub:
        return make_usub(expr(e->as<USub>().arg), e->srcinfo, e->type);
      case ExprKind::BinOp: {
        const auto& b = e->as<BinOp>();
        return make_binop(b.op, expr(b.lhs), expr(b.rhs), b.srcinfo, b.type);
      }
      case ExprKind::ExternCall: {
        const auto& c = e->as<ExternCall>();
        return make_extern_call(c.f, exprs(c.args), c.srcinfo, c.type);
      }
      case ExprKind::WindowExpr: {
        const auto& w = e->as<WindowExpr>();
        std::vector<WindowAccess> idx;
        for (const WindowAccess& a : w.idx)
          idx.push_back({a.is_interval, expr(a.lo), expr(a.hi)});
        return make_window_expr(sym(w.name), std::move(idx), w.srcinfo,
                                type(w.type));
      }
      case ExprKind::StrideExpr: {
        const auto& s = e->as<StrideExpr>();
        return make_stride_expr(sym(s.name), s.dim, s.srcinfo, s.type);
      }
    }
    return e;
  }

  Block block(const Block& b) {
    Block out;
    for (const Stmt& s : b) out.push_back(stmt(s));
    return out;
  }

  Stmt stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce: {
        const auto& a = s->as<Assign>();
        auto make = s->kind == StmtKind::Assign ? make_assign : make_reduce;
        return make(sym(a.name), type(a.type), exprs(a.idx), expr(a.rhs),
                    a.srcinfo);
      }
      case StmtKind::WriteConfig: {
        const auto& w = s->as<WriteConfig>();
        return make_write_config(w.config, w.field, expr(w.rhs), w.srcinfo);
      }
      case StmtKind::Pass:
        return s;
      case StmtKind::Sync:
        return with_barriers(s->as<Sync>(), exprs(s->as<Sync>().barriers));
      case StmtKind::If: {
        const auto& i = s->as<If>();
        Expr cond = expr(i.cond);
        Block body = block(i.body);
        return make_if(cond, std::move(body), block(i.orelse), i.srcinfo);
      }
      case StmtKind::For: {
        const auto& f = s->as<For>();
        Expr lo = expr(f.lo), hi = expr(f.hi);
        Sym iter = bind(f.iter);
        return make_for(iter, lo, hi, block(f.body), f.mode, f.srcinfo);
      }
      case StmtKind::Alloc:
      case StmtKind::Free: {
        const auto& a = s->as<Alloc>();
        Type t = type(a.type);
        Sym name = s->kind == StmtKind::Alloc ? bind(a.name) : sym(a.name);
        auto make = s->kind == StmtKind::Alloc ? make_alloc : make_free;
        return make(name, t, a.mem, a.srcinfo);
      }
      case StmtKind::Call: {
        const auto& c = s->as<Call>();
        return make_call(c.f, exprs(c.args), c.srcinfo, exprs(c.barriers));
      }
      case StmtKind::WindowStmt: {
        const auto& w = s->as<WindowStmt>();
        Expr rhs = expr(w.rhs);
        return make_window_stmt(bind(w.name), rhs, w.srcinfo, w.mem);
      }
      case StmtKind::With: {
        const auto& w = s->as<With>();
        return make_with(w.ctx, block(w.body), w.srcinfo);
      }
    }
    return s;
  }

 private:
  Substitution subst_;
  std::unordered_map<Sym, Sym> renames_;
  bool fresh_;

  Sym sym(const Sym& s) const {
    auto it = renames_.find(s);
    return it == renames_.end() ? s : it->second;
  }
  // A symbol the code binds: fresh when copying.
  Sym bind(const Sym& s) {
    if (!fresh_) return s;
    Sym copy = s.copy();
    renames_[s] = copy;
    return copy;
  }
  std::vector<Expr> exprs(const std::vector<Expr>& es) {
    std::vector<Expr> out;
    for (const Expr& e : es) out.push_back(expr(e));
    return out;
  }
  Type type(const Type& t) {
    if (!t.is_tensor()) return t;
    return Type::tensor(t.basetype(), exprs(t.shape()), t.is_window(),
                        t.dim_annotations());
  }
};

bool mentions_in(const Expr& e, const Sym& sym);

bool mentions_in_type(const Type& t, const Sym& sym) {
  for (const Expr& e : t.is_tensor() ? t.shape() : std::vector<Expr>{})
    if (mentions_in(e, sym)) return true;
  return false;
}

bool mentions_in(const Expr& e, const Sym& sym) {
  if (!e) return false;
  switch (e->kind) {
    case ExprKind::Read: {
      const auto& r = e->as<Read>();
      if (r.name == sym) return true;
      for (const Expr& i : r.idx)
        if (mentions_in(i, sym)) return true;
      return false;
    }
    case ExprKind::USub:
      return mentions_in(e->as<USub>().arg, sym);
    case ExprKind::BinOp:
      return mentions_in(e->as<BinOp>().lhs, sym) ||
             mentions_in(e->as<BinOp>().rhs, sym);
    case ExprKind::ExternCall:
      for (const Expr& a : e->as<ExternCall>().args)
        if (mentions_in(a, sym)) return true;
      return false;
    case ExprKind::WindowExpr: {
      const auto& w = e->as<WindowExpr>();
      if (w.name == sym) return true;
      for (const WindowAccess& a : w.idx)
        if (mentions_in(a.lo, sym) || mentions_in(a.hi, sym)) return true;
      return false;
    }
    case ExprKind::StrideExpr:
      return e->as<StrideExpr>().name == sym;
    case ExprKind::Const:
    case ExprKind::ReadConfig:
      return false;
  }
  return false;
}

bool mentions_in(const Stmt& s, const Sym& sym) {
  auto any = [&](const std::vector<Expr>& es) {
    for (const Expr& e : es)
      if (mentions_in(e, sym)) return true;
    return false;
  };
  switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::Reduce: {
      const auto& a = s->as<Assign>();
      return a.name == sym || any(a.idx) || mentions_in(a.rhs, sym);
    }
    case StmtKind::WriteConfig:
      return mentions_in(s->as<WriteConfig>().rhs, sym);
    case StmtKind::Pass:
      return false;
    case StmtKind::Sync:
      return any(s->as<Sync>().barriers);
    case StmtKind::If: {
      const auto& i = s->as<If>();
      return mentions_in(i.cond, sym) || mentions(i.body, sym) ||
             mentions(i.orelse, sym);
    }
    case StmtKind::For: {
      const auto& f = s->as<For>();
      return f.iter == sym || mentions_in(f.lo, sym) ||
             mentions_in(f.hi, sym) || mentions(f.body, sym);
    }
    case StmtKind::Alloc:
    case StmtKind::Free:
      return s->as<Alloc>().name == sym ||
             mentions_in_type(s->as<Alloc>().type, sym);
    case StmtKind::Call:
      return any(s->as<Call>().args) || any(s->as<Call>().barriers);
    case StmtKind::WindowStmt:
      return s->as<WindowStmt>().name == sym ||
             mentions_in(s->as<WindowStmt>().rhs, sym);
    case StmtKind::With:
      return mentions(s->as<With>().body, sym);
  }
  return false;
}

}  // namespace

Expr substitute(const Expr& e, const Substitution& subst) {
  return Rewriter(subst, false).expr(e);
}
Stmt substitute(const Stmt& s, const Substitution& subst) {
  return Rewriter(subst, false).stmt(s);
}
Block substitute(const Block& block, const Substitution& subst) {
  return Rewriter(subst, false).block(block);
}
Block fresh_copy(const Block& block, const Substitution& subst,
                 const std::unordered_map<Sym, Sym>& renames) {
  return Rewriter(subst, true, renames).block(block);
}

bool mentions(const Expr& e, const Sym& sym) { return mentions_in(e, sym); }
bool mentions(const Block& block, const Sym& sym) {
  for (const Stmt& s : block)
    if (mentions_in(s, sym)) return true;
  return false;
}

}  // namespace exo2::primitives
