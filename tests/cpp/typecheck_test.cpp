// The typechecker: typed results and the exact Exo error texts
// (docs/writing-kernels.md "Checks and errors", docs/errors.md "Kernels").
#include "exo2/core_ir/typecheck.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/printer.hpp"

namespace exo2 {
namespace {

const Type kSize(TypeKind::Size);
const Type kIndex(TypeKind::Index);
const Type kBool(TypeKind::Bool);
const Type kStride(TypeKind::Stride);
const Type kR(TypeKind::R);
const Type kF32(TypeKind::F32);
const Type kF64(TypeKind::F64);

// A location on line `line` of the user's file.
SrcInfo at(int line, int col = 4) { return SrcInfo("k.py", line, col); }

// Untyped frontend output.
Expr var(const Sym& s, int line = 1, int col = 4) {
  return make_read(s, {}, at(line, col));
}
Expr idx(const Sym& s, std::vector<Expr> i, int line = 1, int col = 4) {
  return make_read(s, std::move(i), at(line, col));
}
Expr lit(int64_t v, int line = 1, int col = 4) {
  return make_const(ConstValue(v), at(line, col));
}
Expr flt(double v, int line = 1, int col = 4) {
  return make_const(ConstValue(v), at(line, col));
}
Expr boolean(bool v, int line = 1, int col = 4) {
  return make_const(ConstValue(v), at(line, col));
}
Expr bin(BinOpKind op, Expr a, Expr b, int line = 1, int col = 4) {
  return make_binop(op, std::move(a), std::move(b), at(line, col));
}

FnArg arg(const Sym& s, Type t) {
  const bool control =
      t.kind() == TypeKind::Size || t.kind() == TypeKind::Index;
  return {s, std::move(t), control ? nullptr : NamedMemory::dram(), at(0)};
}
Type tensor(Type elem, std::vector<Expr> shape, bool window = false) {
  return Type::tensor(std::move(elem), std::move(shape), window);
}

Proc proc(std::vector<FnArg> args, Block body, std::vector<Expr> preds = {}) {
  return make_proc("k", std::move(args), std::move(preds), std::move(body),
                   std::nullopt, at(0, 0));
}

Stmt loop(const Sym& i, Expr hi, Block body, int line = 2) {
  return make_for(i, lit(0, line), std::move(hi), std::move(body),
                  LoopMode::seq(), at(line));
}

// The messages of the typecheck error raised for `p`, or {"<no error>"}.
std::vector<std::string> errors(const Proc& p) {
  try {
    typecheck(p);
  } catch (const CheckError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.message);
    return out;
  }
  return {"<no error>"};
}

std::string only_error(const Proc& p) {
  std::vector<std::string> all = errors(p);
  return all.size() == 1 ? all[0]
                         : "<" + std::to_string(all.size()) + " errors>";
}

// A scalar extern: `relu(x)` of one real argument.
class Relu : public Extern {
 public:
  std::string name() const override { return "relu"; }
  Type typecheck(const std::vector<Type>& args) const override {
    if (args.size() != 1)
      throw ExternTypecheckError{"expected 1 argument, got " +
                                 std::to_string(args.size())};
    if (!args[0].is_real_scalar())
      throw ExternTypecheckError{
          "expected argument 1 to be a real scalar "
          "value, but got type " +
          args[0].str()};
    return args[0];
  }
};

// Common symbols: n, m sizes; x: f32[n, m]; v: f32[n]; a: f32; i, j iters.
class TypecheckTest : public ::testing::Test {
 protected:
  Sym n{"n"}, m{"m"}, x{"x"}, v{"v"}, a{"a"}, i{"i"}, j{"j"}, y{"y"};

