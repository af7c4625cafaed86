// Expressions of the object language. Nodes are immutable and shared:
// build them with the `make_*` functions and hold them as `Expr`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "exo2/core_ir/extension.hpp"
#include "exo2/core_ir/srcinfo.hpp"
#include "exo2/core_ir/sym.hpp"
#include "exo2/core_ir/types.hpp"

namespace exo2 {

enum class ExprKind {
  Read,        // x, x[i, j]
  Const,       // 3, 2.0, True
  USub,        // -e
  BinOp,       // a + b, a < b, a and b
  ExternCall,  // relu(e)
  WindowExpr,  // x[0:n, i]
  StrideExpr,  // stride(x, 1)
  ReadConfig,  // Cfg.field
};

// The kind's name, as in the IR class names (`Assign`, `ExternCall`).
const char* kind_name(ExprKind k);

enum class BinOpKind { Add, Sub, Mul, Div, Mod, Lt, Gt, Le, Ge, Eq, And, Or };
// The operator as written: "+", "<=", "and", ...
const char* binop_text(BinOpKind op);
bool binop_from_text(const std::string& text, BinOpKind* op);
bool is_comparison(BinOpKind op);
bool is_logical(BinOpKind op);

class ExprNode {
 public:
  ExprKind kind;
  // Unknown before typechecking.
  Type type;
  SrcInfo srcinfo;

  template <class T>
  const T& as() const {
    return static_cast<const T&>(*this);
  }
  virtual ~ExprNode() = default;

 protected:
  ExprNode(ExprKind k, Type t, SrcInfo s)
      : kind(k), type(std::move(t)), srcinfo(std::move(s)) {}
};

struct Read : ExprNode {
  Sym name;
  std::vector<Expr> idx;
  Read(Sym n, std::vector<Expr> i, Type t, SrcInfo s)
      : ExprNode(ExprKind::Read, std::move(t), std::move(s)),
        name(std::move(n)),
        idx(std::move(i)) {}
};

// A literal. Integer literals keep their integer value even in data context,
// so that `0` and `0.0` print as written.
using ConstValue = std::variant<bool, int64_t, double>;
struct Const : ExprNode {
  ConstValue value;
  Const(ConstValue v, Type t, SrcInfo s)
      : ExprNode(ExprKind::Const, std::move(t), std::move(s)), value(v) {}
  bool is_bool() const { return std::holds_alternative<bool>(value); }
  bool is_int() const { return std::holds_alternative<int64_t>(value); }
  bool is_float() const { return std::holds_alternative<double>(value); }
  int64_t int_value() const { return std::get<int64_t>(value); }
};

struct USub : ExprNode {
  Expr arg;
  USub(Expr a, Type t, SrcInfo s)
      : ExprNode(ExprKind::USub, std::move(t), std::move(s)),
        arg(std::move(a)) {}
};

struct BinOp : ExprNode {
  BinOpKind op;
  Expr lhs, rhs;
  BinOp(BinOpKind o, Expr l, Expr r, Type t, SrcInfo s)
      : ExprNode(ExprKind::BinOp, std::move(t), std::move(s)),
        op(o),
        lhs(std::move(l)),
        rhs(std::move(r)) {}
};

struct ExternCall : ExprNode {
  ExternPtr f;
  std::vector<Expr> args;
  ExternCall(ExternPtr fn, std::vector<Expr> a, Type t, SrcInfo s)
      : ExprNode(ExprKind::ExternCall, std::move(t), std::move(s)),
        f(std::move(fn)),
        args(std::move(a)) {}
};

// One entry of a window expression: a point `i` or an interval `lo:hi`.
struct WindowAccess {
  bool is_interval = false;
  Expr lo;  // the point when !is_interval
  Expr hi;  // null when !is_interval

  static WindowAccess point(Expr pt) { return {false, std::move(pt), nullptr}; }
  static WindowAccess interval(Expr lo, Expr hi) {
    return {true, std::move(lo), std::move(hi)};
  }
};

struct WindowExpr : ExprNode {
  Sym name;
  std::vector<WindowAccess> idx;
  WindowExpr(Sym n, std::vector<WindowAccess> i, Type t, SrcInfo s)
      : ExprNode(ExprKind::WindowExpr, std::move(t), std::move(s)),
        name(std::move(n)),
        idx(std::move(i)) {}
};

struct StrideExpr : ExprNode {
  Sym name;
  int dim;
  StrideExpr(Sym n, int d, Type t, SrcInfo s)
      : ExprNode(ExprKind::StrideExpr, std::move(t), std::move(s)),
        name(std::move(n)),
        dim(d) {}
};

struct ReadConfig : ExprNode {
  ConfigPtr config;
  std::string field;
  ReadConfig(ConfigPtr c, std::string f, Type t, SrcInfo s)
      : ExprNode(ExprKind::ReadConfig, std::move(t), std::move(s)),
        config(std::move(c)),
        field(std::move(f)) {}
};

// Builders. The type defaults to Unknown (frontend output).
Expr make_read(Sym name, std::vector<Expr> idx, SrcInfo s, Type t = Type());
Expr make_const(ConstValue v, SrcInfo s, Type t = Type());
Expr make_int(int64_t v, SrcInfo s = {}, Type t = Type(TypeKind::Int));
Expr make_usub(Expr arg, SrcInfo s, Type t = Type());
Expr make_binop(BinOpKind op, Expr lhs, Expr rhs, SrcInfo s, Type t = Type());
Expr make_extern_call(ExternPtr f, std::vector<Expr> args, SrcInfo s,
                      Type t = Type());
Expr make_window_expr(Sym name, std::vector<WindowAccess> idx, SrcInfo s,
                      Type t = Type());
Expr make_stride_expr(Sym name, int dim, SrcInfo s,
                      Type t = Type(TypeKind::Stride));
Expr make_read_config(ConfigPtr config, std::string field, SrcInfo s,
                      Type t = Type());
// A copy of `e` with another type (used by the typechecker).
Expr with_type(const Expr& e, Type t);

}  // namespace exo2
