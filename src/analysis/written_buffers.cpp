// Which buffers a block writes (include/exo2/analysis/written_buffers.hpp).
#include "exo2/analysis/written_buffers.hpp"

#include <algorithm>
#include <unordered_map>

#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {
class WriteCollector : public IRVisitor {
 public:
  WriteCollector() : IRVisitor(Visits::StatementsOnly) {}
  std::vector<Sym> writes;

 protected:
  void visit_assign(const Assign& s) override { add(s.name); }
  void visit_window_stmt(const WindowStmt& w) override {
    if (w.rhs->kind == ExprKind::WindowExpr)
      alias_[w.name] = root(w.rhs->as<WindowExpr>().name);
    else if (w.rhs->kind == ExprKind::Read)
      alias_[w.name] = root(w.rhs->as<Read>().name);
  }
  void visit_call(const Call& c) override {
    const std::vector<Sym> callee = written_buffers(c.f->body);
    for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); ++k) {
      const Sym& param = c.f->args[k].name;
      if (std::find(callee.begin(), callee.end(), param) == callee.end())
        continue;
      const Expr& a = c.args[k];
      if (a->kind == ExprKind::Read) add(a->as<Read>().name);
      if (a->kind == ExprKind::WindowExpr) add(a->as<WindowExpr>().name);
    }
  }

 private:
  // Window statements alias a buffer: `y = x[...]` then `y[i] = ...`
  // writes x.
  std::unordered_map<Sym, Sym> alias_;

  Sym root(const Sym& s) const {
    auto it = alias_.find(s);
    return it == alias_.end() ? s : it->second;
  }
  void add(const Sym& s) {
    const Sym r = root(s);
    writes.push_back(r);
    if (r != s) writes.push_back(s);
  }
};
}  // namespace

std::vector<Sym> written_buffers(const Block& body) {
  WriteCollector c;
  c.visit(body);
  return c.writes;
}

}  // namespace exo2
