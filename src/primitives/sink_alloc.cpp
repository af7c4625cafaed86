#include "exo2/primitives/sink_alloc.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/buffer_uses.hpp"
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
  std::string alloc_text = print_stmt(s);
  while (!alloc_text.empty() && alloc_text.back() == '\n')
    alloc_text.pop_back();
  const Block rest(list.begin() + static_cast<long>(at) + 2, list.end());
  if (mentions(rest, a.name))
    refuse(fmt::format("Cannot sink allocation {} because the buffer is "
                       "accessed outside of the scope provided.",
                       alloc_text),
           {.srcinfo = s->srcinfo});

  cursors::Path scope_path = alloc.path;
  scope_path.back().index += 1;
  if (scope->kind == StmtKind::For) {
    // Each iteration evaluates the size again.
    const SafetyResult unchanged = prove_config_reads_unchanged(
        a.type.shape(), scope->as<For>().body,
        fmt::format("the size of {} reads", a.name.name()));
    require_proven(unchanged,
                   fmt::format("Cannot sink allocation {}: {}, and each "
                               "iteration would evaluate the size again.",
                               alloc_text, unchanged.detail),
                   {.srcinfo = s->srcinfo, .condition = "ReadsUnchanged"});
    QueryContext ctx(proc, scope_path);
    require_proven(
        prove_no_carried_flow(ctx, scope, a.name),
        fmt::format("Cannot sink allocation {} because values of {} may flow "
                    "from one iteration of the loop to the next.",
                    alloc_text, a.name.name()),
        {.srcinfo = s->srcinfo,
         .condition = fmt::format("NoCarriedFlow({})", a.name.name()),
         .hint = "each iteration would get a fresh buffer with undefined "
                 "contents"});
  }
  EditSequence edits(proc);
  cursors::Path first = scope_path;
  first.push_back({cursors::Slot::Body, 0});
  edits.apply(
      cursors::move(edits.proc(), alloc,
                    cursors::Location::gap(first, cursors::GapSide::Before)));
  if (scope->kind == StmtKind::If && !scope->as<If>().orelse.empty()) {
    // The else branch gets its own allocation, under a fresh symbol that its
    // statements are renamed to (rebuilt: cursors inside it die).
    const Block& orelse = scope->as<If>().orelse;
    const Block copy = fresh_copy({s});
    Block renamed = copy;
    const Block uses =
        BufferRename(s->as<Alloc>().name, copy.front()->as<Alloc>().name)
            .rewrite_uses(orelse);
    renamed.insert(renamed.end(), uses.begin(), uses.end());
    cursors::Path first_else = alloc.path;  // the scope took the place
    first_else.push_back({cursors::Slot::Orelse, 0});
    edits.apply(cursors::replace(
        edits.proc(),
        cursors::Location::block(first_else, static_cast<int>(orelse.size())),
        renamed));
  }
  return edits.result();
}

}  // namespace exo2::primitives
