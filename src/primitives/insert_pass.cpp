#include "exo2/primitives/insert_pass.hpp"

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

cursors::EditResult insert_pass(const Proc& proc,
                                const cursors::Location& gap) {
  if (gap.kind != cursors::LocationKind::Gap)
    throw ArgumentError("insert_pass: expected a gap location");
  // As in Exo, the new statement carries the location of the statement (or
  // procedure) whose list receives it.
  cursors::Path owner = cursors::owner_path(gap);
  SrcInfo where = owner.empty() ? proc->srcinfo
                                : cursors::resolve_stmt(proc, owner)->srcinfo;
  return cursors::insert(proc, gap, {make_pass(where)});
}

}  // namespace exo2::primitives
