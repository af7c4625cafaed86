#include "exo2/primitives/bind_window.hpp"

#include <fmt/format.h>

#include "exo2/analysis/queries.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult bind_window(const Proc& proc,
                                const cursors::Location& block,
                                const Expr& window, const std::string& name,
                                MemoryPtr mem) {
  if (block.kind != cursors::LocationKind::Block &&
      block.kind != cursors::LocationKind::Node)
    throw ArgumentError("bind_window: expected a block");
  const int lo = block.path.back().index;
  const int hi = block.kind == cursors::LocationKind::Block ? block.hi : lo + 1;
  const Block& list = cursors::enclosing_list(proc, block.path);
  const SrcInfo src = list[lo]->srcinfo;

  Sym x;
  std::vector<WindowAccess> entries;
  if (window->kind == ExprKind::Read && window->as<Read>().idx.empty()) {
    x = window->as<Read>().name;
  } else if (window->kind == ExprKind::WindowExpr) {
    x = window->as<WindowExpr>().name;
    entries = window->as<WindowExpr>().idx;
  } else {
    throw ArgumentError(
        "bind_window: expected a window of a buffer, such as 'A[0:M, 0:K]'");
  }
  const SymbolInfo* info = nullptr;
  const std::vector<SymbolInfo> scope = variables_in_scope(proc, block.path);
  for (const SymbolInfo& v : scope) {
    if (v.sym == x) info = &v;
    if (v.sym.name() == name)
      refuse(fmt::format("bind_window: the name {} is taken by the {} at {}",
                         name, v.sym.name(), v.srcinfo.str()),
             {.srcinfo = src});
  }
  if (info == nullptr)
    refuse(fmt::format("bind_window: {} is not in scope here", x.name()),
           {.srcinfo = src});
  if (!info->type.is_numeric() || !info->type.is_tensor())
    refuse(fmt::format("bind_window: {} is not a data tensor, but has type {}",
                       x.name(), info->type.str()),
           {.srcinfo = src});
  const std::vector<Expr>& shape = info->type.shape();
  if (entries.empty())
    for (const Expr& e : shape)
      entries.push_back(WindowAccess::interval(make_int(0, src), e));
  if (entries.size() != shape.size())
    refuse(fmt::format("bind_window: {} has {} dimensions, but the window "
                       "gives {}",
                       x.name(), shape.size(), entries.size()),
           {.srcinfo = src});

  // The window covers the whole buffer, so routing a use through it keeps
  // its indices.
  QueryContext ctx(proc, block.path);
  std::vector<WindowAccess> typed;
  for (size_t d = 0; d < entries.size(); ++d) {
    const WindowAccess& e = entries[d];
    if (!e.is_interval || !e.lo || !e.hi)
      refuse(fmt::format("bind_window: dimension {} of the window of {} is "
                         "not an interval lo:hi; only windows over the whole "
                         "buffer are supported",
                         d, x.name()),
             {.srcinfo = src});
    Expr l = typecheck_in_scope(proc, block.path, e.lo, ExprCategory::Control);
    Expr h = typecheck_in_scope(proc, block.path, e.hi, ExprCategory::Control);
    const bool whole =
        prove_compare(ctx, l, BinOpKind::Eq, 0).proven() &&
        prove_compare(ctx, control_binop(BinOpKind::Sub, h, shape[d], src),
                      BinOpKind::Eq, 0)
            .proven();
    if (!whole)
      refuse(fmt::format("bind_window: dimension {} of the window is {}:{}, "
                         "not the whole extent 0:{} of {}; only windows over "
                         "the whole buffer are supported",
                         d, print_expr(l), print_expr(h), print_expr(shape[d]),
                         x.name()),
             {.srcinfo = src});
    typed.push_back(WindowAccess::interval(l, h));
  }
  const Type type =
      Type::tensor(info->type.basetype(), shape, /*is_window=*/true);
  const Sym y(name);
  const Stmt bind = make_window_stmt(
      y, make_window_expr(x, std::move(typed), src, type), src, std::move(mem));

  EditSequence edits(proc);
  edits.apply(cursors::insert(
      proc, cursors::Location::gap(block.path, cursors::GapSide::Before),
      {bind}));
  // The block moved down by one; its statements renamed in place keep
  // their shape, so every cursor stays where it was.
  cursors::Path moved = block.path;
  moved.back().index += 1;
  const Block& now = cursors::enclosing_list(edits.proc(), moved);
  const Block renamed = BufferRename(x, y).rewrite_uses(
      Block(now.begin() + lo + 1, now.begin() + hi + 1));
  cursors::EditResult replaced = cursors::replace(
      edits.proc(), cursors::Location::block(moved, hi + 1), renamed);
  edits.apply({replaced.proc, cursors::Forwarding()});
  return edits.result();
}

}  // namespace exo2::primitives
