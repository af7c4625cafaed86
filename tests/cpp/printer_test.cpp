// The printer against the texts of docs/reference/printing.md.
#include "exo2/core_ir/printer.hpp"

#include <gtest/gtest.h>

namespace exo2 {
namespace {

const Type kIndex(TypeKind::Index);
const Type kSize(TypeKind::Size);
const Type kInt(TypeKind::Int);
const Type kF32(TypeKind::F32);
const Type kR(TypeKind::R);

Expr v(const Sym& s, Type t = kIndex) { return make_read(s, {}, {}, t); }
Expr lit(int64_t i) { return make_int(i); }
Expr flt(double d) { return make_const(ConstValue(d), {}, kR); }
Expr bin(BinOpKind op, Expr a, Expr b) {
  return make_binop(op, std::move(a), std::move(b), {}, kIndex);
}

class ExprPrinting : public ::testing::Test {
 protected:
  Sym a{"a"}, b{"b"}, c{"c"}, n{"n"}, k{"k"};
};

TEST_F(ExprPrinting, LeftAssociativeChainsNeedNoParentheses) {
  using K = BinOpKind;
  EXPECT_EQ(print_expr(bin(K::Sub, bin(K::Sub, v(a), v(b)), v(c))),
            "a - b - c");
  EXPECT_EQ(print_expr(bin(K::Sub, v(a), bin(K::Sub, v(b), v(c)))),
            "a - (b - c)");
  EXPECT_EQ(print_expr(bin(K::Mul, v(a), bin(K::Mul, v(b), v(c)))),
            "a * (b * c)");
  EXPECT_EQ(print_expr(bin(K::Mul, bin(K::Add, v(a), v(b)), v(c))),
            "(a + b) * c");
  EXPECT_EQ(print_expr(bin(K::Mul, bin(K::Div, v(a), v(b)), v(c))),
            "a / b * c");
  EXPECT_EQ(print_expr(bin(K::Div, v(a), bin(K::Mul, v(b), v(c)))),
            "a / (b * c)");
  EXPECT_EQ(print_expr(bin(K::Mul, bin(K::Div, v(n), lit(4)), lit(4))),
            "n / 4 * 4");
}

TEST_F(ExprPrinting, BooleanOperatorsBindLooserThanComparisons) {
  using K = BinOpKind;
  Expr e = bin(K::Or, bin(K::And, v(b), bin(K::Eq, v(k), lit(0))), v(c));
  EXPECT_EQ(print_expr(e), "b and k == 0 or c");
  Expr f = bin(K::And, v(b), bin(K::Or, v(k), v(c)));
  EXPECT_EQ(print_expr(f), "b and (k or c)");
}

TEST_F(ExprPrinting, UnaryMinusParenthesisesCompoundOperands) {
  using K = BinOpKind;
  // t[k] = -a - (a - a) - -(a * a) from docs/reference/printing.md
  // ("Examples").
  Expr e = bin(
      K::Sub, bin(K::Sub, make_usub(v(a), {}, kIndex), bin(K::Sub, v(a), v(a))),
      make_usub(bin(K::Mul, v(a), v(a)), {}, kIndex));
  EXPECT_EQ(print_expr(e), "-a - (a - a) - -(a * a)");
  EXPECT_EQ(print_expr(make_usub(make_usub(v(a), {}, kIndex), {}, kIndex)),
            "--a");
  EXPECT_EQ(print_expr(lit(-3)), "-3");
}

TEST(FloatRepr, MatchesPython) {
  EXPECT_EQ(python_float_repr(2.0), "2.0");
  EXPECT_EQ(python_float_repr(0.5), "0.5");
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(-1.5), "-1.5");
  EXPECT_EQ(python_float_repr(123456.789), "123456.789");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(3.0e-7), "3e-07");
  EXPECT_EQ(python_float_repr(1.25e+20), "1.25e+20");
}

TEST(Literals, PrintAsWritten) {
  EXPECT_EQ(print_expr(make_const(ConstValue(int64_t{0}), {}, kF32)), "0");
  EXPECT_EQ(print_expr(make_const(ConstValue(0.0), {}, kF32)), "0.0");
  EXPECT_EQ(print_expr(make_const(ConstValue(true), {}, Type(TypeKind::Bool))),
            "True");
}

