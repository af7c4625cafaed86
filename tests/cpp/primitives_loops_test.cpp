// Loop primitives in C++: printed results, refusals with their reports, and
// forwarding through the returned EditResult.
#include <gtest/gtest.h>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/cut_loop.hpp"
#include "exo2/primitives/divide_loop.hpp"
#include "exo2/primitives/divide_with_recompute.hpp"
#include "exo2/primitives/fission.hpp"
#include "exo2/primitives/join_loops.hpp"
#include "exo2/primitives/lift_scope.hpp"
#include "exo2/primitives/mult_loops.hpp"
#include "exo2/primitives/reorder_loops.hpp"
#include "exo2/primitives/shift_loop.hpp"
#include "exo2/primitives/specialize.hpp"
#include "exo2/primitives/unroll_loop.hpp"
#include "exo2/primitives/widen_loop.hpp"
#include "typed_ir_builders.hpp"

namespace exo2 {
namespace {

using namespace test_ir;
using cursors::Location;
using cursors::Path;
using cursors::Slot;

Path body(int i) { return {{Slot::Body, i}}; }
Path body(int i, int j) { return {{Slot::Body, i}, {Slot::Body, j}}; }

// def scale(n: size, x: f32[n]):
//     for i in seq(0, n):
//         x[i] = 2.0 * x[i]
struct Scale {
  Sym n{"n"}, x{"x"}, i{"i"};
  Proc proc() {
    return test_ir::proc(
        "scale", {arg(n, kSize), arg(x, tensor({sz(n)}))},
        {loop(i, lit(0), sz(n),
              {assign(x, {v(i)}, fmul(real(2.0), data(x, {v(i)})), 3)})});
  }
};

TEST(PrimitiveLoops, DivideLoopCutPrintsAsInTheSpec) {
  Scale k;
  auto r = primitives::divide_loop(k.proc(), Location::node(body(0)), 8, "io",
                                   "ii", primitives::TailStrategy::Cut, false);
  EXPECT_EQ(print_proc(r.proc),
            "def scale(n: size, x: f32[n] @ DRAM):\n"
            "    for io in seq(0, n / 8):\n"
            "        for ii in seq(0, 8):\n"
            "            x[8 * io + ii] = 2.0 * x[8 * io + ii]\n"
            "    for ii in seq(0, n % 8):\n"
            "        x[ii + n / 8 * 8] = 2.0 * x[ii + n / 8 * 8]");
  // The loop names the outer loop; the body statement sits in the inner one.
  EXPECT_EQ(r.forwarding(Location::node(body(0))).path, body(0));
  Path inner_stmt = body(0, 0);
  inner_stmt.push_back({Slot::Body, 0});
  EXPECT_EQ(r.forwarding(Location::node(body(0, 0))).path, inner_stmt);
}

// The loop nest is built apart and put back with one edit, however many
// times the body reads the iterator (one spine rebuild, one forwarding
// step), and cursors forward as before.
TEST(PrimitiveLoops, DivideLoopRebuildsTheSpineOnceForAnyNumberOfReads) {
  Sym n("n"), x("x"), i("i");
  Block body_stmts;
  for (int k = 0; k < 6; k++)
    body_stmts.push_back(assign(x, {v(i)}, fmul(real(k), data(x, {v(i)})), 3));
  const Proc p = test_ir::proc(
      "reads", {arg(n, kSize), arg(x, tensor({sz(n)}))},
      {assign(x, {lit(0)}, real(1.0), 2), loop(i, lit(0), sz(n), body_stmts),
       assign(x, {lit(0)}, real(2.0), 4)});
  for (auto tail :
       {primitives::TailStrategy::Guard, primitives::TailStrategy::Cut}) {
    auto r = primitives::divide_loop(p, Location::node(body(1)), 4, "io", "ii",
                                     tail, false);
    EXPECT_EQ(r.forwarding.step_count(), 1u);
    EXPECT_EQ(r.proc->body.front(), p->body.front());
    EXPECT_EQ(r.proc->body.back(), p->body.back());
    Path inner = body(1, 0);
    inner.push_back({Slot::Body, 0});
    if (tail == primitives::TailStrategy::Guard)
      inner.push_back({Slot::Body, 0});
    Path last = inner;
    last.back().index = 5;
    EXPECT_EQ(r.forwarding(Location::node(body(1, 5))).path, last);
    // The statement after the loop follows the tail loop when there is one.
    EXPECT_EQ(r.forwarding(Location::node(body(2))).path,
              body(tail == primitives::TailStrategy::Guard ? 2 : 3));
  }
}

TEST(PrimitiveLoops, DivideLoopPerfectRefusesWithReport) {
  Scale k;
  try {
    primitives::divide_loop(k.proc(), Location::node(body(0)), 4, "io", "ii",
                            primitives::TailStrategy::Guard, true);
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(), "cannot perfectly divide 'n' by 4");
    EXPECT_EQ(e.report().condition, "Divisible(n, 4)");
    EXPECT_EQ(e.report().formula, "n % 4 == 0");
    EXPECT_NE(e.report().counterexample.find("n = "), std::string::npos);
    EXPECT_EQ(e.report().srcinfo.line, 2);
  }
}

TEST(PrimitiveLoops, ReorderLoopsSwapsAndForwardsEachLoop) {
  Sym n("n"), m("m"), y("y"), a("a"), i("i"), j("j");
  Proc p =
      proc("rows",
           {arg(n, kSize), arg(m, kSize), arg(a, tensor({sz(n), sz(m)})),
            arg(y, tensor({sz(n)}))},
           {loop(i, lit(0), sz(n),
                 {loop(j, lit(0), sz(m),
                       {reduce(y, {v(i)}, data(a, {v(i), v(j)}), 4)}, 3)})});
  auto r = primitives::reorder_loops(p, Location::node(body(0)));
  EXPECT_EQ(print_proc(r.proc),
            "def rows(n: size, m: size, a: f32[n, m] @ DRAM, y: f32[n] @ "
            "DRAM):\n"
            "    for j in seq(0, m):\n"
            "        for i in seq(0, n):\n"
            "            y[i] += a[i, j]");
  EXPECT_EQ(r.forwarding(Location::node(body(0))).path, body(0, 0));
  EXPECT_EQ(r.forwarding(Location::node(body(0, 0))).path, body(0));
}

TEST(PrimitiveLoops, FissionRefusesCarriedDependence) {
  Sym n("n"), x("x"), y("y"), i("i");
  Proc p = proc("carried",
                {arg(n, kSize), arg(x, tensor({add(sz(n), lit(1))})),
                 arg(y, tensor({sz(n)}))},
                {loop(i, lit(0), sz(n),
                      {assign(y, {v(i)}, data(x, {v(i)}), 3),
                       assign(x, {add(v(i), lit(1))}, real(1.0), 4)})});
  try {
    primitives::fission(p, Location::gap(body(0, 0), cursors::GapSide::After),
                        1, false);
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(), "Cannot fission loop over i at k.py:2:4.");
    EXPECT_EQ(e.report().conflicting_accesses.size(), 2u);
  }
}

