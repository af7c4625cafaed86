#include "exo2/primitives/location_paths.hpp"

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

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
