// Effects of statements: locations, indices in buffer coordinates, loops,
// guards and reported locations, through windows, callees and configs.
#include "exo2/analysis/effects.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "exo2/core_ir/printer.hpp"
#include "typed_ir_builders.hpp"

namespace exo2 {
namespace {

using namespace test_ir;

// `kind text @line:col [loops] {guards}` for each access, e.g.
// `written x[i] @3:4 [i] {}`.
std::vector<std::string> describe(const std::vector<Access>& effects) {
  std::vector<std::string> out;
  for (const Access& a : effects) {
    std::string s = std::string(access_kind_participle(a.kind)) + " " + a.text +
                    " @" + std::to_string(a.srcinfo.line) + ":" +
                    std::to_string(a.srcinfo.col) + " [";
    for (size_t k = 0; k < a.loops.size(); ++k)
      s += (k ? ", " : "") + a.loops[k].iter.name() + " in " +
           print_expr(a.loops[k].lo) + ".." + print_expr(a.loops[k].hi);
    s += "] {";
    for (size_t k = 0; k < a.guards.size(); ++k)
      s += (k ? ", " : "") + std::string(a.guards[k].holds ? "" : "not ") +
           print_expr(a.guards[k].cond);
    out.push_back(s + "}");
  }
  return out;
}

using Lines = std::vector<std::string>;

TEST(Effects, AssignmentReadsThenWrites) {
  Sym n("n"), x("x"), y("y"), i("i");
  Stmt s = loop(
      i, lit(0), sz(n),
      {assign(x, {v(i)},
              fmul(real(2.0), data(y, {add(v(i), lit(1))}, at(3, 12))), 3)});
  EXPECT_EQ(describe(effects_of(s)),
            (Lines{"read y[i + 1] @3:12 [i in 0..n] {}",
                   "written x[i] @3:4 [i in 0..n] {}"}));
}

TEST(Effects, ReductionIsItsOwnKind) {
  Sym x("x"), a("a");
  EXPECT_EQ(describe(effects_of(reduce(x, {}, data(a, {lit(2)}, at(4, 9)), 4))),
            (Lines{"read a[2] @4:9 [] {}", "reduced x @4:4 [] {}"}));
}

TEST(Effects, GuardsOfBothBranches) {
  Sym n("n"), x("x"), i("i");
  Stmt s = loop(i, lit(0), sz(n),
                {cond(lt(v(i), lit(4)), {assign(x, {v(i)}, real(1.0), 4)},
                      {assign(x, {lit(0)}, real(2.0), 6)}, 3)});
  EXPECT_EQ(describe(effects_of(s)),
            (Lines{"written x[i] @4:4 [i in 0..n] {i < 4}",
                   "written x[0] @6:4 [i in 0..n] {not i < 4}"}));
}

TEST(Effects, WindowStatementResolvesToTheBufferWithOffsets) {
  Sym x("x"), w("w"), w2("w2"), i("i"), j("j");
  Block b = {
      make_window_stmt(w, win(x, {pt(v(i)), iv(lit(2), lit(10))}), at(3)),
      make_window_stmt(w2, win(w, {iv(lit(1), lit(5))}), at(4)),
      assign(w, {v(j)}, data(w2, {v(j)}, at(5, 12)), 5)};
  EXPECT_EQ(describe(effects_of(b)), (Lines{"read x[i, 2 + 1 + j] @5:12 [] {}",
                                            "written x[i, 2 + j] @5:4 [] {}"}));
}

TEST(Effects, WindowsInScopeComeFromTheEnvironment) {
  Sym x("x"), w("w"), j("j");
  WindowEnv env;
  env[w] = resolve_window(win(x, {iv(lit(4), lit(8))})->as<WindowExpr>(), {});
  EXPECT_EQ(describe(effects_of(assign(w, {v(j)}, real(0.0), 3), env)),
            (Lines{"written x[4 + j] @3:4 [] {}"}));
}

TEST(Effects, CallsGoThroughTheCalleeBodyWithArgumentsSubstituted) {
  Sym m("m"), y("y"), k("k");
  Proc callee =
      proc("zero", {arg(m, kSize), arg(y, window_type({sz(m)}))},
           {loop(k, lit(0), sz(m), {assign(y, {v(k)}, real(0.0), 20)}, 19)});
  Sym n("n"), x("x"), i("i");
  Stmt call = make_call(
      callee,
      {lit(4), win(x, {pt(v(i)), iv(add(v(i), lit(1)), add(v(i), lit(5)))})},
      at(7, 8));
  Stmt s = loop(i, lit(0), sz(n), {call});
  EXPECT_EQ(describe(effects_of(s)),
            (Lines{"written x[i, i + 1 + k] @7:8 [i in 0..n, k in 0..4] {}"}));
}

TEST(Effects, ScalarArgumentIsOneElement) {
  Sym r("r"), x("x"), i("i");
  Proc callee = proc("inc", {arg(r, kF32)}, {reduce(r, {}, real(1.0), 20)});
  Stmt call = make_call(callee, {data(x, {v(i)})}, at(7, 4));
  EXPECT_EQ(describe(effects_of(call)), (Lines{"reduced x[i] @7:4 [] {}"}));
}

TEST(Effects, ConfigsAreGlobalLocations) {
  auto cfg =
      std::make_shared<const Config>("Cfg",
                                     std::vector<std::pair<std::string, Type>>{
                                         {"off", kIndex}, {"scale", kF32}},
                                     true);
  Sym x("x");
  Block b = {
      make_write_config(cfg, "scale", data(x, {lit(0)}, at(3, 16)), at(3)),
      assign(x, {make_read_config(cfg, "off", at(4, 6), kIndex)},
             make_read_config(cfg, "scale", at(4, 20), kF32), 4)};
  EXPECT_EQ(describe(effects_of(b)),
            (Lines{"read x[0] @3:16 [] {}", "written Cfg.scale @3:4 [] {}",
                   "read Cfg.off @4:6 [] {}", "read Cfg.scale @4:20 [] {}",
                   "written x[Cfg.off] @4:4 [] {}"}));
  const std::vector<Access> effects = effects_of(b);
  EXPECT_TRUE(effects[1].location.same_as(effects[3].location));
  EXPECT_FALSE(effects[1].location.same_as(effects[2].location));
}

TEST(Effects, ConfigReadsInIndicesTakeTheValuesWritten) {
  auto cfg = std::make_shared<const Config>(
      "Cfg", std::vector<std::pair<std::string, Type>>{{"n", kIndex}}, true);
  auto n = [&] { return make_read_config(cfg, "n", at(0), kIndex); };
  Sym x("x"), i("i");
  Block b = {assign(x, {n()}, real(1.0), 2),
             make_write_config(cfg, "n", add(n(), lit(3)), at(3)),
             assign(x, {n()}, real(1.0), 4),
             loop(i, lit(0), lit(4),
                  {make_write_config(cfg, "n", v(i), at(6)),
                   assign(x, {n()}, real(1.0), 7)},
                  5),
             assign(x, {n()}, real(1.0), 8)};
  const std::vector<Access> effects = effects_of(b);
  std::vector<std::string> writes;
  for (const Access& a : effects)
    if (!a.location.is_config() && a.modifies()) writes.push_back(a.text);
  // Before any write, the read itself; then the value written; after a
  // loop that writes the field, an unknown value.
  EXPECT_EQ(writes, (Lines{"x[Cfg.n]", "x[Cfg.n + 3]", "x[i]", "x[Cfg.n]"}));
  EXPECT_TRUE(effects.back().unknowns.size() == 1);
  EXPECT_TRUE(effects[0].unknowns.empty());
}

TEST(Effects, FieldsUnknownAtTheStartOfALoopBody) {
  auto cfg = std::make_shared<const Config>(
      "Cfg", std::vector<std::pair<std::string, Type>>{{"n", kIndex}}, true);
  Sym x("x");
  Block b = {
      assign(x, {make_read_config(cfg, "n", at(0), kIndex)}, real(1.0), 3)};
  const Location field{Sym(), cfg, "n"};
  EXPECT_TRUE(effects_of(b).back().unknowns.empty());
  EXPECT_EQ(effects_of(b, {}, {field}).back().unknowns.size(), 1u);
}

TEST(Effects, CalleePreconditionsReadConfigAtTheCall) {
  auto cfg = std::make_shared<const Config>(
      "Cfg", std::vector<std::pair<std::string, Type>>{{"n", kIndex}}, true);
  Sym y("y"), x("x");
  Proc callee = proc(
      "g", {arg(y, tensor({lit(4)}))}, {assign(y, {lit(0)}, real(1.0), 20)},
      {eq(make_read_config(cfg, "n", at(19, 11), kIndex), lit(0))});
  Stmt call = make_call(callee, {v(x, tensor({lit(4)}))}, at(7, 4));
  EXPECT_EQ(describe(effects_of(call)),
            (Lines{"read Cfg.n @7:4 [] {}", "written x[0] @7:4 [] {}"}));
}

// A scalar parameter passed a config field (by reference) is the field:
// the callee's reads and writes of it are the field's.
TEST(Effects, ConfigFieldPassedToAScalarIsAccessedThroughIt) {
  auto cfg = std::make_shared<const Config>(
      "Cfg", std::vector<std::pair<std::string, Type>>{{"scale", kF32}}, true);
  Sym r("r"), s("s");
  Proc inner = proc("inc", {arg(s, kF32)}, {reduce(s, {}, real(1.0), 30)});
  Proc outer =
      proc("twice", {arg(r, kF32)},
           {assign(r, {}, fmul(data(r, {}, at(20, 12)), real(2.0)), 20),
            make_call(inner, {data(r, {})}, at(21))});
  Stmt call = make_call(
      outer, {make_read_config(cfg, "scale", at(7, 10), kF32)}, at(7, 4));
  EXPECT_EQ(describe(effects_of(call)),
            (Lines{"read Cfg.scale @7:4 [] {}", "written Cfg.scale @7:4 [] {}",
                   "reduced Cfg.scale @7:4 [] {}"}));
}

TEST(Effects, LocalAllocationsAreLeftOut) {
  Sym t("t"), x("x");
  Block b = {alloc(t, tensor({lit(4)})), assign(t, {lit(0)}, real(1.0), 3),
             assign(x, {lit(0)}, data(t, {lit(0)}), 4)};
  EXPECT_EQ(describe(effects_of(b)), (Lines{"written x[0] @4:4 [] {}"}));
}

TEST(Effects, LoopBoundsOfCalleesAreSubstituted) {
  Sym m("m"), y("y"), k("k");
  Proc callee =
      proc("g", {arg(m, kSize), arg(y, tensor({sz(m)}))},
           {loop(k, lit(0), sub(sz(m), lit(1)),
                 {assign(y, {v(k)}, data(y, {add(v(k), lit(1))}), 20)})});
  Sym n("n"), x("x");
  Stmt call = make_call(
      callee, {sz(n), make_read(x, {}, at(5), tensor({sz(n)}))}, at(5, 4));
  EXPECT_EQ(describe(effects_of(call)),
            (Lines{"read x[k + 1] @5:4 [k in 0..n - 1] {}",
                   "written x[k] @5:4 [k in 0..n - 1] {}"}));
}

}  // namespace
}  // namespace exo2