  std::vector<FnArg> args() {
    return {arg(n, kSize), arg(m, kSize),
            arg(x, tensor(kF32, {var(n), var(m)})),
            arg(v, tensor(kF32, {var(n)})), arg(a, kF32)};
  }
  // `for i in seq(0, n): <body>` inside a proc over args().
  Proc in_loop(Block body) {
    return proc(args(), {loop(i, var(n), std::move(body))});
  }
  // The first statement of the loop body of the typed in_loop proc.
  static const Stmt& loop_stmt(const Proc& p, size_t k = 0) {
    return p->body[0]->as<For>().body[k];
  }
};

using Typecheck = TypecheckTest;

// ------------------------------------------------------------- literals

TEST_F(Typecheck, IntLiteralIsIntInControlAndRInData) {
  Proc p = typecheck(
      in_loop({make_assign(v, {}, {var(i, 3)}, lit(0, 3, 11), at(3))}));
  const auto& s = loop_stmt(p)->as<Assign>();
  EXPECT_EQ(s.rhs->type.kind(), TypeKind::R);
  ASSERT_TRUE(s.rhs->as<Const>().is_int());
  EXPECT_EQ(s.rhs->as<Const>().int_value(), 0);
  EXPECT_EQ(p->body[0]->as<For>().lo->type.kind(), TypeKind::Int);
  EXPECT_EQ(s.idx[0]->type.kind(), TypeKind::Index);
}

TEST_F(Typecheck, FloatLiteralIsRAndBoolLiteralIsBool) {
  Proc p = typecheck(
      proc(args(),
           {make_if(boolean(true, 2),
                    {make_assign(a, {}, {}, flt(2.5, 3), at(3))}, {}, at(2))}));
  const auto& s = p->body[0]->as<If>();
  EXPECT_EQ(s.cond->type.kind(), TypeKind::Bool);
  EXPECT_EQ(s.body[0]->as<Assign>().rhs->type.kind(), TypeKind::R);
}

TEST_F(Typecheck, AssignTakesElementTypeOfBuffer) {
  Proc p = typecheck(in_loop({make_reduce(v, {}, {var(i)}, flt(1.0), at(3))}));
  const auto& s = loop_stmt(p)->as<Reduce>();
  EXPECT_EQ(s.kind, StmtKind::Reduce);
  EXPECT_EQ(s.type.kind(), TypeKind::F32);
  EXPECT_EQ(s.idx[0]->type.kind(), TypeKind::Index);
}

TEST_F(Typecheck, ArgumentShapesAreTyped) {
  Proc p = typecheck(proc(args(), {make_pass(at(2))}));
  const Type& t = p->args[2].type;
  ASSERT_EQ(t.shape().size(), 2u);
  EXPECT_EQ(t.shape()[0]->type.kind(), TypeKind::Size);
  EXPECT_EQ(t.str(), "f32[n, m]");
  EXPECT_EQ(p->args[0].mem, nullptr);
}

TEST_F(Typecheck, NegatedLiteralIsFolded) {
  Proc p = typecheck(
      proc(args(), {make_for(i, make_usub(lit(3, 2), at(2)), var(n),
                             {make_pass(at(3))}, LoopMode::seq(), at(2))}));
  const Expr& lo = p->body[0]->as<For>().lo;
  ASSERT_EQ(lo->kind, ExprKind::Const);
  EXPECT_EQ(lo->as<Const>().int_value(), -3);
  EXPECT_EQ(lo->type.kind(), TypeKind::Int);
}

TEST_F(Typecheck, NegationKeepsOperandType) {
  Proc p = typecheck(in_loop({make_assign(
      v, {}, {var(i)}, make_usub(idx(v, {var(i)}), at(3)), at(3))}));
  EXPECT_EQ(loop_stmt(p)->as<Assign>().rhs->type.kind(), TypeKind::F32);
}

// -------------------------------------------------------- arithmetic kinds

TEST_F(Typecheck, AddResultKindsFollowExo) {
  // i + n -> index, n + 1 -> size, n * 2 -> size, i / 2 -> index.
  Proc p = typecheck(in_loop({make_for(
      j, bin(BinOpKind::Add, var(i), var(n)),
      bin(BinOpKind::Add, bin(BinOpKind::Mul, var(n), lit(2)), lit(1)),
      {make_assign(v, {}, {bin(BinOpKind::Div, var(j), lit(2))}, flt(0.0),
                   at(4))},
      LoopMode::seq(), at(3))}));
  const auto& inner = loop_stmt(p)->as<For>();
  EXPECT_EQ(inner.lo->type.kind(), TypeKind::Index);
  EXPECT_EQ(inner.hi->type.kind(), TypeKind::Size);
  EXPECT_EQ(inner.hi->as<BinOp>().lhs->type.kind(), TypeKind::Size);
  EXPECT_EQ(inner.body[0]->as<Assign>().idx[0]->type.kind(), TypeKind::Index);
}

TEST_F(Typecheck, LiteralTimesLiteralIsInt) {
  Proc p = typecheck(
      proc(args(), {make_for(i, lit(0, 2), bin(BinOpKind::Mul, lit(2), lit(3)),
                             {make_pass(at(3))}, LoopMode::seq(), at(2))}));
  EXPECT_EQ(p->body[0]->as<For>().hi->type.kind(), TypeKind::Int);
}

// Mixed precisions take the left operand's, as Exo (checked against
// exo-lang 1.0: `2.0 * v[i]` is R, `v[i] * 2.0` is f32).
TEST_F(Typecheck, MixedPrecisionTakesTheLeftOperands) {
  Proc p = typecheck(in_loop(
      {make_assign(v, {}, {var(i)},
                   bin(BinOpKind::Mul, flt(2.0), idx(v, {var(i)})), at(3)),
       make_assign(v, {}, {var(i)},
                   bin(BinOpKind::Mul, idx(v, {var(i)}), flt(2.0)), at(4))}));
  EXPECT_EQ(loop_stmt(p, 0)->as<Assign>().rhs->type.kind(), TypeKind::R);
  EXPECT_EQ(loop_stmt(p, 1)->as<Assign>().rhs->type.kind(), TypeKind::F32);
}

TEST_F(Typecheck, RejectsNonAffineMultiply) {
  Proc p = in_loop({make_assign(
      v, {}, {bin(BinOpKind::Mul, var(i), var(i), 3, 6)}, flt(0.0), at(3))});
  EXPECT_EQ(only_error(p),
            "cannot multiply two non-constant indexing/sizing expressions, "
            "since the result would be non-affine");
}

// Scheduled code may multiply control values (a primitive's new
// expression, or a whole proc checked as scheduled code); the product is
// typed as the sum of the two would be.
TEST_F(Typecheck, ScheduledCodeMayMultiplyControlValues) {
  const Expr sizes = typecheck_expr(bin(BinOpKind::Mul, var(n), var(m)),
                                    {{n, kSize}, {m, kSize}});
  EXPECT_EQ(sizes->type.kind(), TypeKind::Size);
  const Expr index = typecheck_expr(bin(BinOpKind::Mul, var(i), var(m)),
                                    {{i, kIndex}, {m, kSize}});
  EXPECT_EQ(index->type.kind(), TypeKind::Index);
  Proc p = typecheck(
      in_loop({make_assign(v, {}, {bin(BinOpKind::Mul, var(i), var(i))},
                           flt(0.0), at(3))}),
      ControlProducts::Allowed);
  EXPECT_EQ(loop_stmt(p)->as<Assign>().idx[0]->type.kind(), TypeKind::Index);
}

TEST_F(Typecheck, RejectsDivisionByNonConstant) {
  Proc p = in_loop({make_assign(v, {}, {bin(BinOpKind::Div, var(i), var(n))},
                                flt(0.0), at(3))});
  EXPECT_EQ(only_error(p), "cannot divide or modulo by a non-constant value");
}

TEST_F(Typecheck, RejectsModuloByZeroOrNegative) {
  Proc p = in_loop({make_assign(v, {}, {bin(BinOpKind::Mod, var(i), lit(0))},
                                flt(0.0), at(3)),
                    make_assign(v, {}, {bin(BinOpKind::Div, var(i), lit(-2))},
                                flt(0.0), at(4))});
  EXPECT_EQ(errors(p),
            (std::vector<std::string>{
                "cannot divide or modulo by zero or a negative value",
                "cannot divide or modulo by zero or a negative value"}));
}

TEST_F(Typecheck, RejectsModulusOfData) {
  Proc p = in_loop(
      {make_assign(v, {}, {var(i)},
                   bin(BinOpKind::Mod, idx(v, {var(i)}), flt(2.0)), at(3))});
  EXPECT_EQ(only_error(p), "cannot compute modulus of 'R' values");
}

TEST_F(Typecheck, RejectsMixingDataAndControl) {
  Proc p = in_loop({make_assign(
      v, {}, {var(i)}, bin(BinOpKind::Add, idx(v, {var(i)}), var(n)), at(3))});
  EXPECT_EQ(only_error(p), "expected scalar type");
}

TEST_F(Typecheck, RejectsArithmeticOnBool) {
  Proc p = proc(
      args(), {make_if(bin(BinOpKind::Lt,
                           bin(BinOpKind::Add, boolean(true), var(n)), lit(3)),
                       {make_pass(at(3))}, {}, at(2))});
  EXPECT_EQ(only_error(p), "cannot perform arithmetic on 'bool' values");
}

TEST_F(Typecheck, RejectsArithmeticOnStride) {
  Proc p =
      proc(args(),
           {loop(i, bin(BinOpKind::Add, make_stride_expr(x, 0, at(2)), lit(1)),
                 {make_pass(at(3))})});
  EXPECT_EQ(only_error(p), "cannot perform arithmetic on 'stride' values");
}

TEST_F(Typecheck, RejectsArithmeticOnTensors) {
  Proc p =
      proc(args(),
           {loop(i, bin(BinOpKind::Add, var(v), lit(1)), {make_pass(at(3))})});
  EXPECT_EQ(only_error(p), "cannot perform arithmetic on tensors");
}

// ---------------------------------------------------- comparisons, logic

TEST_F(Typecheck, RejectsComparisonOfDataValues) {
  Proc p =
      in_loop({make_if(bin(BinOpKind::Lt, idx(v, {var(i)}, 3, 7), lit(3), 3, 7),
                       {make_pass(at(4))}, {}, at(3))});
  std::vector<std::string> all = errors(p);
  EXPECT_EQ(all, (std::vector<std::string>{"expected 'index' or 'size' "
                                           "argument to comparison op: <"}));
}

TEST_F(Typecheck, RejectsLogicalOpOnNonBool) {
  Proc p = proc(
      args(),
      {make_if(bin(BinOpKind::And, bin(BinOpKind::Lt, var(n), lit(3)), var(m)),
               {make_pass(at(3))}, {}, at(2))});
  EXPECT_EQ(only_error(p), "expected 'bool' argument to logical op");
}

TEST_F(Typecheck, EqualityComparesBoolsAndStrides) {
  Proc p =
      typecheck(proc(args(), {make_pass(at(3))},
                     {bin(BinOpKind::Eq, make_stride_expr(x, 1, at(1)), lit(1)),
                      bin(BinOpKind::Eq, bin(BinOpKind::Lt, var(n), lit(3)),
                          bin(BinOpKind::Gt, var(m), lit(1))),
                      bin(BinOpKind::Eq, make_stride_expr(x, 0, at(1)),
                          make_stride_expr(v, 0, at(1)))}));
  for (const Expr& pred : p->preds)
    EXPECT_EQ(pred->type.kind(), TypeKind::Bool);
}

TEST_F(Typecheck, RejectsOrderingOfStrides) {
  Proc p = proc(args(), {make_pass(at(3))},
                {bin(BinOpKind::Lt, make_stride_expr(x, 1, at(1)), lit(4))});
  EXPECT_EQ(only_error(p),
            "expected 'index' or 'size' argument to comparison op: <");
}

TEST_F(Typecheck, RejectsNonBoolPrecondition) {
  Proc p =
      proc(args(), {make_pass(at(3))}, {bin(BinOpKind::Add, var(n), lit(1))});
  EXPECT_EQ(only_error(p), "expected a bool expression");
}

TEST_F(Typecheck, RejectsNonBoolIfCondition) {
  Proc p = proc(args(), {make_if(var(n, 2, 7), {make_pass(at(3))}, {}, at(2))});
  try {
    typecheck(p);
    FAIL() << "expected a typecheck error";
  } catch (const CheckError& e) {
    EXPECT_STREQ(e.what(),
                 "Errors occurred during typechecking:\n"
                 "k.py:2:7: expected a bool expression");
  }
}

// -------------------------------------------------------------- accesses

TEST_F(Typecheck, RejectsIndexWithDataExpression) {
  Proc p = proc(args(), {make_assign(v, {}, {var(a, 2, 6)}, flt(0.0), at(2))});
  EXPECT_EQ(only_error(p), "cannot index with expression of type 'f32'");
  Proc q =
      proc(args(), {make_assign(v, {}, {flt(1.0, 2, 6)}, flt(0.0), at(2))});
  EXPECT_EQ(only_error(q), "cannot index with expression of type 'R'");
}

TEST_F(Typecheck, RejectsTooManyIndices) {
  Proc p = in_loop({make_assign(a, {}, {}, idx(v, {var(i), var(i)}), at(3))});
  EXPECT_EQ(only_error(p),
            "expected access of variable 'v' of type 'f32[n]' to have no more "
            "than 1 indices, but 2 were found.");
}

TEST_F(Typecheck, RejectsLvalueWithTooFewIndices) {
  Proc p = in_loop({make_assign(x, {}, {var(i)}, flt(0.0), at(3))});
  EXPECT_EQ(only_error(p),
            "expected lvalue access of variable 'x' of type 'f32[n, m]' to "
            "have exactly 2 indices, but 1 were found.");
}

TEST_F(Typecheck, RejectsAssignToSizeVariable) {
  Proc p = proc(args(), {make_assign(n, {}, {}, flt(0.0), at(2))});
  EXPECT_EQ(only_error(p),
            "cannot assign/reduce to 'n', a non-numeric variable of type "
            "'size'");
}

TEST_F(Typecheck, RejectsAssigningBoolValue) {
  Proc p = proc(args(), {make_assign(a, {}, {}, boolean(false), at(2))});
  EXPECT_EQ(only_error(p), "cannot assign/reduce a 'bool' type value");
}

TEST_F(Typecheck, RejectsAssigningWholeTensor) {
  Proc p = proc(args(), {make_assign(a, {}, {}, var(v), at(2))});
  EXPECT_EQ(only_error(p), "cannot assign/reduce a 'f32[n]' type value");
}

TEST_F(Typecheck, RejectsIndexingAControlVariable) {
  Proc p = proc(args(), {loop(i, idx(n, {lit(0)}), {make_pass(at(3))})});
  EXPECT_EQ(only_error(p), "cannot index a variable of type 'size'");
}

// --------------------------------------------------------------- windows

TEST_F(Typecheck, PartialReadBecomesWindow) {
  Proc p = typecheck(in_loop({make_window_stmt(y, idx(x, {var(i)}), at(3))}));
  const Expr& rhs = loop_stmt(p)->as<WindowStmt>().rhs;
  ASSERT_EQ(rhs->kind, ExprKind::WindowExpr);
  const auto& w = rhs->as<WindowExpr>();
  ASSERT_EQ(w.idx.size(), 2u);
  EXPECT_FALSE(w.idx[0].is_interval);
  EXPECT_TRUE(w.idx[1].is_interval);
  EXPECT_EQ(w.idx[1].lo->as<Const>().int_value(), 0);
  EXPECT_EQ(w.idx[1].hi->as<Read>().name, m);
  EXPECT_EQ(rhs->type.str(), "[f32][m]");
  EXPECT_TRUE(rhs->type.is_window());
}

TEST_F(Typecheck, WindowFillsMissingBoundsAndSubtractsLo) {
  Proc p = typecheck(proc(
      args(), {make_window_stmt(
                  y,
                  make_window_expr(x,
                                   {WindowAccess::interval(lit(2), nullptr),
                                    WindowAccess::interval(nullptr, lit(3))},
                                   at(2)),
                  at(2))}));
  const Expr& rhs = p->body[0]->as<WindowStmt>().rhs;
  const auto& w = rhs->as<WindowExpr>();
  EXPECT_EQ(w.idx[0].hi->as<Read>().name, n);
  EXPECT_EQ(w.idx[1].lo->type.kind(), TypeKind::Int);
  EXPECT_EQ(rhs->type.str(), "[f32][n - 2, 3]");
  EXPECT_EQ(rhs->type.shape()[0]->type.kind(), TypeKind::Index);
}

TEST_F(Typecheck, WindowOfWindowUsesWindowShape) {
  Sym z("z");
  Proc p = typecheck(
      in_loop({make_window_stmt(y, idx(x, {var(i)}), at(3)),
               make_window_stmt(
                   z,
                   make_window_expr(
                       y, {WindowAccess::interval(lit(1), nullptr)}, at(4)),
                   at(4)),
               make_assign(z, {}, {lit(0)}, flt(1.0), at(5))}));
  EXPECT_EQ(loop_stmt(p, 1)->as<WindowStmt>().rhs->type.str(), "[f32][m - 1]");
  EXPECT_EQ(loop_stmt(p, 2)->as<Assign>().type.kind(), TypeKind::F32);
}

TEST_F(Typecheck, RejectsWindowWithWrongNumberOfIndices) {
  Proc p = proc(args(),
                {make_window_stmt(
                    y,
                    make_window_expr(
                        x, {WindowAccess::interval(nullptr, nullptr)}, at(2)),
                    at(2))});
  EXPECT_EQ(only_error(p), "expected 2 indices for window but got 1");
}

TEST_F(Typecheck, RejectsWindowStatementWithoutWindow) {
  Proc p = proc(args(), {make_window_stmt(y, var(v), at(2))});
  EXPECT_EQ(only_error(p),
            "unable to disambiguate assignment to undefined variable 'y'");
}

TEST_F(Typecheck, StrideExprChecksDimension) {
  Proc p = proc(args(), {make_pass(at(3))},
                {bin(BinOpKind::Eq, make_stride_expr(v, 1, at(1)), lit(1))});
  EXPECT_EQ(only_error(p), "expected 1 to be in-bounds (i.e. 0 <= 1 < 1)");
}

// ------------------------------------------------------- allocs, loops

TEST_F(Typecheck, RejectsNonIndexableLoopBound) {
  Proc p = proc(args(), {loop(i, flt(2.0), {make_pass(at(3))})});
  EXPECT_EQ(only_error(p), "expected loop bound to be indexable.");
}

TEST_F(Typecheck, RejectsAllocationOfControlType) {
  Sym t("t");
  Proc p = proc(args(), {make_alloc(t, kSize, NamedMemory::dram(), at(2))});
  EXPECT_EQ(only_error(p),
            "Cannot allocate an intermediate value of type size");
}

TEST_F(Typecheck, AllocationShapeIsTypedAndChecked) {
  Sym t("t");
  Proc ok = typecheck(
      proc(args(),
           {make_alloc(t, tensor(kF32, {bin(BinOpKind::Add, var(n), lit(1))}),
                       NamedMemory::dram(), at(2))}));
  EXPECT_EQ(ok->body[0]->as<Alloc>().type.shape()[0]->type.kind(),
            TypeKind::Size);
  Proc bad =
      proc(args(),
           {make_alloc(t, tensor(kF32, {var(a)}), NamedMemory::dram(), at(2))});
  EXPECT_EQ(only_error(bad),
            "expected array size expression to have type 'size' or type "
            "'index'");
}

TEST_F(Typecheck, RejectsDataArgumentInShape) {
  Sym b("b");
  Proc p =
      proc({arg(a, kF32), arg(b, tensor(kF32, {var(a)}))}, {make_pass(at(2))});
  EXPECT_EQ(only_error(p),
            "expected array size expression to have type 'size' or type "
            "'index'");
}

// ------------------------------------------------------------------ calls

class TypecheckCall : public TypecheckTest {
 protected:
  Sym cn{"n"}, cx{"x"}, cs{"s"}, cb{"flag"}, cst{"st"};
  // callee(n: size, x: [f32][n], s: f32, flag: bool, st: stride)
  Proc callee() {
    return typecheck(
        make_proc("callee",
                  {arg(cn, kSize), arg(cx, tensor(kF32, {var(cn)}, true)),
                   arg(cs, kF32), arg(cb, kBool), arg(cst, kStride)},
                  {}, {make_pass(at(10))}, std::nullopt, at(9, 0)));
  }
  Stmt call(std::vector<Expr> call_args, int line = 3) {
    return make_call(callee(), std::move(call_args), at(line));
  }
};

TEST_F(TypecheckCall, AcceptsWellTypedArguments) {
  Proc p = typecheck(in_loop({call({var(m), idx(x, {var(i)}), var(a),
                                    bin(BinOpKind::Lt, var(i), lit(2)),
                                    make_stride_expr(x, 0, at(3))})}));
  const auto& c = loop_stmt(p)->as<Call>();
  EXPECT_EQ(c.args[1]->kind, ExprKind::WindowExpr);
  EXPECT_EQ(c.args[1]->type.str(), "[f32][m]");
  EXPECT_EQ(c.args[2]->kind, ExprKind::Read);
}

TEST_F(TypecheckCall, WholeTensorStaysARead) {
  Proc p = typecheck(
      proc(args(), {call({var(n), var(v), var(a), boolean(true), lit(1)})}));
  const auto& c = p->body[0]->as<Call>();
  EXPECT_EQ(c.args[1]->kind, ExprKind::Read);
  EXPECT_EQ(c.args[1]->type.str(), "f32[n]");
  EXPECT_EQ(c.args[4]->type.kind(), TypeKind::Int);
}

TEST_F(TypecheckCall, RejectsWrongArgumentCount) {
  Proc p = proc(args(), {call({var(n), var(v)})});
  EXPECT_EQ(only_error(p), "expected 5 arguments but got 2");
}

TEST_F(TypecheckCall, RejectsRankMismatch) {
  Proc p =
      proc(args(), {call({var(n), var(x), var(a), boolean(true), lit(1)})});
  EXPECT_EQ(only_error(p),
            "expected argument of type '[f32][n]', but got type 'f32[n, m]'");
}

TEST_F(TypecheckCall, RejectsScalarExpressionArgument) {
  Proc p = in_loop(
      {call({var(n), var(v), idx(v, {var(i)}), boolean(true), lit(1)})});
  EXPECT_EQ(only_error(p),
            "expected scalar arguments to be simply variable names for now");
}

TEST_F(TypecheckCall, RejectsControlArgumentsOfWrongKind) {
  Proc p = proc(args(), {call({flt(2.0), var(v), var(a), var(n), var(m)})});
  EXPECT_EQ(errors(p),
            (std::vector<std::string>{
                "expected size or index type expression, but got type R",
                "expected bool-type variable, but got type size",
                "expected stride-type variable, but got type size"}));
}

// ---------------------------------------------------------------- externs

TEST_F(Typecheck, ExternCallTakesTypeFromExtern) {
  auto relu = std::make_shared<const Relu>();
  Proc p = typecheck(in_loop(
      {make_assign(v, {}, {var(i)},
                   make_extern_call(relu, {idx(v, {var(i)})}, at(3)), at(3))}));
  EXPECT_EQ(loop_stmt(p)->as<Assign>().rhs->type.kind(), TypeKind::F32);
}

TEST_F(Typecheck, ExternTypecheckErrorBecomesDiagnostic) {
  auto relu = std::make_shared<const Relu>();
  Proc p = proc(
      args(),
      {make_assign(a, {}, {},
                   make_extern_call(relu, {var(a), var(a)}, at(2, 8)), at(2))});
  try {
    typecheck(p);
    FAIL() << "expected a typecheck error";
  } catch (const CheckError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].str(), "k.py:2:8: expected 1 argument, got 2");
  }
}

