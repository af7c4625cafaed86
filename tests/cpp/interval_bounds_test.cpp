// The interval decisions tried before the solver (interval_bounds.hpp):
// what they decide, that refutations still get the solver's
// counterexample, and that every answer they give is the solver's.
#include "exo2/analysis/interval_bounds.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>

#include "exo2/analysis/queries.hpp"
#include "exo2/analysis/z3_encoding.hpp"

namespace exo2 {
namespace {

const Type kIndex(TypeKind::Index);

Expr var(const Sym& s) { return make_read(s, {}, {}, kIndex); }
Expr lit(int64_t v) { return make_int(v); }
Expr op(BinOpKind k, Expr a, Expr b) {
  return make_binop(k, std::move(a), std::move(b), {}, kIndex);
}

size_t interval_answers() { return query_counters().interval_answers; }

TEST(IntervalBounds, ProvesATiledIndexInsideItsBuffer) {
  SmtEncoder smt;
  Sym n("n"), io("io"), i("i");
  smt.assume(0 <= smt.var(io) && smt.var(io) < smt.var(n));
  smt.assume(0 <= smt.var(i) && smt.var(i) < 8);
  reset_query_counters();
  z3::expr index = 8 * smt.var(io) + smt.var(i);
  EXPECT_TRUE(smt.prove(0 <= index && index < 8 * smt.var(n)).yes());
  EXPECT_EQ(interval_answers(), 1u);
}

TEST(IntervalBounds, ProvesAModuloBelowItsDivisor) {
  SmtEncoder smt;
  Sym k("k");
  z3::expr r = smt.encode(op(BinOpKind::Mod, var(k), lit(8)));
  reset_query_counters();
  EXPECT_TRUE(smt.prove(0 <= r && r < 8).yes());
  EXPECT_EQ(interval_answers(), 1u);
}

TEST(IntervalBounds, BoundsAQuotientByItsNumerator) {
  SmtEncoder smt;
  Sym i("i");
  smt.assume(0 <= smt.var(i) && smt.var(i) < 64);
  z3::expr q = smt.encode(op(BinOpKind::Div, var(i), lit(8)));
  reset_query_counters();
  EXPECT_TRUE(smt.prove(q < 8).yes());
  EXPECT_EQ(interval_answers(), 1u);
}

TEST(IntervalBounds, LeavesRefutationsToTheSolverForTheirCounterexample) {
  SmtEncoder smt;
  Sym i("i");
  smt.assume(0 <= smt.var(i) && smt.var(i) < 8);
  reset_query_counters();
  const QueryResult r = smt.prove(smt.var(i) < 7);
  EXPECT_TRUE(r.no());
  EXPECT_EQ(smt.value_in(r, smt.var(i)), "7");
  EXPECT_EQ(interval_answers(), 0u);
}

TEST(IntervalBounds, RefutesAnUnsatisfiableFormula) {
  SmtEncoder smt;
  Sym i("i");
  smt.assume(smt.var(i) < 8);
  reset_query_counters();
  EXPECT_TRUE(smt.satisfiable(smt.var(i) >= 8).no());
  EXPECT_EQ(interval_answers(), 1u);
  EXPECT_TRUE(smt.satisfiable(smt.var(i) >= 7).yes());
}

TEST(IntervalBounds, RefutesWithTheRangesAFormulaConjoins) {
  // An access instance past the end of a tiled buffer: its iterator's
  // range is part of the formula, not of the facts.
  SmtEncoder smt;
  Sym n("n"), io("io");
  smt.assume(0 <= smt.var(io) && smt.var(io) < smt.var(n));
  z3::expr i = smt.fresh_int("i");
  z3::expr index = 8 * smt.var(io) + i;
  reset_query_counters();
  EXPECT_TRUE(smt.satisfiable(0 <= i && i < 8 && index >= 8 * smt.var(n)).no());
  EXPECT_EQ(interval_answers(), 1u);
  // One element further: the solver finds the instance.
  EXPECT_TRUE(
      smt.satisfiable(0 <= i && i < 9 && index >= 8 * smt.var(n)).yes());
  EXPECT_EQ(interval_answers(), 1u);
}

TEST(IntervalBounds, DecidesWhatOnlyTheSolverCanNot) {
  // Not implied by the facts: the solver answers, and says no.
  SmtEncoder smt;
  Sym i("i"), n("n");
  smt.assume(0 <= smt.var(i) && smt.var(i) < smt.var(n));
  EXPECT_TRUE(smt.prove(smt.var(i) < 8).no());
}

TEST(IntervalBounds, OverflowingBoundsDecideNothing) {
  SmtEncoder smt;
  Sym x("x");
  const int64_t big = int64_t{1} << 62;
  smt.assume(smt.var(x) >= smt.int_value(big));
  z3::expr sum = smt.var(x) + smt.int_value(big) + smt.int_value(big);
  EXPECT_TRUE(smt.prove(sum > smt.var(x)).yes());
  EXPECT_TRUE(smt.prove(sum < smt.var(x)).no());
}

TEST(IntervalBounds, DecidesAConditionInsideAQuotientOnce) {
  // `i < n - m % 3` with m = (n < 3 ? 2 : 1), a config field written under
  // an `if`: deciding `n < 3` goes through the fact, hence the quotient of
  // `m / 3`, hence its numerator's condition again. It used to recurse
  // until the stack overflowed.
  SmtEncoder smt;
  Sym n("n"), m("m"), i("i");
  const z3::expr nv = smt.var(n);
  smt.bind(m, z3::ite(nv < 3, smt.int_value(2), smt.int_value(1)));
  const z3::expr r = smt.encode(op(BinOpKind::Mod, var(m), lit(3)));
  smt.assume(nv >= 2);
  smt.assume(0 <= smt.var(i) && smt.var(i) < nv - r);
  EXPECT_TRUE(smt.prove(smt.var(i) < nv).yes());
  EXPECT_TRUE(smt.prove(smt.var(i) < nv - 3).no());
}

TEST(IntervalBounds, APopForgetsTheRangesOfTheFactsItRemoves) {
  // a scope learns its facts on top of the ranges around it; leaving it
  // returns to those, and a scope entered next learns its own
  SmtEncoder smt;
  Sym i("i");
  const z3::expr iv = smt.var(i);
  smt.assume(0 <= iv);
  EXPECT_EQ(smt.interval_value(iv >= 0), true);
  smt.push();
  smt.assume(iv < 8);
  EXPECT_EQ(smt.interval_value(iv < 9), true);
  smt.pop();
  EXPECT_EQ(smt.interval_value(iv < 9), std::nullopt);
  smt.push();
  smt.assume(iv < 4);
  EXPECT_EQ(smt.interval_value(iv < 5), true);
  EXPECT_EQ(smt.interval_value(iv >= 4), false);
  EXPECT_EQ(smt.interval_value(iv >= 0), true);
  smt.pop();
  EXPECT_EQ(smt.interval_value(iv < 5), std::nullopt);
}

TEST(IntervalBounds, KeepsNoLinearFormThatDecidedAnIte) {
  // `t` reads 2 or 10 by a condition the ranges decide: its form depends on
  // the facts of each encoder, whereas a form without an `ite` is kept for
  // the process (both encoders share the context)
  Sym n("n");
  for (bool small : {true, false, true}) {
    SmtEncoder smt;
    const z3::expr nv = smt.var(n);
    const z3::expr t = z3::ite(nv < 3, smt.int_value(2), smt.int_value(10));
    smt.assume(small ? nv < 3 : nv >= 3);
    EXPECT_EQ(smt.interval_value(t <= 2), small);
    // n >= 3 bounds 10 - n by 7; n < 3 leaves 2 - n unbounded above
    EXPECT_EQ(smt.interval_value(t - nv <= 7),
              small ? std::nullopt : std::optional(true));
  }
}

// Random linear facts and goals over a, b and c, with `/` and `%` (a
// fixed seed: the same cases each run).
class RandomQueries {
 public:
  // Terms of up to `products` products, one in `quotient_odds` divided or
  // taken modulo a constant.
  RandomQueries(unsigned seed, int products, int quotient_odds)
      : rng_(seed), products_(products), quotient_odds_(quotient_odds) {}

