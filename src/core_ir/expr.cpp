#include "exo2/core_ir/expr.hpp"

#include <array>
#include <utility>

#include "exo2/core_ir/ir_functor.hpp"

namespace exo2 {

namespace {
constexpr std::array<std::pair<BinOpKind, const char*>, 12> kBinOpTexts = {{
    {BinOpKind::Add, "+"},
    {BinOpKind::Sub, "-"},
    {BinOpKind::Mul, "*"},
    {BinOpKind::Div, "/"},
    {BinOpKind::Mod, "%"},
    {BinOpKind::Lt, "<"},
    {BinOpKind::Gt, ">"},
    {BinOpKind::Le, "<="},
    {BinOpKind::Ge, ">="},
    {BinOpKind::Eq, "=="},
    {BinOpKind::And, "and"},
    {BinOpKind::Or, "or"},
}};
}  // namespace

const char* binop_text(BinOpKind op) {
  for (const auto& [k, text] : kBinOpTexts)
    if (k == op) return text;
  return "?";
}

bool binop_from_text(const std::string& text, BinOpKind* op) {
  for (const auto& [k, t] : kBinOpTexts) {
    if (text == t) {
      *op = k;
      return true;
    }
  }
  return false;
}

bool is_comparison(BinOpKind op) {
  return op == BinOpKind::Lt || op == BinOpKind::Gt || op == BinOpKind::Le ||
         op == BinOpKind::Ge || op == BinOpKind::Eq;
}

bool is_logical(BinOpKind op) {
  return op == BinOpKind::And || op == BinOpKind::Or;
}

Expr make_read(Sym name, std::vector<Expr> idx, SrcInfo s, Type t) {
  return std::make_shared<const Read>(std::move(name), std::move(idx),
                                      std::move(t), std::move(s));
}

Expr make_const(ConstValue v, SrcInfo s, Type t) {
  return std::make_shared<const Const>(v, std::move(t), std::move(s));
}

Expr make_int(int64_t v, SrcInfo s, Type t) {
  return make_const(ConstValue(v), std::move(s), std::move(t));
}

Expr make_usub(Expr arg, SrcInfo s, Type t) {
  return std::make_shared<const USub>(std::move(arg), std::move(t),
                                      std::move(s));
}

Expr make_binop(BinOpKind op, Expr lhs, Expr rhs, SrcInfo s, Type t) {
  return std::make_shared<const BinOp>(op, std::move(lhs), std::move(rhs),
                                       std::move(t), std::move(s));
}

Expr make_extern_call(ExternPtr f, std::vector<Expr> args, SrcInfo s, Type t) {
  return std::make_shared<const ExternCall>(std::move(f), std::move(args),
                                            std::move(t), std::move(s));
}

Expr make_window_expr(Sym name, std::vector<WindowAccess> idx, SrcInfo s,
                      Type t) {
  return std::make_shared<const WindowExpr>(std::move(name), std::move(idx),
                                            std::move(t), std::move(s));
}

Expr make_stride_expr(Sym name, int dim, SrcInfo s, Type t) {
  return std::make_shared<const StrideExpr>(std::move(name), dim, std::move(t),
                                            std::move(s));
}

Expr make_read_config(ConfigPtr config, std::string field, SrcInfo s, Type t) {
  return std::make_shared<const ReadConfig>(std::move(config), std::move(field),
                                            std::move(t), std::move(s));
}

namespace {

// A copy of an expression with another type.
class WithType final : public ExprFunctor<Expr(Type)> {
 protected:
  Expr visit_read(const Expr& e, Type t) override {
    const auto& r = e->as<Read>();
    return make_read(r.name, r.idx, r.srcinfo, std::move(t));
  }
  Expr visit_const(const Expr& e, Type t) override {
    return make_const(e->as<Const>().value, e->srcinfo, std::move(t));
  }
  Expr visit_usub(const Expr& e, Type t) override {
    return make_usub(e->as<USub>().arg, e->srcinfo, std::move(t));
  }
  Expr visit_binop(const Expr& e, Type t) override {
    const auto& b = e->as<BinOp>();
    return make_binop(b.op, b.lhs, b.rhs, b.srcinfo, std::move(t));
  }
  Expr visit_extern_call(const Expr& e, Type t) override {
    const auto& c = e->as<ExternCall>();
    return make_extern_call(c.f, c.args, c.srcinfo, std::move(t));
  }
  Expr visit_window_expr(const Expr& e, Type t) override {
    const auto& w = e->as<WindowExpr>();
    return make_window_expr(w.name, w.idx, w.srcinfo, std::move(t));
  }
  Expr visit_stride_expr(const Expr& e, Type t) override {
    const auto& s = e->as<StrideExpr>();
    return make_stride_expr(s.name, s.dim, s.srcinfo, std::move(t));
  }
  Expr visit_read_config(const Expr& e, Type t) override {
    const auto& c = e->as<ReadConfig>();
    return make_read_config(c.config, c.field, c.srcinfo, std::move(t));
  }
};

}  // namespace

Expr with_type(const Expr& e, Type t) {
  return WithType().visit(e, std::move(t));
}

const char* kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::Read:
      return "Read";
    case ExprKind::Const:
      return "Const";
    case ExprKind::USub:
      return "USub";
    case ExprKind::BinOp:
      return "BinOp";
    case ExprKind::ExternCall:
      return "ExternCall";
    case ExprKind::WindowExpr:
      return "WindowExpr";
    case ExprKind::StrideExpr:
      return "StrideExpr";
    case ExprKind::ReadConfig:
      return "ReadConfig";
  }
  return "?";
}

}  // namespace exo2
