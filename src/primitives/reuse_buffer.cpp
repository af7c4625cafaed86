#include "exo2/primitives/reuse_buffer.hpp"

#include <fmt/format.h>

#include <optional>

#include "exo2/analysis/aliasing.hpp"
#include "exo2/analysis/effects.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/child_blocks.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;

// The first statement in program order, in `block` (whose first statement
// is at `first`), that writes or reduces `buffer`; `windows` collects the
// window statements passed on the way.
std::optional<Path> first_write(const Block& block, const Path& first,
                                const Sym& buffer, WindowEnv& windows) {
  for (int i = 0; i < static_cast<int>(block.size()); i++) {
    const Stmt& s = block[static_cast<size_t>(i)];
    Path path = first;
    path.back().index = first.back().index + i;
    const std::vector<ChildBlock> children = child_blocks(s);
    for (const ChildBlock& child : children) {
      Path p = path;
      p.push_back({child.slot, 0});
      if (std::optional<Path> found =
              first_write(child.block, p, buffer, windows))
        return found;
    }
    if (!children.empty()) continue;
    for (const Access& a : effects_of(s, windows))
      if (a.modifies() && !a.location.is_config() &&
          a.location.buffer == buffer)
        return path;
    if (s->kind == StmtKind::WindowStmt) {
      const auto& w = s->as<WindowStmt>();
      if (w.rhs->kind == ExprKind::WindowExpr)
        windows[w.name] = resolve_window(w.rhs->as<WindowExpr>(), windows);
    }
  }
  return std::nullopt;
}

}  // namespace

cursors::EditResult reuse_buffer(const Proc& proc,
                                 const cursors::Location& buffer,
                                 const cursors::Location& replaced) {
  const Stmt xs = stmt_of_kind(proc, buffer, StmtKind::Alloc);
  const Stmt ys = stmt_of_kind(proc, replaced, StmtKind::Alloc);
  const Alloc& x = xs->as<Alloc>();
  const Alloc& y = ys->as<Alloc>();
  if (x.type.str() != y.type.str())
    refuse(
        fmt::format("Cannot reuse buffer {} for {} because their types "
                    "differ: {} vs. {}",
                    x.name.name(), y.name.name(), x.type.str(), y.type.str()),
        {.srcinfo = ys->srcinfo});
  // `y` lies in `x`'s block (at any depth), after `x`.
  const Path& xp = buffer.path;
  const Path& yp = replaced.path;
  bool in_scope = yp.size() >= xp.size();
  for (size_t k = 0; in_scope && k + 1 < xp.size(); k++)
    in_scope = xp[k] == yp[k];
  in_scope = in_scope && yp[xp.size() - 1].slot == xp.back().slot &&
             yp[xp.size() - 1].index > xp.back().index;
  if (!in_scope)
    refuse(fmt::format("Cannot reuse buffer {} for {} because {} is not "
                       "allocated after {} in the scope of {}",
                       x.name.name(), y.name.name(), y.name.name(),
                       x.name.name(), x.name.name()),
           {.srcinfo = ys->srcinfo});

  // DeadAfter(x, first write to y), over the statements after `y : T`.
  Path rest = yp;
  rest.back().index += 1;
  const Block& list = cursors::enclosing_list(proc, yp);
  const Block after(list.begin() + rest.back().index, list.end());
  WindowEnv windows = QueryContext(proc, yp).windows();
  if (std::optional<Path> w = first_write(after, rest, y.name, windows)) {
    const Stmt write = cursors::resolve_stmt(proc, *w);
    require_proven(
        prove_dead_after(proc, *w, x.name),
        fmt::format("The variable {} can potentially be used after the "
                    "statement at {} executes.",
                    x.name.name(), write->srcinfo.str()),
        {.srcinfo = write->srcinfo,
         .condition = fmt::format("DeadAfter({}, s)", x.name.name())});
  }

  EditSequence edits(proc);
  edits.apply(
      {BufferRename(y.name, x.name).rewrite_uses(proc), cursors::Forwarding()});
  edits.apply(cursors::remove(edits.proc(), replaced));
  // A call that passed both `x` and `y` would now pass `x` twice.
  if (auto aliased = find_aliased_call(edits.proc()))
    refuse(aliased->message(),
           {.srcinfo = aliased->srcinfo, .condition = "NoAlias"});
  return edits.result();
}

}  // namespace exo2::primitives
