#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

// ---------------------------------------------------------------------------
// IRVisitor

void IRVisitor::visit(const Expr& e) {
  if (!e || statements_only_ || stopped_) return;
  switch (e->kind) {
    case ExprKind::Read:
      return visit_read(e->as<Read>());
    case ExprKind::Const:
      return visit_const(e->as<Const>());
    case ExprKind::USub:
      return visit_usub(e->as<USub>());
    case ExprKind::BinOp:
      return visit_binop(e->as<BinOp>());
    case ExprKind::ExternCall:
      return visit_extern_call(e->as<ExternCall>());
    case ExprKind::WindowExpr:
      return visit_window_expr(e->as<WindowExpr>());
    case ExprKind::StrideExpr:
      return visit_stride_expr(e->as<StrideExpr>());
    case ExprKind::ReadConfig:
      return visit_read_config(e->as<ReadConfig>());
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (stopped_) return;
  switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::Reduce:
      return visit_assign(s->as<Assign>());
    case StmtKind::WriteConfig:
      return visit_write_config(s->as<WriteConfig>());
    case StmtKind::Pass:
      return visit_pass(s->as<Pass>());
    case StmtKind::If:
      return visit_if(s->as<If>());
    case StmtKind::For:
      return visit_for(s->as<For>());
    case StmtKind::Alloc:
    case StmtKind::Free:
      return visit_alloc(s->as<Alloc>());
    case StmtKind::Call:
      return visit_call(s->as<Call>());
    case StmtKind::WindowStmt:
      return visit_window_stmt(s->as<WindowStmt>());
    case StmtKind::With:
      return visit_with(s->as<With>());
    case StmtKind::Sync:
      return visit_sync(s->as<Sync>());
  }
}

void IRVisitor::visit(const Block& b) {
  for (const Stmt& s : b) visit(s);
}

void IRVisitor::visit(const std::vector<Expr>& es) {
  for (const Expr& e : es) visit(e);
}

void IRVisitor::visit_read(const Read& e) { visit(e.idx); }
void IRVisitor::visit_const(const Const&) {}
void IRVisitor::visit_usub(const USub& e) { visit(e.arg); }
void IRVisitor::visit_binop(const BinOp& e) {
  visit(e.lhs);
  visit(e.rhs);
}
void IRVisitor::visit_extern_call(const ExternCall& e) { visit(e.args); }
void IRVisitor::visit_window_expr(const WindowExpr& e) {
  for (const WindowAccess& a : e.idx) {
    visit(a.lo);
    visit(a.hi);
  }
}
void IRVisitor::visit_stride_expr(const StrideExpr&) {}
void IRVisitor::visit_read_config(const ReadConfig&) {}

void IRVisitor::visit_assign(const Assign& s) {
  visit(s.idx);
  visit(s.rhs);
}
void IRVisitor::visit_write_config(const WriteConfig& s) { visit(s.rhs); }
void IRVisitor::visit_pass(const Pass&) {}
void IRVisitor::visit_if(const If& s) {
  visit(s.cond);
  visit(s.body);
  visit(s.orelse);
}
void IRVisitor::visit_for(const For& s) {
  visit(s.lo);
  visit(s.hi);
  visit(s.body);
}
void IRVisitor::visit_alloc(const Alloc& s) {
  if (s.type.is_tensor()) visit(s.type.shape());
}
void IRVisitor::visit_call(const Call& s) {
  visit(s.args);
  visit(s.barriers);
}
void IRVisitor::visit_window_stmt(const WindowStmt& s) { visit(s.rhs); }
void IRVisitor::visit_with(const With& s) { visit(s.body); }
void IRVisitor::visit_sync(const Sync& s) { visit(s.barriers); }

// ---------------------------------------------------------------------------
// IRMutator

bool same_nodes(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (a[i] != b[i]) return false;
  return true;
}