// def scale(n: size, x: f32[n] @ DRAM) after divide_loop with tail="cut".
TEST(ProcPrinting, DividedLoopFromSpec) {
  using K = BinOpKind;
  Sym n("n"), x("x"), io("io"), ii("ii"), ii2("ii");
  Type xt = Type::tensor(kF32, {v(n, kSize)}, false);
  auto body = [&](Expr idx) {
    return Block{make_assign(
        x, kF32, {idx},
        make_binop(K::Mul, flt(2.0), make_read(x, {idx}, {}, kF32), {}, kF32),
        {})};
  };
  Expr main_idx = bin(K::Add, bin(K::Mul, lit(8), v(io)), v(ii));
  Expr tail_idx = bin(K::Add, v(ii2),
                      bin(K::Mul, bin(K::Div, v(n, kSize), lit(8)), lit(8)));
  Block proc_body = {make_for(io, lit(0), bin(K::Div, v(n, kSize), lit(8)),
                              {make_for(ii, lit(0), lit(8), body(main_idx),
                                        LoopMode::seq(), {})},
                              LoopMode::seq(), {}),
                     make_for(ii2, lit(0), bin(K::Mod, v(n, kSize), lit(8)),
                              body(tail_idx), LoopMode::seq(), {})};
  Proc p = make_proc(
      "scale",
      {FnArg{n, kSize, nullptr, {}}, FnArg{x, xt, NamedMemory::dram(), {}}}, {},
      proc_body, std::nullopt, {});
  EXPECT_EQ(print_proc(p),
            "def scale(n: size, x: f32[n] @ DRAM):\n"
            "    for io in seq(0, n / 8):\n"
            "        for ii in seq(0, 8):\n"
            "            x[8 * io + ii] = 2.0 * x[8 * io + ii]\n"
            "    for ii in seq(0, n % 8):\n"
            "        x[ii + n / 8 * 8] = 2.0 * x[ii + n / 8 * 8]");
}

TEST(ProcPrinting, ShadowedNamesGetSuffixes) {
  Sym n("n"), x("x"), i1("i"), i2("i");
  Type xt = Type::tensor(kR, {v(n, kSize), v(n, kSize)}, false);
  Block inner = {make_assign(x, kR, {v(i2), v(i2)}, flt(0.0), {})};
  Block body = {
      make_for(i1, lit(0), v(n, kSize),
               {make_for(i2, lit(0), v(n, kSize), inner, LoopMode::seq(), {})},
               LoopMode::seq(), {})};
  Proc p = make_proc(
      "shadow",
      {FnArg{n, kSize, nullptr, {}}, FnArg{x, xt, NamedMemory::dram(), {}}}, {},
      body, std::nullopt, {});
  EXPECT_EQ(print_proc(p),
            "def shadow(n: size, x: R[n, n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        for i_1 in seq(0, n):\n"
            "            x[i_1, i_1] = 0.0");
}

TEST(ProcPrinting, SiblingScopesReuseNames) {
  Sym n("n"), i1("i"), i2("i"), t1("t"), t2("t");
  Block body = {
      make_for(i1, lit(0), v(n, kSize), {make_pass({})}, LoopMode::seq(), {}),
      make_for(i2, lit(0), v(n, kSize), {make_pass({})}, LoopMode::par(), {}),
      make_alloc(t1, kF32, NamedMemory::dram(), {}),
      make_alloc(t2, Type::tensor(kF32, {lit(4)}, false), NamedMemory::dram(),
                 {})};
  Proc p = make_proc("sib", {FnArg{n, kSize, nullptr, {}}}, {}, body,
                     std::nullopt, {});
  EXPECT_EQ(print_proc(p),
            "def sib(n: size):\n"
            "    for i in seq(0, n):\n"
            "        pass\n"
            "    for i in par(0, n):\n"
            "        pass\n"
            "    t: f32 @ DRAM\n"
            "    t_1: f32[4] @ DRAM");
}

