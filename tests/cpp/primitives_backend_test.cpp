// The backend annotations (docs/primitives-backend.md) and the Procedure
// methods partial_eval, transpose, add_assertion: printed results, types of the
// rewritten uses, refusals with their messages, and forwarding.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/add_assertion.hpp"
#include "exo2/primitives/partial_eval.hpp"
#include "exo2/primitives/set_memory.hpp"
#include "exo2/primitives/set_precision.hpp"
#include "exo2/primitives/set_window.hpp"
#include "exo2/primitives/transpose.hpp"
#include "typed_ir_builders.hpp"

namespace exo2::primitives {
namespace {

using namespace test_ir;
using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

Location param(int k) { return Location::node({Step{Slot::Param, k}}); }
Location stmt(std::vector<int> indices) {
  Path p;
  for (int k : indices) p.push_back(Step{Slot::Body, k});
  return Location::node(p);
}

template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const SchedulingError& e) {
    return e.what();
  }
  return "(no error)";
}

// def f(n: size, a: f32, x: f32[n], y: f32[n]):
//     for i in seq(0, n):
//         y[i] = y[i] + a * x[i]
struct Axpy {
  Sym n{"n"}, a{"a"}, x{"x"}, y{"y"}, i{"i"};
  Proc make() const {
    return proc(
        "f",
        {arg(n, kSize), arg(a, kF32), arg(x, tensor({sz(n)})),
         arg(y, tensor({sz(n)}))},
        {loop(i, lit(0), sz(n),
              {assign(y, {v(i)},
                      fadd(data(y, {v(i)}), fmul(data(a, {}), data(x, {v(i)}))),
                      3)})});
  }
};

// ---- set_precision ----------------------------------------------------------

TEST(SetPrecision, RetypesTheParameterAndEveryUse) {
  Axpy k;
  Proc p = k.make();
  auto r = set_precision(p, param(2), TypeKind::F64);
  EXPECT_EQ(print_proc(r.proc),
            "def f(n: size, a: f32 @ DRAM, x: f64[n] @ DRAM, y: f32[n] @ "
            "DRAM):\n"
            "    for i in seq(0, n):\n"
            "        y[i] = y[i] + a * x[i]");
  // The read of x is f64; `a * x[i]` keeps the concrete type of its left
  // operand as the typechecker does; y's write is untouched.
  Expr sum = cursors::resolve_stmt(r.proc, stmt({0, 0}).path)->as<Assign>().rhs;
  const auto& product = sum->as<BinOp>().rhs->as<BinOp>();
  EXPECT_EQ(product.rhs->type.kind(), TypeKind::F64);
  EXPECT_EQ(product.lhs->type.kind(), TypeKind::F32);
  EXPECT_EQ(cursors::resolve_stmt(r.proc, stmt({0, 0}).path)
                ->as<Assign>()
                .type.kind(),
            TypeKind::F32);
  EXPECT_EQ(r.forwarding(stmt({0, 0})), stmt({0, 0}));
}

TEST(SetPrecision, RetypesWritesOfAnAllocationAndOfItsWindows) {
  Sym n("n"), t("t"), w("w"), i("i");
  Proc p = proc("g", {arg(n, kSize)},
                {alloc(t, tensor({lit(8)})),
                 make_window_stmt(w, win(t, {iv(lit(0), lit(4))}), at(3)),
                 assign(t, {lit(0)}, real(1.0), 4),
                 assign(w, {lit(1)}, data(t, {lit(0)}), 5)});
  auto r = set_precision(p, stmt({0}), TypeKind::F16);
  EXPECT_EQ(print_proc(r.proc),
            "def g(n: size):\n"
            "    t: f16[8] @ DRAM\n"
            "    w = t[0:4]\n"
            "    t[0] = 1.0\n"
            "    w[1] = t[0]");
  const auto& ws =
      cursors::resolve_stmt(r.proc, stmt({1}).path)->as<WindowStmt>();
  EXPECT_EQ(ws.rhs->type.basetype().kind(), TypeKind::F16);
  const auto& through_window =
      cursors::resolve_stmt(r.proc, stmt({3}).path)->as<Assign>();
  EXPECT_EQ(through_window.type.kind(), TypeKind::F16);
  EXPECT_EQ(through_window.rhs->type.kind(), TypeKind::F16);
}

TEST(SetPrecision, RefusesAControlParameter) {
  Axpy k;
  EXPECT_EQ(refusal([&] { set_precision(k.make(), param(0), TypeKind::F64); }),
            "cannot set the precision or memory of a control value");
}

// ---- set_window -------------------------------------------------------------

TEST(SetWindow, MakesATensorAWindowAndBack) {
  Axpy k;
  auto r = set_window(k.make(), param(2), true);
  EXPECT_TRUE(r.proc->args[2].type.is_window());
  EXPECT_NE(print_proc(r.proc).find("x: [f32][n] @ DRAM"), std::string::npos);
  auto back = set_window(r.proc, param(2), false);
  EXPECT_EQ(print_proc(back.proc), print_proc(k.make()));
}

TEST(SetWindow, RefusesAScalar) {
  Axpy k;
  EXPECT_EQ(refusal([&] { set_window(k.make(), param(1), true); }),
            "cannot change windowing of a non-tensor/window argument");
}