TEST(PrimitiveLoops, UnrollLoopNeedsConstantBounds) {
  Scale k;
  EXPECT_THROW(primitives::unroll_loop(k.proc(), Location::node(body(0))),
               SchedulingError);
}

TEST(PrimitiveLoops, LiftScopeTreatsMissingElseAsPass) {
  Sym n("n"), m("m"), x("x");
  Proc p = proc(
      "branchy", {arg(n, kSize), arg(m, kSize), arg(x, tensor({sz(n)}))},
      {cond(
          lt(lit(2), sz(m)),
          {cond(lt(lit(3), sz(n)), {assign(x, {lit(0)}, real(1.0), 4)}, {}, 3)},
          {assign(x, {lit(0)}, real(3.0), 6)})});
  auto r = primitives::lift_scope(p, Location::node(body(0, 0)));
  EXPECT_EQ(print_proc(r.proc),
            "def branchy(n: size, m: size, x: f32[n] @ DRAM):\n"
            "    if 3 < n:\n"
            "        if 2 < m:\n"
            "            x[0] = 1.0\n"
            "        else:\n"
            "            x[0] = 3.0\n"
            "    else:\n"
            "        if 2 < m:\n"
            "            pass\n"
            "        else:\n"
            "            x[0] = 3.0");
  // The lifted if moves to its parent's place; its code follows.
  EXPECT_EQ(r.forwarding(Location::node(body(0, 0))).path, body(0));
  Path write = body(0, 0);
  write.push_back({Slot::Body, 0});
  EXPECT_EQ(r.forwarding(Location::node(write)).path, write);
  EXPECT_THROW(r.forwarding(Location::node(body(0))),
               cursors::InvalidCursorError);
}

