#include "exo2/primitives/sink_alloc.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

cursors::EditResult sink_alloc(const Proc& proc,
                               const cursors::Location& alloc) {
  const Stmt s = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const Alloc& a = s->as<Alloc>();
  const Block& list = cursors::enclosing_list(proc, alloc.path);
  const size_t at = static_cast<size_t>(alloc.path.back().index);
  const Stmt scope = at + 1 < list.size() ? list[at + 1] : nullptr;
  if (!scope || (scope->kind != StmtKind::For && scope->kind != StmtKind::If)) {
    std::string text = scope ? print_stmt(scope) : "None";
    while (!text.empty() && text.back() == '\n') text.pop_back();
    throw SinkAllocTargetError(
        "Cannot sink alloc because the statement after the allocation is not "
        "a loop or if statement, it is " +
        text);
  }
  const Block rest(list.begin() + static_cast<long>(at) + 2, list.end());
  if (mentions(rest, a.name))
    refuse(fmt::format("Cannot sink allocation {} because the buffer is "
                       "accessed outside of the scope provided.",
                       print_stmt(s)),
           {.srcinfo = s->srcinfo});

  cursors::Path scope_path = alloc.path;
  scope_path.back().index += 1;
  EditSequence edits(proc);
  cursors::Path first = scope_path;
  first.push_back({cursors::Slot::Body, 0});
  edits.apply(
      cursors::move(edits.proc(), alloc,
                    cursors::Location::gap(first, cursors::GapSide::Before)));
  if (scope->kind == StmtKind::If && !scope->as<If>().orelse.empty()) {
    cursors::Path moved_scope = alloc.path;  // the scope took the place
    moved_scope.push_back({cursors::Slot::Orelse, 0});
    edits.apply(cursors::insert(
        edits.proc(),
        cursors::Location::gap(moved_scope, cursors::GapSide::Before),
        fresh_copy({s})));
  }
  return edits.result();
}

}  // namespace exo2::primitives
