// The sub-procedure and configuration primitives
// (docs/primitives-subprocs-configs.md) and the analyses behind them (config
// liveness, NoAlias): printed results, refusals with their messages,
// forwarding.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "exo2/analysis/aliasing.hpp"
#include "exo2/analysis/config_liveness.hpp"
#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/forwarding.hpp"
#include "exo2/primitives/add_unsafe_guard.hpp"
#include "exo2/primitives/bind_config.hpp"
#include "exo2/primitives/call_eqv.hpp"
#include "exo2/primitives/delete_config.hpp"
#include "exo2/primitives/extract_subproc.hpp"
#include "exo2/primitives/inline_call.hpp"
#include "exo2/primitives/write_config.hpp"
#include "typed_ir_builders.hpp"

namespace exo2::primitives {
namespace {

using namespace test_ir;
using cursors::GapSide;
using cursors::Path;
using cursors::Slot;
using cursors::Step;
using CLoc = cursors::Location;

Path top(int k) { return {Step{Slot::Body, k}}; }
Path with(Path p, Step s) {
  p.push_back(s);
  return p;
}
CLoc node(Path p) { return CLoc::node(std::move(p)); }
CLoc block(Path first, int size) {
  int hi = first.back().index + size;
  return CLoc::block(std::move(first), hi);
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

const ConfigPtr& cfg() {
  static const ConfigPtr c = std::make_shared<Config>(
      "Cfg",
      std::vector<std::pair<std::string, Type>>{{"f", kF32}, {"g", kF32}},
      true);
  return c;
}
Location field(const std::string& name) { return Location{Sym(), cfg(), name}; }
Stmt write_f(Expr rhs, int line, const std::string& name = "f") {
  return make_write_config(cfg(), name, std::move(rhs), at(line));
}
Expr read_f(const std::string& name = "f") {
  return make_read_config(cfg(), name, at(9), kF32);
}

struct Kernel {
  Sym n{"n"}, x{"x"}, y{"y"}, i{"i"};
  Proc make(Block body, std::string name = "k") const {
    return proc(
        std::move(name),
        {arg(n, kSize), arg(x, tensor({sz(n)})), arg(y, tensor({sz(n)}))},
        std::move(body));
  }
};

// ---- config liveness --------------------------------------------------------

TEST(ConfigLiveness, AReadBeforeAnOverwriteObservesTheValue) {
  Kernel k;
  Proc p = k.make({write_f(real(1.0), 2), assign(k.x, {lit(0)}, read_f(), 3)});
  FieldAfter a = config_field_after(p, Path{{Slot::Body, 0}}, 1, field("f"));
  EXPECT_EQ(a.fate, FieldAfter::Fate::Read);
  EXPECT_EQ(a.read_at.line, 9);
}

TEST(ConfigLiveness, AnOverwriteInBothBranchesHidesTheValue) {
  Kernel k;
  Proc p = k.make({write_f(real(1.0), 2),
                   cond(lt(lit(0), sz(k.n)), {write_f(real(2.0), 4)},
                        {write_f(real(3.0), 5)}),
                   assign(k.x, {lit(0)}, read_f(), 6)});
  EXPECT_EQ(config_field_after(p, Path{{Slot::Body, 0}}, 1, field("f")).fate,
            FieldAfter::Fate::Overwritten);
  // One branch only: the read may see the value.
  Proc q = k.make({write_f(real(1.0), 2),
                   cond(lt(lit(0), sz(k.n)), {write_f(real(2.0), 4)}),
                   assign(k.x, {lit(0)}, read_f(), 6)});
  EXPECT_EQ(config_field_after(q, Path{{Slot::Body, 0}}, 1, field("f")).fate,
            FieldAfter::Fate::Read);
}

TEST(ConfigLiveness, LaterIterationsReadEarlierStatementsOfTheBody) {
  Kernel k;
  Proc p = k.make(
      {loop(k.i, lit(0), sz(k.n),
            {assign(k.x, {v(k.i)}, read_f(), 3), write_f(real(1.0), 4)})});
  const Path w = Path{{Slot::Body, 0}, {Slot::Body, 1}};
  EXPECT_EQ(config_field_after(p, w, 1, field("f")).fate,
            FieldAfter::Fate::Read);
  // Another field survives to the end.
  Proc q = k.make(
      {loop(k.i, lit(0), sz(k.n),
            {assign(k.x, {v(k.i)}, read_f("g"), 3), write_f(real(1.0), 4)})});
  EXPECT_EQ(config_field_after(q, w, 1, field("f")).fate,
            FieldAfter::Fate::VisibleAtEnd);
}

TEST(ConfigLiveness, ALoopOverwritesOnlyWhenItRuns) {
  Kernel k;
  auto make = [&](Expr hi) {
    return k.make({write_f(real(1.0), 2),
                   loop(k.i, lit(0), hi, {write_f(real(2.0), 4)}),
                   assign(k.x, {lit(0)}, read_f(), 5)});
  };
  EXPECT_EQ(
      config_field_after(make(lit(4)), Path{{Slot::Body, 0}}, 1, field("f"))
          .fate,
      FieldAfter::Fate::Overwritten);
  // `n` is a size, hence positive.
  EXPECT_EQ(
      config_field_after(make(sz(k.n)), Path{{Slot::Body, 0}}, 1, field("f"))
          .fate,
      FieldAfter::Fate::Overwritten);
  EXPECT_EQ(
      config_field_after(make(lit(0)), Path{{Slot::Body, 0}}, 1, field("f"))
          .fate,
      FieldAfter::Fate::Read);
}

TEST(ConfigLiveness, InvisibilityNeedsOnlyConfigWrites) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 2), write_f(real(1.0), 3)});
  ConfigInvisibility data = check_config_invisible(p, Path{{Slot::Body, 0}}, 1);
  ASSERT_TRUE(data.data_write.has_value());
  EXPECT_EQ(data.data_write->text, "x[0]");
  ConfigInvisibility ok = check_config_invisible(p, Path{{Slot::Body, 1}}, 1);
  EXPECT_TRUE(ok.proven());
  ASSERT_EQ(ok.visible_fields.size(), 1u);
  EXPECT_EQ(config_field_name(ok.visible_fields[0]), "Cfg_f");
}

