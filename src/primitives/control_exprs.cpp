#include "exo2/primitives/control_exprs.hpp"

#include <optional>

namespace exo2::primitives {

namespace {
bool is_size_like(const Type& t) {
  return t.kind() == TypeKind::Size || t.kind() == TypeKind::Int;
}
}  // namespace

Expr control_int(int64_t value, const SrcInfo& srcinfo) {
  return make_int(value, srcinfo, Type(TypeKind::Int));
}

Expr iterator_read(const Sym& iter, const SrcInfo& srcinfo) {
  return make_read(iter, {}, srcinfo, Type(TypeKind::Index));
}

std::optional<int64_t> int_literal(const Expr& e) {
  if (e->kind != ExprKind::Const || !e->as<Const>().is_int())
    return std::nullopt;
  return e->as<Const>().int_value();
}

Expr control_binop(BinOpKind op, const Expr& lhs, const Expr& rhs,
                   const SrcInfo& srcinfo) {
  if (is_comparison(op) || is_logical(op))
    return make_binop(op, lhs, rhs, srcinfo, Type(TypeKind::Bool));
  bool size = (op == BinOpKind::Add || op == BinOpKind::Mul) &&
              is_size_like(lhs->type) && is_size_like(rhs->type);
  return make_binop(op, lhs, rhs, srcinfo,
                    Type(size ? TypeKind::Size : TypeKind::Index));
}

}  // namespace exo2::primitives
