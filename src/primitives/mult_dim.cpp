#include "exo2/primitives/mult_dim.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/buffer_accesses.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult mult_dim(const Proc& proc, const cursors::Location& alloc,
                             int hi, int lo) {
  const Stmt alloc_stmt = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const auto& a = alloc_stmt->as<Alloc>();
  const std::vector<Expr>& shape = a.type.shape();
  for (int d : {hi, lo})
    if (d < 0 || d >= static_cast<int>(shape.size()))
      throw ArgumentError(
          fmt::format("Cannot multiply out-of-bounds dimension index {}", d));
  if (hi == lo)
    throw ArgumentError(
        fmt::format("Cannot multiply dimension {} by itself", hi));
  const std::string x = a.name.name();
  const Expr& lo_extent = shape[static_cast<size_t>(lo)];
  const Expr& hi_extent = shape[static_cast<size_t>(hi)];
  const std::optional<int64_t> c = int_literal(lo_extent);
  if (!c)
    refuse(fmt::format("Cannot multiply with non-literal second dimension: {}",
                       print_expr(lo_extent)),
           {.srcinfo = alloc_stmt->srcinfo});

  // `c * i_hi + i_lo` at the `hi` position, the `lo` index removed.
  auto merge = [&](const std::vector<Expr>& idx) {
    const Expr& i_hi = idx[static_cast<size_t>(hi)];
    std::vector<Expr> out = idx;
    out[static_cast<size_t>(hi)] = control_binop(
        BinOpKind::Add,
        control_binop(BinOpKind::Mul, control_int(*c, i_hi->srcinfo), i_hi,
                      i_hi->srcinfo),
        idx[static_cast<size_t>(lo)], i_hi->srcinfo);
    out.erase(out.begin() + lo);
    return out;
  };

  // The extent is written `lo * hi`, unfolded, as Exo prints it.
  std::vector<Expr> new_shape = shape;
  new_shape[static_cast<size_t>(hi)] =
      control_binop(BinOpKind::Mul, lo_extent, hi_extent, hi_extent->srcinfo);
  new_shape.erase(new_shape.begin() + lo);

  BufferAccessRewrite rewrite;
  rewrite.point = [&](const std::vector<Expr>& idx, const AccessSite&) {
    return PointAccess{a.name, merge(idx)};
  };
  rewrite.window = [&](const std::vector<WindowAccess>&,
                       const AccessSite& site) -> WindowedAccess {
    refuse(fmt::format(
               "Cannot multiply {} because the buffer is windowed later on", x),
           {.srcinfo = site.srcinfo});
  };
  rewrite.stride = [&](int d, const AccessSite& site) {
    // A dense stride is the product of the later extents: it keeps its
    // value when both merged dimensions are later, or neither is.
    if (d < std::min(hi, lo)) return d;
    if (d > std::max(hi, lo)) return d - 1;
    refuse(fmt::format("Cannot multiply {} because the value of stride({}, "
                       "{}) at {} would change",
                       x, x, d, site.srcinfo.str()),
           {.srcinfo = site.srcinfo});
  };
  rewrite.whole_buffer = [&](const AccessSite& site) {
    refuse(fmt::format(
               "Cannot multiply {} because buffer is passed as an argument", x),
           {.srcinfo = site.srcinfo});
  };
  rewrite.new_shape = new_shape;
  rewrite.action = "multiply";

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), alloc, with_shape(alloc_stmt, new_shape)));
  return edits.result();
}

}  // namespace exo2::primitives
