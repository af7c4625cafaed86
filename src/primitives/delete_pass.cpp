#include "exo2/primitives/delete_pass.hpp"

#include <vector>

#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/child_blocks.hpp"
#include "exo2/primitives/edit_sequence.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;
using cursors::Slot;
using cursors::Step;

// The paths of every `pass` in `list`, in program order.
void collect_passes(const Block& list, const Path& owner, Slot slot,
                    std::vector<Path>& out) {
  for (int i = 0; i < static_cast<int>(list.size()); i++) {
    Path path = owner;
    path.push_back(Step{slot, i});
    const Stmt& s = list[static_cast<size_t>(i)];
    if (s->kind == StmtKind::Pass) out.push_back(path);
    for (const ChildBlock& child : child_blocks(s))
      collect_passes(child.block, path, child.slot, out);
  }
}

}  // namespace

cursors::EditResult delete_pass(const Proc& proc) {
  std::vector<Path> passes;
  collect_passes(proc->body, {}, Slot::Body, passes);
  EditSequence edits(proc);
  // Last first: deleting a statement only moves the ones after it, so the
  // paths of the earlier passes stay as collected.
  for (auto it = passes.rbegin(); it != passes.rend(); ++it) {
    Path target = *it;
    while (target.size() > 1) {
      Path parent(target.begin(), target.end() - 1);
      Stmt owner = cursors::resolve_stmt(edits.proc(), parent);
      if (owner->kind != StmtKind::For || owner->as<For>().body.size() != 1)
        break;
      target = std::move(parent);
    }
    edits.apply(cursors::remove(edits.proc(), cursors::Location::node(target)));
  }
  return edits.result();
}

}  // namespace exo2::primitives
