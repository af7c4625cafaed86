// The GPU primitives (docs/cuda.md, "From a sequential kernel") and the IR they
// build: loop modes, `with` blocks and sync statements print as written,
// keep the sequential meaning (nothing but annotations changes), refuse
// what they cannot do, and forward cursors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/bind_window.hpp"
#include "exo2/primitives/gpu_annotations.hpp"
#include "typed_ir_builders.hpp"

namespace exo2::primitives {
namespace {

using namespace test_ir;
using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

// Backend objects as C++ tests see them: named, with no properties.
struct Mode : LoopMode {
  std::string name() const override { return "threads"; }
  std::string extra_args() const override { return ", unit=warp"; }
};
struct Ctx : WithContext {
  std::string name() const override { return "Launch()"; }
};
struct Timeline : SyncTimeline {
  explicit Timeline(std::string n) : n_(std::move(n)) {}
  std::string name() const override { return n_; }
  std::string n_;
};
struct Ring : DimAnnotation {
  std::string name() const override { return "ring(2)"; }
};

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

// def f(n: size, x: f32[n]):
//     s: f32[n] @ DRAM
//     for i in seq(0, n):
//         x[i] = 0.0
struct Kernel {
  Sym n{"n"}, x{"x"}, s{"s"}, i{"i"};
  Proc make() const {
    return proc("f", {arg(n, kSize), arg(x, tensor({sz(n)}))},
                {alloc(s, tensor({sz(n)})),
                 loop(i, lit(0), sz(n), {assign(x, {v(i)}, real(0.0), 3)})});
  }
};

TEST(GpuPrimitives, LoopModesAndWithBlocksPrintAsWritten) {
  Kernel k;
  Proc p = k.make();
  auto mode = std::make_shared<const Mode>();
  p = set_loop_mode(p, stmt({1}), mode).proc;
  auto r = wrap_with(p, stmt({1}), std::make_shared<const Ctx>());
  EXPECT_EQ(print_proc(r.proc),
            "def f(n: size, x: f32[n] @ DRAM):\n"
            "    s: f32[n] @ DRAM\n"
            "    with Launch():\n"
            "        for i in threads(0, n, unit=warp):\n"
            "            x[i] = 0.0");
  // The loop's cursor follows it into the `with`.
  Location loop = r.forwarding(stmt({1}));
  EXPECT_EQ(cursors::resolve_stmt(r.proc, loop.path)->kind, StmtKind::For);
  // unwrap_with gives back the loop, at its place.
  auto back = unwrap_with(r.proc, stmt({1}));
  EXPECT_EQ(cursors::resolve_stmt(back.proc, stmt({1}).path)->kind,
            StmtKind::For);
  EXPECT_EQ(back.forwarding(loop).path, stmt({1}).path);
}

TEST(GpuPrimitives, WrapWithRefusesHidingADeclarationUsedLater) {
  Kernel k;
  Proc p = k.make();
  // Wrapping only the allocation would hide `s`... which the loop does not
  // use, so it is allowed; the loop uses `x`, a parameter.
  EXPECT_NO_THROW(wrap_with(p, stmt({0}), std::make_shared<const Ctx>()));
  Sym y("y");
  Proc q = proc("g", {arg(k.n, kSize), arg(k.x, tensor({sz(k.n)}))},
                {alloc(y, tensor({sz(k.n)})),
                 loop(k.i, lit(0), sz(k.n),
                      {assign(k.x, {v(k.i)}, data(y, {v(k.i)}), 3)})});
  EXPECT_NE(refusal([&] {
              wrap_with(q, stmt({0}), std::make_shared<const Ctx>());
            }).find("cannot wrap the declaration of y"),
            std::string::npos);
}

TEST(GpuPrimitives, FencesAndDimensionAnnotations) {
  Kernel k;
  Proc p = k.make();
  auto in_order = std::make_shared<const Timeline>("cuda_in_order");
  auto r =
      insert_fence(p, Location::gap(stmt({1}).path, cursors::GapSide::Before),
                   in_order, in_order);
  EXPECT_EQ(print_stmt(cursors::resolve_stmt(r.proc, stmt({1}).path)),
            "Fence(cuda_in_order, cuda_in_order)");
  auto d =
      set_dim_annotation(r.proc, stmt({0}), 0, std::make_shared<const Ring>());
  EXPECT_EQ(print_stmt(cursors::resolve_stmt(d.proc, stmt({0}).path)),
            "s: f32[n @ ring(2)] @ DRAM");
  EXPECT_NE(refusal([&] {
              set_dim_annotation(r.proc, stmt({0}), 1, nullptr);
            }).find("there is no dimension 1"),
            std::string::npos);
  auto gone = delete_sync(d.proc, stmt({1}));
  EXPECT_EQ(cursors::resolve_stmt(gone.proc, stmt({1}).path)->kind,
            StmtKind::For);
}

TEST(GpuPrimitives, BindWindowRoutesTheBlockThroughAWholeBufferWindow) {
  Kernel k;
  Proc p = k.make();
  auto r =
      bind_window(p, stmt({1}), win(k.x, {iv(lit(0), sz(k.n))}), "xw", nullptr);
  EXPECT_EQ(print_proc(r.proc),
            "def f(n: size, x: f32[n] @ DRAM):\n"
            "    s: f32[n] @ DRAM\n"
            "    xw = x[0:n]\n"
            "    for i in seq(0, n):\n"
            "        xw[i] = 0.0");
  // The loop moved down by one; its cursor follows.
  EXPECT_EQ(r.forwarding(stmt({1})).path, stmt({2}).path);
  // Part of the buffer would shift indices: refused.
  EXPECT_NE(refusal([&] {
              bind_window(p, stmt({1}), win(k.x, {iv(lit(1), sz(k.n))}), "xw",
                          nullptr);
            }).find("not the whole extent 0:n of x"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              bind_window(p, stmt({1}), win(k.x, {iv(lit(0), sz(k.n))}), "s",
                          nullptr);
            }).find("the name s is taken"),
            std::string::npos);
}

}  // namespace
}  // namespace exo2::primitives