TEST(PrimitiveLoops, LiftScopeRefusesTopLevelAndLoopDependentIf) {
  Scale k;
  EXPECT_THROW(primitives::lift_scope(k.proc(), Location::node(body(0))),
               SchedulingError);
  Sym n("n"), x("x"), i("i");
  Proc p = proc("uses_i", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {loop(i, lit(0), sz(n),
                      {cond(lt(lit(2), v(i)), {assign(x, {v(i)}, real(1.0), 4)},
                            {}, 3)})});
  try {
    primitives::lift_scope(p, Location::node(body(0, 0)));
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(), "if statement depends on iteration variable");
    EXPECT_EQ(e.report().srcinfo.line, 3);
  }
}

TEST(PrimitiveLoops, SpecializeCopiesTheBlockAndRefusesNonComparisons) {
  Scale k;
  const Location block = Location::block(body(0), 1);
  auto r = primitives::specialize(k.proc(), block, {lt(sz(k.n), lit(8))});
  EXPECT_EQ(print_proc(r.proc),
            "def scale(n: size, x: f32[n] @ DRAM):\n"
            "    if n < 8:\n"
            "        for i in seq(0, n):\n"
            "            x[i] = 2.0 * x[i]\n"
            "    else:\n"
            "        for i in seq(0, n):\n"
            "            x[i] = 2.0 * x[i]");
  EXPECT_EQ(r.forwarding(block), block);
  EXPECT_THROW(r.forwarding(Location::node(body(0))),
               cursors::InvalidCursorError);
  try {
    primitives::specialize(k.proc(), block, {add(sz(k.n), lit(2))});
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(), "Invalid specialization condition.");
  }
}

TEST(PrimitiveLoops, MultLoopsFusesAndForwardsTheOuterLoop) {
  Sym n("n"), x("x"), i("i"), j("j");
  Proc p = proc("tile", {arg(n, kSize), arg(x, tensor({sz(n), lit(4)}))},
                {loop(i, lit(0), sz(n),
                      {loop(j, lit(0), lit(4),
                            {assign(x, {v(i), v(j)}, real(0.0), 4)}, 3)})});
  auto r = primitives::mult_loops(p, Location::node(body(0)), "k");
  EXPECT_EQ(print_proc(r.proc),
            "def tile(n: size, x: f32[n, 4] @ DRAM):\n"
            "    for k in seq(0, n * 4):\n"
            "        x[k / 4, k % 4] = 0.0");
  EXPECT_EQ(r.forwarding(Location::node(body(0))).path, body(0));
  Path stmt = body(0, 0);
  stmt.push_back({Slot::Body, 0});
  EXPECT_EQ(r.forwarding(Location::node(stmt)).path, body(0, 0));
  EXPECT_THROW(r.forwarding(Location::node(body(0, 0))),
               cursors::InvalidCursorError);
}

// With a negative inner extent the inner loop runs nothing, but n * -2 is
// positive for a negative outer extent.
TEST(PrimitiveLoops, MultLoopsRefusesANonPositiveInnerExtent) {
  Sym n("n"), x("x"), i("i"), j("j");
  Proc p = proc("tile", {arg(n, kSize), arg(x, tensor({sz(n), lit(4)}))},
                {loop(i, lit(0), sub(lit(2), sz(n)),
                      {loop(j, lit(0), lit(-2),
                            {assign(x, {v(i), v(j)}, real(0.0), 4)}, 3)})});
  try {
    primitives::mult_loops(p, Location::node(body(0)), "k");
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(),
                 "expected the inner loop to run a positive number of "
                 "iterations, got -2.");
  }
}

// seq(0, 2) then seq(2, n) is seq(0, n) only when 2 <= n: otherwise the
// second loop runs nothing and the joined one stops early.
TEST(PrimitiveLoops, JoinLoopsRefusesAnEmptySecondLoop) {
  Sym n("n"), x("x"), i("i"), j("j");
  Proc p = proc("two", {arg(n, kSize), arg(x, tensor({add(sz(n), lit(2))}))},
                {loop(i, lit(0), lit(2), {assign(x, {v(i)}, real(0.0), 3)}, 2),
                 loop(j, lit(2), sz(n), {assign(x, {v(j)}, real(0.0), 5)}, 4)});
  try {
    primitives::join_loops(p, Location::node(body(0)), Location::node(body(1)));
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(),
                 "expected 0 <= 2 <= n: the joined loop would run other "
                 "iterations than the two loops");
    EXPECT_EQ(e.report().counterexample, " n = 1");
  }
}

