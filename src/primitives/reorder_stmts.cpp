#include "exo2/primitives/reorder_stmts.hpp"

#include <fmt/format.h>

#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult reorder_stmts(const Proc& proc,
                                  const cursors::Location& block) {
  if (block.kind != cursors::LocationKind::Block || block.hi - block.lo() != 2)
    throw ArgumentError("reorder_stmts: expected a block of size 2");
  cursors::Path first = block.path;
  cursors::Path second = block.path;
  second.back().index++;
  Stmt s1 = cursors::resolve_stmt(proc, first);
  Stmt s2 = cursors::resolve_stmt(proc, second);

  QueryContext ctx(proc, to_stmt_path(first));
  require_proven(prove_commutes(ctx, {s1}, {s2}),
                 fmt::format("Statements at {} and {} do not commute.",
                             s1->srcinfo.str(), s2->srcinfo.str()),
                 {.srcinfo = s1->srcinfo, .condition = "Commute(S1, S2)"});

  return cursors::move(proc, cursors::Location::node(second),
                       cursors::gap_before(cursors::Location::node(first)));
}

}  // namespace exo2::primitives
