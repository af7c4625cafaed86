// Safety conditions of the primitives: each proven and refuted on small
// kernels, with the reported accesses and counterexamples.
#include "exo2/analysis/queries.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "typed_ir_builders.hpp"

namespace exo2 {
namespace {

using namespace test_ir;
using cursors::Path;
using cursors::Slot;

// A kernel `f(n: size, x: f32[n], y: f32[n])` whose body is `body`.
struct Kernel {
  Sym n{"n"}, x{"x"}, y{"y"};
  Proc make(Block body, std::vector<Expr> preds = {}) const {
    return proc(
        "f", {arg(n, kSize), arg(x, tensor({sz(n)})), arg(y, tensor({sz(n)}))},
        std::move(body), std::move(preds));
  }
};

Path top(int index) { return Path{{Slot::Body, index}}; }

// ---- Commute ----------------------------------------------------------------

TEST(QueriesCommute, DisjointBuffersCommute) {
  Kernel k;
  Block b = {assign(k.x, {lit(0)}, real(1.0), 3),
             assign(k.y, {lit(0)}, data(k.y, {lit(1)}), 4)};
  QueryContext ctx(k.make(b), top(0));
  EXPECT_TRUE(prove_commutes(ctx, {b[0]}, {b[1]}).proven());
}

TEST(QueriesCommute, WriteThenReadOfTheSameElementConflicts) {
  Kernel k;
  Block b = {assign(k.x, {lit(0)}, real(1.0), 14, 4),
             assign(k.y, {lit(0)}, data(k.x, {lit(0)}, at(15, 12)), 15)};
  QueryContext ctx(k.make(b), top(0));
  SafetyResult r = prove_commutes(ctx, {b[0]}, {b[1]});
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail,
            "x[0] written at k.py:14:4 conflicts with x[0] read at k.py:15:12 "
            "when n = 1");
  ASSERT_TRUE(r.first && r.second);
  EXPECT_EQ(r.first->location, "x");
  EXPECT_EQ(r.second->text, "x[0]");
  EXPECT_EQ(r.second->kind, AccessKind::Read);
}

TEST(QueriesCommute, DifferentElementsOfOneBufferCommute) {
  Kernel k;
  Sym i("i");
  Block inner = {assign(k.x, {v(i)}, real(1.0), 4),
                 assign(k.y, {v(i)}, data(k.x, {add(v(i), lit(1))}), 5)};
  Proc p = k.make({loop(i, lit(0), sub(sz(k.n), lit(1)), inner)});
  QueryContext ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  EXPECT_TRUE(prove_commutes(ctx, {inner[0]}, {inner[1]}).proven());
}

TEST(QueriesCommute, LoopsConflictWithCounterexample) {
  Kernel k;
  Sym i("i"), j("j");
  Block b = {
      loop(i, lit(0), sz(k.n), {assign(k.x, {v(i)}, real(1.0), 3)}, 2),
      loop(j, lit(1), sz(k.n),
           {assign(k.y, {v(j)}, data(k.x, {sub(v(j), lit(1))}, at(5, 16)), 5)},
           4)};
  QueryContext ctx(k.make(b), top(0));
  SafetyResult r = prove_commutes(ctx, {b[0]}, {b[1]});
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(r.detail.find("x[i] written at k.py:3:4 conflicts with x[j - 1] "
                          "read at k.py:5:16 when n = "),
            std::string::npos)
      << r.detail;
  EXPECT_NE(r.counterexample.find("i = "), std::string::npos);
  EXPECT_NE(r.counterexample.find("j' = "), std::string::npos);
}

TEST(QueriesCommute, ReductionsCommuteWithReductionsOnly) {
  Kernel k;
  Block b = {reduce(k.x, {lit(0)}, real(1.0), 3),
             reduce(k.x, {lit(0)}, real(2.0), 4),
             assign(k.y, {lit(0)}, data(k.x, {lit(0)}), 5)};
  QueryContext ctx(k.make(b), top(0));
  EXPECT_TRUE(prove_commutes(ctx, {b[0]}, {b[1]}).proven());
  EXPECT_TRUE(prove_commutes(ctx, {b[1]}, {b[2]}).refuted());
}

TEST(QueriesCommute, ExclusiveGuardsCommute) {
  Kernel k;
  Sym i("i");
  Block inner = {cond(lt(v(i), lit(4)), {assign(k.x, {lit(0)}, real(1.0), 4)}),
                 cond(cmp(BinOpKind::Ge, v(i), lit(4)),
                      {assign(k.y, {lit(0)}, data(k.x, {lit(0)}), 6)})};
  Proc p = k.make({loop(i, lit(0), sz(k.n), inner)});
  QueryContext ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  // Each iteration runs only one of them.
  EXPECT_TRUE(prove_commutes(ctx, {inner[0]}, {inner[1]}).proven());
}

TEST(QueriesCommute, ContextFactsDecide) {
  // Inside `if i == 0`, x[i] and x[1] are different elements.
  Kernel k;
  Sym i("i");
  Block inner = {assign(k.x, {v(i)}, real(1.0), 4),
                 assign(k.y, {lit(0)}, data(k.x, {lit(1)}), 5)};
  Proc p = k.make({loop(i, lit(0), sz(k.n), {cond(eq(v(i), lit(0)), inner)})});
  QueryContext inside(p,
                      Path{{Slot::Body, 0}, {Slot::Body, 0}, {Slot::Body, 0}});
  EXPECT_TRUE(prove_commutes(inside, {inner[0]}, {inner[1]}).proven());
  QueryContext outside(p, top(0));
  EXPECT_TRUE(prove_commutes(outside, {inner[0]}, {inner[1]}).refuted());
}

TEST(QueriesCommute, AllocationCannotPassAUse) {
  Kernel k;
  Sym t("t");
  Block b = {alloc(t, tensor({lit(4)}), 3), assign(t, {lit(0)}, real(1.0), 4)};
  QueryContext ctx(k.make(b), top(0));
  SafetyResult r = prove_commutes(ctx, {b[0]}, {b[1]});
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail,
            "t is allocated at k.py:3:4 and t[0] written at k.py:4:4");
}