bool same_nodes(const Block& a, const Block& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (a[i] != b[i]) return false;
  return true;
}

Expr IRMutator::mutate(const Expr& e) {
  if (!e || statements_only_) return e;
  switch (e->kind) {
    case ExprKind::Read:
      return mutate_read(e);
    case ExprKind::Const:
      return mutate_const(e);
    case ExprKind::USub:
      return mutate_usub(e);
    case ExprKind::BinOp:
      return mutate_binop(e);
    case ExprKind::ExternCall:
      return mutate_extern_call(e);
    case ExprKind::WindowExpr:
      return mutate_window_expr(e);
    case ExprKind::StrideExpr:
      return mutate_stride_expr(e);
    case ExprKind::ReadConfig:
      return mutate_read_config(e);
  }
  return e;
}

Stmt IRMutator::mutate(const Stmt& s) {
  switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::Reduce:
      return mutate_assign(s);
    case StmtKind::WriteConfig:
      return mutate_write_config(s);
    case StmtKind::Pass:
      return mutate_pass(s);
    case StmtKind::If:
      return mutate_if(s);
    case StmtKind::For:
      return mutate_for(s);
    case StmtKind::Alloc:
    case StmtKind::Free:
      return mutate_alloc(s);
    case StmtKind::Call:
      return mutate_call(s);
    case StmtKind::WindowStmt:
      return mutate_window_stmt(s);
    case StmtKind::With:
      return mutate_with(s);
    case StmtKind::Sync:
      return mutate_sync(s);
  }
  return s;
}

std::vector<Expr> IRMutator::mutate(const std::vector<Expr>& es) {
  if (statements_only_) return es;
  std::vector<Expr> out;
  out.reserve(es.size());
  for (const Expr& e : es) out.push_back(mutate(e));
  return same_nodes(out, es) ? es : out;
}

Type IRMutator::mutate(const Type& t) {
  if (!t.is_tensor() || statements_only_) return t;
  std::vector<Expr> shape = mutate(t.shape());
  if (same_nodes(shape, t.shape())) return t;
  return Type::tensor(t.basetype(), std::move(shape), t.is_window(),
                      t.dim_annotations());
}

Block IRMutator::mutate_block(const Block& b) {
  Block out;
  out.reserve(b.size());
  for (const Stmt& s : b) out.push_back(mutate(s));
  return same_nodes(out, b) ? b : out;
}

Expr IRMutator::mutate_read(const Expr& e) {
  const auto& r = e->as<Read>();
  std::vector<Expr> idx = mutate(r.idx);
  if (same_nodes(idx, r.idx)) return e;
  return make_read(r.name, std::move(idx), r.srcinfo, r.type);
}
Expr IRMutator::mutate_const(const Expr& e) { return e; }
Expr IRMutator::mutate_usub(const Expr& e) {
  const auto& u = e->as<USub>();
  Expr arg = mutate(u.arg);
  if (arg == u.arg) return e;
  return make_usub(std::move(arg), u.srcinfo, u.type);
}
Expr IRMutator::mutate_binop(const Expr& e) {
  const auto& b = e->as<BinOp>();
  Expr lhs = mutate(b.lhs);
  Expr rhs = mutate(b.rhs);
  if (lhs == b.lhs && rhs == b.rhs) return e;
  return make_binop(b.op, std::move(lhs), std::move(rhs), b.srcinfo, b.type);
}
Expr IRMutator::mutate_extern_call(const Expr& e) {
  const auto& c = e->as<ExternCall>();
  std::vector<Expr> args = mutate(c.args);
  if (same_nodes(args, c.args)) return e;
  return make_extern_call(c.f, std::move(args), c.srcinfo, c.type);
}
Expr IRMutator::mutate_window_expr(const Expr& e) {
  const auto& w = e->as<WindowExpr>();
  std::vector<WindowAccess> idx;
  bool changed = false;
  for (const WindowAccess& a : w.idx) {
    WindowAccess m{a.is_interval, mutate(a.lo), mutate(a.hi)};
    changed = changed || m.lo != a.lo || m.hi != a.hi;
    idx.push_back(std::move(m));
  }
  if (!changed) return e;
  return make_window_expr(w.name, std::move(idx), w.srcinfo, w.type);
}
Expr IRMutator::mutate_stride_expr(const Expr& e) { return e; }
Expr IRMutator::mutate_read_config(const Expr& e) { return e; }

