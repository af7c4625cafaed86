#include "exo2/primitives/cut_loop.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

cursors::EditResult cut_loop(const Proc& proc,
                             const cursors::Location& loop_loc,
                             const Expr& cut_untyped) {
  const Stmt loop_stmt = stmt_of_kind(proc, loop_loc, StmtKind::For);
  const For& loop = loop_stmt->as<For>();
  const Expr cut = typecheck_in_scope(proc, loop_loc.path, cut_untyped,
                                      ExprCategory::Control);
  const SrcInfo& src = loop.srcinfo;

  QueryContext ctx(proc, to_stmt_path(loop_loc.path));
  auto require_le = [&](const Expr& a, const Expr& b, const char* message) {
    require_proven(
        prove_compare(ctx, control_binop(BinOpKind::Sub, b, a, src),
                      BinOpKind::Ge, 0),
        message,
        {.srcinfo = src,
         .condition = "Bound",
         .formula = print_expr(a) + " <= " + print_expr(b),
         .hint = "the cut point must lie within the loop's bounds "
                 "(seq(" +
                 print_expr(loop.lo) + ", " + print_expr(loop.hi) + "))"});
  };
  require_le(loop.lo, cut, "Expected `lo` <= `cut_point`");
  require_le(cut, loop.hi, "Expected `cut_point` <= `hi`");
  const SafetyResult unchanged = prove_config_reads_unchanged(
      {cut, loop.hi}, loop.body,
      fmt::format("the bounds of the second loop over {} read",
                  loop.iter.name()));
  require_proven(unchanged,
                 fmt::format("Cannot cut the loop over {}: {}, and the second "
                             "loop evaluates its bounds after the first ran.",
                             loop.iter.name(), unchanged.detail),
                 {.srcinfo = src, .condition = "ReadsUnchanged"});

  EditSequence edits(proc);
  edits.apply(cursors::replace_stmt_attributes(
      proc, loop_loc,
      make_for(loop.iter, loop.lo, cut, loop.body, loop.mode, src)));
  Stmt second = make_for(loop.iter, cut, loop.hi, loop.body, loop.mode, src);
  edits.apply(cursors::insert(
      edits.proc(),
      cursors::Location::gap(loop_loc.path, cursors::GapSide::After),
      fresh_copy({second})));
  return edits.result();
}

}  // namespace exo2::primitives