TEST(QueriesCommute, ConfigWriteAndReadConflict) {
  auto cfg = std::make_shared<const Config>(
      "Cfg",
      std::vector<std::pair<std::string, Type>>{{"s", kF32}, {"t", kF32}},
      true);
  Kernel k;
  Block b = {
      make_write_config(cfg, "s", real(1.0), at(3)),
      assign(k.x, {lit(0)}, make_read_config(cfg, "s", at(4, 11), kF32), 4),
      assign(k.x, {lit(1)}, make_read_config(cfg, "t", at(5, 11), kF32), 5)};
  QueryContext ctx(k.make(b), top(0));
  SafetyResult r = prove_commutes(ctx, {b[0]}, {b[1]});
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail,
            "Cfg.s written at k.py:3:4 conflicts with Cfg.s read at k.py:4:11 "
            "when n = 1");
  EXPECT_TRUE(prove_commutes(ctx, {b[0]}, {b[2]}).proven());
}

TEST(QueriesCommute, ThroughWindowsAndCalls) {
  Sym m("m"), w("w"), kk("k");
  Proc zero =
      proc("zero", {arg(m, kSize), arg(w, window_type({sz(m)}))},
           {loop(kk, lit(0), sz(m), {assign(w, {v(kk)}, real(0.0), 20)})});
  Kernel k;
  Sym a("a");
  // zero(4, x[0:4]) then y[0] = x[a] with a window statement in between.
  Stmt call = make_call(zero, {lit(4), win(k.x, {iv(lit(0), lit(4))})}, at(3));
  Block b = {call, make_window_stmt(a, win(k.x, {iv(lit(4), sz(k.n))}), at(4)),
             assign(k.y, {lit(0)}, data(a, {lit(0)}, at(5, 12)), 5),
             assign(k.y, {lit(1)}, data(k.x, {lit(3)}, at(6, 12)), 6)};
  Proc p = k.make(b, {cmp(BinOpKind::Gt, sz(k.n), lit(8))});
  QueryContext ctx(p, top(2));
  // a[0] is x[4]: outside x[0:4].
  EXPECT_TRUE(prove_commutes(ctx, {b[0]}, {b[2]}).proven());
  SafetyResult r = prove_commutes(ctx, {b[0]}, {b[3]});
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail,
            "x[k] written at k.py:3:4 conflicts with x[3] read at k.py:6:12 "
            "when n = 9, k = 3");
}

// ---- Loops ------------------------------------------------------------------

TEST(QueriesReorderSafe, MatmulLoopsReorder) {
  Sym m("M"), c("C"), a("A"), b("B"), i("i"), j("j"), kk("k");
  Stmt inner = reduce(c, {v(i), v(j)},
                      fmul(data(a, {v(i), v(kk)}), data(b, {v(kk), v(j)})), 5);
  Stmt nest =
      loop(i, lit(0), sz(m),
           {loop(j, lit(0), sz(m), {loop(kk, lit(0), sz(m), {inner})})});
  Proc p =
      proc("mm",
           {arg(m, kSize), arg(c, tensor({sz(m), sz(m)})),
            arg(a, tensor({sz(m), sz(m)})), arg(b, tensor({sz(m), sz(m)}))},
           {nest});
  QueryContext ctx(p, top(0));
  EXPECT_TRUE(prove_reorder_safe(ctx, nest).proven());
  QueryContext inner_ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  EXPECT_TRUE(prove_reorder_safe(inner_ctx, nest->as<For>().body[0]).proven());
}

TEST(QueriesReorderSafe, WavefrontDependenceRefutes) {
  Sym n("n"), x("x"), i("i"), j("j");
  // x[i + 1, j] = x[i, j + 1]: (i, j) feeds (i + 1, j - 1).
  Stmt nest =
      loop(i, lit(0), sub(sz(n), lit(1)),
           {loop(j, lit(0), sub(sz(n), lit(1)),
                 {assign(x, {add(v(i), lit(1)), v(j)},
                         data(x, {v(i), add(v(j), lit(1))}, at(4, 20)), 4)})});
  Proc p =
      proc("wave", {arg(n, kSize), arg(x, tensor({sz(n), sz(n)}))}, {nest});
  QueryContext ctx(p, top(0));
  SafetyResult r = prove_reorder_safe(ctx, nest);
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.first->text, "x[i + 1, j]");
  EXPECT_EQ(r.second->text, "x[i, j + 1]");
}

TEST(QueriesFissionSafe, ProducerConsumerOfTheSameIterationSplits) {
  Kernel k;
  Sym i("i");
  Stmt l = loop(i, lit(1), sz(k.n),
                {assign(k.x, {v(i)}, real(1.0), 3),
                 assign(k.y, {v(i)}, data(k.x, {sub(v(i), lit(1))}), 4)});
  QueryContext ctx(k.make({l}), top(0));
  EXPECT_TRUE(prove_fission_safe(ctx, l, 1).proven());
}

