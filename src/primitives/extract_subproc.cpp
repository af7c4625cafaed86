#include "exo2/primitives/extract_subproc.hpp"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "exo2/analysis/aliasing.hpp"
#include "exo2/analysis/bounds_check.hpp"
#include "exo2/analysis/config_state.hpp"
#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/call_checks.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;
using cursors::Slot;

bool mentions_any_shape(const Type& t, const Sym& sym) {
  if (!t.is_tensor()) return false;
  for (const Expr& d : t.shape())
    if (mentions(d, sym)) return true;
  return false;
}

// The buffer each window statement of `b` views (directly).
void collect_views(const Block& b, std::unordered_map<Sym, Sym>& views) {
  for (const Stmt& s : b) {
    switch (s->kind) {
      case StmtKind::WindowStmt: {
        const Expr& rhs = s->as<WindowStmt>().rhs;
        if (rhs->kind == ExprKind::WindowExpr)
          views[s->as<WindowStmt>().name] = rhs->as<WindowExpr>().name;
        else if (rhs->kind == ExprKind::Read)
          views[s->as<WindowStmt>().name] = rhs->as<Read>().name;
        break;
      }
      case StmtKind::If:
        collect_views(s->as<If>().body, views);
        collect_views(s->as<If>().orelse, views);
        break;
      case StmtKind::For:
        collect_views(s->as<For>().body, views);
        break;
      case StmtKind::With:
        collect_views(s->as<With>().body, views);
        break;
      default:
        break;
    }
  }
}

// The memory of a window statement's buffer (through windows of windows).
MemoryPtr window_memory(const Proc& proc, Sym window,
                        const std::vector<SymbolInfo>& scope) {
  std::unordered_map<Sym, Sym> views;
  collect_views(proc->body, views);
  for (auto it = views.find(window); it != views.end(); it = views.find(window))
    window = it->second;
  for (const SymbolInfo& v : scope)
    if (v.sym == window) return v.mem;
  return nullptr;
}

// The facts that hold at the statement at `path` (innermost first): loop
// ranges and branch conditions of its ancestors.
std::vector<Expr> context_facts(const Proc& proc, const Path& path) {
  std::vector<Expr> facts;
  Stmt owner;
  std::vector<std::pair<Stmt, Slot>> ancestors;
  for (size_t k = 0; k + 1 < path.size(); ++k) {
    const Block& list = cursors::statement_list(proc, owner, path[k].slot);
    owner = list.at(static_cast<size_t>(path[k].index));
    ancestors.emplace_back(owner, path[k + 1].slot);
  }
  for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
    const auto& [s, slot] = *it;
    if (s->kind == StmtKind::For) {
      const auto& f = s->as<For>();
      Expr i = iterator_read(f.iter, f.srcinfo);
      facts.push_back(control_binop(BinOpKind::Le, f.lo, i, f.srcinfo));
      facts.push_back(control_binop(BinOpKind::Lt, i, f.hi, f.srcinfo));
    } else if (s->kind == StmtKind::If) {
      const auto& c = s->as<If>();
      Expr taken =
          make_const(slot == Slot::Body, c.srcinfo, Type(TypeKind::Bool));
      facts.push_back(make_binop(BinOpKind::Eq, c.cond, taken, c.srcinfo,
                                 Type(TypeKind::Bool)));
    }
  }
  return facts;
}

}  // namespace

ExtractedSubproc extract_subproc(const Proc& proc,
                                 const cursors::Location& block,
                                 const std::string& subproc_name,
                                 bool include_asserts) {
  if (auto aliased = find_aliased_call(proc))
    refuse(aliased->message(),
           {.srcinfo = aliased->srcinfo, .condition = "NoAlias"});

  const Block& list = cursors::enclosing_list(proc, block.path);
  const Block body(list.begin() + block.lo(), list.begin() + block.hi);
  const SrcInfo info = body.front()->srcinfo;

  // What the block declares must not be needed after it.
  const Block rest(list.begin() + block.hi, list.end());
  for (const Stmt& s : body) {
    const Sym* declared = declared_name(s);
    if (declared && mentions(rest, *declared))
      refuse(fmt::format("Cannot extract the block at {}: {} is used after it",
                         info.str(), declared->name()),
             {.srcinfo = s->srcinfo});
  }

  // The variables the block mentions, and those their shapes need.
  const std::vector<SymbolInfo> scope = variables_in_scope(proc, block.path);
  std::vector<bool> used(scope.size(), false);
  for (size_t k = 0; k < scope.size(); ++k)
    used[k] = mentions(body, scope[k].sym);
  for (size_t k = 0; k < scope.size(); ++k) {
    if (!used[k]) continue;
    for (size_t j = 0; j < scope.size(); ++j)
      used[j] = used[j] || mentions_any_shape(scope[k].type, scope[j].sym);
  }

  std::vector<FnArg> params;
  std::vector<Expr> args;
  for (size_t k = 0; k < scope.size(); ++k) {
    if (!used[k]) continue;
    const SymbolInfo& v = scope[k];
    MemoryPtr mem = v.kind == SymbolInfo::Kind::Window
                        ? window_memory(proc, v.sym, scope)
                        : v.mem;
    params.push_back(FnArg{v.sym, v.type, mem, v.srcinfo});
    args.push_back(make_read(v.sym, {}, info, v.type));
  }

  // The facts of the context that mention only parameters.
  std::vector<Expr> preds;
  std::vector<Expr> candidates = proc->preds;
  for (const Expr& f : context_facts(proc, block.path)) candidates.push_back(f);
  // A fact that reads a config field held where it was stated (the
  // procedure's entry, an enclosing loop or if); it is kept only where it
  // still holds at the block, with the values the fields have there.
  QueryContext ctx(proc, to_stmt_path(block.path));
  for (const Expr& p : candidates) {
    bool only_params = true;
    for (size_t k = 0; k < scope.size(); ++k)
      only_params = only_params && (used[k] || !mentions(p, scope[k].sym));
    if (only_params && (config_fields_read(p).empty() ||
                        decide(ctx, p) == Truth::AlwaysTrue))
      preds.push_back(p);
  }
  auto make = [&](std::vector<Expr> pre) {
    return make_proc(subproc_name, params, std::move(pre), body, std::nullopt,
                     info);
  };

  // The new procedure can be called from anywhere, so it must be safe with
  // its own preconditions, as if it had been written by hand.
  Proc subproc = make(preds);
  const std::vector<CheckFailure> unsafe = bounds_failures(subproc);
  if (!unsafe.empty())
    refuse(fmt::format("Cannot extract the block at {} into {}: the new "
                       "procedure would not be safe on its own: {}",
                       info.str(), subproc_name, unsafe.front().what),
           {.srcinfo = unsafe.front().srcinfo,
            .counterexample = unsafe.front().counterexample,
            .hint = "the facts it needs mention variables the block does "
                    "not use; add an assertion to the procedure"});
  if (!include_asserts) {
    // Only the preconditions its safety needs: each fact is dropped, in
    // order, when the procedure stays safe without it.
    for (size_t k = 0; k < preds.size();) {
      std::vector<Expr> fewer = preds;
      fewer.erase(fewer.begin() + static_cast<long>(k));
      if (bounds_failures(make(fewer)).empty())
        preds = std::move(fewer);
      else
        k++;
    }
    subproc = make(preds);
  }

  Stmt call = make_call(subproc, std::move(args), info);
  cursors::EditResult edit = cursors::replace(proc, block, {call});
  require_call_safe(edit.proc, block.path);
  return {std::move(edit), subproc};
}

}  // namespace exo2::primitives
