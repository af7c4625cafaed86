#include "exo2/primitives/location_paths.hpp"

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

StmtPath to_stmt_path(const cursors::Path& stmt) {
  StmtPath out;
  for (size_t k = 0; k < stmt.size(); k++) {
    const cursors::Step& step = stmt[k];
    if (!cursors::is_statement_slot(step.slot))
      throw ArgumentError("expected a statement path");
    if (k + 1 == stmt.size()) {
      out.index = step.index;
    } else {
      // The next step says which list of this statement it enters.
      int child = stmt[k + 1].slot == cursors::Slot::Orelse ? 1 : 0;
      out.block_path.push_back({step.index, child});
    }
  }
  return out;
}

Stmt stmt_of_kind(const Proc& proc, const cursors::Location& loc,
                  StmtKind kind) {
  if (loc.kind != cursors::LocationKind::Node)
    throw ArgumentError("expected a statement location");
  Stmt s = cursors::resolve_stmt(proc, loc.path);
  if (s->kind != kind) throw ArgumentError("the statement has another kind");
  return s;
}

int interior_gap_index(const Proc& proc, const cursors::Location& gap) {
  if (gap.kind != cursors::LocationKind::Gap)
    throw ArgumentError("expected a gap");
  const Block& list = cursors::enclosing_list(proc, gap.path);
  const int at = gap.gap_index();
  if (at == 0 || at == static_cast<int>(list.size()))
    throw ArgumentError(
        "expected cursor to point to a gap between statements, not at an "
        "edge");
  return at;
}

}  // namespace exo2::primitives