TEST(QueriesFissionSafe, ReadOfALaterIterationRefutes) {
  Kernel k;
  Sym i("i");
  Stmt l =
      loop(i, lit(0), sub(sz(k.n), lit(1)),
           {assign(k.x, {v(i)}, real(1.0), 3),
            assign(k.y, {v(i)}, data(k.x, {add(v(i), lit(1))}, at(4, 12)), 4)});
  QueryContext ctx(k.make({l}), top(0));
  SafetyResult r = prove_fission_safe(ctx, l, 1);
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(r.detail.find("x[i] written at k.py:3:4 conflicts with x[i + 1] "
                          "read at k.py:4:12 when"),
            std::string::npos)
      << r.detail;
}

TEST(QueriesFissionSafe, ScalarTemporaryAcrossTheSplitRefutes) {
  Kernel k;
  Sym i("i"), s("s");
  Stmt l = loop(i, lit(0), sz(k.n),
                {assign(s, {}, data(k.x, {v(i)}), 3),
                 assign(k.y, {v(i)}, data(s, {}), 4)});
  Proc p = proc("f",
                {arg(k.n, kSize), arg(k.x, tensor({sz(k.n)})),
                 arg(k.y, tensor({sz(k.n)})), arg(s, kF32)},
                {l});
  QueryContext ctx(p, top(0));
  EXPECT_TRUE(prove_fission_safe(ctx, l, 1).refuted());
}

TEST(QueriesFusionSafe, ConsumerLoopFusesUnlessItReadsAhead) {
  Kernel k;
  Sym i("i"), j("j");
  Stmt produce = loop(i, lit(0), sz(k.n), {assign(k.x, {v(i)}, real(1.0), 3)});
  Stmt same =
      loop(j, lit(0), sz(k.n), {assign(k.y, {v(j)}, data(k.x, {v(j)}), 5)});
  Stmt ahead =
      loop(j, lit(0), sz(k.n),
           {assign(k.y, {v(j)}, data(k.x, {sub(sz(k.n), lit(1))}), 5)});
  // Every iteration stores into y[0] and the next overwrites it: only the
  // last store, after x[n - 1] is produced in both orders, remains.
  Stmt overwritten =
      loop(j, lit(0), sz(k.n),
           {assign(k.y, {lit(0)}, data(k.x, {sub(sz(k.n), lit(1))}), 5)});
  QueryContext ctx(k.make({produce, same}), top(0));
  EXPECT_TRUE(prove_fusion_safe(ctx, produce, same).proven());
  EXPECT_TRUE(prove_fusion_safe(ctx, produce, ahead).refuted());
  EXPECT_TRUE(prove_fusion_safe(ctx, produce, overwritten).proven());
}

TEST(QueriesParallelSafe, IndependentIterations) {
  Kernel k;
  Sym io("io"), ii("ii");
  // Tiled: x[4 * io + ii] over ii in [0, 4) never overlaps across io.
  Stmt l =
      loop(io, lit(0), div(sz(k.n), lit(4)),
           {loop(ii, lit(0), lit(4),
                 {assign(k.x, {add(mul(lit(4), v(io)), v(ii))},
                         data(k.y, {add(mul(lit(4), v(io)), v(ii))}), 4)})});
  QueryContext ctx(k.make({l}), top(0));
  EXPECT_TRUE(prove_parallel_safe(ctx, l).proven());
}

TEST(QueriesParallelSafe, ReductionIntoOneLocationRaces) {
  Kernel k;
  Sym i("i");
  Stmt l =
      loop(i, lit(0), sz(k.n), {reduce(k.x, {lit(0)}, data(k.y, {v(i)}), 3)});
  QueryContext ctx(k.make({l}), top(0));
  SafetyResult r = prove_parallel_safe(ctx, l);
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.first->kind, AccessKind::Reduce);
}

TEST(QueriesParallelSafe, ModuloIndexRaces) {
  Kernel k;
  Sym i("i");
  Stmt l = loop(i, lit(0), sz(k.n),
                {assign(k.x, {mod(v(i), lit(4))}, real(0.0), 3)});
  QueryContext ctx(k.make({l}, {cmp(BinOpKind::Gt, sz(k.n), lit(4))}), top(0));
  SafetyResult r = prove_parallel_safe(ctx, l);
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(r.counterexample.find("i' = "), std::string::npos);
}

TEST(QueriesParallelSafe, ConfigInLoopBoundWrittenByBodyRefutes) {
  auto cfg = std::make_shared<const Config>(
      "Cfg", std::vector<std::pair<std::string, Type>>{{"n", kIndex}}, true);
  Kernel k;
  Sym i("i");
  Stmt l = loop(i, lit(0), make_read_config(cfg, "n", at(2), kIndex),
                {make_write_config(cfg, "n", lit(3), at(3))});
  QueryContext ctx(k.make({l}), top(0));
  SafetyResult r = prove_parallel_safe(ctx, l);
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail,
            "the bounds of the loop over i read Cfg.n, which is written at "
            "k.py:3:4");
}

// ---- Config state
// -------------------------------------------------------------

std::shared_ptr<const Config> index_config() {
  return std::make_shared<const Config>(
      "Cfg", std::vector<std::pair<std::string, Type>>{{"n", kIndex}}, true);
}

Expr cfg_n(const std::shared_ptr<const Config>& cfg, SrcInfo s = at(0)) {
  return make_read_config(cfg, "n", s, kIndex);
}

TEST(QueriesConfigState, ContextKnowsTheValueJustWritten) {
  auto cfg = index_config();
  Kernel k;
  Proc p = k.make({make_write_config(cfg, "n", lit(3), at(3)),
                   assign(k.x, {lit(0)}, real(1.0), 4)});
  QueryContext ctx(p, top(1));
  EXPECT_TRUE(prove_equivalent(ctx, cfg_n(cfg), lit(3)).proven());
  QueryContext before(p, top(0));
  EXPECT_FALSE(prove_equivalent(before, cfg_n(cfg), lit(3)).proven());
}

