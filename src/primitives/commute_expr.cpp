#include "exo2/primitives/commute_expr.hpp"

#include <algorithm>
#include <string>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/edit_sequence.hpp"

namespace exo2::primitives {
namespace {

using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

Path operand(Path binop, Slot side) {
  binop.push_back(Step{side, 0});
  return binop;
}

}  // namespace

cursors::EditResult commute_expr(const Proc& proc,
                                 const std::vector<Location>& exprs) {
  for (const Location& loc : exprs) {
    Expr e = cursors::resolve_expr(proc, loc.path);
    const bool add_or_mul =
        e->kind == ExprKind::BinOp && (e->as<BinOp>().op == BinOpKind::Add ||
                                       e->as<BinOp>().op == BinOpKind::Mul);
    if (!add_or_mul)
      throw ArgumentError(
          std::string("only '+' or '*' can commute, got ") +
          (e->kind == ExprKind::BinOp ? binop_text(e->as<BinOp>().op) : "?"));
    if (!e->type.is_numeric())
      throw ArgumentError(
          "only numeric (not index or size) expressions can commute by "
          "commute_expr()");
  }

  // Innermost expressions first: swapping an expression only replaces
  // nodes below it, so the locations of enclosing expressions stay valid.
  std::vector<Location> innermost_first = exprs;
  std::stable_sort(innermost_first.begin(), innermost_first.end(),
                   [](const Location& a, const Location& b) {
                     return a.path.size() > b.path.size();
                   });
  EditSequence edits(proc);
  for (const Location& original : innermost_first) {
    const Location loc = edits.forward(original);
    const BinOp& b = cursors::resolve_expr(edits.proc(), loc.path)->as<BinOp>();
    Expr lhs = b.lhs, rhs = b.rhs;
    edits.apply(cursors::replace_expr(
        edits.proc(), Location::node(operand(loc.path, Slot::Lhs)), rhs));
    edits.apply(cursors::replace_expr(
        edits.proc(), Location::node(operand(loc.path, Slot::Rhs)), lhs));
  }
  return edits.result();
}

}  // namespace exo2::primitives
