#include "exo2/primitives/divide_dim.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/buffer_accesses.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult divide_dim(const Proc& proc, const cursors::Location& alloc,
                               int dim, int64_t quotient) {
  const Stmt alloc_stmt = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const auto& a = alloc_stmt->as<Alloc>();
  const std::vector<Expr>& shape = a.type.shape();
  if (dim < 0 || dim >= static_cast<int>(shape.size()))
    throw ArgumentError(
        fmt::format("Cannot divide out-of-bounds dimension index {}", dim));
  if (quotient <= 0)
    throw ArgumentError("divide_dim: expected a positive quotient");
  const size_t d = static_cast<size_t>(dim);
  const Expr& extent = shape[d];
  const std::string x = a.name.name();
  {
    QueryContext ctx(proc, to_stmt_path(alloc.path));
    require_proven(
        prove_divisible(ctx, extent, quotient),
        fmt::format("cannot perfectly divide '{}' by {}", print_expr(extent),
                    quotient),
        {.srcinfo = alloc_stmt->srcinfo,
         .condition =
             fmt::format("Divisible({}, {})", print_expr(extent), quotient),
         .formula = fmt::format("{} % {} == 0", print_expr(extent), quotient)});
  }

  std::vector<Expr> new_shape(shape.begin(), shape.begin() + dim);
  const std::optional<int64_t> n = int_literal(extent);
  new_shape.push_back(n ? control_int(*n / quotient, extent->srcinfo)
                        : control_binop(BinOpKind::Div, extent,
                                        control_int(quotient, extent->srcinfo),
                                        extent->srcinfo));
  new_shape.push_back(control_int(quotient, extent->srcinfo));
  new_shape.insert(new_shape.end(), shape.begin() + dim + 1, shape.end());

  BufferAccessRewrite rewrite;
  rewrite.point = [&](const std::vector<Expr>& idx, const AccessSite&) {
    std::vector<Expr> out(idx.begin(), idx.begin() + dim);
    const Expr& i = idx[d];
    const Expr q = control_int(quotient, i->srcinfo);
    out.push_back(control_binop(BinOpKind::Div, i, q, i->srcinfo));
    out.push_back(control_binop(BinOpKind::Mod, i, q, i->srcinfo));
    out.insert(out.end(), idx.begin() + dim + 1, idx.end());
    return PointAccess{a.name, std::move(out)};
  };
  rewrite.window = [&](const std::vector<WindowAccess>&,
                       const AccessSite& site) -> WindowedAccess {
    refuse(fmt::format(
               "Cannot divide {} because the buffer is windowed later on", x),
           {.srcinfo = site.srcinfo});
  };
  rewrite.stride = [&](int e, const AccessSite&) {
    return e < dim ? e : e + 1;
  };
  rewrite.whole_buffer = [&](const AccessSite& site) {
    refuse(fmt::format(
               "Cannot divide {} because buffer is passed as an argument", x),
           {.srcinfo = site.srcinfo});
  };
  rewrite.new_shape = new_shape;
  rewrite.action = "divide";

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), alloc, with_shape(alloc_stmt, new_shape)));
  return edits.result();
}

}  // namespace exo2::primitives