TEST(QueriesConfigState, AConditionFactEndsWhereItsFieldIsWritten) {
  // if Cfg.n == 0: Cfg.n = 1; x[0] = 1.0  -- Cfg.n is 1 at the assignment.
  auto cfg = index_config();
  Kernel k;
  Proc p = k.make(
      {cond(eq(cfg_n(cfg), lit(0)), {make_write_config(cfg, "n", lit(1), at(4)),
                                     assign(k.x, {lit(0)}, real(1.0), 5)})});
  QueryContext ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 1}});
  EXPECT_EQ(decide(ctx, eq(cfg_n(cfg), lit(0))), Truth::AlwaysFalse);
  QueryContext head(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  EXPECT_EQ(decide(head, eq(cfg_n(cfg), lit(0))), Truth::AlwaysTrue);
}

TEST(QueriesConfigState, ALoopBodyForgetsTheFieldsItWrites) {
  auto cfg = index_config();
  Kernel k;
  Sym i("i");
  Proc p = k.make({make_write_config(cfg, "n", lit(0), at(2)),
                   loop(i, lit(0), sz(k.n),
                        {assign(k.x, {lit(0)}, real(1.0), 4),
                         make_write_config(cfg, "n", lit(1), at(5))},
                        3)});
  QueryContext ctx(p, Path{{Slot::Body, 1}, {Slot::Body, 0}});
  EXPECT_EQ(decide(ctx, eq(cfg_n(cfg), lit(0))), Truth::Unknown);
}

TEST(QueriesConfigState, AnIfLeavesTheValueOfTheBranchTaken) {
  auto cfg = index_config();
  Kernel k;
  Proc p = k.make(
      {cond(lt(sz(k.n), lit(4)), {make_write_config(cfg, "n", lit(1), at(3))},
            {make_write_config(cfg, "n", sz(k.n), at(5))}),
       assign(k.x, {lit(0)}, real(1.0), 6)});
  QueryContext ctx(p, top(1));
  // 1 when n < 4, n otherwise: never more than n, at least 1.
  EXPECT_TRUE(
      prove_compare(ctx, sub(sz(k.n), cfg_n(cfg)), BinOpKind::Ge, 0).proven());
  EXPECT_TRUE(prove_compare(ctx, cfg_n(cfg), BinOpKind::Ge, 1).proven());
  EXPECT_FALSE(prove_equivalent(ctx, cfg_n(cfg), lit(1)).proven());
}

TEST(QueriesConfigState, ReadsUnchangedNamesTheWriteAndTheRead) {
  auto cfg = index_config();
  Block code = {assign(Sym("x"), {lit(0)}, real(1.0), 3),
                make_write_config(cfg, "n", lit(1), at(4))};
  SafetyResult r = prove_config_reads_unchanged(
      {add(cfg_n(cfg, at(2, 20)), lit(1))}, code, "the bound reads");
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail, "the bound reads Cfg.n, which is written at k.py:4:4");
  ASSERT_TRUE(r.first && r.second);
  EXPECT_EQ(r.first->kind, AccessKind::Write);
  EXPECT_EQ(r.second->srcinfo.str(), "k.py:2:20");
  EXPECT_TRUE(
      prove_config_reads_unchanged({lit(1)}, code, "the bound reads").proven());
}

TEST(QueriesConfigState, FissionSeesIndicesEarlierIterationsChanged) {
  // for i: x[Cfg.n % 4] = 1; Cfg.n = Cfg.n + 1; y[i] = x[3], after
  // Cfg.n = 0: a later iteration of the first part writes x[3].
  auto cfg = index_config();
  Kernel k;
  Sym i("i");
  Stmt l = loop(i, lit(0), sz(k.n),
                {assign(k.x, {mod(cfg_n(cfg), lit(4))}, real(1.0), 4),
                 make_write_config(cfg, "n", add(cfg_n(cfg), lit(1)), at(5)),
                 assign(k.y, {v(i)}, data(k.x, {lit(3)}), 6)},
                3);
  Proc p = k.make({make_write_config(cfg, "n", lit(0), at(2)), l},
                  {lt(lit(4), sz(k.n))});
  QueryContext ctx(p, top(1));
  EXPECT_TRUE(prove_fission_safe(ctx, l, 2).refuted());
}

TEST(QueriesConfigState, FissionPastAFieldTheSecondPartWritesLast) {
  // for i: Cfg.n = 0; x[i] = 1; <second part>; y[i] = 2, split after
  // x[i] = 1. Nothing reads Cfg.n: the second part's write at the last
  // iteration is the last one in both orders, unless it is in an if, or
  // the field is read.
  auto cfg = index_config();
  Kernel k;
  Sym i("i");
  auto split = [&](Block second) {
    Block body = {make_write_config(cfg, "n", lit(0), at(3)),
                  assign(k.x, {v(i)}, real(1.0), 4)};
    body.insert(body.end(), second.begin(), second.end());
    body.push_back(assign(k.y, {v(i)}, real(2.0), 7));
    Stmt l = loop(i, lit(0), sz(k.n), body);
    QueryContext ctx(k.make({l}), top(0));
    return prove_fission_safe(ctx, l, 2);
  };
  EXPECT_TRUE(split({make_write_config(cfg, "n", lit(1), at(5))}).proven());
  SafetyResult guarded = split({cond(
      eq(v(i), lit(0)), {make_write_config(cfg, "n", lit(1), at(5, 8))})});
  ASSERT_TRUE(guarded.refuted());
  EXPECT_NE(guarded.detail.find("Cfg.n written at k.py:3:4 conflicts with "
                                "Cfg.n written at k.py:5:8"),
            std::string::npos)
      << guarded.detail;
  // The read alone is excused (the first part writes the same value at
  // every iteration), but split, it would see Cfg.n == 1 from i = 1 on.
  SafetyResult read =
      split({cond(eq(cfg_n(cfg), lit(0)), {assign(k.y, {v(i)}, real(3.0), 5)}),
             make_write_config(cfg, "n", lit(1), at(6))});
  ASSERT_TRUE(read.refuted());
  EXPECT_NE(read.detail.find("Cfg.n written at k.py:3:4 conflicts with "
                             "Cfg.n written at k.py:6:4"),
            std::string::npos)
      << read.detail;
}

