#include "exo2/primitives/eliminate_dead_code.hpp"

#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

using cursors::Location;

cursors::EditResult eliminate_dead_code(const Proc& proc,
                                        const Location& stmt_loc) {
  const Stmt stmt = cursors::resolve_stmt(proc, stmt_loc.path);
  QueryContext ctx(proc, stmt_loc.path);
  if (stmt->kind == StmtKind::For) {
    const For& loop = stmt->as<For>();
    if (decide(ctx, control_binop(BinOpKind::Ge, loop.lo, loop.hi,
                                  loop.srcinfo)) != Truth::AlwaysTrue)
      refuse("Loop condition isn't always False", {.srcinfo = loop.srcinfo});
    return cursors::remove(proc, stmt_loc);
  }

  const If& s = stmt->as<If>();
  const Truth truth = decide(ctx, s.cond);
  if (truth == Truth::Unknown)
    refuse("If condition isn't always True or always False",
           {.srcinfo = s.srcinfo});
  const bool keep_body = truth == Truth::AlwaysTrue;
  const Block& kept = keep_body ? s.body : s.orelse;
  if (kept.empty()) return cursors::remove(proc, stmt_loc);

  // Move the kept branch before the if, then delete the if.
  EditSequence edits(proc);
  cursors::Path first = stmt_loc.path;
  first.push_back({keep_body ? cursors::Slot::Body : cursors::Slot::Orelse, 0});
  const int size = static_cast<int>(kept.size());
  edits.apply(
      cursors::move(proc, Location::block(first, size),
                    Location::gap(stmt_loc.path, cursors::GapSide::Before)));
  cursors::Path moved_if = stmt_loc.path;
  moved_if.back().index += size;
  edits.apply(cursors::remove(edits.proc(), Location::node(moved_if)));
  return edits.result();
}

}  // namespace exo2::primitives
