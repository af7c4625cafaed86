#include "exo2/primitives/remove_loop.hpp"

#include <fmt/format.h>

#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

using cursors::Location;

cursors::EditResult remove_loop(const Proc& proc, const Location& loop_loc,
                                bool unsafe_disable_check) {
  const Stmt loop_stmt = stmt_of_kind(proc, loop_loc, StmtKind::For);
  const For& loop = loop_stmt->as<For>();
  const SrcInfo& src = loop.srcinfo;
  if (mentions(loop.body, loop.iter))
    refuse(fmt::format("Cannot remove loop, {} is not free in the loop body.",
                       loop.iter.name()),
           {.srcinfo = src});

  QueryContext ctx(proc, loop_loc.path);
  if (!unsafe_disable_check)
    require_proven(
        prove_idempotent(ctx, {loop_stmt}),
        fmt::format("The statement at {} is not idempotent.", src.str()),
        {.srcinfo = src,
         .condition = "Idempotent(loop)",
         .hint = "a reduction, or a location both written and read, makes "
                 "running the body twice differ from running it once"});
  const Expr runs = control_binop(BinOpKind::Gt, loop.hi, loop.lo, src);
  const bool needs_guard =
      !prove_compare(ctx, control_binop(BinOpKind::Sub, loop.hi, loop.lo, src),
                     BinOpKind::Gt, 0)
           .proven();

  // Move the body (guarded if needed) before the loop, then delete it.
  EditSequence edits(proc);
  cursors::Path body_path = loop_loc.path;
  body_path.push_back({cursors::Slot::Body, 0});
  int body_size = static_cast<int>(loop.body.size());
  if (needs_guard) {
    edits.apply(cursors::wrap(
        proc, Location::block(body_path, body_size),
        [&](Block b) { return make_if(runs, std::move(b), {}, src); }));
    body_size = 1;
  }
  edits.apply(
      cursors::move(edits.proc(), Location::block(body_path, body_size),
                    Location::gap(loop_loc.path, cursors::GapSide::Before)));
  cursors::Path moved_loop = loop_loc.path;
  moved_loop.back().index += body_size;
  edits.apply(cursors::remove(edits.proc(), Location::node(moved_loop)));
  return edits.result();
}

}  // namespace exo2::primitives
