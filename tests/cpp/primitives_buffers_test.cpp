// The buffer primitives (primitives.md §5, §11): printed results, refusals
// with the spec's messages, and forwarding of cursors taken before.
#include <gtest/gtest.h>

#include <string>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/autofission.hpp"
#include "exo2/primitives/autolift_alloc.hpp"
#include "exo2/primitives/bind_expr.hpp"
#include "exo2/primitives/delete_buffer.hpp"
#include "exo2/primitives/inline_window.hpp"
#include "exo2/primitives/lift_alloc.hpp"
#include "exo2/primitives/reuse_buffer.hpp"
#include "exo2/primitives/sink_alloc.hpp"
#include "exo2/primitives/stage_mem.hpp"
#include "typed_ir_builders.hpp"

namespace exo2::primitives {
namespace {

using namespace test_ir;
using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

Path top(int k) { return {Step{Slot::Body, k}}; }
Path with(Path p, Step s) {
  p.push_back(s);
  return p;
}

std::string body_of(const Proc& p) {
  std::string s = print_proc(p);
  return s.substr(s.find('\n') + 1) + "\n";
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

// `f(n: size, x: f32[8], y: f32[8])` with `for i in seq(0, 4): body`.
struct Kernel {
  Sym n{"n"}, x{"x"}, y{"y"}, t{"t"}, i{"i"};
  Proc make(Block body) const {
    return proc(
        "f",
        {arg(n, kSize), arg(x, tensor({lit(8)})), arg(y, tensor({lit(8)}))},
        {loop(i, lit(0), lit(4), std::move(body))});
  }
};

TEST(StageMem, LoadsRewritesAndStoresTheWindow) {
  Kernel k;
  Proc p = k.make({assign(k.y, {v(k.i)}, data(k.x, {add(v(k.i), lit(2))}), 3)});
  // x[2:6] around the loop: read only, so a load nest and no store.
  Expr window = make_window_expr(k.x, {iv(lit(2), lit(6))}, at(0));
  cursors::EditResult r =
      stage_mem(p, Location::block(top(0), 1), window, "xs", false);
  EXPECT_EQ(body_of(r.proc),
            "    xs: f32[6 - 2] @ DRAM\n"
            "    for i0 in seq(0, 6 - 2):\n"
            "        xs[i0] = x[i0 + 2]\n"
            "    for i in seq(0, 4):\n"
            "        y[i] = xs[i + 2 - 2]\n");
  EXPECT_EQ(r.forwarding(Location::node(top(0))), Location::node(top(2)));
}

TEST(StageMem, RefusesAccessesPartlyInsideAndUnaccessedBuffers) {
  Kernel k;
  Proc p = k.make({assign(k.y, {v(k.i)}, data(k.x, {v(k.i)}), 3)});
  Expr half = make_window_expr(k.x, {iv(lit(0), lit(2))}, at(0));
  EXPECT_EQ(refusal([&] {
              stage_mem(p, Location::block(top(0), 1), half, "xs", false);
            }),
            "Buffer has accesses which are neither fully within nor disjoint "
            "from the window");
  Expr far = make_window_expr(k.x, {iv(lit(6), lit(8))}, at(0));
  EXPECT_EQ(refusal([&] {
              stage_mem(p, Location::block(top(0), 1), far, "xs", false);
            }),
            "Cannot stage 'x' with the given window shape. Wrong window "
            "shape, or 'x' not accessed in the given scope?");
  // accum=True needs a block that only reduces into the buffer.
  Expr all = make_window_expr(k.y, {iv(lit(0), lit(8))}, at(0));
  EXPECT_EQ(refusal([&] {
              stage_mem(p, Location::block(top(0), 1), all, "ys", true);
            }),
            "The buffer y is accessed in a way other than simply reducing "
            "into it");
}

TEST(LiftAndSinkAlloc, RoundTrip) {
  Kernel k;
  Proc p = k.make({alloc(k.t, kF32, 3), assign(k.t, {}, real(1.0), 4),
                   assign(k.y, {v(k.i)}, data(k.t, {}), 5)});
  const Location a = Location::node(with(top(0), {Slot::Body, 0}));
  cursors::EditResult lifted = lift_alloc(p, a, 1);
  EXPECT_EQ(lifted.forwarding(a), Location::node(top(0)));
  EXPECT_EQ(body_of(lifted.proc),
            "    t: f32 @ DRAM\n"
            "    for i in seq(0, 4):\n"
            "        t = 1.0\n"
            "        y[i] = t\n");
  cursors::EditResult sunk = sink_alloc(lifted.proc, Location::node(top(0)));
  EXPECT_EQ(body_of(sunk.proc), body_of(p));
  EXPECT_EQ(refusal([&] { lift_alloc(p, a, 2); }),
            "specified lift level 2 is more than 1, the number of loops and "
            "ifs above the allocation");
  EXPECT_THROW(sink_alloc(p, a), SinkAllocTargetError);
}

// A lifted loop adds a dimension when the buffer's values depend on its
// iterator, and only then (Exo's rule, checked against exo-lang 1.0).
TEST(AutoliftAlloc, KeepsADimensionPerIterationItsValuesDependOn) {
  Kernel k;
  Proc p = k.make({alloc(k.t, kF32, 3), assign(k.t, {}, data(k.x, {v(k.i)}), 4),
                   assign(k.y, {v(k.i)}, data(k.t, {}), 5)});
  const Location a = Location::node(with(top(0), {Slot::Body, 0}));
  Proc q = autolift_alloc(p, a, 1, "row", std::nullopt, true);
  EXPECT_EQ(body_of(q),
            "    t: f32[4] @ DRAM\n"
            "    for i in seq(0, 4):\n"
            "        t[i] = x[i]\n"
            "        y[i] = t[i]\n");

  Proc same = k.make({alloc(k.t, kF32, 3), assign(k.t, {}, real(1.0), 4),
                      assign(k.y, {v(k.i)}, data(k.t, {}), 5)});
  EXPECT_EQ(body_of(autolift_alloc(same, a, 1, "row", std::nullopt, true)),
            "    t: f32 @ DRAM\n"
            "    for i in seq(0, 4):\n"
            "        t = 1.0\n"
            "        y[i] = t\n");
}

TEST(DeleteBuffer, RefusesAUsedBuffer) {
  Kernel k;
  Proc p = k.make({alloc(k.t, kF32, 3), assign(k.t, {}, real(1.0), 4)});
  const Location a = Location::node(with(top(0), {Slot::Body, 0}));
  EXPECT_EQ(refusal([&] { delete_buffer(p, a); }),
            "The variable t can potentially be used after the statement at "
            "k.py:3:4 executes.");
}

TEST(BindExpr, BindsTheFirstExpression) {
  Kernel k;
  Expr product = fmul(data(k.x, {v(k.i)}), real(2.0));
  Proc p = k.make({assign(k.y, {v(k.i)}, product, 3)});
  const Location e =
      Location::node(with(with(top(0), {Slot::Body, 0}), {Slot::Rhs, 0}));
  cursors::EditResult r = bind_expr(p, {e}, "b");
  EXPECT_EQ(body_of(r.proc),
            "    for i in seq(0, 4):\n"
            "        b: f32 @ DRAM\n"
            "        b = x[i] * 2.0\n"
            "        y[i] = b\n");
  EXPECT_EQ(r.forwarding(e), Location::node(with(with(top(0), {Slot::Body, 2}),
                                                 {Slot::Rhs, 0})));
}

TEST(SinkAlloc, RefusesAValueCarriedToTheNextIteration) {
  Kernel k;
  // t written at iteration i, read at i + 1.
  Proc p = k.make({assign(k.y, {v(k.i)}, data(k.t, {}), 4),
                   assign(k.t, {}, data(k.x, {v(k.i)}), 5)});
  const Location a = Location::node(top(0));
  Block body = p->body;
  body.insert(body.begin(), alloc(k.t, kF32, 3));
  Proc q = make_proc(p->name, p->args, p->preds, body, p->instr, p->srcinfo);
  EXPECT_EQ(refusal([&] { sink_alloc(q, a); }),
            "Cannot sink allocation t: f32 @ DRAM because values of t may "
            "flow from one iteration of the loop to the next.");
}

TEST(ReuseBuffer, RenamesTheLaterBuffer) {
  Kernel k;
  Sym u("u");
  Proc p = k.make({alloc(k.t, kF32, 3), assign(k.t, {}, real(1.0), 4),
                   assign(k.y, {v(k.i)}, data(k.t, {}), 5), alloc(u, kF32, 6),
                   assign(u, {}, real(2.0), 7),
                   reduce(k.y, {v(k.i)}, data(u, {}), 8)});
  const Location t_alloc = Location::node(with(top(0), {Slot::Body, 0}));
  const Location u_alloc = Location::node(with(top(0), {Slot::Body, 3}));
  cursors::EditResult r = reuse_buffer(p, t_alloc, u_alloc);
  EXPECT_EQ(body_of(r.proc),
            "    for i in seq(0, 4):\n"
            "        t: f32 @ DRAM\n"
            "        t = 1.0\n"
            "        y[i] = t\n"
            "        t = 2.0\n"
            "        y[i] += t\n");
  EXPECT_EQ(r.forwarding(Location::node(with(top(0), {Slot::Body, 5}))),
            Location::node(with(top(0), {Slot::Body, 4})));
  // t is read after the first write to u.
  Proc late = k.make({alloc(k.t, kF32, 3), assign(k.t, {}, real(1.0), 4),
                      alloc(u, kF32, 6), assign(u, {}, real(2.0), 7),
                      assign(k.y, {v(k.i)}, data(k.t, {}), 5)});
  EXPECT_EQ(refusal([&] {
              reuse_buffer(late, t_alloc,
                           Location::node(with(top(0), {Slot::Body, 2})));
            }),
            "The variable t can potentially be used after the statement at "
            "k.py:7:4 executes.");
}

TEST(InlineWindow, ShiftsIndicesAndReinsertsPoints) {
  Kernel k;
  Sym w("w");
  // w = x[i, 2:6] over a 2-d x is not available in Kernel: use x[2:6].
  Proc p = k.make({make_window_stmt(w, win(k.x, {iv(lit(2), lit(6))}), at(3)),
                   assign(w, {lit(1)}, data(k.y, {v(k.i)}), 4)});
  cursors::EditResult r =
      inline_window(p, Location::node(with(top(0), {Slot::Body, 0})));
  EXPECT_EQ(body_of(r.proc),
            "    for i in seq(0, 4):\n"
            "        x[1 + 2] = y[i]\n");
}

TEST(Autofission, SplitsAndDropsALoopThatRunsOnce) {
  Kernel k;
  // y[i] = x[i]; t-free, idempotent `x[0] = 1.0` loses its loop.
  Proc p = k.make({assign(k.y, {v(k.i)}, data(k.x, {v(k.i)}), 3),
                   assign(k.x, {lit(7)}, real(1.0), 4)});
  Proc q = autofission(
      p, Location::gap(with(top(0), {Slot::Body, 0}), cursors::GapSide::After),
      1);
  EXPECT_EQ(body_of(q),
            "    for i in seq(0, 4):\n"
            "        y[i] = x[i]\n"
            "    x[7] = 1.0\n");
  // x[i + 1] written at i is read at i + 1: the split would read it first.
  Proc bad = k.make({assign(k.y, {v(k.i)}, data(k.x, {v(k.i)}), 3),
                     assign(k.x, {add(v(k.i), lit(1))}, real(1.0), 4)});
  EXPECT_EQ(refusal([&] {
              autofission(bad,
                          Location::gap(with(top(0), {Slot::Body, 0}),
                                        cursors::GapSide::After),
                          1);
            }),
            "Cannot fission loop over i at k.py:2:4.");
  EXPECT_THROW(autofission(p,
                           Location::gap(with(top(0), {Slot::Body, 0}),
                                         cursors::GapSide::Before),
                           1),
               ArgumentError);
}

}  // namespace
}  // namespace exo2::primitives
