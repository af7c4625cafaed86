#include "exo2/primitives/replace_reads.hpp"

#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

using cursors::Path;
using cursors::Slot;
using cursors::Step;

namespace {

void collect_in_expr(const Expr& e, Path& path, const Sym& var,
                     std::vector<Path>& out) {
  if (e->kind == ExprKind::Read && e->as<Read>().name == var &&
      e->as<Read>().idx.empty()) {
    out.push_back(path);
    return;
  }
  cursors::for_each_expr_child(e, [&](Step step, const Expr& child) {
    path.push_back(step);
    collect_in_expr(child, path, var, out);
    path.pop_back();
  });
}

void collect_in_stmt(const Stmt& s, Path& path, const Sym& var,
                     std::vector<Path>& out) {
  auto visit = [&](Step step, const Expr& child) {
    path.push_back(step);
    collect_in_expr(child, path, var, out);
    path.pop_back();
  };
  cursors::for_each_expr_child(s, visit);
  if (s->kind == StmtKind::Alloc) {
    const auto& shape = s->as<Alloc>().type.shape();
    for (int i = 0; i < static_cast<int>(shape.size()); i++)
      visit(Step{Slot::Shape, i}, shape[i]);
  }
  auto list = [&](Slot slot, const Block& block) {
    for (int i = 0; i < static_cast<int>(block.size()); i++) {
      path.push_back(Step{slot, i});
      collect_in_stmt(block[i], path, var, out);
      path.pop_back();
    }
  };
  if (s->kind == StmtKind::For) list(Slot::Body, s->as<For>().body);
  if (s->kind == StmtKind::With) list(Slot::Body, s->as<With>().body);
  if (s->kind == StmtKind::If) {
    list(Slot::Body, s->as<If>().body);
    list(Slot::Orelse, s->as<If>().orelse);
  }
}

}  // namespace

std::vector<Path> paths_of_reads(const Proc& proc, const Path& stmt,
                                 const Sym& var) {
  std::vector<Path> out;
  Path path = stmt;
  collect_in_stmt(cursors::resolve_stmt(proc, stmt), path, var, out);
  return out;
}

cursors::EditResult replace_reads(
    const Proc& proc, const Path& stmt, const Sym& var,
    const std::function<Expr(const Expr& read)>& make) {
  // Replacing an expression moves no other expression, so the paths stay
  // valid through all the edits.
  cursors::EditResult result{proc, {}};
  for (const Path& p : paths_of_reads(proc, stmt, var)) {
    Expr read = cursors::resolve_expr(result.proc, p);
    cursors::EditResult step = cursors::replace_expr(
        result.proc, cursors::Location::node(p), make(read));
    result = {step.proc, result.forwarding.then(step.forwarding)};
  }
  return result;
}

}  // namespace exo2::primitives