// ---- NoAlias ----------------------------------------------------------------

Proc two_buffers_callee() {
  Sym a("a"), b("b");
  return proc("g", {arg(a, tensor({lit(4)})), arg(b, tensor({lit(4)}))},
              {assign(a, {lit(0)}, data(b, {lit(1)}), 2)});
}

TEST(NoAlias, FindsABufferPassedTwiceThroughAWindow) {
  Sym x("x"), w("w");
  Proc g = two_buffers_callee();
  Proc p = proc("k", {arg(x, tensor({lit(8)}))},
                {make_window_stmt(w, win(x, {iv(lit(0), lit(4))}), at(2)),
                 make_call(g, {data(x, {}), data(w, {})}, at(3))});
  auto found = find_aliased_call(p);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->message(),
            "Cannot Pass the same buffer 'x' via multiple arguments in call "
            "to g, since doing so would introduce aliased arguments.  Please "
            "contact the Exo developers if you need support for aliased "
            "arguments.");
  EXPECT_EQ(refusal([&] { extract_subproc(p, block(top(0), 1), "s", true); }),
            found->message());
}

// ---- extract_subproc / inline
// -------------------------------------------------

TEST(ExtractSubproc, PassesWhatTheBlockUsesAndTheContextAsAssertions) {
  Kernel k;
  Sym t("t");
  Proc p = k.make({loop(k.i, lit(0), sz(k.n),
                        {alloc(t, tensor({lit(2)}), 3),
                         assign(t, {lit(0)}, data(k.x, {v(k.i)}), 4),
                         assign(k.y, {v(k.i)}, data(t, {lit(0)}), 5)})});
  ExtractedSubproc r =
      extract_subproc(p, block(with(top(0), {Slot::Body, 2}), 1), "s", true);
  EXPECT_EQ(print_proc(r.subproc),
            "def s(n: size, y: f32[n] @ DRAM, i: index, t: f32[2] @ DRAM):\n"
            "    assert 0 <= i\n"
            "    assert i < n\n"
            "    y[i] = t[0]");
  EXPECT_EQ(body_of(r.edit.proc),
            "    for i in seq(0, n):\n"
            "        t: f32[2] @ DRAM\n"
            "        t[0] = x[i]\n"
            "        s(n, y, i, t)\n");
  EXPECT_EQ(r.edit.forwarding(block(with(top(0), {Slot::Body, 2}), 1)),
            block(with(top(0), {Slot::Body, 2}), 1));
  // Inlining it back gives the original code.
  Proc back =
      inline_call(r.edit.proc, node(with(top(0), {Slot::Body, 2}))).proc;
  EXPECT_EQ(body_of(back), body_of(p));
}

TEST(ExtractSubproc, RefusesToHideAnAllocationUsedAfterTheBlock) {
  Kernel k;
  Sym t("t");
  Proc p = k.make({alloc(t, kF32, 2), assign(t, {}, real(1.0), 3),
                   assign(k.x, {lit(0)}, data(t, {}), 4)});
  EXPECT_EQ(refusal([&] { extract_subproc(p, block(top(0), 2), "s", true); }),
            "Cannot extract the block at k.py:2:4: t is used after it");
}