TEST(PrimitiveLoops, JoinLoopsRefusesDifferentBodies) {
  Sym n("n"), x("x"), i("i"), j("j");
  Proc p = proc("two", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {loop(i, lit(0), lit(0), {assign(x, {v(i)}, real(0.0), 3)}, 2),
                 loop(j, lit(0), sz(n), {assign(x, {v(j)}, real(1.0), 5)}, 4)});
  try {
    primitives::join_loops(p, Location::node(body(0)), Location::node(body(1)));
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(), "expected the two loops to have identical bodies");
  }
}

TEST(PrimitiveLoops, DivideWithRecomputeOverlapsAndRefusesUnsafeUses) {
  Sym n("n"), x("x"), y("y"), i("i");
  Proc p = proc(
      "copy", {arg(n, kSize), arg(x, tensor({sz(n)})), arg(y, tensor({sz(n)}))},
      {loop(i, lit(0), sz(n), {assign(y, {v(i)}, data(x, {v(i)}), 3)})});
  auto r = primitives::divide_with_recompute(p, Location::node(body(0)), sz(n),
                                             1, "io", "ii");
  EXPECT_EQ(print_proc(r.proc),
            "def copy(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):\n"
            "    for io in seq(0, n):\n"
            "        for ii in seq(0, 1 + (n - n * 1)):\n"
            "            y[io * 1 + ii] = x[io * 1 + ii]");
  EXPECT_EQ(r.forwarding(Location::node(body(0))).path, body(0));
  try {
    primitives::divide_with_recompute(p, Location::node(body(0)), sz(n), 2,
                                      "io", "ii");
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_STREQ(e.what(), "outer_hi * outer_stride exceeds loop's hi n");
    EXPECT_EQ(e.report().condition, "Bound");
  }
  // Recomputing `x[i] = 2.0 * x[i]` would double some elements twice.
  Scale k;
  EXPECT_THROW(primitives::divide_with_recompute(
                   k.proc(), Location::node(body(0)), sz(k.n), 1, "io", "ii"),
               SchedulingError);
}

// The core types every new expression in its category, whatever the Python
// layer checked: a bool where a loop bound goes is a CheckError, not a
// crash in the analysis.
TEST(PrimitiveLoops, NewExpressionsOfTheWrongKindAreCheckErrors) {
  Scale k;
  const Location loop = Location::node(body(0));
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const CheckError& e) {
      return e.diagnostics().front().message;
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(
      message([&] { primitives::shift_loop(k.proc(), loop, truth(true)); }),
      "expected size or index type expression, but got type bool (True)");
  EXPECT_EQ(message([&] {
              primitives::cut_loop(k.proc(), loop, data(k.x, {lit(0)}));
            }),
            "expected size or index type expression, but got type f32 (x[0])");
  EXPECT_EQ(
      message([&] {
        primitives::divide_with_recompute(k.proc(), loop, truth(false), 1, "io",
                                          "ii");
      }),
      "expected size or index type expression, but got type bool (False)");
}

// The loop runs over the wider range, its body under a test of the bound
// that moved; the body's statement keeps its cursor, one level deeper.
TEST(PrimitiveLoops, WidenLoopGuardsTheBodyWithTheBoundThatMoved) {
  Scale k;
  auto r = primitives::widen_loop(k.proc(), Location::node(body(0)),
                                  std::nullopt, add(sz(k.n), lit(3)));
  EXPECT_EQ(print_proc(r.proc),
            "def scale(n: size, x: f32[n] @ DRAM):\n"
            "    for i in seq(0, n + 3):\n"
            "        if i < n:\n"
            "            x[i] = 2.0 * x[i]");
  EXPECT_EQ(r.forwarding(Location::node(body(0))).path, body(0));
  Path guarded = body(0, 0);
  guarded.push_back({Slot::Body, 0});
  EXPECT_EQ(r.forwarding(Location::node(body(0, 0))).path, guarded);
  // a narrower range would drop iterations
  EXPECT_THROW(primitives::widen_loop(k.proc(), Location::node(body(0)),
                                      std::nullopt, sub(sz(k.n), lit(1))),
               SchedulingError);
}

}  // namespace
}  // namespace exo2