TEST(SetWindow, RefusesABufferPassedWholeToADenseParameter) {
  Axpy k;
  Proc callee = k.make();
  Sym n("n"), a("a"), x("x"), y("y");
  Proc caller = proc(
      "g",
      {arg(n, kSize), arg(a, kF32), arg(x, tensor({sz(n)})),
       arg(y, tensor({sz(n)}))},
      {make_call(callee,
                 {sz(n), data(a, {}), make_read(x, {}, at(2), tensor({sz(n)})),
                  make_read(y, {}, at(2), tensor({sz(n)}))},
                 at(2, 4))});
  EXPECT_EQ(refusal([&] { set_window(caller, param(2), true); }),
            "cannot make x a window: it is passed to f at k.py:2:4, whose "
            "parameter x is not a window");
  // A window parameter may become dense again whatever the calls take.
  Proc windowed = set_window(callee, param(2), true).proc;
  EXPECT_FALSE(
      set_window(windowed, param(2), false).proc->args[2].type.is_window());
}

// ---- set_memory -------------------------------------------------------------

TEST(SetMemory, ChangesTheAnnotationOfAParameterAndAnAllocation) {
  Sym n("n"), x("x"), t("t");
  auto fast = std::make_shared<NamedMemory>("FAST");
  Proc p = proc("h", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {alloc(t, kF32), assign(t, {}, real(1.0), 3)});
  auto r = set_memory(p, param(1), fast);
  r = set_memory(r.proc, stmt({0}), fast);
  EXPECT_EQ(print_proc(r.proc),
            "def h(n: size, x: f32[n] @ FAST):\n"
            "    t: f32 @ FAST\n"
            "    t = 1.0");
  EXPECT_EQ(r.forwarding(stmt({1})), stmt({1}));
  EXPECT_EQ(refusal([&] { set_memory(p, param(0), fast); }),
            "cannot set the precision or memory of a control value");
}

// ---- partial_eval -----------------------------------------------------------

TEST(PartialEval, SubstitutesTheValuesEverywhere) {
  Sym n("n"), m("m"), x("x"), i("i");
  Proc p = proc("k", {arg(n, kSize), arg(m, kSize), arg(x, tensor({sz(n)}))},
                {loop(i, lit(0), sz(n), {assign(x, {v(i)}, real(0.0), 3)})},
                {eq(mod(sz(n), lit(4)), lit(0))});
  Proc q = partial_eval(p, {{0, int64_t{8}}});
  EXPECT_EQ(print_proc(q),
            "def k(m: size, x: f32[8] @ DRAM):\n"
            "    assert 8 % 4 == 0\n"
            "    for i in seq(0, 8):\n"
            "        x[i] = 0.0");
}

TEST(PartialEval, RefusesDataParametersAndNonIntegerValues) {
  Axpy k;
  EXPECT_EQ(refusal([&] {
              partial_eval(k.make(), {{1, int64_t{1}}});
            }),
            "cannot partially evaluate numeric (non-index, non-bool) "
            "arguments");
  EXPECT_EQ(refusal([&] {
              partial_eval(k.make(), {{0, 1.5}});
            }),
            "cannot partially evaluate to a non-int, non-bool value");
}

// ---- transpose --------------------------------------------------------------

TEST(Transpose, SwapsTheShapeAccessesAndStrides) {
  Sym m("m"), n("n"), a("A"), i("i"), j("j");
  Proc p =
      proc("t", {arg(m, kSize), arg(n, kSize), arg(a, tensor({sz(m), sz(n)}))},
           {loop(i, lit(0), sz(m),
                 {loop(j, lit(0), sz(n),
                       {assign(a, {v(i), v(j)}, data(a, {v(i), v(j)}), 4)})})},
           {eq(make_stride_expr(a, 1, at(0)), lit(1))});
  Proc q = transpose(p, param(2));
  EXPECT_EQ(print_proc(q),
            "def t(m: size, n: size, A: f32[n, m] @ DRAM):\n"
            "    assert stride(A, 0) == 1\n"
            "    for i in seq(0, m):\n"
            "        for j in seq(0, n):\n"
            "            A[j, i] = A[j, i]");
}

TEST(Transpose, RefusesWholeBufferCallsAndTwoIntervalWindows) {
  Sym m("m"), a("A"), w("w");
  Proc callee = proc("c", {arg(m, kSize), arg(a, tensor({sz(m), sz(m)}))},
                     {make_pass(at(2))});
  Proc passes =
      proc("t", {arg(m, kSize), arg(a, tensor({sz(m), sz(m)}))},
           {make_call(callee,
                      {sz(m), make_read(a, {}, at(3), tensor({sz(m), sz(m)}))},
                      at(3))});
  EXPECT_EQ(refusal([&] { transpose(passes, param(1)); }),
            "Cannot permute buffer 'A' because it is passed as a "
            "sub-procedure argument at k.py:3:4");
  Proc windows =
      proc("t", {arg(m, kSize), arg(a, tensor({sz(m), sz(m)}))},
           {make_window_stmt(
               w, win(a, {iv(lit(0), lit(2)), iv(lit(0), lit(2))}), at(3))});
  EXPECT_EQ(refusal([&] { transpose(windows, param(1)); }),
            "Permuting the window expression at k.py:0:4 would change the "
            "meaning of the window; propagating dimension rearrangement "
            "through windows is not currently supported");
}

// ---- add_assertion ----------------------------------------------------------

TEST(AddAssertion, AppendsATypedPrecondition) {
  Axpy k;
  Expr untyped =
      make_binop(BinOpKind::Eq,
                 make_binop(BinOpKind::Mod, make_read(k.n, {}, at(0)),
                            make_const(int64_t{4}, at(0)), at(0)),
                 make_const(int64_t{0}, at(0)), at(0));
  Proc q = add_assertion(k.make(), untyped);
  ASSERT_EQ(q->preds.size(), 1u);
  EXPECT_TRUE(q->preds[0]->type.is_bool());
  EXPECT_NE(print_proc(q).find("    assert n % 4 == 0\n"), std::string::npos);
  EXPECT_THROW(add_assertion(k.make(), make_read(k.n, {}, at(0))), CheckError);
}

}  // namespace
}  // namespace exo2::primitives
