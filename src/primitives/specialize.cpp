#include "exo2/primitives/specialize.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

namespace {

// A comparison of control expressions, or `and` / `or` of valid
// conditions.
bool is_valid_condition(const Expr& e) {
  if (e->kind != ExprKind::BinOp) return false;
  const BinOp& b = e->as<BinOp>();
  if (b.op == BinOpKind::And || b.op == BinOpKind::Or)
    return is_valid_condition(b.lhs) && is_valid_condition(b.rhs);
  return is_comparison(b.op) && b.lhs->type.is_indexable() &&
         b.rhs->type.is_indexable();
}

// The typed condition: comparisons of control expressions joined by `and`
// and `or`. Operands are typed one by one, so that a comparison of data
// (`alpha == 0.0`) is refused as an invalid condition rather than as a type
// error, as Exo.
Expr typed_condition(const Proc& proc, const cursors::Path& at,
                     const Expr& untyped) {
  auto invalid = [&] {
    refuse("Invalid specialization condition.", {.srcinfo = untyped->srcinfo});
  };
  if (untyped->kind != ExprKind::BinOp) {
    Expr typed = typecheck_in_scope(proc, at, untyped, ExprCategory::Any);
    if (!is_valid_condition(typed)) invalid();
    return typed;
  }
  const BinOp& b = untyped->as<BinOp>();
  if (b.op == BinOpKind::And || b.op == BinOpKind::Or)
    return make_binop(b.op, typed_condition(proc, at, b.lhs),
                      typed_condition(proc, at, b.rhs), untyped->srcinfo,
                      Type(TypeKind::Bool));
  if (!is_comparison(b.op)) invalid();
  Expr lhs = typecheck_in_scope(proc, at, b.lhs, ExprCategory::Any);
  Expr rhs = typecheck_in_scope(proc, at, b.rhs, ExprCategory::Any);
  if (!lhs->type.is_indexable() || !rhs->type.is_indexable()) invalid();
  return typecheck_in_scope(proc, at, untyped, ExprCategory::Any);
}

}  // namespace

cursors::EditResult specialize(const Proc& proc,
                               const cursors::Location& block_loc,
                               const std::vector<Expr>& untyped_conds) {
  if (block_loc.kind != cursors::LocationKind::Block)
    throw ArgumentError("expected a block");
  if (untyped_conds.empty())
    throw ArgumentError("expected at least one condition");
  const Block& list = cursors::enclosing_list(proc, block_loc.path);
  const Block block(list.begin() + block_loc.lo(), list.begin() + block_loc.hi);
  const Block rest(list.begin() + block_loc.hi, list.end());

  // Declarations used after the block, by kind (Exo's text names them all
  // allocations).
  std::vector<std::string> allocs, windows;
  for (const Stmt& s : block)
    if (const Sym* name = declared_name(s); name && mentions(rest, *name))
      (s->kind == StmtKind::Alloc ? allocs : windows)
          .push_back("'" + name->name() + "'");
  auto tuple = [](const std::vector<std::string>& names) {
    return fmt::format("({}{})", fmt::join(names, ", "),
                       names.size() == 1 ? "," : "");
  };
  std::vector<std::string> kinds;
  if (!allocs.empty()) kinds.push_back("allocations " + tuple(allocs));
  if (!windows.empty()) kinds.push_back("window statements " + tuple(windows));
  if (!kinds.empty())
    refuse(fmt::format("Block contains {} which are used outside the block.",
                       fmt::join(kinds, " and ")),
           {.srcinfo = block.front()->srcinfo});

  std::vector<Expr> conds;
  for (const Expr& untyped : untyped_conds)
    conds.push_back(typed_condition(proc, block_loc.path, untyped));

  Block result = fresh_copy(block);
  for (auto c = conds.rbegin(); c != conds.rend(); ++c)
    result = {make_if(*c, fresh_copy(block), std::move(result),
                      block.front()->srcinfo)};
  return cursors::replace(proc, block_loc, std::move(result));
}

}  // namespace exo2::primitives
