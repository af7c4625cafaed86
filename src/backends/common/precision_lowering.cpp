// Precision analysis (Exo's prec_analysis.py): `R` becomes the default
// precision, literals take the precision of the expression they meet, and
// mixing two concrete precisions in one operation is an error. Assignments
// across precisions stay legal: the emitter casts them.
#include <fmt/format.h>

#include <unordered_map>

#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"

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

class PrecisionLowering {
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
    Block body = block(p->body);
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
        const Type ltyp(element_kind(a.name));
        Expr rhs = expr(a.rhs);
        if (is_r(rhs->type)) rhs = coerce(rhs, ltyp.kind());
        return std::make_shared<const Assign>(s->kind, a.name, ltyp, a.idx, rhs,
                                              s->srcinfo);
      }
      case StmtKind::WriteConfig: {
        const auto& w = s->as<WriteConfig>();
        Expr rhs = expr(w.rhs);
        const Type& ltyp = w.config->lookup_type(w.field);
        if (is_r(rhs->type)) rhs = coerce(rhs, ltyp.kind());
        return make_write_config(w.config, w.field, rhs, s->srcinfo);
      }
      case StmtKind::WindowStmt: {
        const auto& w = s->as<WindowStmt>();
        Expr rhs = expr(w.rhs);
        types_[w.name] = rhs->type;
        return make_window_stmt(w.name, rhs, s->srcinfo, w.mem);
      }
      case StmtKind::Alloc: {
        const auto& a = s->as<Alloc>();
        const Type typ = resolve(a.type);
        types_[a.name] = typ;
        return make_alloc(a.name, typ, a.mem, s->srcinfo);
      }
      case StmtKind::Call: {
        const auto& c = s->as<Call>();
        std::vector<Expr> args;
        for (size_t k = 0; k < c.args.size(); ++k) {
          Expr a = expr(c.args[k]);
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
      case StmtKind::If: {
        const auto& i = s->as<If>();
        return make_if(i.cond, block(i.body), block(i.orelse), s->srcinfo);
      }
      case StmtKind::For: {
        const auto& f = s->as<For>();
        return make_for(f.iter, f.lo, f.hi, block(f.body), f.mode, s->srcinfo);
      }
      case StmtKind::With: {
        const auto& w = s->as<With>();
        return make_with(w.ctx, block(w.body), s->srcinfo);
      }
      default:
        return s;
    }
  }

  Expr expr(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Read: {
        if (!e->type.is_numeric()) return e;
        return with_type(e, splice(e->type, element_kind(e->as<Read>().name)));
      }
      case ExprKind::WindowExpr:
        return with_type(
            e, splice(e->type, element_kind(e->as<WindowExpr>().name)));
      case ExprKind::USub: {
        Expr arg = expr(e->as<USub>().arg);
        if (!e->type.is_numeric()) return e;
        const Type t = arg->type;
        return make_usub(std::move(arg), e->srcinfo, t);
      }
      case ExprKind::BinOp: {
        const auto& b = e->as<BinOp>();
        if (!e->type.is_numeric()) return e;
        Expr lhs = expr(b.lhs), rhs = expr(b.rhs);
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
          error(
              e->srcinfo,
              fmt::format("cannot compute operation '{}' between "
                          "inconsistent precision types: {} and {}",
                          binop_text(b.op), lhs->type.str(), rhs->type.str()));
          typ = Type(TypeKind::Error);
        } else {
          typ = lhs->type;
        }
        return make_binop(b.op, lhs, rhs, e->srcinfo, typ);
      }
      case ExprKind::ExternCall: {
        const auto& x = e->as<ExternCall>();
        std::vector<Expr> args;
        Type typ(TypeKind::R);
        for (const Expr& a : x.args) {
          args.push_back(expr(a));
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
      default:
        return e;
    }
  }

  // Gives the `R` leaves of a data expression the precision `kind`.
  Expr coerce(const Expr& e, TypeKind kind) {
    const Type t(kind);
    switch (e->kind) {
      case ExprKind::Const:
        return with_type(e, t);
      case ExprKind::USub: {
        const Expr& arg = e->as<USub>().arg;
        return make_usub(is_r(arg->type) ? coerce(arg, kind) : arg, e->srcinfo,
                         t);
      }
      case ExprKind::BinOp: {
        const auto& b = e->as<BinOp>();
        return make_binop(b.op, is_r(b.lhs->type) ? coerce(b.lhs, kind) : b.lhs,
                          is_r(b.rhs->type) ? coerce(b.rhs, kind) : b.rhs,
                          e->srcinfo, t);
      }
      case ExprKind::ExternCall: {
        const auto& x = e->as<ExternCall>();
        std::vector<Expr> args;
        for (const Expr& a : x.args)
          args.push_back(is_r(a->type) ? coerce(a, kind) : a);
        return make_extern_call(x.f, std::move(args), e->srcinfo, t);
      }
      default:
        return e;
    }
  }
};

}  // namespace

Proc lower_precision(const Proc& p, TypeKind default_precision) {
  return PrecisionLowering(default_precision).run(p);
}

}  // namespace exo2
