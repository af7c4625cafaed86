#include "exo2/primitives/rewrite_expr.hpp"

#include <fmt/format.h>

#include <set>

#include "exo2/core_ir/printer.hpp"
#include "exo2/core_ir/typecheck.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult rewrite_expr(const Proc& proc,
                                 const cursors::Location& expr,
                                 const Expr& untyped) {
  if (expr.kind != cursors::LocationKind::Node)
    throw ArgumentError("rewrite_expr: expected an expression");
  Expr old_expr = cursors::resolve_expr(proc, expr.path);
  // The statement holding the expression: its path is the statement steps
  // that lead to it.
  cursors::Path stmt = expr.path;
  while (!stmt.empty() && !cursors::is_statement_slot(stmt.back().slot))
    stmt.pop_back();
  if (stmt.empty())
    throw ArgumentError(
        "rewrite_expr: expected an expression inside a statement");

  const Expr new_expr =
      typecheck_in_scope(proc, stmt, untyped, category_of(old_expr->type));
  QueryContext ctx(proc, stmt);
  // Data expressions are compared in real arithmetic, as Exo does.
  SafetyResult r = prove_equivalent_in_reals(ctx, old_expr, new_expr);
  require_proven(r,
                 fmt::format("Expressions are not equivalent:\n{}\nvs.\n{}",
                             print_expr(old_expr), print_expr(new_expr)),
                 {.srcinfo = old_expr->srcinfo,
                  .condition = "ExprEqv(e1, e2)",
                  .formula = fmt::format("{} == {}", print_expr(old_expr),
                                         print_expr(new_expr))});
  cursors::EditResult result = cursors::replace_expr(proc, expr, new_expr);
  // Equal values are not enough: the new expression must also fit where it
  // goes (a divisor stays a literal), as the typechecker requires of
  // scheduled code. Only problems the rewrite causes count: a procedure a
  // primitive made may already have some the frontend would refuse
  // (bind_config's config write reading a loop iterator).
  try {
    typecheck(result.proc, ControlProducts::Allowed);
  } catch (const CheckError& e) {
    std::set<std::string> before;
    try {
      typecheck(proc, ControlProducts::Allowed);
    } catch (const CheckError& old) {
      for (const Diagnostic& d : old.diagnostics()) before.insert(d.str());
    }
    for (const Diagnostic& d : e.diagnostics()) {
      if (before.count(d.str())) continue;
      refuse(fmt::format("cannot rewrite {} as {} here: {}",
                         print_expr(old_expr), print_expr(new_expr), d.message),
             {.srcinfo = old_expr->srcinfo});
    }
  }
  return result;
}

}  // namespace exo2::primitives
