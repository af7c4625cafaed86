// Small builders of typed IR (as the typechecker leaves it) for the tests
// of the analysis: effects, queries and simplify.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2::test_ir {

inline const Type kIndex(TypeKind::Index);
inline const Type kSize(TypeKind::Size);
inline const Type kInt(TypeKind::Int);
inline const Type kBool(TypeKind::Bool);
inline const Type kF32(TypeKind::F32);
inline const Type kR(TypeKind::R);

inline SrcInfo at(int line, int col = 4) { return SrcInfo("k.py", line, col); }

// ---- Control expressions ----
inline Expr v(const Sym& s, Type t = kIndex) {
  return make_read(s, {}, at(0), t);
}
inline Expr sz(const Sym& s) { return v(s, kSize); }
inline Expr lit(int64_t x) { return make_int(x, at(0), kInt); }
inline Expr bin(BinOpKind op, Expr a, Expr b, Type t = kIndex) {
  return make_binop(op, std::move(a), std::move(b), at(0), std::move(t));
}
inline Expr add(Expr a, Expr b) { return bin(BinOpKind::Add, a, b); }
inline Expr sub(Expr a, Expr b) { return bin(BinOpKind::Sub, a, b); }
inline Expr mul(Expr a, Expr b) { return bin(BinOpKind::Mul, a, b); }
inline Expr div(Expr a, Expr b) { return bin(BinOpKind::Div, a, b); }
inline Expr mod(Expr a, Expr b) { return bin(BinOpKind::Mod, a, b); }
inline Expr neg(Expr a) { return make_usub(a, at(0), kIndex); }
inline Expr cmp(BinOpKind op, Expr a, Expr b) { return bin(op, a, b, kBool); }
inline Expr lt(Expr a, Expr b) { return cmp(BinOpKind::Lt, a, b); }
inline Expr eq(Expr a, Expr b) { return cmp(BinOpKind::Eq, a, b); }
inline Expr both(Expr a, Expr b) { return cmp(BinOpKind::And, a, b); }
inline Expr truth(bool b) { return make_const(b, at(0), kBool); }

// ---- Data expressions ----
inline Expr data(const Sym& x, std::vector<Expr> idx, SrcInfo s = at(0)) {
  return make_read(x, std::move(idx), s, kF32);
}
inline Expr real(double x) { return make_const(x, at(0), kR); }
inline Expr fmul(Expr a, Expr b) { return bin(BinOpKind::Mul, a, b, kF32); }
inline Expr fadd(Expr a, Expr b) { return bin(BinOpKind::Add, a, b, kF32); }

inline Type tensor(std::vector<Expr> shape) {
  return Type::tensor(kF32, std::move(shape), false);
}
inline Type window_type(std::vector<Expr> shape) {
  return Type::tensor(kF32, std::move(shape), true);
}
inline WindowAccess pt(Expr e) { return WindowAccess::point(std::move(e)); }
inline WindowAccess iv(Expr lo, Expr hi) {
  return WindowAccess::interval(std::move(lo), std::move(hi));
}
// `x[accesses]` typed as a window whose extents are `hi - lo`.
inline Expr win(const Sym& x, std::vector<WindowAccess> idx,
                SrcInfo s = at(0)) {
  std::vector<Expr> shape;
  for (const auto& a : idx)
    if (a.is_interval) shape.push_back(sub(a.hi, a.lo));
  return make_window_expr(x, std::move(idx), s, window_type(shape));
}

// ---- Statements ----
inline Stmt assign(const Sym& x, std::vector<Expr> idx, Expr rhs, int line,
                   int col = 4) {
  return make_assign(x, kF32, std::move(idx), std::move(rhs), at(line, col));
}
inline Stmt reduce(const Sym& x, std::vector<Expr> idx, Expr rhs, int line,
                   int col = 4) {
  return make_reduce(x, kF32, std::move(idx), std::move(rhs), at(line, col));
}
inline Stmt loop(const Sym& i, Expr lo, Expr hi, Block body, int line = 2) {
  return make_for(i, std::move(lo), std::move(hi), std::move(body),
                  LoopMode::seq(), at(line));
}
inline Stmt cond(Expr c, Block body, Block orelse = {}, int line = 2) {
  return make_if(std::move(c), std::move(body), std::move(orelse), at(line));
}
inline Stmt alloc(const Sym& x, Type t, int line = 2) {
  return make_alloc(x, std::move(t), NamedMemory::dram(), at(line));
}

inline FnArg arg(const Sym& s, Type t) {
  const bool control = !t.is_numeric();
  return FnArg{s, t, control ? nullptr : NamedMemory::dram(), at(1)};
}
inline Proc proc(std::string name, std::vector<FnArg> args, Block body,
                 std::vector<Expr> preds = {}) {
  return make_proc(std::move(name), std::move(args), std::move(preds),
                   std::move(body), std::nullopt, at(1));
}

}  // namespace exo2::test_ir
