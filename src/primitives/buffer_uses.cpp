#include "exo2/primitives/buffer_uses.hpp"

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/edits.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

namespace {

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
  std::vector<Expr> preds = mutate(proc->preds);
  Block body = mutate(proc->body);
  return make_proc(proc->name, proc->args, std::move(preds), std::move(body),
                   proc->instr, proc->srcinfo);
}

Expr BufferUseRewriter::mutate_read(const Expr& e) {
  Expr out = IRMutator::mutate_read(e);
  return tracked(e->as<Read>().name) ? read(out) : out;
}

Expr BufferUseRewriter::mutate_window_expr(const Expr& e) {
  Expr out = IRMutator::mutate_window_expr(e);
  return tracked(e->as<WindowExpr>().name) ? window(out) : out;
}

Expr BufferUseRewriter::mutate_stride_expr(const Expr& e) {
  return tracked(e->as<StrideExpr>().name) ? stride(e) : e;
}

Expr BufferUseRewriter::mutate_usub(const Expr& e) {
  Expr arg = mutate(e->as<USub>().arg);
  if (arg == e->as<USub>().arg) return e;
  Type t = e->type.is_real_scalar() ? arg->type : e->type;
  return make_usub(std::move(arg), e->srcinfo, std::move(t));
}

Expr BufferUseRewriter::mutate_binop(const Expr& e) {
  const auto& b = e->as<BinOp>();
  Expr lhs = mutate(b.lhs), rhs = mutate(b.rhs);
  if (lhs == b.lhs && rhs == b.rhs) return e;
  Type t = e->type.is_real_scalar() && lhs->type.is_real_scalar() &&
                   rhs->type.is_real_scalar()
               ? data_binop_type(lhs->type, rhs->type)
               : e->type;
  return make_binop(b.op, std::move(lhs), std::move(rhs), b.srcinfo,
                    std::move(t));
}

Expr BufferUseRewriter::mutate_extern_call(const Expr& e) {
  const auto& c = e->as<ExternCall>();
  std::vector<Expr> args = mutate(c.args);
  if (same_nodes(args, c.args)) return e;
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

Stmt BufferUseRewriter::mutate_assign(const Stmt& s) {
  Stmt out = IRMutator::mutate_assign(s);
  return tracked(s->as<Assign>().name) ? write(out) : out;
}

Stmt BufferUseRewriter::mutate_window_stmt(const Stmt& s) {
  const auto& w = s->as<WindowStmt>();
  if (follow_windows_ && w.rhs->kind == ExprKind::WindowExpr &&
      tracked(w.rhs->as<WindowExpr>().name))
    tracked_.insert(w.name);
  return IRMutator::mutate_window_stmt(s);
}

}  // namespace exo2::primitives