TEST(ProcPrinting, InstrTemplateAndPreconditions) {
  Sym dst("dst");
  Type t = Type::tensor(kF32, {lit(8)}, true);
  Expr pred = make_binop(BinOpKind::Eq, make_stride_expr(dst, 0, {}), lit(1),
                         {}, Type(TypeKind::Bool));
  Proc p = make_proc("zero8", {FnArg{dst, t, NamedMemory::dram(), {}}}, {pred},
                     {}, InstrInfo{"line one \n\nline three", "", nullptr}, {});
  EXPECT_EQ(print_proc(p),
            "def zero8(dst: [f32][8] @ DRAM):\n"
            "    # @instr line one\n"
            "    #\n"
            "    #        line three\n"
            "    assert stride(dst, 0) == 1");
}

class CursorPrinting : public ::testing::Test {
 protected:
  // def foo(n: size, x: f32[n]): assert n % 4 == 0; loop with two stmts.
  void SetUp() override {
    Type xt = Type::tensor(kF32, {v(n, kSize)}, false);
    Block body = {make_for(i, lit(0), v(n, kSize),
                           {make_assign(x, kF32, {v(i)}, flt(0.0), {}),
                            make_reduce(x, kF32, {v(i)}, flt(1.0), {})},
                           LoopMode::seq(), {})};
    Expr pred =
        make_binop(BinOpKind::Eq,
                   make_binop(BinOpKind::Mod, v(n, kSize), lit(4), {}, kSize),
                   lit(0), {}, Type(TypeKind::Bool));
    foo = make_proc(
        "foo",
        {FnArg{n, kSize, nullptr, {}}, FnArg{x, xt, NamedMemory::dram(), {}}},
        {pred}, body, std::nullopt, {});
  }
  std::string print(PrintMarker::Kind kind,
                    std::vector<std::pair<int, int>> path, int lo, int hi = 0) {
    return print_proc(foo, PrintMarker{kind, std::move(path), lo, hi});
  }
  Sym n{"n"}, x{"x"}, i{"i"};
  Proc foo;
};

TEST_F(CursorPrinting, NodeMarker) {
  EXPECT_EQ(print(PrintMarker::Kind::Node, {{0, 0}}, 1),
            "def foo(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        x[i] = 0.0\n"
            "        x[i] += 1.0  # <-- NODE");
}

TEST_F(CursorPrinting, GapBefore) {
  EXPECT_EQ(print(PrintMarker::Kind::GapBefore, {{0, 0}}, 1),
            "def foo(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        x[i] = 0.0\n"
            "        [GAP - Before]\n"
            "        x[i] += 1.0");
}

TEST_F(CursorPrinting, GapAfterLoop) {
  EXPECT_EQ(print(PrintMarker::Kind::GapAfter, {}, 0),
            "def foo(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        x[i] = 0.0\n"
            "        x[i] += 1.0\n"
            "    [GAP - After]");
}

TEST_F(CursorPrinting, BlockMarkers) {
  EXPECT_EQ(print(PrintMarker::Kind::Block, {{0, 0}}, 0, 2),
            "def foo(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        # BLOCK START\n"
            "        x[i] = 0.0\n"
            "        x[i] += 1.0\n"
            "        # BLOCK END");
}

TEST_F(CursorPrinting, LoopNodeMarksFirstLineOnly) {
  EXPECT_EQ(print(PrintMarker::Kind::Node, {}, 0),
            "def foo(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):  # <-- NODE\n"
            "        x[i] = 0.0\n"
            "        x[i] += 1.0");
}

TEST_F(CursorPrinting, ProcRootKeepsPreconditions) {
  EXPECT_EQ(print(PrintMarker::Kind::ProcRoot, {}, 0),
            "def foo(n: size, x: f32[n] @ DRAM):  # <-- NODE\n"
            "    assert n % 4 == 0\n"
            "    for i in seq(0, n):\n"
            "        x[i] = 0.0\n"
            "        x[i] += 1.0");
}

}  // namespace
}  // namespace exo2
