#include "exo2/primitives/new_expressions.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
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

ExprCategory category_of(const Type& type) {
  if (type.is_bool()) return ExprCategory::Bool;
  if (type.is_indexable()) return ExprCategory::Control;
  if (type.is_real_scalar()) return ExprCategory::Data;
  return ExprCategory::Any;
}

const char* category_description(ExprCategory category) {
  switch (category) {
    case ExprCategory::Control:
      return "size or index type expression";
    case ExprCategory::Bool:
      return "a bool expression";
    case ExprCategory::Data:
      return "a data (numeric scalar) expression";
    case ExprCategory::Any:
      break;
  }
  return "an expression";
}

Expr typecheck_in_scope(const Proc& proc, const cursors::Path& stmt,
                        const Expr& untyped, ExprCategory expected) {
  std::unordered_map<Sym, Type> env;
  for (const SymbolInfo& v : variables_in_scope(proc, stmt))
    env[v.sym] = v.type;
  Expr typed = typecheck_expr(untyped, env);
  if (expected != ExprCategory::Any && category_of(typed->type) != expected)
    throw typecheck_error(
        {{typed->srcinfo, fmt::format("expected {}, but got type {} ({})",
                                      category_description(expected),
                                      typed->type.str(), print_expr(typed))}});
  return typed;
}

}  // namespace exo2::primitives
