#include "exo2/primitives/expand_dim.hpp"

#include <fmt/format.h>

#include <vector>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/buffer_accesses.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult expand_dim(const Proc& proc, const cursors::Location& alloc,
                               const Expr& alloc_dim_untyped,
                               const Expr& index_untyped) {
  const Stmt alloc_stmt = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const auto& a = alloc_stmt->as<Alloc>();
  const Expr alloc_dim = control_expr_before(proc, alloc, alloc_dim_untyped);
  const Expr index = control_expr_before(proc, alloc, index_untyped);
  require_same_at_every_access(proc, alloc, index, "index");
  {
    QueryContext ctx(proc, to_stmt_path(alloc.path));
    require_proven(
        prove_compare(ctx, alloc_dim, BinOpKind::Gt, 0),
        fmt::format("The expression {} is not guaranteed to be greater than 0.",
                    print_expr(alloc_dim)),
        {.srcinfo = alloc_stmt->srcinfo,
         .condition = "Bound(alloc_dim > 0)",
         .formula = print_expr(alloc_dim) + " > 0"});
  }

  BufferAccessRewrite rewrite;
  rewrite.point = [&](const std::vector<Expr>& idx, const AccessSite&) {
    std::vector<Expr> out{index};
    out.insert(out.end(), idx.begin(), idx.end());
    return PointAccess{a.name, std::move(out)};
  };
  rewrite.window = [&](const std::vector<WindowAccess>& idx,
                       const AccessSite&) {
    std::vector<WindowAccess> out{WindowAccess::point(index)};
    out.insert(out.end(), idx.begin(), idx.end());
    return WindowedAccess{a.name, std::move(out)};
  };
  rewrite.stride = [](int d, const AccessSite&) { return d + 1; };
  rewrite.whole_buffer = [&](const AccessSite& site) {
    if (!a.type.is_tensor())
      refuse(fmt::format(
                 "Cannot expand {0}: it is passed to a scalar parameter of a "
                 "call, and there is no support for passing windows to scalar "
                 "arguments: a scalar argument must be a variable name, which "
                 "an element {0}[...] is not; copy the value into a scalar of "
                 "its own around the call, or inline the call first",
                 a.name.name()),
             {.srcinfo = site.srcinfo});
    refuse(fmt::format("Cannot expand {} because buffer is passed as an "
                       "argument, and there is no support for passing windows "
                       "to scalar arguments or to tensor parameters that are "
                       "not windows: declare the parameter as a window "
                       "([T][...] instead of T[...]) or inline the call first",
                       a.name.name()),
           {.srcinfo = site.srcinfo});
  };

  std::vector<Expr> new_shape{alloc_dim};
  for (const Expr& n : a.type.shape()) new_shape.push_back(n);
  rewrite.new_shape = new_shape;
  rewrite.action = "expand";

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), alloc, with_shape(alloc_stmt, new_shape)));
  require_in_bounds(edits.proc(), alloc, new_shape);
  return edits.result();
}

}  // namespace exo2::primitives
