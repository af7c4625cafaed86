// Definition-time bounds checking: accepted kernels, and the exact text of
// every failure form (docs/errors.md, "Kernels").
#include "exo2/analysis/bounds_check.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "exo2/analysis/z3_encoding.hpp"

namespace exo2 {
namespace {

const Type kIndex(TypeKind::Index);
const Type kSize(TypeKind::Size);
const Type kInt(TypeKind::Int);
const Type kBool(TypeKind::Bool);
const Type kF32(TypeKind::F32);

SrcInfo at(int line, int col = 4) { return SrcInfo("k.py", line, col); }

// ---- Expressions (typed, as the typechecker leaves them) ----
Expr v(const Sym& s, Type t = kIndex) { return make_read(s, {}, at(0), t); }
Expr sz(const Sym& s) { return v(s, kSize); }
Expr lit(int64_t x) { return make_int(x, at(0), kInt); }
Expr add(Expr a, Expr b) {
  return make_binop(BinOpKind::Add, a, b, at(0), kIndex);
}
Expr sub(Expr a, Expr b) {
  return make_binop(BinOpKind::Sub, a, b, at(0), kIndex);
}
Expr mul(Expr a, Expr b) {
  return make_binop(BinOpKind::Mul, a, b, at(0), kIndex);
}
Expr div(Expr a, Expr b) {
  return make_binop(BinOpKind::Div, a, b, at(0), a->type);
}
Expr mod(Expr a, Expr b) {
  return make_binop(BinOpKind::Mod, a, b, at(0), a->type);
}
Expr cmp(BinOpKind k, Expr a, Expr b, SrcInfo s = at(0)) {
  return make_binop(k, a, b, s, kBool);
}
Expr eq(Expr a, Expr b, SrcInfo s = at(0)) {
  return cmp(BinOpKind::Eq, a, b, s);
}
Expr data(const Sym& x, std::vector<Expr> idx, SrcInfo s = at(0)) {
  return make_read(x, std::move(idx), s, kF32);
}
Expr zero() { return make_const(0.0, at(0), Type(TypeKind::R)); }
Expr stride(const Sym& x, int d) { return make_stride_expr(x, d, at(0)); }

Type tensor(std::vector<Expr> shape) {
  return Type::tensor(kF32, shape, false);
}
Type window(std::vector<Expr> shape) { return Type::tensor(kF32, shape, true); }

// `x[accesses]` typed as a window whose extents are `hi - lo`.
Expr win(const Sym& x, std::vector<WindowAccess> idx, SrcInfo s = at(0)) {
  std::vector<Expr> shape;
  for (const auto& a : idx)
    if (a.is_interval) shape.push_back(sub(a.hi, a.lo));
  return make_window_expr(x, std::move(idx), s, window(shape));
}
WindowAccess pt(Expr e) { return WindowAccess::point(std::move(e)); }
WindowAccess iv(Expr lo, Expr hi) { return WindowAccess::interval(lo, hi); }

// ---- Statements ----
Stmt assign(const Sym& x, std::vector<Expr> idx, Expr rhs, int line) {
  return make_assign(x, kF32, std::move(idx), std::move(rhs), at(line));
}
Stmt reduce(const Sym& x, std::vector<Expr> idx, Expr rhs, int line) {
  return make_reduce(x, kF32, std::move(idx), std::move(rhs), at(line));
}
Stmt loop(const Sym& i, Expr lo, Expr hi, Block body, int line) {
  return make_for(i, lo, hi, std::move(body), LoopMode::seq(), at(line));
}

FnArg arg(const Sym& s, Type t) {
  const bool control = !t.is_numeric();
  return FnArg{s, t, control ? nullptr : NamedMemory::dram(), at(1)};
}
Proc proc(std::string name, std::vector<FnArg> args, std::vector<Expr> preds,
          Block body) {
  return make_proc(std::move(name), std::move(args), std::move(preds),
                   std::move(body), std::nullopt, at(1, 0));
}

// The message of the effect-check error thrown for `p`, or "" if none.
std::string effect_errors(const Proc& p) {
  try {
    check_bounds(p);
  } catch (const CheckError& e) {
    return e.what();
  }
  return "";
}

const std::string kHeading = "Errors occurred during effect checking:\n";

// ---- Accepted kernels ----

TEST(BoundsCheck, Accepts1DLoop) {
  Sym n("n"), x("x"), i("i");
  Proc p = proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))}, {},
                {loop(i, lit(0), sz(n), {assign(x, {v(i)}, zero(), 3)}, 2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, Accepts2DLoopWithReadsAndWrites) {
  Sym n("n"), m("m"), a("A"), b("B"), i("i"), j("j");
  Proc p =
      proc("copy",
           {arg(n, kSize), arg(m, kSize), arg(a, tensor({sz(n), sz(m)})),
            arg(b, tensor({sz(n), sz(m)}))},
           {},
           {loop(i, lit(0), sz(n),
                 {loop(j, lit(0), sz(m),
                       {reduce(b, {v(i), v(j)}, data(a, {v(i), v(j)}), 4)}, 3)},
                 2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, AcceptsTiledLoopUnderDivisibilityPrecondition) {
  Sym n("n"), x("x"), io("io"), ii("ii");
  Proc p = proc(
      "tiled", {arg(n, kSize), arg(x, tensor({sz(n)}))},
      {eq(mod(sz(n), lit(4)), lit(0))},
      {loop(io, lit(0), div(sz(n), lit(4)),
            {loop(ii, lit(0), lit(4),
                  {assign(x, {add(mul(lit(4), v(io)), v(ii))}, zero(), 4)}, 3)},
            2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, AcceptsAccessGuardedByIf) {
  Sym n("n"), x("x"), i("i");
  Proc p = proc("guarded", {arg(n, kSize), arg(x, tensor({sz(n)}))}, {},
                {loop(i, lit(0), add(sz(n), lit(4)),
                      {make_if(cmp(BinOpKind::Lt, v(i), sz(n)),
                               {assign(x, {v(i)}, zero(), 4)}, {}, at(3))},
                      2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, ElseBranchAssumesTheNegatedCondition) {
  Sym n("n"), x("x"), y("y"), i("i");
  Proc p = proc(
      "split",
      {arg(n, kSize), arg(x, tensor({sz(n)})), arg(y, tensor({lit(4)}))}, {},
      {loop(i, lit(0), add(sz(n), lit(4)),
            {make_if(cmp(BinOpKind::Lt, v(i), sz(n)),
                     {assign(x, {v(i)}, zero(), 4)},
                     {assign(y, {sub(v(i), sz(n))}, zero(), 6)}, at(3))},
            2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, AcceptsWindowsOfWindows) {
  Sym n("n"), x("x"), i("i"), j("j"), row("row"), quad("quad");
  Proc p = proc(
      "windows", {arg(n, kSize), arg(x, tensor({sz(n), lit(16)}))}, {},
      {loop(i, lit(0), sz(n),
            {make_window_stmt(row, win(x, {pt(v(i)), iv(lit(0), lit(16))}),
                              at(3)),
             make_window_stmt(quad, win(row, {iv(lit(4), lit(8))}), at(4)),
             loop(j, lit(0), lit(4), {assign(quad, {v(j)}, zero(), 6)}, 5)},
            2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, AcceptsQuasiAffineDivisionAndModulo) {
  Sym n("n"), x("x"), y("y"), i("i");
  Proc p = proc(
      "quasi",
      {arg(n, kSize), arg(x, tensor({div(add(sz(n), lit(3)), lit(4))})),
       arg(y, tensor({lit(4)}))},
      {},
      {loop(i, lit(0), sz(n),
            {assign(x, {div(v(i), lit(4))}, data(y, {mod(v(i), lit(4))}), 3)},
            2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, AcceptsAllocationSizedByPrecondition) {
  Sym n("n"), x("x"), t("t");
  Proc p = proc(
      "f", {arg(n, kSize), arg(x, tensor({sub(sz(n), lit(1))}))},
      {cmp(BinOpKind::Gt, sz(n), lit(1))},
      {make_alloc(t, tensor({sub(sz(n), lit(1))}), NamedMemory::dram(), at(3)),
       assign(t, {lit(0)}, data(x, {lit(0)}), 4)});
  EXPECT_NO_THROW(check_bounds(p));
}

// ---- Out-of-bounds accesses ----

TEST(BoundsCheck, ReportsReadOutOfBoundsWithCounterexample) {
  Sym n("n"), x("x"), y("y"), i("i");
  Proc p = proc(
      "f", {arg(n, kSize), arg(x, tensor({sz(n)})), arg(y, tensor({sz(n)}))},
      {eq(sz(n), lit(4))},
      {loop(i, lit(0), sz(n),
            {assign(y, {v(i)}, data(x, {add(v(i), lit(1))}, at(3, 15)), 3)},
            2)});
  EXPECT_EQ(effect_errors(p), kHeading +
                                  "k.py:3:15: x is read out-of-bounds when:\n"
                                  "   n = 4, i = 3.");
}

TEST(BoundsCheck, ReportsWrittenAndReducedForms) {
  Sym n("n"), x("x"), i("i");
  Proc p =
      proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))}, {eq(sz(n), lit(4))},
           {loop(i, lit(0), add(sz(n), lit(1)),
                 {assign(x, {v(i)}, zero(), 3),
                  reduce(x, {sub(v(i), lit(1))}, zero(), 4)},
                 2)});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:4: x is written out-of-bounds when:\n   n = 4, i = 4.\n"
                "k.py:4:4: x is reduced out-of-bounds when:\n   n = 4, i = 0.");
}

TEST(BoundsCheck, CollectsEveryFailureInSourceOrder) {
  Sym a("a"), b("b"), i("i"), j("j");
  Proc p = proc("f", {arg(a, tensor({lit(8)})), arg(b, tensor({lit(8)}))}, {},
                {loop(i, lit(0), lit(9), {assign(a, {v(i)}, zero(), 3)}, 2),
                 loop(j, lit(-1), lit(8),
                      {assign(b, {v(j)}, data(a, {v(j)}, at(5, 16)), 5)}, 4)});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:4: a is written out-of-bounds when:\n   i = 8.\n"
                "k.py:5:4: b is written out-of-bounds when:\n   j = -1.\n"
                "k.py:5:16: a is read out-of-bounds when:\n   j = -1.");
}

TEST(BoundsCheck, RejectsTileWithoutDivisibility) {
  Sym n("n"), x("x"), io("io"), ii("ii");
  Proc p = proc(
      "tiled", {arg(n, kSize), arg(x, tensor({sz(n)}))}, {eq(sz(n), lit(5))},
      {loop(io, lit(0), div(add(sz(n), lit(3)), lit(4)),
            {loop(ii, lit(0), lit(4),
                  {assign(x, {add(mul(lit(4), v(io)), v(ii))}, zero(), 4)}, 3)},
            2)});
  const std::string msg = effect_errors(p);
  EXPECT_EQ(msg.rfind(kHeading + "k.py:4:4: x is written out-of-bounds when:\n"
                                 "   n = 5, io = 1, ii = ",
                      0),
            0u)
      << msg;
}

TEST(BoundsCheck, RejectsQuasiAffineAccessPastTheEnd) {
  Sym n("n"), x("x"), i("i");
  Proc p = proc(
      "f", {arg(n, kSize), arg(x, tensor({div(sz(n), lit(4))}))},
      {eq(sz(n), lit(5))},
      {loop(i, lit(0), sz(n), {assign(x, {div(v(i), lit(4))}, zero(), 3)}, 2)});
  EXPECT_EQ(effect_errors(p), kHeading +
                                  "k.py:3:4: x is written out-of-bounds when:\n"
                                  "   n = 5, i = 4.");
}

TEST(BoundsCheck, AccessThroughAnAliasIsCheckedWhereItLands) {
  // quad = row[4:8] of x: f32[16]: quad[4] is x[8], outside quad but inside
  // x (accepted, as in Exo); quad[12] is x[16], past x.
  Sym x("x"), row("row"), quad("quad");
  auto kernel = [&](int64_t index) {
    return proc("f", {arg(x, tensor({lit(16)}))}, {},
                {make_window_stmt(row, win(x, {iv(lit(0), lit(16))}), at(2)),
                 make_window_stmt(quad, win(row, {iv(lit(4), lit(8))}), at(3)),
                 assign(quad, {lit(index)}, zero(), 4)});
  };
  EXPECT_NO_THROW(check_bounds(kernel(4)));
  EXPECT_EQ(effect_errors(kernel(12)),
            kHeading +
                "k.py:4:4: x is written out-of-bounds when:\n"
                "   (always: the condition depends on no variable).");
}

TEST(BoundsCheck, AccessThroughWindowParameterUsesItsShape) {
  Sym n("n"), w("w"), i("i");
  Proc p =
      proc("f", {arg(n, kSize), arg(w, window({sz(n)}))}, {eq(sz(n), lit(2))},
           {loop(i, lit(0), lit(3), {assign(w, {v(i)}, zero(), 3)}, 2)});
  EXPECT_EQ(effect_errors(p), kHeading +
                                  "k.py:3:4: w is written out-of-bounds when:\n"
                                  "   n = 2, i = 2.");
}

// ---- Windows ----

// A window statement is checked where it is used: unused, a window past
// its buffer is accepted (as in Exo); an access through it must land inside.
TEST(BoundsCheck, WindowIntervalOutsideBufferIsCheckedWhereUsed) {
  Sym n("n"), x("x"), y("y");
  auto kernel = [&](Block uses) {
    Block body = {make_window_stmt(
        y, win(x, {pt(lit(0)), iv(lit(8), lit(20))}, at(2, 8)), at(2))};
    body.insert(body.end(), uses.begin(), uses.end());
    return proc("f", {arg(n, kSize), arg(x, tensor({sz(n), lit(16)}))},
                {eq(sz(n), lit(2))}, body);
  };
  EXPECT_NO_THROW(check_bounds(kernel({})));
  EXPECT_NO_THROW(check_bounds(kernel({assign(y, {lit(7)}, zero(), 3)})));
  EXPECT_EQ(effect_errors(kernel({assign(y, {lit(8)}, zero(), 3)})),
            kHeading + "k.py:3:4: x is written out-of-bounds when:\n   n = 2.");
}

TEST(BoundsCheck, WindowPointOutsideBufferIsCheckedWhereUsed) {
  Sym n("n"), x("x"), y("y");
  auto kernel = [&](Block uses) {
    Block body = {make_window_stmt(
        y, win(x, {pt(sz(n)), iv(lit(0), lit(16))}, at(2, 8)), at(2))};
    body.insert(body.end(), uses.begin(), uses.end());
    return proc("f", {arg(n, kSize), arg(x, tensor({sz(n), lit(16)}))},
                {eq(sz(n), lit(3))}, body);
  };
  EXPECT_NO_THROW(check_bounds(kernel({})));
  EXPECT_EQ(effect_errors(kernel({assign(y, {lit(0)}, zero(), 3)})),
            kHeading + "k.py:3:4: x is written out-of-bounds when:\n   n = 3.");
}

TEST(BoundsCheck, ReversedWindowIntervalMustBeNonNegative) {
  Sym x("x"), y("y");
  Proc p = proc(
      "f", {arg(x, tensor({lit(16)}))}, {},
      {make_window_stmt(y, win(x, {iv(lit(8), lit(4))}, at(2, 8)), at(2))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:2:8: expected expression 4 - 8 to always be "
                "non-negative. It can be negative when:\n"
                "   (always: the condition depends on no variable).");
}

TEST(BoundsCheck, OmittedWindowBoundsMeanZeroAndTheExtent) {
  // y = x[:, 0] with both interval bounds left out.
  Sym x("x"), y("y");
  Expr w = make_window_expr(x, {iv(nullptr, nullptr), pt(lit(0))}, at(2, 8),
                            window({lit(8)}));
  Proc ok =
      proc("f", {arg(x, tensor({lit(8), lit(4)}))}, {},
           {make_window_stmt(y, w, at(2)), assign(y, {lit(7)}, zero(), 3)});
  EXPECT_NO_THROW(check_bounds(ok));
  Proc bad =
      proc("f", {arg(x, tensor({lit(8), lit(4)}))}, {},
           {make_window_stmt(y, w, at(2)), assign(y, {lit(8)}, zero(), 3)});
  EXPECT_EQ(effect_errors(bad),
            kHeading +
                "k.py:3:4: x is written out-of-bounds when:\n"
                "   (always: the condition depends on no variable).");
}

// ---- Positive extents, loop trip counts, preconditions ----

TEST(BoundsCheck, RejectsNonPositiveAllocationExtent) {
  Sym n("n"), t("t");
  Expr extent = make_binop(BinOpKind::Sub, sz(n), lit(4), at(3, 11), kIndex);
  Proc p = proc("f", {arg(n, kSize)}, {eq(sz(n), lit(4))},
                {make_alloc(t, tensor({extent}), NamedMemory::dram(), at(3))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:11: expected expression n - 4 to always be positive. "
                "It can be non positive when:\n   n = 4.");
}

TEST(BoundsCheck, RejectsNonPositiveArgumentExtent) {
  Sym n("n"), m("m"), x("x");
  Expr extent = make_binop(BinOpKind::Sub, sz(m), sz(n), at(1, 20), kIndex);
  Proc p = proc("f", {arg(n, kSize), arg(m, kSize), arg(x, tensor({extent}))},
                {eq(sz(m), lit(3)), eq(sz(n), lit(3))}, {make_pass(at(4))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:1:20: expected expression m - n to always be positive. "
                "It can be non positive when:\n   n = 3, m = 3.");
}

TEST(BoundsCheck, ReportsUnsatisfiablePrecondition) {
  Sym n("n"), x("x");
  Proc p = proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {make_binop(BinOpKind::Lt, sz(n), lit(0), at(2, 11), kBool)},
                {assign(x, {lit(0)}, zero(), 3)});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:2:11: The assertion n < 0 at k.py:2:11 is always "
                "unsatisfiable.");
}

TEST(BoundsCheck, PreconditionFixingANewStrideNeedsNoQuery) {
  Sym n("n"), x("x");
  Proc p = proc("f", {arg(n, kSize), arg(x, window({sz(n)}))},
                {eq(stride(x, 0), lit(1), at(2, 11))}, {make_pass(at(3))});
  SmtEncoder::clear_cache();
  EXPECT_EQ(effect_errors(p), "");
  EXPECT_EQ(SmtEncoder::cache_size(), 0u);  // the solver was not asked
}

TEST(BoundsCheck, StrideFixedByAnEarlierPreconditionIsStillAsked) {
  // stride(x, 0) is no longer free after `== 2`: `== 1` must be refused.
  Sym n("n"), x("x");
  Proc p = proc("f", {arg(n, kSize), arg(x, window({sz(n)}))},
                {eq(stride(x, 0), lit(2), at(2, 11)),
                 eq(stride(x, 0), lit(1), at(3, 11))},
                {make_pass(at(4))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:11: The assertion stride(x, 0) == 1 at k.py:3:11 is "
                "always unsatisfiable.");
}

TEST(BoundsCheck, PreconditionsAfterAnUnsatisfiableOneAreStillChecked) {
  // Once the facts are contradictory, `stride(x, 0) == 1` is unsatisfiable
  // too: it is asked, and reported, as every precondition is.
  Sym n("n"), x("x");
  Proc p = proc("f", {arg(n, kSize), arg(x, window({sz(n)}))},
                {make_binop(BinOpKind::Lt, sz(n), lit(0), at(2, 11), kBool),
                 eq(stride(x, 0), lit(1), at(3, 11))},
                {make_pass(at(4))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:2:11: The assertion n < 0 at k.py:2:11 is always "
                "unsatisfiable.\n"
                "k.py:3:11: The assertion stride(x, 0) == 1 at k.py:3:11 is "
                "always unsatisfiable.");
}

TEST(BoundsCheck, LoopTripCountMustBeNonNegative) {
  // Exo checks `hi - lo >= 0` before entering each loop.
  Sym n("n"), x("x"), i("i");
  Proc p = proc(
      "f", {arg(n, kSize), arg(x, tensor({sz(n)}))}, {eq(sz(n), lit(1))},
      {loop(i, lit(0), sub(sz(n), lit(2)), {assign(x, {v(i)}, zero(), 3)}, 2)});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:2:4: expected expression n - 2 to always be "
                "non-negative. It can be negative when:\n   n = 1.");
}

TEST(BoundsCheck, LoopTripCountPrintsHiMinusLoForNonZeroStart) {
  Sym n("n"), i("i");
  Proc p = proc("f", {arg(n, kSize)}, {eq(sz(n), lit(2))},
                {loop(i, lit(4), sz(n), {make_pass(at(3))}, 2)});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:2:4: expected expression n - 4 to always be "
                "non-negative. It can be negative when:\n   n = 2.");
}

// ---- Calls ----

// g(m: size, y: [f32][m]) with `assert m % 4 == 0` and
// `assert stride(y, 0) == 1`.
Proc callee_with_preconditions() {
  Sym m("m"), y("y"), i("i");
  return proc("g", {arg(m, kSize), arg(y, window({sz(m)}))},
              {eq(mod(sz(m), lit(4)), lit(0), at(11, 11)),
               eq(stride(y, 0), lit(1), at(12, 11))},
              {loop(i, lit(0), sz(m), {assign(y, {v(i)}, zero(), 14)}, 13)});
}

TEST(BoundsCheck, AcceptsCallSatisfyingPreconditionsAndShapes) {
  Proc g = callee_with_preconditions();
  Sym n("n"), x("x"), i("i");
  Proc p = proc(
      "f", {arg(n, kSize), arg(x, tensor({sz(n), lit(16)}))},
      {eq(mod(sz(n), lit(8)), lit(0))},
      {loop(i, lit(0), sz(n),
            {make_call(g, {lit(16), win(x, {pt(v(i)), iv(lit(0), lit(16))})},
                       at(3))},
            2)});
  EXPECT_NO_THROW(check_bounds(p));
}

TEST(BoundsCheck, ReportsCalleePreconditionThatMayFail) {
  Proc g = callee_with_preconditions();
  Sym n("n"), x("x");
  Proc p =
      proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))}, {eq(sz(n), lit(6))},
           {make_call(g, {sz(n), win(x, {iv(lit(0), sz(n))})}, at(3))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:4: Could not verify assertion m % 4 == 0 in g "
                "at k.py:11:11. Assertion is false when:\n   n = 6.");
}

// For primitives that create a call: only that call is checked, in the
// context of the whole procedure.
TEST(BoundsCheck, CheckCallLooksOnlyAtTheGivenCall) {
  Proc g = callee_with_preconditions();
  Sym n("n"), x("x");
  Proc p =
      proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))}, {eq(sz(n), lit(6))},
           {assign(x, {lit(8)}, zero(), 2),
            make_call(g, {sz(n), win(x, {iv(lit(0), sz(n))})}, at(3))});
  const std::vector<CheckFailure> failures = check_call(p, *p->body[1]);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].what,
            "Could not verify assertion m % 4 == 0 in g at k.py:11:11");
  EXPECT_EQ(failures[0].counterexample, " n = 6");
  EXPECT_EQ(failures[0].srcinfo.line, 3);
  // The whole procedure also writes x[8] out of bounds.
  const std::vector<CheckFailure> all = bounds_failures(p);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].what, "x is written out-of-bounds");
  EXPECT_THROW(check_call(p, *p->body[0]), std::invalid_argument);
}

TEST(BoundsCheck, CalleeStrideOfDenseColumnIsTheRowLength) {
  // x[0:4, 0] has stride 16, so `stride(y, 0) == 1` fails.
  Proc g = callee_with_preconditions();
  Sym x("x");
  Proc p =
      proc("f", {arg(x, tensor({lit(4), lit(16)}))}, {},
           {make_call(g, {lit(4), win(x, {iv(lit(0), lit(4)), pt(lit(0))})},
                      at(3))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:4: Could not verify assertion stride(y, 0) == 1 "
                "in g at k.py:12:11. Assertion is false when:\n"
                "   (always: the condition depends on no variable).");
}

TEST(BoundsCheck, StrideOfWindowParameterIsUnknownUnlessAsserted) {
  Proc g = callee_with_preconditions();
  Sym w("w");
  Proc unknown = proc("f", {arg(w, window({lit(8)}))}, {},
                      {make_call(g, {lit(8), v(w, window({lit(8)}))}, at(3))});
  EXPECT_EQ(
      effect_errors(unknown),
      kHeading +
          "k.py:3:4: Could not verify assertion stride(y, 0) == 1 "
          "in g at k.py:12:11. Assertion is false when:\n   stride(w, 0) = 0.");
  Sym w2("w");
  Proc asserted =
      proc("f", {arg(w2, window({lit(8)}))}, {eq(stride(w2, 0), lit(1))},
           {make_call(g, {lit(8), v(w2, window({lit(8)}))}, at(3))});
  EXPECT_NO_THROW(check_bounds(asserted));
}

TEST(BoundsCheck, ReportsArgumentShapeMismatch) {
  Sym m("m"), y("y"), i("i");
  Proc g = proc(
      "g", {arg(m, kSize), arg(y, tensor({sz(m), lit(16)}))}, {},
      {loop(i, lit(0), sz(m), {assign(y, {v(i), lit(0)}, zero(), 13)}, 12)});
  Sym n("n"), x("x");
  Proc p =
      proc("f", {arg(n, kSize), arg(x, tensor({sz(n), lit(8)}))},
           {eq(sz(n), lit(3))},
           {make_call(
               g, {sz(n), make_read(x, {}, at(3, 9), tensor({sz(n), lit(8)}))},
               at(3))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:9: type-shape of calling argument may not equal "
                "the required type-shape: [n,8] vs. [n,16]. It could be "
                "non equal when:\n   n = 3.");
}

TEST(BoundsCheck, ReportsNonPositiveSizeArgument) {
  Sym m("m"), y("y");
  Proc g = proc("g", {arg(m, kSize), arg(y, tensor({lit(4)}))}, {},
                {assign(y, {lit(0)}, zero(), 12)});
  Sym n("n"), x("x");
  Expr actual = make_binop(BinOpKind::Sub, sz(n), lit(3), at(3, 6), kIndex);
  Proc p =
      proc("f", {arg(n, kSize), arg(x, tensor({lit(4)}))}, {eq(sz(n), lit(3))},
           {make_call(g, {actual, v(x, tensor({lit(4)}))}, at(3))});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:3:6: expected expression n - 3 to always be "
                "positive. It can be non positive when:\n   n = 3.");
}

// ---- Aliasing ----

Proc two_buffer_callee() {
  Sym m("m"), a("a"), b("b");
  return proc("g",
              {arg(m, kSize), arg(a, window({sz(m)})), arg(b, window({sz(m)}))},
              {}, {make_pass(at(12))});
}

TEST(BoundsCheck, RejectsSameBufferPassedTwice) {
  Proc g = two_buffer_callee();
  Sym n("n"), x("x");
  Type t = tensor({sz(n)});
  Proc p = proc("f", {arg(n, kSize), arg(x, t)}, {},
                {make_call(g, {sz(n), v(x, t), v(x, t)}, at(3))});
  try {
    check_bounds(p);
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(),
                 "Cannot Pass the same buffer 'x' via multiple arguments in "
                 "call to g, since doing so would introduce aliased "
                 "arguments.  Please contact the Exo developers if you need "
                 "support for aliased arguments.");
  }
}

TEST(BoundsCheck, AliasingSeesThroughWindowStatements) {
  Proc g = two_buffer_callee();
  Sym x("x"), lo("lo"), hi("hi");
  Proc p = proc(
      "f", {arg(x, tensor({lit(8)}))}, {},
      {make_window_stmt(lo, win(x, {iv(lit(0), lit(4))}), at(2)),
       make_window_stmt(hi, win(x, {iv(lit(4), lit(8))}), at(3)),
       make_call(g, {lit(4), v(lo, window({lit(4)})), v(hi, window({lit(4)}))},
                 at(4))});
  EXPECT_THROW(check_bounds(p), SchedulingError);
}

TEST(BoundsCheck, EffectErrorsTakePrecedenceOverAliasing) {
  Proc g = two_buffer_callee();
  Sym x("x");
  Type t = tensor({lit(8)});
  Proc p = proc("f", {arg(x, t)}, {},
                {make_call(g, {lit(8), v(x, t), v(x, t)}, at(3)),
                 assign(x, {lit(8)}, zero(), 4)});
  EXPECT_EQ(effect_errors(p),
            kHeading +
                "k.py:4:4: x is written out-of-bounds when:\n"
                "   (always: the condition depends on no variable).");
}

// ---- Configurations ----

TEST(BoundsCheck, ConfigWriteIsKnownToLaterReads) {
  auto cfg = std::make_shared<const Config>(
      "Cfg", std::vector<std::pair<std::string, Type>>{{"k", kSize}}, true);
  Sym x("x"), i("i"), j("j");
  Expr k = make_read_config(cfg, "k", at(0), kSize);
  Proc known = proc("f", {arg(x, tensor({lit(4)}))}, {},
                    {make_write_config(cfg, "k", lit(4), at(2)),
                     loop(i, lit(0), k, {assign(x, {v(i)}, zero(), 4)}, 3)});
  EXPECT_NO_THROW(check_bounds(known));
  Proc unknown = proc("f", {arg(x, tensor({lit(4)}))}, {},
                      {loop(j, lit(0), k, {assign(x, {v(j)}, zero(), 4)}, 3)});
  EXPECT_NE(effect_errors(unknown).find("x is written out-of-bounds"),
            std::string::npos);
}

}  // namespace
}  // namespace exo2
