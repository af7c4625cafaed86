#include "exo2/primitives/inline_window.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

// Uses of the window `y = x[w]` rewritten as uses of `x`.
class Inline : public BufferUseRewriter {
 public:
  Inline(const Sym& y, const Expr& definition)
      : BufferUseRewriter(y, /*follow_windows=*/false),
        definition_(definition),
        w_(definition->as<WindowExpr>()) {}

 protected:
  Expr read(const Expr& e) override {
    const auto& r = e->as<Read>();
    // `y` passed whole to a call.
    if (r.idx.empty()) return with_srcinfo(definition_, e->srcinfo);
    std::vector<Expr> idx;
    size_t k = 0;
    for (const WindowAccess& a : w_.idx)
      idx.push_back(a.is_interval ? shift(r.idx.at(k++), a.lo) : a.lo);
    return make_read(w_.name, std::move(idx), r.srcinfo, e->type);
  }
  Expr window(const Expr& e) override {
    const auto& v = e->as<WindowExpr>();
    std::vector<WindowAccess> idx;
    size_t k = 0;
    for (const WindowAccess& a : w_.idx) {
      if (!a.is_interval) {
        idx.push_back(a);
        continue;
      }
      const WindowAccess& b = v.idx.at(k++);
      idx.push_back(b.is_interval ? WindowAccess::interval(shift(b.lo, a.lo),
                                                           shift(b.hi, a.lo))
                                  : WindowAccess::point(shift(b.lo, a.lo)));
    }
    return make_window_expr(w_.name, std::move(idx), v.srcinfo, e->type);
  }
  Expr stride(const Expr& e) override {
    const int dim = e->as<StrideExpr>().dim;
    int seen = 0;
    for (size_t d = 0; d < w_.idx.size(); d++)
      if (w_.idx[d].is_interval && seen++ == dim)
        return make_stride_expr(w_.name, static_cast<int>(d), e->srcinfo,
                                e->type);
    throw std::logic_error("inline_window: stride of a missing dimension");
  }
  Stmt write(const Stmt& s) override {
    const auto& a = s->as<Assign>();
    std::vector<Expr> idx;
    size_t k = 0;
    for (const WindowAccess& w : w_.idx)
      idx.push_back(w.is_interval ? shift(a.idx.at(k++), w.lo) : w.lo);
    return std::make_shared<const Assign>(s->kind, w_.name, a.type,
                                          std::move(idx), a.rhs, a.srcinfo);
  }

 private:
  static Expr shift(const Expr& i, const Expr& lo) {
    return control_binop(BinOpKind::Add, i, lo, i->srcinfo);
  }
  static Expr with_srcinfo(const Expr& w, const SrcInfo& src) {
    const auto& v = w->as<WindowExpr>();
    return make_window_expr(v.name, v.idx, src, w->type);
  }

  Expr definition_;
  const WindowExpr& w_;
};

}  // namespace

cursors::EditResult inline_window(const Proc& proc,
                                  const cursors::Location& window) {
  const Stmt s = stmt_of_kind(proc, window, StmtKind::WindowStmt);
  const WindowStmt& w = s->as<WindowStmt>();
  if (w.rhs->kind != ExprKind::WindowExpr)
    throw ArgumentError("inline_window: expected a window expression");
  // The window's bounds are evaluated once, by the window statement; inlined,
  // at every use, after the statements that follow it.
  const Block& list = cursors::enclosing_list(proc, window.path);
  const Block rest(list.begin() + window.path.back().index + 1, list.end());
  const SafetyResult unchanged = prove_config_reads_unchanged(
      {w.rhs}, rest, fmt::format("the window {} reads", w.name.name()));
  require_proven(unchanged,
                 fmt::format("Cannot inline the window {}: {}, and its uses "
                             "would evaluate the window again.",
                             w.name.name(), unchanged.detail),
                 {.srcinfo = s->srcinfo, .condition = "ReadsUnchanged"});
  EditSequence edits(proc);
  edits.apply(
      {Inline(w.name, w.rhs).rewrite_uses(proc), cursors::Forwarding()});
  edits.apply(cursors::remove(edits.proc(), window));
  return edits.result();
}

}  // namespace exo2::primitives
