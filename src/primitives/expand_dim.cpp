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
  // Exo's message for both a scalar and a tensor passed whole (its tests
  // match on it); the hint says what happened.
  rewrite.whole_buffer = [&](const AccessSite& site) {
    refuse(
        "TODO: Please Contact the developers to fix (i.e. add) support for "
        "passing windows to scalar arguments",
        {.srcinfo = site.srcinfo,
         .hint = fmt::format("Cannot expand {} because buffer is passed as an "
                             "argument",
                             a.name.name())});
  };

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  std::vector<Expr> new_shape{alloc_dim};
  for (const Expr& n : a.type.shape()) new_shape.push_back(n);
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), alloc, with_shape(alloc_stmt, new_shape)));
  require_in_bounds(edits.proc(), alloc, new_shape);
  return edits.result();
}

}  // namespace exo2::primitives
