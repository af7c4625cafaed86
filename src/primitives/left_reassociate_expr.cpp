#include "exo2/primitives/left_reassociate_expr.hpp"

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

cursors::EditResult left_reassociate_expr(const Proc& proc,
                                          const Location& expr) {
  Expr e = cursors::resolve_expr(proc, expr.path);
  if (e->kind != ExprKind::BinOp || (e->as<BinOp>().op != BinOpKind::Add &&
                                     e->as<BinOp>().op != BinOpKind::Mul))
    throw ArgumentError(
        std::string("Only '+' or '*' can be reassociated, got ") +
        (e->kind == ExprKind::BinOp ? binop_text(e->as<BinOp>().op) : "?"));
  const BinOp& outer = e->as<BinOp>();
  if (outer.rhs->kind != ExprKind::BinOp ||
      outer.rhs->as<BinOp>().op != outer.op)
    throw ArgumentError(
        std::string("The rhs of the expression must be the same binary "
                    "operation as the expression (") +
        binop_text(outer.op) + ")");
  const BinOp& inner = outer.rhs->as<BinOp>();

  Expr a_op_b =
      make_binop(outer.op, outer.lhs, inner.lhs, outer.lhs->srcinfo, e->type);
  EditSequence edits(proc);
  edits.apply(cursors::replace_expr(
      edits.proc(), Location::node(operand(expr.path, Slot::Lhs)), a_op_b));
  edits.apply(cursors::replace_expr(
      edits.proc(), Location::node(operand(expr.path, Slot::Rhs)), inner.rhs));
  return edits.result();
}

}  // namespace exo2::primitives
