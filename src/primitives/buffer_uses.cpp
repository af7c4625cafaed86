#include "exo2/primitives/buffer_uses.hpp"

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/edits.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

namespace {

// Whether two lists hold the same nodes (lengths are equal).
template <class Node>
bool same(const std::vector<Node>& a, const std::vector<Node>& b) {
  for (size_t k = 0; k < a.size(); k++)
    if (a[k] != b[k]) return false;
  return true;
}

// The typechecker's type of a data operation on operands of these types:
// the left operand's.
Type data_binop_type(const Type& lhs, const Type& /*rhs*/) { return lhs; }

}  // namespace

Declaration declaration_at(const Proc& proc, const cursors::Location& decl) {
  if (decl.kind == cursors::LocationKind::Node && decl.path.size() == 1 &&
      decl.path[0].slot == cursors::Slot::Param) {
    const int k = decl.path[0].index;
    const FnArg& a = proc->args.at(static_cast<size_t>(k));
    return {decl, k, a.name, a.type, a.mem, a.srcinfo};
  }
  if (decl.kind == cursors::LocationKind::Node && !decl.path.empty()) {
    Stmt s = cursors::resolve_stmt(proc, decl.path);
    if (s->kind == StmtKind::Alloc) {
      const auto& a = s->as<Alloc>();
      return {decl, -1, a.name, a.type, a.mem, a.srcinfo};
    }
  }
  throw ArgumentError("expected a parameter or an allocation");
}

Proc redeclare(const Proc& proc, const Declaration& d, Type type,
               MemoryPtr mem) {
  if (d.param < 0)
    return cursors::replace_stmt_attributes(
               proc, d.at,
               make_alloc(d.name, std::move(type), std::move(mem), d.srcinfo))
        .proc;
  std::vector<FnArg> args = proc->args;
  FnArg& a = args[static_cast<size_t>(d.param)];
  a.type = std::move(type);
  a.mem = std::move(mem);
  return make_proc(proc->name, std::move(args), proc->preds, proc->body,
                   proc->instr, proc->srcinfo);
}

BufferUseRewriter::BufferUseRewriter(const Sym& buffer, bool follow_windows)
    : tracked_{buffer}, follow_windows_(follow_windows) {}

Proc BufferUseRewriter::rewrite_uses(const Proc& proc) {
  std::vector<Expr> preds = exprs(proc->preds);
  Block body = block(proc->body);
  return make_proc(proc->name, proc->args, std::move(preds), std::move(body),
                   proc->instr, proc->srcinfo);
}

std::vector<Expr> BufferUseRewriter::exprs(const std::vector<Expr>& es) {
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) out.push_back(expr(e));
  return out;
}

Expr BufferUseRewriter::expr(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::Read: {
      const auto& r = e->as<Read>();
      std::vector<Expr> idx = exprs(r.idx);
      Expr out = same(idx, r.idx)
                     ? e
                     : make_read(r.name, std::move(idx), r.srcinfo, r.type);
      return tracked(r.name) ? read(out) : out;
    }
    case ExprKind::WindowExpr: {
      const auto& w = e->as<WindowExpr>();
      std::vector<WindowAccess> idx;
      bool changed = false;
      for (const WindowAccess& a : w.idx) {
        WindowAccess b{a.is_interval, expr(a.lo), expr(a.hi)};
        changed = changed || b.lo != a.lo || b.hi != a.hi;
        idx.push_back(std::move(b));
      }
      Expr out =
          changed ? make_window_expr(w.name, std::move(idx), w.srcinfo, w.type)
                  : e;
      return tracked(w.name) ? window(out) : out;
    }
    case ExprKind::StrideExpr:
      return tracked(e->as<StrideExpr>().name) ? stride(e) : e;
    case ExprKind::USub: {
      Expr arg = expr(e->as<USub>().arg);
      if (arg == e->as<USub>().arg) return e;
      Type t = e->type.is_real_scalar() ? arg->type : e->type;
      return make_usub(std::move(arg), e->srcinfo, std::move(t));
    }
    case ExprKind::BinOp: {
      const auto& b = e->as<BinOp>();
      Expr lhs = expr(b.lhs), rhs = expr(b.rhs);
      if (lhs == b.lhs && rhs == b.rhs) return e;
      Type t = e->type.is_real_scalar() && lhs->type.is_real_scalar() &&
                       rhs->type.is_real_scalar()
                   ? data_binop_type(lhs->type, rhs->type)
                   : e->type;
      return make_binop(b.op, std::move(lhs), std::move(rhs), b.srcinfo,
                        std::move(t));
    }
    case ExprKind::ExternCall: {
      const auto& c = e->as<ExternCall>();
      std::vector<Expr> args = exprs(c.args);
      if (same(args, c.args)) return e;
      std::vector<Type> arg_types;
      for (const Expr& a : args) arg_types.push_back(a->type);
      Type t = e->type;
      try {
        t = c.f->typecheck(arg_types);
      } catch (const ExternTypecheckError&) {
        // The precision check at compile time reports the mismatch.
      }
      return make_extern_call(c.f, std::move(args), c.srcinfo, std::move(t));
    }
    case ExprKind::Const:
    case ExprKind::ReadConfig:
      return e;
  }
  return e;
}

