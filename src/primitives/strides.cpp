#include "exo2/primitives/strides.hpp"

#include <algorithm>
#include <optional>

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/child_blocks.hpp"
#include "exo2/primitives/control_exprs.hpp"

namespace exo2::primitives {
namespace {

// A statement's own expressions are searched for `stride(name, d)`; calls,
// window statements and the statements with bodies look further.
class StrideObserver
    : private StmtFunctor<void(const Block&, const Sym&, std::set<int>&)> {
 public:
  std::set<int> in_block(const Block& b, const Sym& name) {
    std::set<int> out;
    for (size_t i = 0; i < b.size(); i++)
      stmt(b[i], Block(b.begin() + static_cast<long>(i) + 1, b.end()), name,
           out);
    return out;
  }

  std::set<int> in_callee(const Proc& callee, const Sym& param) {
    // Callees cannot recurse; the guard only keeps a malformed IR finite.
    if (!visiting_.insert(callee.get()).second) return {};
    std::set<int> out;
    for (const Expr& p : callee->preds) expr(p, param, out);
    for (int d : in_block(callee->body, param)) out.insert(d);
    visiting_.erase(callee.get());
    return out;
  }

 private:
  std::set<const ProcNode*> visiting_;

  void expr(const Expr& e, const Sym& name, std::set<int>& out) {
    if (!e) return;
    if (e->kind == ExprKind::StrideExpr && e->as<StrideExpr>().name == name)
      out.insert(e->as<StrideExpr>().dim);
    cursors::for_each_expr_child(
        e, [&](cursors::Step, const Expr& sub) { expr(sub, name, out); });
  }

  // The dimensions of `name` behind the window dimensions `seen` of a
  // window `name[idx]`.
  static void through_window(const std::vector<WindowAccess>& idx,
                             const std::set<int>& seen, std::set<int>& out) {
    for (int k : seen)
      if (int d = interval_position(idx, k); d >= 0) out.insert(d);
  }

  void call(const Call& c, const Sym& name, std::set<int>& out) {
    for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); k++) {
      const Expr& a = c.args[k];
      const Sym& param = c.f->args[k].name;
      if (a->kind == ExprKind::Read && a->as<Read>().name == name &&
          a->as<Read>().idx.empty()) {
        for (int d : in_callee(c.f, param)) out.insert(d);
      } else if (a->kind == ExprKind::WindowExpr &&
                 a->as<WindowExpr>().name == name) {
        through_window(a->as<WindowExpr>().idx, in_callee(c.f, param), out);
      }
      expr(a, name, out);
    }
  }

  // `rest`: the statements after `s` in its list.
  void stmt(const Stmt& s, const Block& rest, const Sym& name,
            std::set<int>& out) {
    cursors::for_each_expr_child(
        s, [&](cursors::Step, const Expr& e) { expr(e, name, out); });
    visit(s, rest, name, out);
  }

  void visit_call(const Stmt& s, const Block&, const Sym& name,
                  std::set<int>& out) override {
    call(s->as<Call>(), name, out);
  }

  void visit_window_stmt(const Stmt& s, const Block& rest, const Sym& name,
                         std::set<int>& out) override {
    const WindowStmt& w = s->as<WindowStmt>();
    if (w.rhs->kind == ExprKind::WindowExpr &&
        w.rhs->as<WindowExpr>().name == name)
      through_window(w.rhs->as<WindowExpr>().idx, in_block(rest, w.name), out);
    else if (w.rhs->kind == ExprKind::Read && w.rhs->as<Read>().name == name)
      for (int d : in_block(rest, w.name)) out.insert(d);
  }

  // Statements with bodies look into them; other statements have only
  // their own expressions.
  void visit_stmt_default(const Stmt& s, const Block&, const Sym& name,
                          std::set<int>& out) override {
    for (const ChildBlock& child : child_blocks(s))
      for (int d : in_block(child.block, name)) out.insert(d);
  }
};

// The factors of a product (literal factors multiplied into `constant`).
void factors(const Expr& e, std::vector<std::string>& named,
             int64_t& constant) {
  if (e->kind == ExprKind::BinOp && e->as<BinOp>().op == BinOpKind::Mul) {
    factors(e->as<BinOp>().lhs, named, constant);
    factors(e->as<BinOp>().rhs, named, constant);
    return;
  }
  if (std::optional<int64_t> c = int_literal(e)) {
    constant *= *c;
    return;
  }
  named.push_back(print_expr(e));
}

}  // namespace

std::set<int> observed_strides(const Block& block, const Sym& name) {
  return StrideObserver().in_block(block, name);
}

std::set<int> observed_strides(const Proc& callee, const Sym& param) {
  return StrideObserver().in_callee(callee, param);
}

std::set<int> observed_strides(const Call& call, size_t arg) {
  if (arg >= call.f->args.size()) return {};
  return observed_strides(call.f, call.f->args[arg].name);
}

std::set<int> observed_window_strides(const Proc& proc,
                                      const cursors::Path& path) {
  cursors::Path at = path;
  while (!at.empty() && !cursors::is_statement_slot(at.back().slot))
    at.pop_back();
  const Stmt s = cursors::resolve_stmt(proc, at);
  if (s->kind == StmtKind::Call)
    return observed_strides(s->as<Call>(),
                            static_cast<size_t>(path.back().index));
  if (s->kind != StmtKind::WindowStmt) return {};
  const Block& list = cursors::enclosing_list(proc, at);
  return observed_strides(Block(list.begin() + at.back().index + 1, list.end()),
                          s->as<WindowStmt>().name);
}

int interval_position(const std::vector<WindowAccess>& idx, int k) {
  int seen = 0;
  for (size_t d = 0; d < idx.size(); d++)
    if (idx[d].is_interval && seen++ == k) return static_cast<int>(d);
  return -1;
}

Expr dense_stride(const std::vector<Expr>& shape, size_t d,
                  const SrcInfo& srcinfo) {
  Expr out;
  for (size_t k = d + 1; k < shape.size(); k++)
    out =
        out ? control_binop(BinOpKind::Mul, out, shape[k], srcinfo) : shape[k];
  return out ? out : control_int(1, srcinfo);
}

bool same_stride(QueryContext& ctx, const Expr& a, const Expr& b) {
  std::vector<std::string> fa, fb;
  int64_t ca = 1, cb = 1;
  factors(a, fa, ca);
  factors(b, fb, cb);
  std::sort(fa.begin(), fa.end());
  std::sort(fb.begin(), fb.end());
  if (fa == fb && ca == cb) return true;
  return prove_equivalent(ctx, a, b).proven();
}

void bind_known_strides(QueryContext& ctx,
                        const std::vector<SymbolInfo>& scope) {
  SmtEncoder& enc = ctx.encoder();
  for (const SymbolInfo& s : scope) {
    const Type& t = s.type;
    if (!t.is_tensor() || t.is_window() || s.kind == SymbolInfo::Kind::Window)
      continue;
    z3::expr stride = enc.int_value(1);
    for (size_t d = t.shape().size(); d-- > 0;) {
      enc.bind_stride(s.sym, static_cast<int>(d), stride);
      if (!SmtEncoder::is_encodable(t.shape()[d])) break;
      stride = stride * enc.encode(t.shape()[d]);
    }
  }
  for (const auto& [name, view] : ctx.windows()) {
    int k = 0;
    for (size_t d = 0; d < view.dims.size(); d++)
      if (view.dims[d].is_interval)
        enc.bind_stride(name, k++,
                        enc.stride(view.buffer, static_cast<int>(d)));
  }
}

}  // namespace exo2::primitives