TEST(QueriesConfigState, CommuteSeesTheValueWrittenInsideTheMovedCode) {
  // Cfg.n = 2; (Cfg.n = 10; for j < Cfg.n: x[j] = 1) vs x[5]: j reaches 5.
  auto cfg = index_config();
  Kernel k;
  Sym j("j");
  Stmt first = cond(
      truth(true),
      {make_write_config(cfg, "n", lit(10), at(4)),
       loop(j, lit(0), cfg_n(cfg), {assign(k.x, {v(j)}, real(1.0), 6)}, 5)});
  Stmt second = assign(k.x, {lit(5)}, real(2.0), 7);
  Proc p = k.make({make_write_config(cfg, "n", lit(2), at(2)), first, second},
                  {lt(lit(10), sz(k.n))});
  QueryContext ctx(p, top(1));
  EXPECT_TRUE(prove_commutes(ctx, {first}, {second}).refuted());
}

// ---- Idempotence, dead-after, reduce-only, bounds ---------------------------

TEST(QueriesIdempotent, CopyIsIdempotent) {
  Kernel k;
  Sym i("i");
  Stmt l =
      loop(i, lit(0), sz(k.n), {assign(k.x, {v(i)}, data(k.y, {v(i)}), 3)});
  QueryContext ctx(k.make({l}), top(0));
  EXPECT_TRUE(prove_idempotent(ctx, {l}).proven());
}

TEST(QueriesIdempotent, ReductionIsNot) {
  Kernel k;
  Stmt s = reduce(k.x, {lit(0)}, real(1.0), 3);
  QueryContext ctx(k.make({s}), top(0));
  SafetyResult r = prove_idempotent(ctx, {s});
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail, "x[0] reduced at k.py:3:4 accumulates when repeated");
}

TEST(QueriesIdempotent, ReadOfOwnWriteIsNot) {
  Kernel k;
  Sym i("i");
  Stmt l = loop(i, lit(1), sz(k.n),
                {assign(k.x, {v(i)}, data(k.x, {sub(v(i), lit(1))}), 3)});
  QueryContext ctx(k.make({l}), top(0));
  EXPECT_TRUE(prove_idempotent(ctx, {l}).refuted());
}

// `for i: x[i] = 0; for j: x[i] += y[j]`: the second run resets x[i]
// before it accumulates, as the first did.
TEST(QueriesIdempotent, ResetBeforeAccumulationIs) {
  Kernel k;
  Sym i("i"), j("j");
  Stmt l = loop(i, lit(0), sz(k.n),
                {assign(k.x, {v(i)}, real(0.0), 3),
                 loop(j, lit(0), sz(k.n),
                      {reduce(k.x, {v(i)}, data(k.y, {v(j)}), 5)}, 4)});
  QueryContext ctx(k.make({l}), top(0));
  EXPECT_TRUE(prove_idempotent(ctx, {l}).proven());
}

// A reset of another element, or under a condition that may fail, or a
// read of an element a later iteration writes, does not cover the read.
TEST(QueriesIdempotent, ResetThatMissesTheReadIsNot) {
  Kernel k;
  Sym i("i"), j("j");
  auto sums = [&](Stmt reset) {
    return loop(i, lit(0), sz(k.n),
                {std::move(reset),
                 loop(j, lit(0), sz(k.n),
                      {reduce(k.x, {v(i)}, data(k.y, {v(j)}), 5)}, 4)});
  };
  for (const Stmt& l :
       {sums(assign(k.x, {lit(0)}, real(0.0), 3)),
        sums(cond(lt(v(i), lit(2)), {assign(k.x, {v(i)}, real(0.0), 3)}))}) {
    QueryContext ctx(k.make({l}), top(0));
    SafetyResult r = prove_idempotent(ctx, {l});
    ASSERT_TRUE(r.refuted());
    EXPECT_EQ(r.detail, "x[i] reduced at k.py:5:4 accumulates when repeated");
  }
  Stmt ahead = loop(
      i, lit(0), sz(k.n),
      {assign(k.x, {v(i)}, real(0.0), 3),
       assign(k.y, {v(i)}, data(k.x, {sub(sz(k.n), lit(1))}, at(4, 12)), 4)});
  QueryContext ctx(k.make({ahead}), top(0));
  SafetyResult r = prove_idempotent(ctx, {ahead});
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(r.detail.find("x[i] written at k.py:3:4 conflicts with x[n - 1] "
                          "read at k.py:4:12"),
            std::string::npos)
      << r.detail;
}

