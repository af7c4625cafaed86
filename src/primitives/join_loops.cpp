#include "exo2/primitives/join_loops.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

using cursors::Location;

cursors::EditResult join_loops(const Proc& proc, const Location& loc1,
                               const Location& loc2) {
  // Check arguments.
  const Stmt stmt1 = stmt_of_kind(proc, loc1, StmtKind::For);
  const Stmt stmt2 = stmt_of_kind(proc, loc2, StmtKind::For);
  const For& loop1 = stmt1->as<For>();
  const For& loop2 = stmt2->as<For>();
  cursors::Path next = loc1.path;
  next.back().index++;
  if (loc2.path != next)
    refuse("expected the second loop to be directly after the first",
           {.srcinfo = loop2.srcinfo,
            .hint = "move the statements between the loops out of the way "
                    "(reorder_stmts, fission) first"});

  // Prove safety.
  const SafetyResult unchanged = prove_config_reads_unchanged(
      {loop2.lo, loop2.hi}, loop1.body,
      fmt::format("the bounds of the second loop over {} read",
                  loop2.iter.name()));
  require_proven(unchanged,
                 fmt::format("Cannot join the loops: {}, before they are "
                             "evaluated.",
                             unchanged.detail),
                 {.srcinfo = loop2.srcinfo, .condition = "ReadsUnchanged"});
  QueryContext ctx(proc, to_stmt_path(loc1.path));
  const std::string mid = print_expr(loop1.hi);
  require_proven(
      prove_equivalent(ctx, loop1.hi, loop2.lo),
      fmt::format("expected the first loop upper bound {} to be the same as "
                  "the second loop lower bound {}",
                  mid, print_expr(loop2.lo)),
      {.srcinfo = loop2.srcinfo,
       .condition = "ExprEqv",
       .formula = fmt::format("{} == {}", mid, print_expr(loop2.lo))});
  if (!equal_up_to_renaming(loop1.body, loop2.body, {{loop2.iter, loop1.iter}}))
    refuse("expected the two loops to have identical bodies",
           {.srcinfo = loop2.srcinfo});
  const SrcInfo& src = loop1.srcinfo;
  // seq(lo, mid) then seq(mid, hi) runs the iterations of seq(lo, hi) when
  // lo <= mid <= hi, and none of them, as seq(lo, hi) does, when
  // hi <= mid <= lo. A loop whose bounds are reversed runs no iteration:
  // primitives such as lift_scope create them (docs/primitives-loops.md).
  auto ordered = [&](const Expr& a, const Expr& b, const Expr& c) {
    return control_binop(BinOpKind::And,
                         control_binop(BinOpKind::Le, a, b, src),
                         control_binop(BinOpKind::Le, b, c, src), src);
  };
  const Expr same_iterations =
      control_binop(BinOpKind::Or, ordered(loop1.lo, loop1.hi, loop2.hi),
                    ordered(loop2.hi, loop1.hi, loop1.lo), src);
  require_proven(
      prove_holds(ctx, same_iterations),
      fmt::format("expected {} <= {} <= {}: the joined loop would run other "
                  "iterations than the two loops",
                  print_expr(loop1.lo), mid, print_expr(loop2.hi)),
      {.srcinfo = loop2.srcinfo,
       .condition = "Bound(lo <= mid <= hi)",
       .formula = print_expr(same_iterations),
       .hint = "a loop whose upper bound may be below its lower bound runs "
               "no iteration; guard the loops with an if that orders "
               "their bounds"});

  // Edit: the first loop runs to the second's upper bound; the second
  // loop goes.
  const LoopModePtr mode =
      loop1.mode->same_as(*loop2.mode) ? loop1.mode : LoopMode::seq();
  EditSequence edits(proc);
  edits.apply(cursors::replace_stmt_attributes(
      proc, loc1,
      make_for(loop1.iter, loop1.lo, loop2.hi, loop1.body, mode, src)));
  edits.apply(cursors::remove(edits.proc(), edits.forward(loc2)));
  return edits.result();
}

}  // namespace exo2::primitives
