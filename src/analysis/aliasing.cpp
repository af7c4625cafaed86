#include "exo2/analysis/aliasing.hpp"

#include <fmt/format.h>

#include <set>
#include <unordered_map>

#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {
namespace {

// The first call, in program order, that passes one buffer twice.
class AliasFinder : public IRVisitor {
 public:
  AliasFinder() : IRVisitor(Visits::StatementsOnly) {}
  std::optional<AliasedCall> found;

 protected:
  void visit_window_stmt(const WindowStmt& w) override {
    if (auto viewed = buffer_of(w.rhs)) roots_[w.name] = *viewed;
  }
  void visit_call(const Call& c) override {
    found = call(c, c.srcinfo);
    if (found) stop();
  }

 private:
  std::optional<AliasedCall> call(const Call& c, const SrcInfo& srcinfo) {
    std::set<Sym> passed;
    const size_t n = std::min(c.f->args.size(), c.args.size());
    for (size_t k = 0; k < n; ++k) {
      if (!c.f->args[k].type.is_numeric()) continue;
      std::optional<Sym> b = buffer_of(c.args[k]);
      if (b && !passed.insert(*b).second)
        return AliasedCall{b->name(), c.f->name, srcinfo};
    }
    return std::nullopt;
  }

  // The buffer an argument or window statement views.
  std::optional<Sym> buffer_of(const Expr& e) const {
    Sym name;
    if (e->kind == ExprKind::Read)
      name = e->as<Read>().name;
    else if (e->kind == ExprKind::WindowExpr)
      name = e->as<WindowExpr>().name;
    else
      return std::nullopt;
    auto it = roots_.find(name);
    return it == roots_.end() ? name : it->second;
  }

  std::unordered_map<Sym, Sym> roots_;
};

}  // namespace

std::string AliasedCall::message() const {
  // Two spaces before "Please", as in Exo (rewrite/new_eff.py).
  return fmt::format(
      "Cannot Pass the same buffer '{}' via multiple arguments in call to {}, "
      "since doing so would introduce aliased arguments.  Please contact the "
      "Exo developers if you need support for aliased arguments.",
      buffer, callee);
}

std::optional<AliasedCall> find_aliased_call(const Proc& p) {
  AliasFinder finder;
  finder.visit(p->body);
  return finder.found;
}

}  // namespace exo2
