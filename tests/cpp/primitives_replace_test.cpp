// Instruction selection (primitives.md §8, §11): the unifier's exact linear
// solving and window inference, replace's checks at the call site, and
// insert_noop_call.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exo2/analysis/queries.hpp"
#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/insert_noop_call.hpp"
#include "exo2/primitives/replace.hpp"
#include "exo2/primitives/unification.hpp"
#include "typed_ir_builders.hpp"

namespace exo2::primitives {
namespace {

using namespace test_ir;
using cursors::GapSide;
using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

std::string printed_args(const UnificationResult& r) {
  std::string out;
  for (const Expr& e : r.args) out += (out.empty() ? "" : ", ") + print_expr(e);
  return out;
}

std::vector<SymbolInfo> scope_of(const Proc& p) {
  std::vector<SymbolInfo> out;
  for (const FnArg& a : p->args)
    out.push_back(
        {SymbolInfo::Kind::Argument, a.name, a.type, a.mem, a.srcinfo});
  return out;
}

// `zero(n: size, dst: [f32][n])`: `for i in seq(0, n): dst[i] = 0.0`, with
// optional preconditions.
Proc zero_instr(std::vector<Expr> preds = {}) {
  Sym n("n"), dst("dst"), i("i");
  return proc(
      "zero", {arg(n, kSize), arg(dst, window_type({sz(n)}))},
      {loop(i, lit(0), sz(n), {assign(dst, {v(i)}, real(0.0), 11)}, 10)},
      preds);
}

// `k(m: size, A: f32[m, 16])`: `for k in seq(0, m): for j in seq(0, hi):
// A[k, j + off] = 0.0`.
struct RowKernel {
  Sym m{"m"}, a{"A"}, k{"k"}, j{"j"};
  Proc make(Expr hi, int64_t off, std::vector<Expr> preds = {}) const {
    return proc(
        "k", {arg(m, kSize), arg(a, tensor({sz(m), lit(16)}))},
        {loop(k, lit(0), sz(m),
              {loop(j, lit(0), hi,
                    {assign(a, {v(k), add(v(j), lit(off))}, real(0.0), 4)}, 3)},
              2)},
        preds);
  }
};

// Solutions print in Exo's form, the constant always last (`k + 0`,
// `m + -2`): checked against exo-lang 1.0 on the same kernels.
TEST(Unification, InfersWindowOffsetAndSize) {
  RowKernel rk;
  Proc p = rk.make(lit(8), 4);
  const Block& inner = p->body[0]->as<For>().body;
  std::vector<SymbolInfo> scope = scope_of(p);
  scope.push_back(
      {SymbolInfo::Kind::LoopIterator, rk.k, kIndex, nullptr, at(2)});
  UnificationResult r = unify(zero_instr(), inner, scope);
  EXPECT_EQ(printed_args(r), "8, A[k + 0, 4:12]");
  EXPECT_TRUE(r.side_conditions.empty());
}

TEST(Unification, SolvesLoopBoundExpressions) {
  RowKernel rk;
  Proc p = rk.make(sub(sz(rk.m), lit(2)), 1);
  const Block& inner = p->body[0]->as<For>().body;
  std::vector<SymbolInfo> scope = scope_of(p);
  scope.push_back(
      {SymbolInfo::Kind::LoopIterator, rk.k, kIndex, nullptr, at(2)});
  EXPECT_EQ(printed_args(unify(zero_instr(), inner, scope)),
            "m + -2, A[k + 0, 1:m + -1]");
}

TEST(Unification, ChoosesPointDimensionsFromTheAccesses) {
  // for i in seq(0, 8): A[i, 3] = 0.0  →  zero(8, A[0:8, 3])
  Sym a("A"), i("i");
  Proc p = proc(
      "k", {arg(a, tensor({lit(8), lit(4)}))},
      {loop(i, lit(0), lit(8), {assign(a, {v(i), lit(3)}, real(0.0), 3)})});
  EXPECT_EQ(printed_args(unify(zero_instr(), p->body, scope_of(p))),
            "8, A[0:8, 3]");
}

TEST(Unification, ReportsLiteralBoundMismatch) {
  // zero8: for i in seq(0, 8) against for j in seq(0, 4).
  Sym dst("dst"), i("i");
  Proc instr =
      proc("zero8", {arg(dst, window_type({lit(8)}))},
           {loop(i, lit(0), lit(8), {assign(dst, {v(i)}, real(0.0), 11)}, 10)});
  RowKernel rk;
  Proc p = rk.make(lit(4), 0);
  const Block& inner = p->body[0]->as<For>().body;
  std::vector<SymbolInfo> scope = scope_of(p);
  scope.push_back(
      {SymbolInfo::Kind::LoopIterator, rk.k, kIndex, nullptr, at(2)});
  try {
    unify(instr, inner, scope);
    FAIL() << "expected a UnificationError";
  } catch (const UnificationError& e) {
    EXPECT_EQ(std::string(e.what()),
              "Unification of various index expressions failed: 8 (@k.py:0:4) "
              "against 4 (@k.py:0:4)");
  }
}

TEST(Unification, FreeBoundBecomesSideCondition) {
  // for i in seq(0, 8) against for i in seq(0, n): holds only if n == 8.
  Sym dst("dst"), i("i"), n("n"), a("A"), j("j");
  Proc instr =
      proc("zero8", {arg(dst, window_type({lit(8)}))},
           {loop(i, lit(0), lit(8), {assign(dst, {v(i)}, real(0.0), 11)}, 10)});
  Proc p = proc("k", {arg(n, kSize), arg(a, tensor({sz(n)}))},
                {loop(j, lit(0), sz(n), {assign(a, {v(j)}, real(0.0), 3)})});
  UnificationResult r = unify(instr, p->body, scope_of(p));
  ASSERT_EQ(r.side_conditions.size(), 1u);
  EXPECT_EQ(print_expr(r.side_conditions[0].lhs) +
                " == " + print_expr(r.side_conditions[0].rhs),
            "8 == n + 0");
}

TEST(Unification, StructuralMismatchAsksNoSolverQuery) {
  Sym a("A"), b("B"), i("i");
  Proc p =
      proc("k", {arg(a, tensor({lit(8)})), arg(b, tensor({lit(8)}))},
           {loop(i, lit(0), lit(8), {reduce(a, {v(i)}, data(b, {v(i)}), 3)})});
  reset_query_counters();
  EXPECT_THROW(
      replace(p, Location::block({Step{Slot::Body, 0}}, 1), zero_instr()),
      UnificationError);
  EXPECT_EQ(query_counters().queries, 0u);
}

TEST(Replace, ProvesPreconditionAtTheCall) {
  // zero with `assert n == 8`: accepted for an 8-iteration loop, refused for
  // a 4-iteration one (what is left after cutting the loop).
  Proc instr = zero_instr();
  Proc guarded =
      make_proc("zero", instr->args, {eq(sz(instr->args[0].name), lit(8))},
                instr->body, std::nullopt, at(1));
  RowKernel rk;
  const Location inner =
      Location::block({Step{Slot::Body, 0}, Step{Slot::Body, 0}}, 1);
  Proc ok = replace(rk.make(lit(8), 0), inner, guarded).proc;
  EXPECT_EQ(print_stmt(ok->body[0]->as<For>().body[0]),
            "zero(8, A[k + 0, 0:8])");
  try {
    replace(rk.make(lit(4), 0), inner, guarded);
    FAIL() << "expected a SchedulingError";
  } catch (const SchedulingError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "Could not verify assertion n == 8 in zero at", 0),
              0u)
        << e.what();
  }
}

