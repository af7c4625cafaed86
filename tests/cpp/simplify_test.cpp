// simplify: the affine normal form of docs/reference/printing.md (every
// example), range facts for `/` and `%`, constant folding and literal dead
// code; cursors follow the statements it keeps.
#include "exo2/analysis/simplify.hpp"

#include <gtest/gtest.h>

#include <string>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/forwarding.hpp"
#include "exo2/primitives/simplify.hpp"
#include "typed_ir_builders.hpp"

namespace exo2 {
namespace {

using namespace test_ir;

// The variables of the kernel every normal-form test writes into:
// `for io in seq(0, n): for ii in seq(0, 4): for i, j in seq(0, n):
// x[e] = 0.0`.
struct Vars {
  Sym n{"n"}, x{"x"}, io{"io"}, ii{"ii"}, i{"i"}, j{"j"};
};

// `e` after simplify, printed, in the innermost loop of the kernel above.
std::string simplified(const Vars& s, const Expr& e) {
  Stmt write = assign(s.x, {e}, real(0.0), 5);
  Proc p = proc("f", {arg(s.n, kSize), arg(s.x, tensor({sz(s.n)}))},
                {loop(s.io, lit(0), sz(s.n),
                      {loop(s.ii, lit(0), lit(4),
                            {loop(s.i, lit(0), sz(s.n),
                                  {loop(s.j, lit(0), sz(s.n), {write})})})})});
  Proc q = simplify(p);
  const Stmt* s1 = &q->body[0];
  for (int depth = 0; depth < 4; ++depth) s1 = &(*s1)->as<For>().body[0];
  return print_expr((*s1)->as<Assign>().idx[0]);
}

class SimplifyNormalForm : public ::testing::Test {
 protected:
  Vars s;
  Expr i() { return v(s.i); }
  Expr j() { return v(s.j); }
  Expr n() { return sz(s.n); }
  Expr io() { return v(s.io); }
  Expr ii() { return v(s.ii); }
};

TEST_F(SimplifyNormalForm, ConstantComesFirst) {
  EXPECT_EQ(simplified(s, add(i(), lit(1))), "1 + i");
}

TEST_F(SimplifyNormalForm, NegativeConstantPrintsAsLiteral) {
  EXPECT_EQ(simplified(s, sub(n(), lit(1))), "-1 + n");
}

TEST_F(SimplifyNormalForm, LeadingNegativeTermIsUnaryMinus) {
  EXPECT_EQ(simplified(s, sub(n(), i())), "-i + n");
}

TEST_F(SimplifyNormalForm, LeadingNegativeScaledTermIsParenthesised) {
  EXPECT_EQ(simplified(s, sub(i(), mul(lit(2), j()))), "-(2 * j) + i");
}

TEST_F(SimplifyNormalForm, NegativeTermAfterConstantIsSubtracted) {
  EXPECT_EQ(simplified(s, sub(lit(5), mul(lit(2), j()))), "5 - 2 * j");
}

TEST_F(SimplifyNormalForm, TiesBrokenByName) {
  EXPECT_EQ(simplified(s, add(j(), i())), "i + j");
}

TEST_F(SimplifyNormalForm, AscendingCoefficients) {
  EXPECT_EQ(simplified(s, add(mul(lit(4), io()), ii())), "ii + 4 * io");
}

TEST_F(SimplifyNormalForm, DistributesAndCancels) {
  EXPECT_EQ(simplified(s, sub(mul(lit(2), add(i(), lit(3))), i())), "6 + i");
}

TEST_F(SimplifyNormalForm, CoefficientOnTheRight) {
  EXPECT_EQ(simplified(s, mul(add(i(), j()), lit(3))), "3 * i + 3 * j");
}

TEST_F(SimplifyNormalForm, EverythingCancelsToZero) {
  EXPECT_EQ(simplified(s, sub(add(i(), j()), add(j(), i()))), "0");
}

TEST_F(SimplifyNormalForm, DivisionKeepsStructureOperandsNormalised) {
  EXPECT_EQ(simplified(s, add(ii(), mul(div(n(), lit(8)), lit(8)))),
            "ii + n / 8 * 8");
  EXPECT_EQ(simplified(s, div(add(n(), lit(7)), lit(8))), "(7 + n) / 8");
}

TEST_F(SimplifyNormalForm, DivisionByRangeFacts) {
  EXPECT_EQ(simplified(s, div(add(mul(lit(4), io()), ii()), lit(4))), "io");
  EXPECT_EQ(simplified(s, mod(add(mul(lit(4), io()), ii()), lit(4))), "ii");
}

TEST_F(SimplifyNormalForm, DivisionWithoutRangeFactsStays) {
  // i ranges over [0, n): not provably below 4.
  EXPECT_EQ(simplified(s, div(add(mul(lit(4), io()), i()), lit(4))),
            "(i + 4 * io) / 4");
  EXPECT_EQ(simplified(s, mod(add(mul(lit(4), io()), i()), lit(4))), "i % 4");
}

TEST_F(SimplifyNormalForm, ExactDivisionAndConstantRemainders) {
  EXPECT_EQ(simplified(s, div(add(mul(lit(8), i()), lit(16)), lit(4))),
            "4 + 2 * i");
  EXPECT_EQ(simplified(s, mod(add(mul(lit(8), i()), lit(6)), lit(4))), "2");
}

TEST_F(SimplifyNormalForm, ConstantOffsetInsideDivision) {
  // (1 + ii) / 4 has ii + 1 in [1, 5): not provable; (4 * io + 8) / 4 is.
  EXPECT_EQ(simplified(s, div(add(ii(), lit(1)), lit(4))), "(1 + ii) / 4");
  EXPECT_EQ(simplified(s, div(add(mul(lit(4), io()), lit(8)), lit(4))),
            "2 + io");
}

TEST_F(SimplifyNormalForm, SplitsTheDivisor) {
  // (4 * io + ii) / 8 = ((4 * io + ii) / 4) / 2 = io / 2.
  EXPECT_EQ(simplified(s, div(add(mul(lit(4), io()), ii()), lit(8))), "io / 2");
}

TEST_F(SimplifyNormalForm, NestedDivisionsMerge) {
  EXPECT_EQ(simplified(s, div(div(n(), lit(2)), lit(3))), "n / 6");
}

TEST_F(SimplifyNormalForm, QuotientPlusRemainderIsTheNumerator) {
  EXPECT_EQ(simplified(s, add(mod(n(), lit(4)), mul(lit(4), div(n(), lit(4))))),
            "n");
}

// Sums holding `/` or `%` terms: equal terms cancel (the tail of a loop cut
// at `n / 16 * 16` indexes relative to its start) ...
TEST_F(SimplifyNormalForm, EqualQuotientTermsCancel) {
  Expr base = mul(div(n(), lit(16)), lit(16));
  EXPECT_EQ(simplified(s, sub(add(add(i(), mul(lit(8), j())), base),
                              add(base, mul(lit(8), j())))),
            "i");
}

TEST_F(SimplifyNormalForm, EqualQuotientTermsCombine) {
  Expr q = div(n(), lit(8));
  EXPECT_EQ(simplified(s, add(add(i(), q), mul(lit(2), q))), "i + n / 8 * 3");
}

// ... and a sum is left as written when nothing cancels or combines.
TEST_F(SimplifyNormalForm, SumsWithQuotientsStayAsWritten) {
  EXPECT_EQ(simplified(s, add(mul(div(n(), lit(8)), lit(8)), i())),
            "n / 8 * 8 + i");
}

// A numerator holding a quotient is kept as written, as Exo keeps it (the
// shapes divide_dim prints read as Exo's); only nested divisors merge.
TEST_F(SimplifyNormalForm, DivisionOfAScaledQuotientStaysAsWritten) {
  EXPECT_EQ(simplified(s, div(mul(div(n(), lit(16)), lit(16)), lit(16))),
            "n / 16 * 16 / 16");
  EXPECT_EQ(simplified(s, mod(mul(div(n(), lit(16)), lit(16)), lit(16))),
            "n / 16 * 16 % 16");
}

// ---- Whole procedures -------------------------------------------------------

// `scale` after divide_loop(..., 8, tail="cut"), as docs/reference/printing.md
// shows it.
TEST(Simplify, ScaleAfterDivideLoopCutMatchesPrintingSpec) {
  Sym n("n"), x("x"), io("io"), ii("ii"), ii2("ii");
  auto body = [&](Expr idx) {
    return assign(x, {idx}, fmul(real(2.0), data(x, {idx})), 4);
  };
  Proc p = proc(
      "scale", {arg(n, kSize), arg(x, tensor({sz(n)}))},
      {loop(io, lit(0), div(sz(n), lit(8)),
            {loop(ii, lit(0), lit(8), {body(add(mul(lit(8), v(io)), v(ii)))})}),
       loop(ii2, lit(0), mod(sz(n), lit(8)),
            {body(add(v(ii2), mul(div(sz(n), lit(8)), lit(8))))})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def scale(n: size, x: f32[n] @ DRAM):\n"
            "    for io in seq(0, n / 8):\n"
            "        for ii in seq(0, 8):\n"
            "            x[ii + 8 * io] = 2.0 * x[ii + 8 * io]\n"
            "    for ii in seq(0, n % 8):\n"
            "        x[ii + n / 8 * 8] = 2.0 * x[ii + n / 8 * 8]");
}

TEST(Simplify, ScaleAfterDivideLoopGuardNormalisesBoundAndGuard) {
  Sym n("n"), x("x"), io("io"), ii("ii");
  Expr idx = add(mul(lit(8), v(io)), v(ii));
  Proc p =
      proc("scale", {arg(n, kSize), arg(x, tensor({sz(n)}))},
           {loop(io, lit(0), div(add(sz(n), lit(7)), lit(8)),
                 {loop(ii, lit(0), lit(8),
                       {cond(lt(idx, sz(n)),
                             {assign(x, {idx}, fmul(real(2.0), data(x, {idx})),
                                     5)})})})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def scale(n: size, x: f32[n] @ DRAM):\n"
            "    for io in seq(0, (7 + n) / 8):\n"
            "        for ii in seq(0, 8):\n"
            "            if ii + 8 * io < n:\n"
            "                x[ii + 8 * io] = 2.0 * x[ii + 8 * io]");
}

// The signature keeps its shapes as written (as Exo's simplify, checked
// against exo-lang 1.0 on the same kernel); the body's shapes are simplified.
TEST(Simplify, NormalisesShapesAndPreconditions) {
  Sym n("n"), x("x"), t("t");
  Proc p = proc("f", {arg(n, kSize), arg(x, tensor({add(sz(n), lit(1))}))},
                {alloc(t, tensor({add(sz(n), lit(2))})),
                 assign(t, {lit(0)}, real(0.0), 3)},
                {lt(add(sz(n), lit(1)), lit(10))});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(n: size, x: f32[n + 1] @ DRAM):\n"
            "    assert 1 + n < 10\n"
            "    t: f32[2 + n] @ DRAM\n"
            "    t[0] = 0.0");
}

TEST(Simplify, LiteralConditionKeepsTheTakenBranch) {
  Sym x("x");
  Proc p = proc("f", {arg(x, tensor({lit(4)}))},
                {cond(lt(lit(1), lit(2)), {assign(x, {lit(0)}, real(1.0), 3)},
                      {assign(x, {lit(1)}, real(2.0), 5)}),
                 cond(both(truth(true), lt(lit(3), lit(2))),
                      {assign(x, {lit(2)}, real(1.0), 7)},
                      {assign(x, {lit(3)}, real(2.0), 9)})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(x: f32[4] @ DRAM):\n"
            "    x[0] = 1.0\n"
            "    x[3] = 2.0");
}

TEST(Simplify, DeletesLoopsWithEqualLiteralBoundsOrEmptyBodies) {
  Sym x("x"), i("i"), j("j"), k("k");
  Proc p = proc(
      "f", {arg(x, tensor({lit(4)}))},
      {loop(i, lit(3), add(lit(1), lit(2)), {assign(x, {v(i)}, real(1.0), 3)}),
       loop(j, lit(0), lit(4),
            {cond(truth(false), {assign(x, {v(j)}, real(1.0), 5)})}),
       loop(k, lit(0), lit(4), {assign(x, {v(k)}, real(1.0), 7)})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(x: f32[4] @ DRAM):\n"
            "    for k in seq(0, 4):\n"
            "        x[k] = 1.0");
}

// `[(Body, i), (Body, j)]`: statement j of the body of statement i.
cursors::Path body_path(std::initializer_list<int> indices) {
  cursors::Path path;
  for (int i : indices) path.push_back({cursors::Slot::Body, i});
  return path;
}

// `for i in seq(0, 0): ...; if True: x[0] = 1.0 (else x[1] = 2.0);
// for k in seq(0, 4): x[k] = 1.0`, which simplify turns into
// `x[0] = 1.0; for k in seq(0, 4): x[k] = 1.0`.
Proc with_dead_and_inlined_code() {
  Sym x("x"), i("i"), k("k");
  return proc("f", {arg(x, tensor({lit(4)}))},
              {loop(i, lit(0), lit(0), {assign(x, {v(i)}, real(1.0), 3)}),
               cond(truth(true), {assign(x, {lit(0)}, real(1.0), 5)},
                    {assign(x, {lit(1)}, real(2.0), 7)}),
               loop(k, lit(0), lit(4), {assign(x, {v(k)}, real(1.0), 9)})});
}

TEST(Simplify, RecordsWhereKeptStatementsWent) {
  KeptStatements kept;
  simplify(with_dead_and_inlined_code(), {}, &kept);
  const KeptStatements expected = {
      {body_path({1, 0}), body_path({0})},
      {body_path({2}), body_path({1})},
      {body_path({2, 0}), body_path({1, 0})},
  };
  EXPECT_EQ(kept, expected);
}

TEST(Simplify, CursorsFollowKeptStatements) {
  const cursors::EditResult r =
      primitives::simplify(with_dead_and_inlined_code());
  // the loop and its body's index move up past the deleted loop
  const cursors::Path idx = [] {
    cursors::Path p = body_path({2, 0});
    p.push_back({cursors::Slot::Idx, 0});
    return p;
  }();
  cursors::Path moved_idx = body_path({1, 0});
  moved_idx.push_back({cursors::Slot::Idx, 0});
  EXPECT_EQ(r.forwarding(cursors::Location::node(idx)).path, moved_idx);
  EXPECT_EQ(r.forwarding(cursors::Location::gap(body_path({2}),
                                                cursors::GapSide::After)),
            cursors::Location::gap(body_path({1}), cursors::GapSide::After));
  // a block over all three statements spans what they became
  EXPECT_EQ(r.forwarding(cursors::Location::block(body_path({0}), 3)),
            cursors::Location::block(body_path({0}), 2));
  // the deleted loop and the inlined if are gone
  EXPECT_THROW(r.forwarding(cursors::Location::node(body_path({0}))),
               cursors::InvalidCursorError);
  EXPECT_THROW(r.forwarding(cursors::Location::node(body_path({1}))),
               cursors::InvalidCursorError);
}

TEST(Simplify, EmptiedBlockHoldsPass) {
  Sym x("x"), i("i");
  Proc p = proc("f", {arg(x, tensor({lit(4)}))},
                {loop(i, lit(0), lit(0), {assign(x, {v(i)}, real(1.0), 3)})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(x: f32[4] @ DRAM):\n"
            "    pass");
}

TEST(Simplify, FoldsDataLiteralsAndIdentities) {
  Sym x("x");
  Proc p = proc("f", {arg(x, tensor({lit(4)}))},
                {assign(x, {lit(0)}, fmul(real(2.0), real(3.0)), 3),
                 assign(x, {lit(1)}, fmul(data(x, {lit(1)}), real(1.0)), 4),
                 assign(x, {lit(2)}, fadd(real(0.0), data(x, {lit(2)})), 5),
                 assign(x, {lit(3)}, fmul(data(x, {lit(3)}), real(0.0)), 6)});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(x: f32[4] @ DRAM):\n"
            "    x[0] = 6.0\n"
            "    x[1] = x[1]\n"
            "    x[2] = x[2]\n"
            "    x[3] = 0");
}

TEST(Simplify, EqualityConditionSubstitutesInsideTheBranch) {
  Sym n("n"), x("x"), i("i");
  Proc p = proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {loop(i, lit(0), sz(n),
                      {cond(eq(v(i), lit(0)),
                            {assign(x, {add(v(i), lit(1))}, real(1.0), 4)},
                            {assign(x, {v(i)}, real(2.0), 6)})})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        if i == 0:\n"
            "            x[1] = 1.0\n"
            "        else:\n"
            "            x[i] = 2.0");
}

TEST(Simplify, ZeroQuotientFactMakesRemainderTheNumerator) {
  Sym n("n"), x("x");
  Proc p = proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {cond(eq(div(sz(n), lit(4)), lit(0)),
                      {assign(x, {mod(sz(n), lit(4))}, real(1.0), 3)})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(n: size, x: f32[n] @ DRAM):\n"
            "    if n / 4 == 0:\n"
            "        x[n] = 1.0");
}

TEST(Simplify, RangeFactsComeFromIfsAndPreconditions) {
  Sym n("n"), m("m"), x("x"), i("i");
  // m < 4 by precondition; i < 2 by the enclosing if.
  Proc p =
      proc("f", {arg(n, kSize), arg(m, kSize), arg(x, tensor({sz(n)}))},
           {loop(i, lit(0), sz(n),
                 {cond(lt(v(i), lit(2)),
                       {assign(x, {div(add(mul(lit(4), v(i)), sz(m)), lit(4))},
                               real(1.0), 4),
                        assign(x, {mod(v(i), lit(2))}, real(1.0), 5)})})},
           {lt(sz(m), lit(4))});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(n: size, m: size, x: f32[n] @ DRAM):\n"
            "    assert m < 4\n"
            "    for i in seq(0, n):\n"
            "        if i < 2:\n"
            "            x[i] = 1.0\n"
            "            x[i] = 1.0");
}

TEST(Simplify, ProvablyDeadCodeRemovedOnlyWhenAsked) {
  Sym n("n"), x("x"), i("i"), j("j");
  Proc p = proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {loop(i, lit(0), sz(n),
                      {cond(lt(v(i), sz(n)), {assign(x, {v(i)}, real(1.0), 4)},
                            {assign(x, {lit(0)}, real(2.0), 6)})}),
                 loop(j, sz(n), sz(n), {assign(x, {v(j)}, real(1.0), 8)})});
  EXPECT_EQ(print_proc(simplify(p)),
            "def f(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        if i < n:\n"
            "            x[i] = 1.0\n"
            "        else:\n"
            "            x[0] = 2.0\n"
            "    for j in seq(n, n):\n"
            "        x[j] = 1.0");
  SimplifyOptions prove;
  prove.remove_provably_dead_code = true;
  EXPECT_EQ(print_proc(simplify(p, prove)),
            "def f(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n):\n"
            "        x[i] = 1.0");
}

}  // namespace
}  // namespace exo2