Stmt BufferUseRewriter::stmt(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::Reduce: {
      const auto& a = s->as<Assign>();
      std::vector<Expr> idx = exprs(a.idx);
      Expr rhs = expr(a.rhs);
      Stmt out = same(idx, a.idx) && rhs == a.rhs
                     ? s
                     : std::make_shared<const Assign>(
                           s->kind, a.name, a.type, std::move(idx),
                           std::move(rhs), a.srcinfo);
      return tracked(a.name) ? write(out) : out;
    }
    case StmtKind::WriteConfig: {
      const auto& w = s->as<WriteConfig>();
      Expr rhs = expr(w.rhs);
      return rhs == w.rhs ? s
                          : make_write_config(w.config, w.field, std::move(rhs),
                                              w.srcinfo);
    }
    case StmtKind::If: {
      const auto& i = s->as<If>();
      Expr cond = expr(i.cond);
      Block body = block(i.body), orelse = block(i.orelse);
      if (cond == i.cond && same(body, i.body) && same(orelse, i.orelse))
        return s;
      return make_if(std::move(cond), std::move(body), std::move(orelse),
                     i.srcinfo);
    }
    case StmtKind::For: {
      const auto& f = s->as<For>();
      Expr lo = expr(f.lo), hi = expr(f.hi);
      Block body = block(f.body);
      if (lo == f.lo && hi == f.hi && same(body, f.body)) return s;
      return make_for(f.iter, std::move(lo), std::move(hi), std::move(body),
                      f.mode, f.srcinfo);
    }
    case StmtKind::Call: {
      const auto& c = s->as<Call>();
      std::vector<Expr> args = exprs(c.args);
      std::vector<Expr> barriers = exprs(c.barriers);
      return same(args, c.args) && same(barriers, c.barriers)
                 ? s
                 : make_call(c.f, std::move(args), c.srcinfo,
                             std::move(barriers));
    }
    case StmtKind::WindowStmt: {
      const auto& w = s->as<WindowStmt>();
      if (follow_windows_ && w.rhs->kind == ExprKind::WindowExpr &&
          tracked(w.rhs->as<WindowExpr>().name))
        tracked_.insert(w.name);
      Expr rhs = expr(w.rhs);
      return rhs == w.rhs
                 ? s
                 : make_window_stmt(w.name, std::move(rhs), w.srcinfo, w.mem);
    }
    case StmtKind::With: {
      const auto& w = s->as<With>();
      Block body = block(w.body);
      return same(body, w.body) ? s
                                : make_with(w.ctx, std::move(body), w.srcinfo);
    }
    case StmtKind::Sync: {
      const auto& y = s->as<Sync>();
      std::vector<Expr> barriers = exprs(y.barriers);
      return same(barriers, y.barriers) ? s
                                        : with_barriers(y, std::move(barriers));
    }
    case StmtKind::Pass:
    case StmtKind::Alloc:
    case StmtKind::Free:
      return s;
  }
  return s;
}

Block BufferUseRewriter::block(const Block& b) {
  Block out;
  out.reserve(b.size());
  for (const Stmt& s : b) out.push_back(stmt(s));
  return out;
}

}  // namespace exo2::primitives
