#include "exo2/primitives/autofission.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/fission.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;
using cursors::Slot;

void check_allocations(const Block& first, const Block& second) {
  for (const Stmt& s : first)
    if (const Sym* name = declared_name(s); name && mentions(second, *name))
      refuse(
          "Will not fission here, because an allocation might be buried in a "
          "different scope than some use-site",
          {.srcinfo = s->srcinfo});
}

// One side of the split loop `loop`: the loop around `side`, or `side`
// alone when running it once means the same (see the header).
Block loop_around(QueryContext& ctx, const For& loop, Block side) {
  if (!mentions(side, loop.iter) && prove_idempotent(ctx, side).proven()) {
    const SrcInfo& src = loop.srcinfo;
    if (effects_of(side, ctx.windows()).empty() ||
        prove_compare(ctx, control_binop(BinOpKind::Sub, loop.hi, loop.lo, src),
                      BinOpKind::Gt, 0)
            .proven())
      return side;
  }
  return {make_for(loop.iter, loop.lo, loop.hi, std::move(side), loop.mode,
                   loop.srcinfo)};
}

}  // namespace

Proc autofission(const Proc& proc, const cursors::Location& gap, int n_lifts) {
  const int at = interior_gap_index(proc, gap);
  const Block& list = cursors::enclosing_list(proc, gap.path);

  // The statements before and after the split in the list `first` starts
  // (a statement path); each level rebuilds the owner of that list.
  Block pre(list.begin(), list.begin() + at);
  Block post(list.begin() + at, list.end());
  Path first = gap.path;
  first.back().index = 0;
  for (int level = 0; level < n_lifts && first.size() > 1; level++) {
    const Path owner_path(first.begin(), first.end() - 1);
    const Slot slot = first.back().slot;
    const Stmt owner = cursors::resolve_stmt(proc, owner_path);
    check_allocations(pre, post);
    Block before, after;
    if (owner->kind == StmtKind::For) {
      const For& loop = owner->as<For>();
      Block body = pre;
      body.insert(body.end(), post.begin(), post.end());
      const Stmt split = make_for(loop.iter, loop.lo, loop.hi, std::move(body),
                                  loop.mode, loop.srcinfo);
      QueryContext ctx(proc, owner_path);
      require_proven(
          prove_fission_safe(ctx, split, pre.size()),
          fmt::format("Cannot fission loop over {} at {}.", loop.iter.name(),
                      loop.srcinfo.str()),
          {.srcinfo = loop.srcinfo,
           .condition = fmt::format("FissionSafe({})", loop.iter.name())});
      before = loop_around(ctx, loop, pre);
      after = loop_around(ctx, loop, post);
    } else if (owner->kind == StmtKind::If) {
      const If& s = owner->as<If>();
      require_condition_kept(s, slot, pre);
      if (slot == Slot::Body) {
        before = {make_if(s.cond, pre, {}, s.srcinfo)};
        after = {make_if(s.cond, post, s.orelse, s.srcinfo)};
      } else {
        before = {make_if(s.cond, s.body, pre, s.srcinfo)};
        after = {make_if(s.cond, {make_pass(s.srcinfo)}, post, s.srcinfo)};
      }
    } else {
      refuse("Can only lift past a for loop or an if statement",
             {.srcinfo = owner->srcinfo});
    }
    // The same split one level up.
    const Block& outer = cursors::enclosing_list(proc, owner_path);
    const auto here = outer.begin() + owner_path.back().index;
    pre.assign(outer.begin(), here);
    pre.insert(pre.end(), before.begin(), before.end());
    post = after;
    post.insert(post.end(), here + 1, outer.end());
    first = owner_path;
    first.back().index = 0;
  }
  Block joined = pre;
  joined.insert(joined.end(), post.begin(), post.end());
  const int size =
      static_cast<int>(cursors::enclosing_list(proc, first).size());
  const Proc split =
      cursors::replace(proc, cursors::Location::block(first, size),
                       std::move(joined))
          .proc;
  // As in Exo, the result is a plain procedure: an instruction's template
  // is not carried over (docs/primitives-buffers.md, "autofission").
  return make_proc(split->name, split->args, split->preds, split->body,
                   std::nullopt, split->srcinfo);
}

}  // namespace exo2::primitives
