// Precision analysis (Exo's prec_analysis.py): `R` becomes the default
// precision, literals take the precision of the expression they meet, and
// mixing two concrete precisions in one operation is an error. Assignments
// across precisions stay legal: the emitter casts them.
#include <fmt/format.h>

#include <unordered_map>

#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {

bool is_r(const Type& t) { return t.kind() == TypeKind::R; }

// `t` with its data element type replaced by `kind`.
Type splice(const Type& t, TypeKind kind) {
  if (t.is_real_scalar()) return Type(kind);
  if (t.is_tensor())
    return Type::tensor(Type(kind), t.shape(), t.is_window(),
                        t.dim_annotations());
  return t;
}

class PrecisionLowering : public IRMutator {
 public:
  explicit PrecisionLowering(TypeKind dflt) : default_(dflt) {}

  Proc run(const Proc& p) {
    std::vector<FnArg> args;
    for (const FnArg& a : p->args) {
      FnArg out = a;
      out.type = resolve(a.type);
      types_[a.name] = out.type;
      args.push_back(out);
    }
    Block body = mutate(p->body);
    if (!errors_.empty()) {
      std::string msg = "Errors occurred during precision checking:";
      for (const auto& e : errors_) msg += "\n" + e;
      throw CodegenError(CodegenError::Kind::Type, msg);
    }
    return make_proc(p->name, std::move(args), p->preds, std::move(body),
                     p->instr, p->srcinfo);
  }

 private:
  TypeKind default_;
  std::unordered_map<Sym, Type> types_;
  std::vector<std::string> errors_;

  Type resolve(const Type& t) const {
    return t.is_numeric() && is_r(t.basetype()) ? splice(t, default_) : t;
  }
  void error(const SrcInfo& s, const std::string& msg) {
    errors_.push_back(s.str() + ": " + msg);
  }
  TypeKind element_kind(const Sym& s) const {
    auto it = types_.find(s);
    return it == types_.end() ? default_ : it->second.basetype().kind();
  }

  // ---- statements: each stores or passes its data at a concrete precision
  Stmt mutate_assign(const Stmt& s) override {
    const auto& a = s->as<Assign>();
    const Type ltyp(element_kind(a.name));
    Expr rhs = mutate(a.rhs);
    if (is_r(rhs->type)) rhs = coerce(rhs, ltyp.kind());
    return std::make_shared<const Assign>(s->kind, a.name, ltyp, a.idx, rhs,
                                          s->srcinfo);
  }
  Stmt mutate_write_config(const Stmt& s) override {
    const auto& w = s->as<WriteConfig>();
    Expr rhs = mutate(w.rhs);
    const Type& ltyp = w.config->lookup_type(w.field);
    if (is_r(rhs->type)) rhs = coerce(rhs, ltyp.kind());
    return make_write_config(w.config, w.field, rhs, s->srcinfo);
  }
  Stmt mutate_window_stmt(const Stmt& s) override {
    const auto& w = s->as<WindowStmt>();
    Expr rhs = mutate(w.rhs);
    types_[w.name] = rhs->type;
    return make_window_stmt(w.name, rhs, s->srcinfo, w.mem);
  }
  Stmt mutate_alloc(const Stmt& s) override {
    if (s->kind == StmtKind::Free) return s;
    const auto& a = s->as<Alloc>();
    const Type typ = resolve(a.type);
    types_[a.name] = typ;
    return make_alloc(a.name, typ, a.mem, s->srcinfo);
  }
  Stmt mutate_call(const Stmt& s) override {
    const auto& c = s->as<Call>();
    std::vector<Expr> args;
    for (size_t k = 0; k < c.args.size(); ++k) {
      Expr a = mutate(c.args[k]);
      Type st = c.f->args[k].type.basetype();
      if (is_r(st)) st = Type(default_);
      const Type ct = a->type.basetype();
      if (st.is_numeric() && st.kind() != ct.kind())
        error(a->srcinfo, fmt::format("expected precision {}, but got {}",
                                      st.str(), ct.str()));
      args.push_back(a);
    }
    return make_call(c.f, std::move(args), s->srcinfo, c.barriers);
  }
  // Barriers hold no data.
  Stmt mutate_sync(const Stmt& s) override { return s; }

