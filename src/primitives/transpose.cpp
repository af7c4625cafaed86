#include "exo2/primitives/transpose.hpp"

#include <fmt/format.h>

#include <utility>

#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

namespace {

class SwapDimensions : public BufferUseRewriter {
 public:
  explicit SwapDimensions(const Sym& buffer)
      : BufferUseRewriter(buffer, /*follow_windows=*/false) {}

 protected:
  Expr read(const Expr& e) override {
    const auto& r = e->as<Read>();
    if (r.idx.empty())
      refuse(fmt::format("Cannot permute buffer '{}' because it is passed as "
                         "a sub-procedure argument at {}",
                         r.name.name(), r.srcinfo.str()),
             {.srcinfo = r.srcinfo});
    return make_read(r.name, {r.idx[1], r.idx[0]}, r.srcinfo, r.type);
  }
  Expr window(const Expr& e) override {
    const auto& w = e->as<WindowExpr>();
    if (w.idx[0].is_interval && w.idx[1].is_interval)
      refuse(fmt::format("Permuting the window expression at {} would change "
                         "the meaning of the window; propagating dimension "
                         "rearrangement through windows is not currently "
                         "supported",
                         w.srcinfo.str()),
             {.srcinfo = w.srcinfo});
    return make_window_expr(w.name, {w.idx[1], w.idx[0]}, w.srcinfo, w.type);
  }
  Expr stride(const Expr& e) override {
    const auto& s = e->as<StrideExpr>();
    return make_stride_expr(s.name, 1 - s.dim, s.srcinfo, s.type);
  }
  Stmt write(const Stmt& s) override {
    const auto& a = s->as<Assign>();
    return std::make_shared<const Assign>(s->kind, a.name, a.type,
                                          std::vector<Expr>{a.idx[1], a.idx[0]},
                                          a.rhs, a.srcinfo);
  }
};

}  // namespace

Proc transpose(const Proc& proc, const cursors::Location& param) {
  const Declaration d = declaration_at(proc, param);
  if (d.param < 0 || !d.type.is_tensor() || d.type.shape().size() != 2)
    throw ArgumentError("transpose: expected a 2-D parameter");
  const std::vector<Expr>& shape = d.type.shape();
  std::vector<std::shared_ptr<const DimAnnotation>> annotations =
      d.type.dim_annotations();
  if (annotations.size() == 2) std::swap(annotations[0], annotations[1]);
  Proc out = redeclare(proc, d,
                       Type::tensor(d.type.basetype(), {shape[1], shape[0]},
                                    d.type.is_window(), std::move(annotations)),
                       d.mem);
  return SwapDimensions(d.name).rewrite_uses(out);
}

}  // namespace exo2::primitives
