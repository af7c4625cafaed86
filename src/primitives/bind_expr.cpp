#include "exo2/primitives/bind_expr.hpp"

#include <fmt/format.h>

#include <unordered_set>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/data_locations.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;

// The path of the statement holding the expression at `expr`.
Path statement_of(const Path& expr) {
  Path p = expr;
  while (!p.empty() && !cursors::is_statement_slot(p.back().slot)) p.pop_back();
  return p;
}

void collect_symbols(const Expr& e, std::unordered_set<Sym>& out) {
  if (e->kind == ExprKind::Read) out.insert(e->as<Read>().name);
  cursors::for_each_expr_child(
      e, [&](cursors::Step, const Expr& sub) { collect_symbols(sub, out); });
}

const char* kUnsafe = "Unsafe to bind all of the provided exprs.";

}  // namespace

cursors::EditResult bind_expr(const Proc& proc,
                              const std::vector<cursors::Location>& exprs,
                              const std::string& new_name) {
  if (exprs.empty()) throw ArgumentError("bind_expr: no expression");
  const Expr e = cursors::resolve_expr(proc, exprs.front().path);
  if (!e->type.is_real_scalar())
    throw ArgumentError("bind_expr: expected a data expression");
  const std::string text = print_expr(e);
  std::vector<Path> pending;
  for (const cursors::Location& c : exprs)
    if (print_expr(cursors::resolve_expr(proc, c.path)) == text)
      pending.push_back(c.path);

  // The statement before which the binding goes.
  Path init = statement_of(pending.front());
  if (pending.size() > 1) {
    const Path last = statement_of(pending.back());
    size_t common = 0;
    while (common + 1 < init.size() && common + 1 < last.size() &&
           init[common] == last[common])
      common++;
    init.resize(common + 1);
  }
  const Stmt init_stmt = cursors::resolve_stmt(proc, init);

  std::unordered_set<Sym> used;
  collect_symbols(e, used);
  std::unordered_set<Sym> visible;
  for (const SymbolInfo& v : variables_in_scope(proc, init))
    visible.insert(v.sym);
  for (const Sym& s : used)
    if (!visible.count(s))
      refuse(kUnsafe,
             {.srcinfo = e->srcinfo,
              .hint = fmt::format("{} is not defined before the statement at "
                                  "{}, where the binding would go",
                                  s.name(), init_stmt->srcinfo.str())});

  QueryContext ctx(proc, to_stmt_path(init));
  const std::vector<Location> inputs = locations_read(e, ctx.windows());
  const Block& list = cursors::enclosing_list(proc, init);
  const Sym bound(new_name);
  const Type type = e->type.basetype();
  EditSequence edits(proc);
  size_t next = 0;
  for (int i = init.back().index; i < static_cast<int>(list.size()); i++) {
    const Stmt& s = list[static_cast<size_t>(i)];
    bool writes_input = false;
    for (const Access& a : effects_of(s, ctx.windows()))
      writes_input =
          writes_input || (a.modifies() && contains(inputs, a.location));
    const bool compound = s->kind == StmtKind::For || s->kind == StmtKind::If ||
                          s->kind == StmtKind::With;
    if (writes_input && compound) break;
    Path here = init;
    here.back().index = i;
    while (
        next < pending.size() &&
        cursors::is_ancestor_of(here, cursors::Location::node(pending[next]))) {
      edits.apply(cursors::replace_expr(
          edits.proc(), cursors::Location::node(pending[next]),
          make_read(bound, {}, e->srcinfo, e->type)));
      next++;
    }
    if (writes_input) break;
  }
  if (next < pending.size())
    refuse(kUnsafe,
           {.srcinfo = cursors::resolve_expr(proc, pending[next])->srcinfo,
            .hint = "a value the expression reads is written before this "
                    "occurrence"});

  edits.apply(cursors::insert(
      edits.proc(), cursors::Location::gap(init, cursors::GapSide::Before),
      {make_alloc(bound, type, default_memory(), e->srcinfo),
       make_assign(bound, type, {}, e, e->srcinfo)}));
  return edits.result();
}

}  // namespace exo2::primitives