// Code that never runs touches nothing: a reduction in the branch of an
// if whose condition is always false, or in a context that is itself dead.
TEST(QueriesIdempotent, ReductionThatNeverRunsIs) {
  Kernel k;
  Stmt red = reduce(k.x, {lit(0)}, real(1.0), 4);
  Stmt s =
      cond(lt(lit(1), lit(2)), {assign(k.x, {lit(0)}, real(1.0), 3)}, {red});
  Proc p = k.make({s});
  QueryContext ctx(p, top(0));
  EXPECT_TRUE(prove_idempotent(ctx, {s}).proven());
  QueryContext dead(p, Path{{Slot::Body, 0}, {Slot::Orelse, 0}});
  EXPECT_TRUE(prove_idempotent(dead, {red}).proven());
  QueryContext live(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  EXPECT_TRUE(
      prove_idempotent(live, {reduce(k.x, {lit(0)}, real(1.0), 3)}).refuted());
}

TEST(QueriesDeadAfter, BufferReadLaterIsAlive) {
  Kernel k;
  Sym t("t");
  Proc p =
      k.make({alloc(t, tensor({lit(4)}), 2), assign(t, {lit(0)}, real(1.0), 3),
              assign(k.x, {lit(0)}, data(t, {lit(0)}, at(4, 11)), 4),
              assign(k.y, {lit(0)}, real(1.0), 5)});
  SafetyResult alive = prove_dead_after(p, top(1), t);
  ASSERT_TRUE(alive.refuted());
  EXPECT_EQ(alive.detail, "t may be used later: t[0] read at k.py:4:11");
  EXPECT_TRUE(prove_dead_after(p, top(2), t).proven());
}

TEST(QueriesDeadAfter, EarlierStatementsOfALoopRunAgain) {
  Kernel k;
  Sym t("t"), i("i");
  Proc p = k.make({alloc(t, tensor({lit(4)}), 2),
                   loop(i, lit(0), sz(k.n),
                        {assign(k.x, {v(i)}, data(t, {lit(0)}), 4),
                         assign(t, {lit(0)}, real(1.0), 5)})});
  EXPECT_TRUE(
      prove_dead_after(p, Path{{Slot::Body, 1}, {Slot::Body, 1}}, t).refuted());
}

TEST(QueriesDeadAfter, AllocationInsideTheLoopIsFreshEachIteration) {
  Kernel k;
  Sym t("t"), i("i");
  Proc p = k.make({loop(
      i, lit(0), sz(k.n),
      {alloc(t, tensor({lit(4)}), 3), assign(k.x, {v(i)}, data(t, {lit(0)}), 4),
       assign(t, {lit(0)}, real(1.0), 5)})});
  EXPECT_TRUE(
      prove_dead_after(p, Path{{Slot::Body, 0}, {Slot::Body, 2}}, t).proven());
}

Access write_of(const Stmt& s) {
  for (const Access& a : effects_of(s))
    if (a.kind == AccessKind::Write) return a;
  throw std::logic_error("write_of: no write");
}

TEST(QueriesElementDeadAfter, OnlyReadsOfTheSameElementKeepItAlive) {
  Kernel k;
  Sym t("t");
  Stmt w = assign(t, {lit(1)}, real(1.0), 3);
  Proc other = k.make({alloc(t, tensor({lit(4)}), 2), w,
                       assign(k.x, {lit(0)}, data(t, {lit(2)}), 4)});
  EXPECT_TRUE(prove_element_dead_after(other, top(1), write_of(w)).proven());
  Proc same = k.make({alloc(t, tensor({lit(4)}), 2), w,
                      assign(k.x, {lit(0)}, data(t, {lit(1)}, at(4, 11)), 4)});
  SafetyResult alive = prove_element_dead_after(same, top(1), write_of(w));
  ASSERT_TRUE(alive.refuted());
  EXPECT_EQ(alive.detail,
            "t[1] may be read later by t[1] read at k.py:4:11 when n = 1");
}

TEST(QueriesElementDeadAfter, LaterIterationsReadingOtherElementsDoNot) {
  Kernel k;
  Sym t("t"), i("i");
  Stmt w = assign(t, {v(i)}, real(1.0), 4);
  auto kernel = [&](Expr read_index) {
    return k.make({alloc(t, tensor({sz(k.n)}), 2),
                   loop(i, lit(0), sz(k.n),
                        {w, assign(k.x, {v(i)}, data(t, {read_index}), 5)})});
  };
  const Path at{{Slot::Body, 1}, {Slot::Body, 0}};
  // iteration i reads t[i + 1], iteration i' > i reads t[i' + 1]: never t[i]
  EXPECT_TRUE(
      prove_element_dead_after(kernel(add(v(i), lit(1))), at, write_of(w))
          .proven());
  // iteration i + 1 reads t[i]
  SafetyResult r =
      prove_element_dead_after(kernel(sub(v(i), lit(1))), at, write_of(w));
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(r.counterexample.find("i' = "), std::string::npos);
}

TEST(QueriesReduceOnly, ReductionsOnlyOrNot) {
  Kernel k;
  Block ok = {reduce(k.x, {lit(0)}, data(k.y, {lit(0)}), 3)};
  Block bad = {reduce(k.x, {lit(0)}, data(k.x, {lit(1)}, at(4, 12)), 4)};
  QueryContext ctx(k.make(ok), top(0));
  EXPECT_TRUE(prove_reduce_only(ctx, ok, k.x).proven());
  SafetyResult r = prove_reduce_only(ctx, bad, k.x);
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail, "x[1] read at k.py:4:12 is not a reduction");
}

TEST(QueriesInBounds, TiledAccessesUnderDivisibility) {
  Kernel k;
  Sym io("io"), ii("ii");
  Stmt l = loop(
      io, lit(0), div(sz(k.n), lit(4)),
      {loop(ii, lit(0), lit(4),
            {assign(k.x, {add(mul(lit(4), v(io)), v(ii))}, real(0.0), 4)})});
  QueryContext ctx(k.make({l}), top(0));
  EXPECT_TRUE(prove_in_bounds(ctx, {l}, k.x, {sz(k.n)}).proven());
  SafetyResult r = prove_in_bounds(ctx, {l}, k.x, {sub(sz(k.n), lit(4))});
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(
      r.detail.find(
          "x[4 * io + ii] written at k.py:4:4 is out of bounds when n = "),
      std::string::npos)
      << r.detail;
}

