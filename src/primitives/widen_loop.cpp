#include "exo2/primitives/widen_loop.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/statement_rewrite.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult widen_loop(const Proc& proc,
                               const cursors::Location& loop_loc,
                               const std::optional<Expr>& new_lo_untyped,
                               const std::optional<Expr>& new_hi_untyped) {
  const Stmt loop_stmt = stmt_of_kind(proc, loop_loc, StmtKind::For);
  const For& loop = loop_stmt->as<For>();
  const SrcInfo& src = loop.srcinfo;
  auto typed = [&](const std::optional<Expr>& e, const Expr& kept) {
    if (!e) return kept;
    return typecheck_in_scope(proc, loop_loc.path, *e, ExprCategory::Control);
  };
  const Expr new_lo = typed(new_lo_untyped, loop.lo);
  const Expr new_hi = typed(new_hi_untyped, loop.hi);

  QueryContext ctx(proc, loop_loc.path);
  auto require_le = [&](const Expr& a, const Expr& b, const std::string& what) {
    const std::string formula = print_expr(a) + " <= " + print_expr(b);
    require_proven(
        prove_compare(ctx, control_binop(BinOpKind::Sub, b, a, src),
                      BinOpKind::Ge, 0),
        fmt::format("Cannot widen the loop over {}: {} may not hold ({})",
                    loop.iter.name(), formula, what),
        {.srcinfo = src,
         .condition = "Bound",
         .formula = formula,
         .hint = "a widened loop runs every iteration of seq(" +
                 print_expr(loop.lo) + ", " + print_expr(loop.hi) +
                 ") and more"});
  };
  const bool lo_moves = !equal(new_lo, loop.lo);
  const bool hi_moves = !equal(new_hi, loop.hi);
  if (lo_moves) {
    require_le(control_int(0, src), new_lo, "a loop starts at 0 or later");
    require_le(new_lo, loop.lo, "the new lower bound");
  }
  if (hi_moves) require_le(loop.hi, new_hi, "the new upper bound");
  std::vector<Expr> tested;
  if (lo_moves) tested.push_back(loop.lo);
  if (hi_moves) tested.push_back(loop.hi);
  const SafetyResult unchanged = prove_config_reads_unchanged(
      tested, loop.body,
      fmt::format("the bounds the widened loop over {} tests read",
                  loop.iter.name()));
  require_proven(unchanged,
                 fmt::format("Cannot widen the loop over {}: {}, and the body "
                             "would test them in every iteration.",
                             loop.iter.name(), unchanged.detail),
                 {.srcinfo = src, .condition = "ReadsUnchanged"});

  // The test: `lo <= i`, `i < hi`, or both joined by `and`.
  std::optional<Expr> cond;
  const Expr i = iterator_read(loop.iter, src);
  if (lo_moves) cond = control_binop(BinOpKind::Le, loop.lo, i, src);
  if (hi_moves) {
    const Expr below = control_binop(BinOpKind::Lt, i, loop.hi, src);
    cond = cond ? control_binop(BinOpKind::And, *cond, below, src) : below;
  }

  // One spine rebuild: the loop is rewritten apart.
  cursors::StatementRewrite edits(proc, loop_loc);
  const cursors::Path loop_path = edits.stmt();
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), cursors::Location::node(loop_path),
      make_for(loop.iter, new_lo, new_hi, loop.body, loop.mode, src)));
  if (cond) {
    cursors::Path body_path = loop_path;
    body_path.push_back({cursors::Slot::Body, 0});
    edits.apply(cursors::wrap(
        edits.proc(),
        cursors::Location::block(body_path, static_cast<int>(loop.body.size())),
        [&](Block b) { return make_if(*cond, std::move(b), {}, src); }));
  }
  return edits.result();
}

}  // namespace exo2::primitives
