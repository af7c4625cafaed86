#include "exo2/primitives/lift_alloc.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

cursors::Path lift_alloc_target(const Proc& proc,
                                const cursors::Location& alloc, int n_lifts) {
  const Stmt s = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const Alloc& a = s->as<Alloc>();
  cursors::Path target = alloc.path;
  for (int i = 0; i < n_lifts; i++) {
    // The enclosing statement: drop the last statement step.
    if (target.size() < 2)
      refuse(fmt::format("specified lift level {} is more than {}, the "
                         "number of loops and ifs above the allocation",
                         n_lifts, i),
             {.srcinfo = s->srcinfo});
    target.pop_back();
    const Stmt owner = cursors::resolve_stmt(proc, target);
    if (owner->kind != StmtKind::For && owner->kind != StmtKind::If)
      refuse(fmt::format("specified lift level {} is more than {}, the "
                         "number of loops and ifs above the allocation",
                         n_lifts, i),
             {.srcinfo = s->srcinfo});
    if (owner->kind == StmtKind::For) {
      const Sym& iter = owner->as<For>().iter;
      for (const Expr& extent : a.type.shape())
        if (mentions(extent, iter))
          refuse(fmt::format("Cannot lift allocation statement {} past loop "
                             "with iteration variable {} because the "
                             "allocation size depends on {}.",
                             print_stmt(s), iter.name(), iter.name()),
                 {.srcinfo = owner->srcinfo});
    }
  }
  // The size is now evaluated once, before the statement lifted past: the
  // code that ran before the allocation in there (the statements before it
  // in each block, and whole loop bodies, for later iterations) must not
  // write a field it reads.
  Block before;
  for (size_t depth = target.size(); depth < alloc.path.size(); depth++) {
    const cursors::Path owner(alloc.path.begin(),
                              alloc.path.begin() + static_cast<long>(depth));
    const Stmt o = cursors::resolve_stmt(proc, owner);
    const cursors::Step step = alloc.path[depth];
    const Block& list = cursors::statement_list(proc, o, step.slot);
    const auto end =
        o->kind == StmtKind::For ? list.end() : list.begin() + step.index;
    before.insert(before.end(), list.begin(), end);
  }
  const SafetyResult unchanged = prove_config_reads_unchanged(
      a.type.shape(), before,
      fmt::format("the size of {} reads", a.name.name()));
  require_proven(unchanged,
                 fmt::format("Cannot lift the allocation of {}: {}, before "
                             "the allocation.",
                             a.name.name(), unchanged.detail),
                 {.srcinfo = s->srcinfo, .condition = "ReadsUnchanged"});
  return target;
}

cursors::EditResult lift_alloc(const Proc& proc, const cursors::Location& alloc,
                               int n_lifts) {
  const cursors::Path target = lift_alloc_target(proc, alloc, n_lifts);
  return cursors::move(
      proc, alloc, cursors::Location::gap(target, cursors::GapSide::Before));
}

}  // namespace exo2::primitives