// ---- Control expressions ----------------------------------------------------

TEST(QueriesEquivalent, AffineRearrangementAndTiling) {
  Kernel k;
  Sym io("io"), ii("ii");
  Proc p = k.make({loop(
      io, lit(0), sz(k.n),
      {loop(ii, lit(0), lit(4), {assign(k.x, {lit(0)}, real(0.0), 4)})})});
  QueryContext ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 0}, {Slot::Body, 0}});
  EXPECT_TRUE(prove_equivalent(ctx, add(mul(lit(4), v(io)), v(ii)),
                               add(v(ii), mul(v(io), lit(4))))
                  .proven());
  EXPECT_TRUE(
      prove_equivalent(ctx, div(add(mul(lit(4), v(io)), v(ii)), lit(4)), v(io))
          .proven());
  SafetyResult r =
      prove_equivalent(ctx, mul(div(sz(k.n), lit(4)), lit(4)), sz(k.n));
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(r.detail.find("n / 4 * 4 == n does not hold when n = "),
            std::string::npos)
      << r.detail;
}

// Data expressions in real arithmetic: each read a real value, the same
// element one value, a literal the double it denotes.
TEST(QueriesEquivalent, DataInRealArithmetic) {
  Kernel k;
  Sym i("i"), a("a");
  Proc p =
      proc("f",
           {arg(k.n, kSize), arg(a, kF32), arg(k.x, tensor({sz(k.n)})),
            arg(k.y, tensor({sz(k.n)}))},
           {loop(i, lit(0), sz(k.n), {assign(k.x, {v(i)}, real(0.0), 4)})});
  QueryContext ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  const Expr sa = v(a, kF32);
  const Expr xi = data(k.x, {v(i)});
  auto eqv = [&](const Expr& e1, const Expr& e2) {
    return prove_equivalent_in_reals(ctx, e1, e2);
  };
  EXPECT_TRUE(eqv(sa, fadd(sa, real(0.0))).proven());
  EXPECT_TRUE(
      eqv(xi, fmul(data(k.x, {add(v(i), lit(0))}), real(1.0))).proven());
  EXPECT_TRUE(eqv(fadd(xi, xi), fmul(real(2.0), xi)).proven());
  EXPECT_TRUE(eqv(real(0.375), bin(BinOpKind::Div, real(3.0), real(8.0), kF32))
                  .proven());
  // A literal is the double it denotes: 0.1 is not 1/10.
  EXPECT_TRUE(eqv(real(0.1), bin(BinOpKind::Div, real(1.0), real(10.0), kF32))
                  .refuted());
  EXPECT_TRUE(eqv(sa, fadd(sa, real(1.0))).refuted());
  EXPECT_TRUE(eqv(xi, data(k.x, {sub(sz(k.n), v(i))})).refuted());
  EXPECT_TRUE(eqv(xi, data(k.y, {v(i)})).refuted());
  EXPECT_TRUE(eqv(real(0.1), real(0.10000000000000002)).refuted());
  // Control expressions as prove_equivalent.
  EXPECT_TRUE(eqv(add(v(i), lit(1)), add(lit(1), v(i))).proven());
}

TEST(QueriesCompare, PositivityAndNonNegativity) {
  Kernel k;
  QueryContext ctx(k.make({make_pass(at(2))}), top(0));
  EXPECT_TRUE(prove_compare(ctx, sz(k.n), BinOpKind::Gt, 0).proven());
  EXPECT_TRUE(
      prove_compare(ctx, sub(sz(k.n), lit(1)), BinOpKind::Ge, 0).proven());
  SafetyResult r = prove_compare(ctx, sub(sz(k.n), lit(1)), BinOpKind::Gt, 0);
  ASSERT_TRUE(r.refuted());
  EXPECT_EQ(r.detail, "n - 1 > 0 does not hold when n = 1");
}

TEST(QueriesDivisible, LiteralsAndPreconditions) {
  Kernel k;
  QueryContext plain(k.make({make_pass(at(2))}), top(0));
  EXPECT_TRUE(prove_divisible(plain, lit(12), 4).proven());
  EXPECT_TRUE(prove_divisible(plain, lit(10), 4).refuted());
  EXPECT_TRUE(prove_divisible(plain, sz(k.n), 4).refuted());
  QueryContext assumed(
      k.make({make_pass(at(2))}, {eq(mod(sz(k.n), lit(8)), lit(0))}), top(0));
  EXPECT_TRUE(prove_divisible(assumed, sz(k.n), 4).proven());
  EXPECT_TRUE(prove_divisible(assumed, add(sz(k.n), lit(2)), 4).refuted());
}

TEST(QueriesWindowInBounds, InsideAndOutside) {
  Kernel k;
  Sym i("i");
  Proc p = k.make({loop(i, lit(0), div(sz(k.n), lit(2)), {make_pass(at(3))})});
  QueryContext ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  Expr inside =
      win(k.x, {iv(mul(lit(2), v(i)), add(mul(lit(2), v(i)), lit(2)))});
  Expr outside = win(k.x, {iv(v(i), add(v(i), lit(4)))});
  EXPECT_TRUE(prove_window_in_bounds(ctx, inside->as<WindowExpr>(), {sz(k.n)})
                  .proven());
  SafetyResult r =
      prove_window_in_bounds(ctx, outside->as<WindowExpr>(), {sz(k.n)});
  ASSERT_TRUE(r.refuted());
  EXPECT_NE(
      r.detail.find("the window x[i:i + 4] lies in bounds does not hold when"),
      std::string::npos)
      << r.detail;
}

