#include "exo2/primitives/reorder_stmts.hpp"

#include <fmt/format.h>

#include <optional>

#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

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

  // A declaration cannot move below a statement that uses what it declares:
  // the effects of the two may commute while the use would then name a
  // buffer not yet declared.
  std::optional<Sym> declared;
  if (s1->kind == StmtKind::Alloc) declared = s1->as<Alloc>().name;
  if (s1->kind == StmtKind::WindowStmt) declared = s1->as<WindowStmt>().name;
  if (declared && mentions(Block{s2}, *declared))
    refuse(fmt::format("the statement at {} uses {}, which the "
                       "statement at {} declares; it cannot move above it",
                       s2->srcinfo.str(), declared->name(), s1->srcinfo.str()),
           {.srcinfo = s2->srcinfo, .condition = "Commute(S1, S2)"});

  QueryContext ctx(proc, first);
  require_proven(prove_commutes(ctx, {s1}, {s2}),
                 fmt::format("Statements at {} and {} do not commute.",
                             s1->srcinfo.str(), s2->srcinfo.str()),
                 {.srcinfo = s1->srcinfo, .condition = "Commute(S1, S2)"});

  return cursors::move(proc, cursors::Location::node(second),
                       cursors::gap_before(cursors::Location::node(first)));
}

}  // namespace exo2::primitives