// ---------------------------------------------------------------- configs

class TypecheckConfig : public TypecheckTest {
 protected:
  ConfigPtr cfg = std::make_shared<const Config>(
      "Cfg",
      std::vector<std::pair<std::string, Type>>{
          {"f", kIndex}, {"scale", kF32}, {"on", kBool}},
      true);
};

TEST_F(TypecheckConfig, ReadConfigTakesFieldType) {
  Proc p = typecheck(in_loop({make_assign(
      v, {}, {var(i)}, make_read_config(cfg, "scale", at(3)), at(3))}));
  EXPECT_EQ(loop_stmt(p)->as<Assign>().rhs->type.kind(), TypeKind::F32);
}

TEST_F(TypecheckConfig, WriteConfigChecksFieldKind) {
  Proc p =
      proc(args(), {make_write_config(cfg, "f", flt(1.0, 2, 10), at(2)),
                    make_write_config(cfg, "on", var(n, 3, 10), at(3)),
                    make_write_config(cfg, "scale", lit(2, 4, 10), at(4))});
  EXPECT_EQ(errors(p),
            (std::vector<std::string>{
                "expected an index or size type expression, but got type R",
                "expected a bool expression, but got type size"}));
}

TEST_F(TypecheckConfig, RejectsConfigWriteDependingOnLoopIterator) {
  Proc p = in_loop({make_write_config(cfg, "f", var(i), at(3))});
  EXPECT_EQ(only_error(p),
            "expected writes to configuration Cfg.f does not depend on loop "
            "iterations");
}

