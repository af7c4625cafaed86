// The buffer dimension primitives (docs/primitives-buffer-dims.md) on small
// typed kernels: printed results, refusals with their messages, forwarding, and
// the shared access rewriting of buffer_accesses.hpp.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/buffer_accesses.hpp"
#include "exo2/primitives/divide_dim.hpp"
#include "exo2/primitives/expand_dim.hpp"
#include "exo2/primitives/mult_dim.hpp"
#include "exo2/primitives/rearrange_dim.hpp"
#include "exo2/primitives/resize_dim.hpp"
#include "exo2/primitives/unroll_buffer.hpp"
#include "typed_ir_builders.hpp"

namespace exo2::primitives {
namespace {

using namespace test_ir;
using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

Path top(int k) { return {Step{Slot::Body, k}}; }
Location node(Path p) { return Location::node(std::move(p)); }

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

// `f(n: size, x: f32[n])`:
//   t : f32[<t_shape>]
//   for i in seq(0, n):
//     t[<index>] = x[i]
//     x[i] = t[<index>]
struct Kernel {
  Sym n{"n"}, x{"x"}, t{"t"}, i{"i"};
  Proc make(std::vector<Expr> t_shape, std::vector<Expr> index) const {
    return proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {alloc(t, tensor(std::move(t_shape))),
                 loop(i, lit(0), sz(n),
                      {assign(t, index, data(x, {v(i)}), 4),
                       assign(x, {v(i)}, data(t, index), 5)},
                      3)});
  }
};

const Location kAlloc = node(top(0));
// The read of `t` in `x[i] = t[...]`.
Location read_of_t() {
  return node({Step{Slot::Body, 1}, Step{Slot::Body, 1}, Step{Slot::Rhs, 0}});
}

TEST(BufferAccesses, RewritesReadsAndWritesAndKeepsCursors) {
  Kernel k;
  Proc p = k.make({sz(k.n)}, {v(k.i)});
  BufferAccessRewrite rewrite;
  rewrite.point = [&](const std::vector<Expr>& idx, const AccessSite&) {
    return PointAccess{k.t, {idx[0], lit(0)}};
  };
  cursors::EditResult r = rewrite_buffer_accesses(p, kAlloc, rewrite);
  EXPECT_EQ(body_of(r.proc),
            "    t: f32[n] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t[i, 0] = x[i]\n"
            "        x[i] = t[i, 0]\n");
  EXPECT_EQ(r.forwarding(read_of_t()), read_of_t());
  EXPECT_EQ(r.forwarding(node(top(1))), node(top(1)));
}

TEST(ResizeDim, ShiftsIndicesAndProvesBounds) {
  Kernel k;
  Proc p = k.make({add(sz(k.n), lit(2))}, {add(v(k.i), lit(2))});
  cursors::EditResult r = resize_dim(p, kAlloc, 0, sz(k.n), lit(2), false);
  EXPECT_EQ(body_of(r.proc),
            "    t: f32[n] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t[i + 2 - 2] = x[i]\n"
            "        x[i] = t[i + 2 - 2]\n");
  EXPECT_EQ(refusal([&] { resize_dim(p, kAlloc, 0, sz(k.n), lit(1), false); }),
            "The buffer t is accessed out-of-bounds");
  EXPECT_EQ(refusal([&] { resize_dim(p, kAlloc, 0, lit(0), lit(0), false); }),
            "The expression 0 is not guaranteed to be greater than 0.");
  EXPECT_THROW(resize_dim(p, kAlloc, 1, lit(1), lit(0), false), ArgumentError);
}

TEST(ResizeDim, FoldsWhenEachValueIsUsedBeforeItsSlotIsReused) {
  Kernel k;
  Proc p = k.make({sz(k.n)}, {v(k.i)});
  cursors::EditResult r = resize_dim(p, kAlloc, 0, lit(1), lit(0), true);
  EXPECT_EQ(body_of(r.proc),
            "    t: f32[1] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t[i % 1] = x[i]\n"
            "        x[i] = t[i % 1]\n");
}

TEST(ResizeDim, FoldRefusesWhenALaterWriteClobbersALiveValue) {
  // t[i] = x[i]; x[i] = t[i - 1] (for i >= 1): folding to 1 would read the
  // value just written instead of the previous one.
  Kernel k;
  Sym i = k.i;
  Proc p = proc("f", {arg(k.n, kSize), arg(k.x, tensor({sz(k.n)}))},
                {alloc(k.t, tensor({sz(k.n)})),
                 loop(i, lit(1), sz(k.n),
                      {assign(k.t, {v(i)}, data(k.x, {v(i)}), 4),
                       assign(k.x, {v(i)}, data(k.t, {sub(v(i), lit(1))}), 5)},
                      3)});
  const std::string message =
      refusal([&] { resize_dim(p, kAlloc, 0, lit(1), lit(0), true); });
  EXPECT_EQ(message.rfind("Buffer folding failed because ", 0), 0u) << message;
  EXPECT_NO_THROW(resize_dim(p, kAlloc, 0, lit(2), lit(0), true));
}

TEST(ResizeDim, FoldTellsSiblingLoopsOfOneIteratorApart) {
  // for i: t[i] = x[i]; then for i (the same iterator, as fission leaves
  // it): x[i] = t[i]. Every write runs before every read: folding to 1
  // would keep only the last value.
  Kernel k;
  Sym i = k.i;
  Proc p = proc(
      "f", {arg(k.n, kSize), arg(k.x, tensor({sz(k.n)}))},
      {alloc(k.t, tensor({sz(k.n)})),
       loop(i, lit(0), sz(k.n), {assign(k.t, {v(i)}, data(k.x, {v(i)}), 4)}, 3),
       loop(i, lit(0), sz(k.n), {assign(k.x, {v(i)}, data(k.t, {v(i)}), 6)},
            5)});
  const std::string message =
      refusal([&] { resize_dim(p, kAlloc, 0, lit(1), lit(0), true); });
  EXPECT_EQ(message.rfind("Buffer folding failed because ", 0), 0u) << message;
}

TEST(ExpandDim, AddsALeadingDimension) {
  Kernel k;
  Proc p = k.make({lit(4)}, {lit(1)});
  EXPECT_EQ(refusal([&] { expand_dim(p, kAlloc, sz(k.n), sz(k.n)); }),
            "The buffer t is accessed out-of-bounds");
  cursors::EditResult r = expand_dim(p, kAlloc, add(sz(k.n), lit(1)), sz(k.n));
  EXPECT_EQ(body_of(r.proc),
            "    t: f32[n + 1, 4] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t[n, 1] = x[i]\n"
            "        x[i] = t[n, 1]\n");
  EXPECT_EQ(r.forwarding(read_of_t()), read_of_t());
}

TEST(DivideAndMultDim, RoundTrip) {
  Kernel k;
  Proc p = k.make({lit(16)}, {mod(v(k.i), lit(16))});
  cursors::EditResult r = divide_dim(p, kAlloc, 0, 8);
  EXPECT_EQ(body_of(r.proc),
            "    t: f32[2, 8] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t[i % 16 / 8, i % 16 % 8] = x[i]\n"
            "        x[i] = t[i % 16 / 8, i % 16 % 8]\n");
  EXPECT_EQ(refusal([&] { divide_dim(p, kAlloc, 0, 5); }),
            "cannot perfectly divide '16' by 5");
  cursors::EditResult m = mult_dim(r.proc, kAlloc, 0, 1);
  EXPECT_EQ(body_of(m.proc),
            "    t: f32[8 * 2] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t[8 * (i % 16 / 8) + i % 16 % 8] = x[i]\n"
            "        x[i] = t[8 * (i % 16 / 8) + i % 16 % 8]\n");
  EXPECT_THROW(mult_dim(r.proc, kAlloc, 0, 0), ArgumentError);
}

TEST(RearrangeDim, PermutesShapeAndIndices) {
  Kernel k;
  Proc p = k.make({lit(2), sz(k.n)}, {lit(1), v(k.i)});
  cursors::EditResult r = rearrange_dim(p, kAlloc, {1, 0});
  EXPECT_EQ(body_of(r.proc),
            "    t: f32[n, 2] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t[i, 1] = x[i]\n"
            "        x[i] = t[i, 1]\n");
  EXPECT_THROW(rearrange_dim(p, kAlloc, {0, 0}), ArgumentError);
}

TEST(UnrollBuffer, SplitsByLiteralIndex) {
  Kernel k;
  Proc p = k.make({lit(3), sz(k.n)}, {lit(2), v(k.i)});
  cursors::EditResult r = unroll_buffer(p, kAlloc, 0);
  EXPECT_EQ(body_of(r.proc),
            "    t_2: f32[n] @ DRAM\n"
            "    for i in seq(0, n):\n"
            "        t_2[i] = x[i]\n"
            "        x[i] = t_2[i]\n");
  EXPECT_THROW(r.forwarding(kAlloc), cursors::InvalidCursorError);
  EXPECT_EQ(refusal([&] { unroll_buffer(p, kAlloc, 1); }),
            "Expected a constant buffer dimension, got n at 1'th dimension.");
}

}  // namespace
}  // namespace exo2::primitives