  int pick(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  const Sym& sym() { return syms_[pick(0, 2)]; }
  const std::array<Sym, 3>& syms() const { return syms_; }

  z3::expr term(SmtEncoder& smt) {
    Expr e = lit(pick(-9, 9));
    for (int k = 0; k < pick(1, products_); ++k) {
      Expr t = op(BinOpKind::Mul, lit(pick(-4, 4)), var(sym()));
      if (pick(0, quotient_odds_ - 1) == 0)
        t = op(pick(0, 1) ? BinOpKind::Div : BinOpKind::Mod, t,
               lit(pick(1, 8)));
      e = op(BinOpKind::Add, e, t);
    }
    return smt.encode(e);
  }
  void assume_range(SmtEncoder& smt, const Sym& s) {
    smt.assume(smt.var(s) >= pick(-8, 4) && smt.var(s) < pick(0, 12));
  }
  z3::expr goal(SmtEncoder& smt) {
    return pick(0, 1) ? term(smt) <= term(smt) : term(smt) == term(smt);
  }

  // Asks `goal` with the intervals on; where they answered, checks that
  // the solver alone gives the same answers. Returns whether they did.
  bool intervals_answer_as_the_solver(SmtEncoder& smt, const z3::expr& goal) {
    const size_t before = interval_answers();
    const bool proved = smt.prove(goal).yes();
    const bool satisfiable = smt.satisfiable(goal).yes();
    if (interval_answers() == before) return false;
    smt.use_intervals(false);
    EXPECT_EQ(smt.prove(goal).yes(), proved) << goal;
    EXPECT_EQ(smt.satisfiable(goal).yes(), satisfiable) << goal;
    smt.use_intervals(true);
    return true;
  }

 private:
  std::mt19937 rng_;
  int products_, quotient_odds_;
  const std::array<Sym, 3> syms_ = {Sym("a"), Sym("b"), Sym("c")};
};

// Every answer the intervals give is the solver's, one query per encoder.
TEST(IntervalBounds, AgreesWithTheSolverOnRandomQueries) {
  RandomQueries random(20261128, 3, 5);
  size_t decided = 0;
  for (int round = 0; round < 300; ++round) {
    SmtEncoder smt;
    for (const Sym& s : random.syms())
      if (random.pick(0, 3) != 0) random.assume_range(smt, s);
    for (int f = 0; f < random.pick(0, 2); ++f)
      smt.assume(random.term(smt) <= random.term(smt));
    decided += random.intervals_answer_as_the_solver(smt, random.goal(smt));
  }
  EXPECT_GT(decided, 30u);  // the test exercises the intervals
}

// The same on one encoder across scopes: random pushes, facts (quotients
// among them, which make the intervals learn again), pops and queries in
// turn, so that each answer comes from ranges learned on top of an
// enclosing scope's, extended by a query, or left by a pop.
TEST(IntervalBounds, AgreesWithTheSolverAcrossScopes) {
  RandomQueries random(20261203, 2, 6);
  size_t decided = 0;
  for (int round = 0; round < 60; ++round) {
    SmtEncoder smt;
    int depth = 0;
    for (int step = 0; step < 16; ++step) {
      const int action = random.pick(0, 5);
      if (action == 0 && depth < 3) {
        smt.push();
        ++depth;
      } else if (action == 1 && depth > 0) {
        smt.pop();
        --depth;
      } else if (action == 2) {
        random.assume_range(smt, random.sym());
      } else if (action == 3) {
        smt.assume(random.term(smt) <= random.term(smt));
      } else {
        decided += random.intervals_answer_as_the_solver(smt, random.goal(smt));
      }
    }
  }
  EXPECT_GT(decided, 30u);  // the test exercises the intervals
}

}  // namespace
}  // namespace exo2
