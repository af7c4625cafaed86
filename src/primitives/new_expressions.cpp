#include "exo2/primitives/new_expressions.hpp"

#include "exo2/core_ir/typecheck.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

namespace {
// Allocations and window statements among the first `count` statements.
void add_earlier_bindings(const Block& list, int count,
                          std::vector<SymbolInfo>& out) {
  for (int k = 0; k < count && k < static_cast<int>(list.size()); k++) {
    const Stmt& s = list[k];
    if (s->kind == StmtKind::Alloc) {
      const auto& a = s->as<Alloc>();
      out.push_back(
          {SymbolInfo::Kind::Allocation, a.name, a.type, a.mem, a.srcinfo});
    } else if (s->kind == StmtKind::WindowStmt) {
      const auto& w = s->as<WindowStmt>();
      out.push_back(
          {SymbolInfo::Kind::Window, w.name, w.rhs->type, nullptr, w.srcinfo});
    }
  }
}
}  // namespace

std::vector<SymbolInfo> variables_in_scope(const Proc& proc,
                                           const cursors::Path& stmt) {
  std::vector<SymbolInfo> out;
  for (const FnArg& a : proc->args)
    out.push_back(
        {SymbolInfo::Kind::Argument, a.name, a.type, a.mem, a.srcinfo});
  Stmt owner;  // null: the procedure body
  for (size_t k = 0; k < stmt.size(); k++) {
    const cursors::Step& step = stmt[k];
    const Block& list = cursors::statement_list(proc, owner, step.slot);
    add_earlier_bindings(list, step.index, out);
    owner = list.at(step.index);
    bool encloses = k + 1 < stmt.size();
    if (encloses && owner->kind == StmtKind::For)
      out.push_back({SymbolInfo::Kind::LoopIterator, owner->as<For>().iter,
                     Type(TypeKind::Index), nullptr, owner->srcinfo});
  }
  return out;
}

Expr typecheck_in_scope(const Proc& proc, const cursors::Path& stmt,
                        const Expr& untyped) {
  std::unordered_map<Sym, Type> env;
  for (const SymbolInfo& v : variables_in_scope(proc, stmt))
    env[v.sym] = v.type;
  return typecheck_expr(untyped, env);
}

}  // namespace exo2::primitives