TEST_F(TypecheckConfig, RejectsConfigWriteGuardedByLoopIterator) {
  Proc p = in_loop(
      {make_if(bin(BinOpKind::Eq, var(i), lit(0)),
               {make_write_config(cfg, "f", lit(1), at(4))}, {}, at(3))});
  EXPECT_EQ(only_error(p),
            "expected writes to configuration Cfg.f does not depend on loop "
            "iterations");
}

TEST_F(TypecheckConfig, RejectsCalleeConfigWriteFedByLoopIterator) {
  Sym k("k");
  Proc setter = typecheck(make_proc(
      "set_f", {arg(k, kIndex)}, {},
      {make_write_config(cfg, "f", var(k), at(11))}, std::nullopt, at(10, 0)));
  Proc p = in_loop({make_call(setter, {var(i)}, at(3))});
  EXPECT_EQ(only_error(p),
            "expected writes to configuration Cfg.f does not depend on loop "
            "iterations");
  Proc ok = typecheck(in_loop({make_call(setter, {var(n)}, at(3))}));
  EXPECT_EQ(loop_stmt(ok)->as<Call>().args[0]->type.kind(), TypeKind::Size);
}

TEST_F(TypecheckConfig, AcceptsLoopInvariantConfigWrite) {
  Proc p = typecheck(in_loop({make_write_config(
      cfg, "f", bin(BinOpKind::Add, var(n), lit(1)), at(3))}));
  EXPECT_EQ(loop_stmt(p)->as<WriteConfig>().rhs->type.kind(), TypeKind::Size);
}

