#include "exo2/primitives/divide_with_recompute.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/replace_reads.hpp"

namespace exo2::primitives {

using cursors::Location;
using cursors::Slot;

cursors::EditResult divide_with_recompute(const Proc& proc,
                                          const Location& loop_loc,
                                          const Expr& outer_hi_untyped,
                                          int64_t stride,
                                          const std::string& outer_name,
                                          const std::string& inner_name) {
  // Check arguments.
  const Stmt loop_stmt = stmt_of_kind(proc, loop_loc, StmtKind::For);
  const For& loop = loop_stmt->as<For>();
  const SrcInfo& src = loop.srcinfo;
  const Expr outer_hi = typecheck_in_scope(
      proc, loop_loc.path, outer_hi_untyped, ExprCategory::Control);
  if (int_literal(loop.lo) != 0)
    refuse(fmt::format("expected the lower bound of the loop to be zero, got "
                       "{}.",
                       print_expr(loop.lo)),
           {.srcinfo = src, .hint = "call shift_loop(p, loop, 0) first"});

  // Prove safety.
  const SafetyResult unchanged = prove_config_reads_unchanged(
      {loop.hi, outer_hi}, loop.body, "the inner loop's bound reads");
  require_proven(unchanged,
                 fmt::format("Cannot divide the loop over {}: {}, and the "
                             "inner loop evaluates its bound in every outer "
                             "iteration.",
                             loop.iter.name(), unchanged.detail),
                 {.srcinfo = src, .condition = "ReadsUnchanged"});
  QueryContext ctx(proc, to_stmt_path(loop_loc.path));
  require_proven(
      prove_idempotent(ctx, {loop_stmt}),
      fmt::format("The statement at {} is not idempotent.",
                  loop.body[0]->srcinfo.str()),
      {.srcinfo = src,
       .condition = "Idempotent(loop)",
       .hint = "recomputed iterations must not read what other iterations "
               "write, nor reduce"});
  const Expr q = control_int(stride, src);
  Expr covered = control_binop(BinOpKind::Mul, outer_hi, q, src);
  if (outer_hi->kind == ExprKind::BinOp) {
    const BinOp& div = outer_hi->as<BinOp>();
    if (div.op == BinOpKind::Div && int_literal(div.rhs) == stride)
      covered =
          control_binop(BinOpKind::Sub, div.lhs,
                        control_binop(BinOpKind::Mod, div.lhs, q, src), src);
  }
  const Expr recompute = control_binop(BinOpKind::Sub, loop.hi, covered, src);
  const std::string hi_text = print_expr(loop.hi);
  require_proven(
      prove_compare(ctx, recompute, BinOpKind::Ge, 0),
      fmt::format("outer_hi * outer_stride exceeds loop's hi {}", hi_text),
      {.srcinfo = src,
       .condition = "Bound",
       .formula = fmt::format("{} >= 0", print_expr(recompute))});
  const Expr runs = control_binop(
      BinOpKind::Or,
      control_binop(BinOpKind::Gt, outer_hi, control_int(0, src), src),
      control_binop(BinOpKind::Eq, loop.hi, control_int(0, src), src), src);
  if (decide(ctx, runs) != Truth::AlwaysTrue)
    refuse(fmt::format("expected outer_hi {} to be positive when the loop's "
                       "hi {} is",
                       print_expr(outer_hi), hi_text),
           {.srcinfo = src,
            .condition = "Bound",
            .formula = print_expr(runs),
            .hint = "with no outer iteration nothing runs"});

  // Edit: the loop becomes the outer loop, its body moves into the inner
  // loop, and reads of i become io * q + ii.
  const Sym outer(outer_name), inner(inner_name);
  EditSequence edits(proc);
  edits.apply(cursors::replace_stmt_attributes(
      proc, loop_loc,
      make_for(outer, make_int(0, src, Type(TypeKind::Index)), outer_hi,
               loop.body, loop.mode, src)));
  cursors::Path body_path = loop_loc.path;
  body_path.push_back({Slot::Body, 0});
  const Expr inner_hi = control_binop(BinOpKind::Add, q, recompute, src);
  edits.apply(cursors::wrap(
      edits.proc(),
      Location::block(body_path, static_cast<int>(loop.body.size())),
      [&](Block b) {
        return make_for(inner, make_int(0, src, Type(TypeKind::Index)),
                        inner_hi, std::move(b), LoopMode::seq(), src);
      }));
  edits.apply(replace_reads(
      edits.proc(), loop_loc.path, loop.iter, [&](const Expr& read) {
        const SrcInfo& at = read->srcinfo;
        return control_binop(
            BinOpKind::Add,
            control_binop(BinOpKind::Mul, iterator_read(outer, at),
                          control_int(stride, at), at),
            iterator_read(inner, at), at);
      }));
  return edits.result();
}

}  // namespace exo2::primitives
