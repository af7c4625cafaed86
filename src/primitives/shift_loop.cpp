#include "exo2/primitives/shift_loop.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/replace_reads.hpp"

namespace exo2::primitives {

cursors::EditResult shift_loop(const Proc& proc,
                               const cursors::Location& loop_loc,
                               const Expr& new_lo_untyped) {
  const Stmt loop_stmt = stmt_of_kind(proc, loop_loc, StmtKind::For);
  const For& loop = loop_stmt->as<For>();
  const Expr new_lo = typecheck_in_scope(proc, loop_loc.path, new_lo_untyped,
                                         ExprCategory::Control);
  const SrcInfo& src = loop.srcinfo;

  QueryContext ctx(proc, to_stmt_path(loop_loc.path));
  require_proven(prove_compare(ctx, new_lo, BinOpKind::Ge, 0),
                 "Expected 0 <= `new_lo`",
                 {.srcinfo = src,
                  .condition = "Bound",
                  .formula = "0 <= " + print_expr(new_lo)});
  const SafetyResult unchanged = prove_config_reads_unchanged(
      {loop.lo, new_lo}, loop.body,
      fmt::format("the shifted index of the loop over {} reads",
                  loop.iter.name()));
  require_proven(unchanged,
                 fmt::format("Cannot shift the loop over {}: {}, and the body "
                             "would evaluate it in every iteration.",
                             loop.iter.name(), unchanged.detail),
                 {.srcinfo = src, .condition = "ReadsUnchanged"});

  const Expr length = control_binop(BinOpKind::Sub, loop.hi, loop.lo, src);
  EditSequence edits(proc);
  edits.apply(cursors::replace_stmt_attributes(
      proc, loop_loc,
      make_for(loop.iter, new_lo,
               control_binop(BinOpKind::Add, new_lo, length, src), loop.body,
               loop.mode, src)));
  const Expr offset = control_binop(BinOpKind::Sub, loop.lo, new_lo, src);
  edits.apply(replace_reads(
      edits.proc(), loop_loc.path, loop.iter, [&](const Expr& read) {
        return control_binop(BinOpKind::Add, read, offset, src);
      }));
  return edits.result();
}

}  // namespace exo2::primitives