TEST(Replace, KeepsStatementsPastTheBodyAndForwards) {
  Sym a("A"), i("i");
  Proc p = proc("k", {arg(a, tensor({lit(8)}))},
                {loop(i, lit(0), lit(8), {assign(a, {v(i)}, real(0.0), 3)}),
                 assign(a, {lit(0)}, real(1.0), 4)});
  cursors::EditResult r =
      replace(p, Location::block({Step{Slot::Body, 0}}, 2), zero_instr());
  ASSERT_EQ(r.proc->body.size(), 2u);
  EXPECT_EQ(print_stmt(r.proc->body[0]), "zero(8, A[0:8])");
  EXPECT_EQ(r.forwarding(Location::node({Step{Slot::Body, 1}})),
            Location::node({Step{Slot::Body, 1}}));
}

TEST(InsertNoopCall, RequiresPassBody) {
  Sym a("A"), i("i");
  Proc p = proc("k", {arg(a, tensor({lit(8)}))},
                {assign(a, {lit(0)}, real(1.0), 4)});
  const Location gap = Location::gap({Step{Slot::Body, 0}}, GapSide::Before);
  EXPECT_THROW(insert_noop_call(p, gap, zero_instr(), {}), SchedulingError);
  Sym n("n");
  Proc hint = proc("hint", {arg(n, kSize)}, {make_pass(at(1))});
  Proc q = insert_noop_call(p, gap, hint, {make_int(4, at(0), Type())}).proc;
  EXPECT_EQ(print_stmt(q->body[0]), "hint(4)");
}

}  // namespace
}  // namespace exo2::primitives
