#include "exo2/primitives/substitute.hpp"

#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2::primitives {

namespace {

// One pass over a tree, renaming symbols (`renames`, every occurrence) and
// replacing control reads (`subst`). With `fresh`, each symbol bound inside
// gets a fresh copy, recorded in `renames` before the code that uses it.
// Types are rewritten too (shapes read control variables).
class Rewriter : public IRMutator {
 public:
  Rewriter(Substitution subst, bool fresh,
           std::unordered_map<Sym, Sym> renames = {})
      : subst_(std::move(subst)), renames_(std::move(renames)), fresh_(fresh) {}

 protected:
  Expr mutate_read(const Expr& e) override {
    const auto& r = e->as<Read>();
    if (r.idx.empty()) {
      auto it = subst_.find(r.name);
      if (it != subst_.end()) return it->second;
    }
    return make_read(sym(r.name), mutate(r.idx), r.srcinfo, mutate(r.type));
  }
  Expr mutate_window_expr(const Expr& e) override {
    const auto& w = e->as<WindowExpr>();
    std::vector<WindowAccess> idx;
    for (const WindowAccess& a : w.idx)
      idx.push_back({a.is_interval, mutate(a.lo), mutate(a.hi)});
    return make_window_expr(sym(w.name), std::move(idx), w.srcinfo,
                            mutate(w.type));
  }
  Expr mutate_stride_expr(const Expr& e) override {
    const auto& s = e->as<StrideExpr>();
    return make_stride_expr(sym(s.name), s.dim, s.srcinfo, s.type);
  }

  Stmt mutate_assign(const Stmt& s) override {
    const auto& a = s->as<Assign>();
    return std::make_shared<const Assign>(s->kind, sym(a.name), mutate(a.type),
                                          mutate(a.idx), mutate(a.rhs),
                                          a.srcinfo);
  }
  Stmt mutate_for(const Stmt& s) override {
    const auto& f = s->as<For>();
    Expr lo = mutate(f.lo), hi = mutate(f.hi);
    Sym iter = bind(f.iter);
    return make_for(iter, lo, hi, mutate(f.body), f.mode, f.srcinfo);
  }
  Stmt mutate_alloc(const Stmt& s) override {
    const auto& a = s->as<Alloc>();
    Type t = mutate(a.type);
    if (s->kind == StmtKind::Free)
      return make_free(sym(a.name), t, a.mem, a.srcinfo);
    return make_alloc(bind(a.name), t, a.mem, a.srcinfo);
  }
  Stmt mutate_window_stmt(const Stmt& s) override {
    const auto& w = s->as<WindowStmt>();
    Expr rhs = mutate(w.rhs);
    return make_window_stmt(bind(w.name), rhs, w.srcinfo, w.mem);
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
};

// Whether a symbol occurs: read, written, windowed, bound, or in a type's
// shape.
class Mentions : public IRVisitor {
 public:
  explicit Mentions(const Sym& sym) : sym_(sym) {}
  bool found = false;

 protected:
  void found_it() {
    found = true;
    stop();
  }
  void visit_read(const Read& e) override {
    if (e.name == sym_) found_it();
    IRVisitor::visit_read(e);
  }
  void visit_window_expr(const WindowExpr& e) override {
    if (e.name == sym_) found_it();
    IRVisitor::visit_window_expr(e);
  }
  void visit_stride_expr(const StrideExpr& e) override {
    if (e.name == sym_) found_it();
  }
  void visit_assign(const Assign& s) override {
    if (s.name == sym_) found_it();
    IRVisitor::visit_assign(s);
  }
  void visit_for(const For& s) override {
    if (s.iter == sym_) found_it();
    IRVisitor::visit_for(s);
  }
  void visit_alloc(const Alloc& s) override {
    if (s.name == sym_) found_it();
    IRVisitor::visit_alloc(s);
  }
  void visit_window_stmt(const WindowStmt& s) override {
    if (s.name == sym_) found_it();
    IRVisitor::visit_window_stmt(s);
  }

 private:
  const Sym& sym_;
};

}  // namespace

Expr substitute(const Expr& e, const Substitution& subst) {
  return Rewriter(subst, false).mutate(e);
}
Stmt substitute(const Stmt& s, const Substitution& subst) {
  return Rewriter(subst, false).mutate(s);
}
Block substitute(const Block& block, const Substitution& subst) {
  return Rewriter(subst, false).mutate(block);
}
Block fresh_copy(const Block& block, const Substitution& subst,
                 const std::unordered_map<Sym, Sym>& renames) {
  return Rewriter(subst, true, renames).mutate(block);
}

bool mentions(const Expr& e, const Sym& sym) {
  Mentions m(sym);
  m.visit(e);
  return m.found;
}
bool mentions(const Block& block, const Sym& sym) {
  Mentions m(sym);
  m.visit(block);
  return m.found;
}

}  // namespace exo2::primitives
