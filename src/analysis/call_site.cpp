#include "exo2/analysis/call_site.hpp"

#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {

// Control expressions read no data, so every read is a variable.
class AtCallSite : public IRMutator {
 public:
  explicit AtCallSite(const std::unordered_map<Sym, Expr>& args)
      : args_(args) {}

 protected:
  Expr mutate_read(const Expr& e) override {
    auto it = args_.find(e->as<Read>().name);
    return it == args_.end() ? e : it->second;
  }

  Expr mutate_stride_expr(const Expr& e) override {
    const auto& s = e->as<StrideExpr>();
    auto it = args_.find(s.name);
    if (it == args_.end()) return e;
    const Expr& actual = it->second;
    if (actual->kind == ExprKind::Read)
      return make_stride_expr(actual->as<Read>().name, s.dim, e->srcinfo,
                              e->type);
    if (actual->kind == ExprKind::WindowExpr) {
      const auto& w = actual->as<WindowExpr>();
      int seen = 0;
      for (size_t d = 0; d < w.idx.size(); ++d)
        if (w.idx[d].is_interval && seen++ == s.dim)
          return make_stride_expr(w.name, static_cast<int>(d), e->srcinfo,
                                  e->type);
    }
    return e;
  }

 private:
  const std::unordered_map<Sym, Expr>& args_;
};

}  // namespace

Expr at_call_site(const Expr& e, const std::unordered_map<Sym, Expr>& args) {
  return AtCallSite(args).mutate(e);
}

}  // namespace exo2