TEST(QueriesPlaceInWindow, InsideOutsideNeither) {
  Kernel k;
  Sym i("i");
  Stmt l =
      loop(i, lit(0), lit(4), {assign(k.x, {add(v(i), lit(4))}, real(0.0), 3)});
  QueryContext ctx(k.make({l}), top(0));
  const Access a = effects_of(l)[0];
  EXPECT_EQ(place_in_window(ctx, a, {iv(lit(4), lit(8))}),
            WindowPlacement::Inside);
  EXPECT_EQ(place_in_window(ctx, a, {iv(lit(8), lit(12))}),
            WindowPlacement::Outside);
  EXPECT_EQ(place_in_window(ctx, a, {iv(lit(6), lit(12))}),
            WindowPlacement::Neither);
  EXPECT_EQ(place_in_window(ctx, a, {pt(lit(2))}), WindowPlacement::Outside);
}

TEST(QueriesDecide, ConditionsFromContext) {
  Kernel k;
  Sym i("i");
  Proc p = k.make({loop(i, lit(0), sz(k.n), {make_pass(at(3))})});
  QueryContext ctx(p, Path{{Slot::Body, 0}, {Slot::Body, 0}});
  EXPECT_EQ(decide(ctx, lt(v(i), sz(k.n))), Truth::AlwaysTrue);
  EXPECT_EQ(decide(ctx, lt(v(i), lit(0))), Truth::AlwaysFalse);
  EXPECT_EQ(decide(ctx, lt(v(i), lit(4))), Truth::Unknown);
}

// ---- Context, paths, counters, timeouts
// --------------------------------------

TEST(QueriesQueryContext, PathsFindStatementsAndEnterElseBranches) {
  Kernel k;
  Sym i("i");
  Stmt in_else = assign(k.x, {v(i)}, real(0.0), 5);
  Proc p =
      k.make({loop(i, lit(0), sz(k.n),
                   {cond(lt(v(i), lit(4)), {make_pass(at(4))}, {in_else})})});
  const Path path = Path{{Slot::Body, 0}, {Slot::Body, 0}, {Slot::Orelse, 0}};
  EXPECT_EQ(stmt_at(p, path), in_else);
  // A loop has no else branch.
  EXPECT_THROW(
      stmt_at(p, Path{{Slot::Body, 0}, {Slot::Orelse, 0}, {Slot::Body, 0}}),
      std::out_of_range);
  QueryContext ctx(p, path);
  EXPECT_EQ(decide(ctx, cmp(BinOpKind::Ge, v(i), lit(4))), Truth::AlwaysTrue);
  ASSERT_EQ(ctx.shown_terms().size(), 2u);
  EXPECT_EQ(ctx.shown_terms()[1].name, "i");
}

TEST(QueriesQueryContext, WalkersEnterWindowsAndLoopsAndLeaveThem) {
  Kernel k;
  Sym w("w"), i("i");
  QueryContext ctx(k.make({make_pass(at(2))}), top(0));
  ctx.add_window(w, win(k.x, {iv(lit(4), lit(8))})->as<WindowExpr>());
  Block write_w = {assign(w, {lit(0)}, real(1.0), 3)};
  Block read_x3 = {assign(k.y, {lit(0)}, data(k.x, {lit(3)}), 4)};
  Block read_x4 = {assign(k.y, {lit(0)}, data(k.x, {lit(4)}), 5)};
  EXPECT_TRUE(prove_commutes(ctx, write_w, read_x3).proven());
  EXPECT_TRUE(prove_commutes(ctx, write_w, read_x4).refuted());
  ctx.enter_loop(i, lit(0), lit(4));
  EXPECT_EQ(decide(ctx, lt(v(i), lit(4))), Truth::AlwaysTrue);
  ctx.leave();
  EXPECT_EQ(decide(ctx, lt(v(i), lit(4))), Truth::Unknown);
  ctx.leave();
  EXPECT_TRUE(ctx.windows().empty());
  EXPECT_THROW(ctx.leave(), std::logic_error);
}

TEST(QueriesQueryCounters, CountQueriesAndCacheHits) {
  Kernel k;
  QueryContext ctx(k.make({make_pass(at(2))}), top(0));
  reset_query_counters();
  // Refuted (n may be 1): the solver answers, then its cache.
  Expr e = add(sz(k.n), lit(-12345));
  prove_compare(ctx, e, BinOpKind::Gt, 0);
  prove_compare(ctx, e, BinOpKind::Gt, 0);
  QueryCounters c = query_counters();
  EXPECT_EQ(c.queries, 2u);
  EXPECT_EQ(c.cache_hits, 1u);
  EXPECT_EQ(c.interval_answers, 0u);
  // Proven from n's interval alone: no solver.
  prove_compare(ctx, add(sz(k.n), lit(12345)), BinOpKind::Gt, 0);
  c = query_counters();
  EXPECT_EQ(c.queries, 3u);
  EXPECT_EQ(c.interval_answers, 1u);
}

TEST(QueriesTimeouts, ReportedAsTimedOut) {
  // A hard nonlinear-free but large quasi-affine question with a tiny
  // timeout: the solver gives up, and the answer says so.
  Kernel k;
  QueryContext ctx(k.make({make_pass(at(2))}), top(0), 1);
  Expr e = sz(k.n);
  for (int q : {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41})
    e = add(mul(lit(q), mod(add(e, lit(q)), lit(q + 2))), div(e, lit(q)));
  SafetyResult r = prove_compare(ctx, e, BinOpKind::Ge, 1000000);
  ASSERT_TRUE(r.timed_out()) << r.detail;
  EXPECT_NE(r.detail.find("the solver timed out after 1 ms"), std::string::npos)
      << r.detail;
}

}  // namespace
}  // namespace exo2