  // ---- data expressions: the precision of their buffers, or of what they
  // combine (control expressions are left as they are)
  Expr mutate_read(const Expr& e) override {
    if (!e->type.is_numeric()) return e;
    return with_type(e, splice(e->type, element_kind(e->as<Read>().name)));
  }
  Expr mutate_window_expr(const Expr& e) override {
    return with_type(e,
                     splice(e->type, element_kind(e->as<WindowExpr>().name)));
  }
  Expr mutate_usub(const Expr& e) override {
    if (!e->type.is_numeric()) return e;
    Expr arg = mutate(e->as<USub>().arg);
    const Type t = arg->type;
    return make_usub(std::move(arg), e->srcinfo, t);
  }
  Expr mutate_binop(const Expr& e) override {
    const auto& b = e->as<BinOp>();
    if (!e->type.is_numeric()) return e;
    Expr lhs = mutate(b.lhs), rhs = mutate(b.rhs);
    Type typ;
    if (lhs->type.is_error() || rhs->type.is_error()) {
      typ = Type(TypeKind::Error);
    } else if (is_r(lhs->type) && is_r(rhs->type)) {
      typ = Type(TypeKind::R);
    } else if (is_r(lhs->type)) {
      typ = rhs->type;
      lhs = coerce(lhs, typ.kind());
    } else if (is_r(rhs->type)) {
      typ = lhs->type;
      rhs = coerce(rhs, typ.kind());
    } else if (lhs->type.kind() != rhs->type.kind()) {
      error(e->srcinfo,
            fmt::format("cannot compute operation '{}' between "
                        "inconsistent precision types: {} and {}",
                        binop_text(b.op), lhs->type.str(), rhs->type.str()));
      typ = Type(TypeKind::Error);
    } else {
      typ = lhs->type;
    }
    return make_binop(b.op, lhs, rhs, e->srcinfo, typ);
  }
  Expr mutate_extern_call(const Expr& e) override {
    const auto& x = e->as<ExternCall>();
    std::vector<Expr> args;
    Type typ(TypeKind::R);
    for (const Expr& a : x.args) {
      args.push_back(mutate(a));
      if (!is_r(args.back()->type)) typ = args.back()->type;
    }
    for (Expr& a : args) {
      if (a->type.kind() == typ.kind()) continue;
      if (is_r(a->type))
        a = coerce(a, typ.kind());
      else
        error(e->srcinfo,
              fmt::format("all extern arguments must have a same type, "
                          "got {} and {}",
                          typ.str(), a->type.str()));
    }
    return make_extern_call(x.f, std::move(args), e->srcinfo, typ);
  }

  // Gives the `R` leaves of a data expression the precision `kind`.
  class Coerce : public ExprFunctor<Expr(TypeKind)> {
   protected:
    Expr visit_const(const Expr& e, TypeKind kind) override {
      return with_type(e, Type(kind));
    }
    Expr visit_usub(const Expr& e, TypeKind kind) override {
      const Expr& arg = e->as<USub>().arg;
      return make_usub(is_r(arg->type) ? visit(arg, kind) : arg, e->srcinfo,
                       Type(kind));
    }
    Expr visit_binop(const Expr& e, TypeKind kind) override {
      const auto& b = e->as<BinOp>();
      return make_binop(b.op, is_r(b.lhs->type) ? visit(b.lhs, kind) : b.lhs,
                        is_r(b.rhs->type) ? visit(b.rhs, kind) : b.rhs,
                        e->srcinfo, Type(kind));
    }
    Expr visit_extern_call(const Expr& e, TypeKind kind) override {
      const auto& x = e->as<ExternCall>();
      std::vector<Expr> args;
      for (const Expr& a : x.args)
        args.push_back(is_r(a->type) ? visit(a, kind) : a);
      return make_extern_call(x.f, std::move(args), e->srcinfo, Type(kind));
    }
    Expr visit_expr_default(const Expr& e, TypeKind) override { return e; }
  };
  static Expr coerce(const Expr& e, TypeKind kind) {
    return Coerce().visit(e, kind);
  }
};

}  // namespace

Proc lower_precision(const Proc& p, TypeKind default_precision) {
  return PrecisionLowering(default_precision).run(p);
}

}  // namespace exo2