// ------------------------------------------------------- error handling

TEST_F(Typecheck, CollectsAllErrorsInSourceOrder) {
  Proc p = proc(args(), {make_if(var(n, 2, 7), {make_pass(at(3))}, {}, at(2)),
                         loop(i, flt(1.0, 4, 20), {make_pass(at(5))}, 4),
                         make_assign(n, {}, {}, flt(0.0), at(6))});
  try {
    typecheck(p);
    FAIL() << "expected a typecheck error";
  } catch (const CheckError& e) {
    EXPECT_STREQ(e.what(),
                 "Errors occurred during typechecking:\n"
                 "k.py:2:7: expected a bool expression\n"
                 "k.py:4:20: expected loop bound to be indexable.\n"
                 "k.py:6:4: cannot assign/reduce to 'n', a non-numeric "
                 "variable of type 'size'");
  }
}

TEST_F(Typecheck, FailedSubexpressionDoesNotCascade) {
  // (i * i + 1) / 2 < n: only the multiplication is reported.
  Proc p = in_loop({make_if(
      bin(BinOpKind::Lt,
          bin(BinOpKind::Div,
              bin(BinOpKind::Add, bin(BinOpKind::Mul, var(i), var(i)), lit(1)),
              lit(2)),
          var(n)),
      {make_pass(at(4))}, {}, at(3))});
  EXPECT_EQ(errors(p).size(), 1u);
}

TEST_F(Typecheck, ReportsUndefinedVariable) {
  Sym ghost("ghost");
  Proc p = proc(args(), {loop(i, var(ghost, 2, 18), {make_pass(at(3))})});
  EXPECT_EQ(only_error(p), "variable 'ghost' undefined");
}

TEST_F(Typecheck, NullExpressionIsReportedNotFatal) {
  Proc p = proc(args(), {make_for(i, lit(0), nullptr, {make_pass(at(3))},
                                  LoopMode::seq(), at(2))});
  EXPECT_EQ(only_error(p), "expected an expression");
}

TEST_F(Typecheck, TypedProcIsStableUnderRetypecheck) {
  Proc p = typecheck(
      in_loop({make_window_stmt(y, idx(x, {var(i)}), at(3)),
               make_reduce(y, {}, {lit(0)},
                           bin(BinOpKind::Mul, flt(2.0), var(a)), at(4))}));
  EXPECT_TRUE(equal(typecheck(p), p));
}

}  // namespace
}  // namespace exo2
