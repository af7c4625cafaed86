#include "exo2/primitives/unroll_buffer.hpp"

#include <fmt/format.h>

#include <map>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/buffer_accesses.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult unroll_buffer(const Proc& proc,
                                  const cursors::Location& alloc, int dim) {
  const Stmt alloc_stmt = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const auto& a = alloc_stmt->as<Alloc>();
  const std::vector<Expr>& shape = a.type.shape();
  if (shape.empty())
    refuse("Cannot unroll a scalar buffer", {.srcinfo = alloc_stmt->srcinfo});
  if (dim < 0 || dim >= static_cast<int>(shape.size()))
    throw ArgumentError(
        fmt::format("Cannot unroll out-of-bounds dimension index {}", dim));
  const size_t d = static_cast<size_t>(dim);
  const std::string x = a.name.name();
  const std::optional<int64_t> extent = int_literal(shape[d]);
  if (!extent)
    refuse(fmt::format("Expected a constant buffer dimension, got {} at {}'th "
                       "dimension.",
                       print_expr(shape[d]), dim),
           {.srcinfo = alloc_stmt->srcinfo});

  // The buffer of each index value used, created on first use.
  std::map<int64_t, Sym> buffers;
  auto buffer_for = [&](const Expr& i, const SrcInfo& srcinfo) {
    const std::optional<int64_t> k = int_literal(i);
    if (!k)
      refuse(fmt::format("Expected a constant buffer access, got {} at {}'th "
                         "dimension. Try unrolling the loop. ",
                         print_expr(i), dim),
             {.srcinfo = srcinfo});
    if (*k < 0 || *k >= *extent)
      refuse(fmt::format("The buffer {} is accessed out-of-bounds", x),
             {.srcinfo = srcinfo});
    auto it = buffers.find(*k);
    if (it == buffers.end())
      it = buffers.emplace(*k, Sym(fmt::format("{}_{}", x, *k))).first;
    return it->second;
  };

  BufferAccessRewrite rewrite;
  rewrite.point = [&](const std::vector<Expr>& idx, const AccessSite& site) {
    std::vector<Expr> out = idx;
    out.erase(out.begin() + dim);
    return PointAccess{buffer_for(idx[d], site.srcinfo), std::move(out)};
  };
  rewrite.window = [&](const std::vector<WindowAccess>& idx,
                       const AccessSite& site) {
    if (idx[d].is_interval)
      refuse("Cannot unroll a buffer at a dimension used as a window.",
             {.srcinfo = site.srcinfo});
    std::vector<WindowAccess> out = idx;
    out.erase(out.begin() + dim);
    return WindowedAccess{buffer_for(idx[d].lo, site.srcinfo), std::move(out)};
  };
  rewrite.stride = [&](int, const AccessSite& site) -> int {
    refuse(fmt::format("Cannot unroll {} because its stride is read at {}", x,
                       site.srcinfo.str()),
           {.srcinfo = site.srcinfo});
  };
  rewrite.whole_buffer = [&](const AccessSite& site) {
    refuse(fmt::format(
               "Cannot unroll {} because buffer is passed as an argument", x),
           {.srcinfo = site.srcinfo});
  };

  std::vector<Expr> rest_shape = shape;
  rest_shape.erase(rest_shape.begin() + dim);
  rewrite.new_shape = rest_shape;
  rewrite.action = "unroll";

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  Block allocs;
  for (const auto& [k, sym] : buffers) {
    (void)k;
    const Type type = rest_shape.empty()
                          ? a.type.basetype()
                          : Type::tensor(a.type.basetype(), rest_shape, false);
    allocs.push_back(make_alloc(sym, type, a.mem, alloc_stmt->srcinfo));
  }
  edits.apply(cursors::replace(edits.proc(), alloc, std::move(allocs)));
  return edits.result();
}

}  // namespace exo2::primitives