Stmt IRMutator::mutate_assign(const Stmt& s) {
  const auto& a = s->as<Assign>();
  std::vector<Expr> idx = mutate(a.idx);
  Expr rhs = mutate(a.rhs);
  if (same_nodes(idx, a.idx) && rhs == a.rhs) return s;
  return std::make_shared<const Assign>(s->kind, a.name, a.type, std::move(idx),
                                        std::move(rhs), a.srcinfo);
}
Stmt IRMutator::mutate_write_config(const Stmt& s) {
  const auto& w = s->as<WriteConfig>();
  Expr rhs = mutate(w.rhs);
  if (rhs == w.rhs) return s;
  return make_write_config(w.config, w.field, std::move(rhs), w.srcinfo);
}
Stmt IRMutator::mutate_pass(const Stmt& s) { return s; }
Stmt IRMutator::mutate_if(const Stmt& s) {
  const auto& i = s->as<If>();
  Expr cond = mutate(i.cond);
  Block body = mutate(i.body);
  Block orelse = mutate(i.orelse);
  if (cond == i.cond && same_nodes(body, i.body) &&
      same_nodes(orelse, i.orelse))
    return s;
  return make_if(std::move(cond), std::move(body), std::move(orelse),
                 i.srcinfo);
}
Stmt IRMutator::mutate_for(const Stmt& s) {
  const auto& f = s->as<For>();
  Expr lo = mutate(f.lo);
  Expr hi = mutate(f.hi);
  Block body = mutate(f.body);
  if (lo == f.lo && hi == f.hi && same_nodes(body, f.body)) return s;
  return make_for(f.iter, std::move(lo), std::move(hi), std::move(body), f.mode,
                  f.srcinfo);
}
Stmt IRMutator::mutate_alloc(const Stmt& s) {
  const auto& a = s->as<Alloc>();
  Type type = mutate(a.type);
  if (!type.is_tensor() || same_nodes(type.shape(), a.type.shape())) return s;
  return std::make_shared<const Alloc>(s->kind, a.name, std::move(type), a.mem,
                                       a.srcinfo);
}
Stmt IRMutator::mutate_call(const Stmt& s) {
  const auto& c = s->as<Call>();
  std::vector<Expr> args = mutate(c.args);
  std::vector<Expr> barriers = mutate(c.barriers);
  if (same_nodes(args, c.args) && same_nodes(barriers, c.barriers)) return s;
  return make_call(c.f, std::move(args), c.srcinfo, std::move(barriers));
}
Stmt IRMutator::mutate_window_stmt(const Stmt& s) {
  const auto& w = s->as<WindowStmt>();
  Expr rhs = mutate(w.rhs);
  if (rhs == w.rhs) return s;
  return make_window_stmt(w.name, std::move(rhs), w.srcinfo, w.mem);
}
Stmt IRMutator::mutate_with(const Stmt& s) {
  const auto& w = s->as<With>();
  Block body = mutate(w.body);
  if (same_nodes(body, w.body)) return s;
  return make_with(w.ctx, std::move(body), w.srcinfo);
}
Stmt IRMutator::mutate_sync(const Stmt& s) {
  const auto& y = s->as<Sync>();
  std::vector<Expr> barriers = mutate(y.barriers);
  if (same_nodes(barriers, y.barriers)) return s;
  return with_barriers(y, std::move(barriers));
}

}  // namespace exo2