TEST(Inline, WindowArgumentsBecomeWindowStatements) {
  Kernel k;
  Sym a("a"), m("m"), j("j");
  Proc g = proc("g", {arg(m, kSize), arg(a, window_type({sz(m)}))},
                {loop(j, lit(0), sz(m), {reduce(a, {v(j)}, real(1.0), 3)})});
  Proc p =
      k.make({make_call(g, {lit(4), win(k.x, {iv(lit(0), lit(4))})}, at(2))});
  cursors::EditResult r = inline_call(p, node(top(0)));
  EXPECT_EQ(body_of(r.proc),
            "    a = x[0:4]\n"
            "    for j in seq(0, 4):\n"
            "        a[j] += 1.0\n");
  EXPECT_THROW(r.forwarding(node(top(0))), cursors::InvalidCursorError);
}

// ---- call_eqv ---------------------------------------------------------------

TEST(CallEqv, RefusesProceduresNotRecordedEquivalent) {
  Kernel k;
  Proc g = two_buffers_callee();
  Proc p = k.make({make_call(g, {data(k.x, {}), data(k.y, {})}, at(2))});
  EXPECT_EQ(refusal([&] { call_eqv(p, node(top(0)), g, false, {}); }),
            "k.py:2:4: Cannot swap call because the two procedures are not "
            "equivalent");
  CallSwapResult ok = call_eqv(p, node(top(0)), g, true, {});
  EXPECT_EQ(ok.edit.forwarding(node(top(0))), node(top(0)));
}

TEST(CallEqv, AFieldOfTheModuloSetMayNotBeReadLater) {
  Kernel k;
  Proc g = two_buffers_callee();
  Proc p = k.make({make_call(g, {data(k.x, {}), data(k.y, {})}, at(2)),
                   assign(k.x, {lit(0)}, read_f(), 3)});
  EXPECT_EQ(refusal([&] { call_eqv(p, node(top(0)), g, true, {field("f")}); }),
            "Cannot rewrite at k.py:2:4 because the configuration field Cfg_f "
            "might be read subsequently");
  CallSwapResult r = call_eqv(p, node(top(0)), g, true, {field("g")});
  ASSERT_EQ(r.visible_fields.size(), 1u);
  EXPECT_EQ(r.visible_fields[0].field, "g");
}

// ---- config primitives ------------------------------------------------------

TEST(ConfigPrimitives, WriteBindAndDelete) {
  Kernel k;
  Sym a("a");
  Proc p = proc("k", {arg(a, kF32), arg(k.x, tensor({lit(4)}))},
                {assign(k.x, {lit(0)}, data(a, {}), 2)});
  ConfigEditResult bound =
      bind_config(p, node(with(top(0), {Slot::Rhs, 0})), cfg(), "f");
  EXPECT_EQ(body_of(bound.edit.proc),
            "    Cfg.f = a\n"
            "    x[0] = Cfg.f\n");
  EXPECT_EQ(bound.edit.forwarding(node(top(0))), node(top(1)));
  ASSERT_EQ(bound.visible_fields.size(), 1u);

  ConfigEditResult written =
      write_config(bound.edit.proc, CLoc::gap(top(1), GapSide::After), cfg(),
                   "f", real(2.0));
  EXPECT_EQ(body_of(written.edit.proc),
            "    Cfg.f = a\n"
            "    x[0] = Cfg.f\n"
            "    Cfg.f = 2.0\n");
  // Writing before the read is visible.
  EXPECT_EQ(refusal([&] {
              write_config(bound.edit.proc, CLoc::gap(top(1), GapSide::Before),
                           cfg(), "f", real(2.0));
            }),
            "Cannot change configuration value of Cfg_f at k.py:2:4; the new "
            "(and different) values might be read later in this procedure");
  EXPECT_THROW(write_config(bound.edit.proc, CLoc::gap(top(1), GapSide::After),
                            cfg(), "f", truth(true)),
               ConfigTypeError);

  ConfigEditResult deleted = delete_config(written.edit.proc, node(top(2)));
  EXPECT_EQ(body_of(deleted.edit.proc), body_of(bound.edit.proc));
  EXPECT_EQ(refusal([&] { delete_config(written.edit.proc, node(top(1))); }),
            "Cannot delete or insert statements at k.py:2:4 because they may "
            "modify non-configuration data");
}

TEST(AddUnsafeGuard, WrapsTheFirstStatementUnchecked) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 2),
                   assign(k.y, {lit(0)}, real(2.0), 3)});
  Proc r = add_unsafe_guard(p, block(top(0), 2), lt(lit(4), sz(k.n)));
  EXPECT_EQ(body_of(r),
            "    if 4 < n:\n"
            "        x[0] = 1.0\n"
            "    y[0] = 2.0\n");
}

}  // namespace
}  // namespace exo2::primitives
