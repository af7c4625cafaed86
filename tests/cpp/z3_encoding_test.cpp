// The Z3 encoding of control expressions and the query API.
#include "exo2/analysis/z3_encoding.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>

namespace exo2 {
namespace {

const Type kIndex(TypeKind::Index);
const Type kBool(TypeKind::Bool);

Expr var(const Sym& s, Type t = kIndex) { return make_read(s, {}, {}, t); }
Expr lit(int64_t v) { return make_int(v); }
Expr op(BinOpKind k, Expr a, Expr b, Type t = kIndex) {
  return make_binop(k, std::move(a), std::move(b), {}, t);
}
Expr cmp(BinOpKind k, Expr a, Expr b) {
  return op(k, std::move(a), std::move(b), kBool);
}

TEST(SmtEncoder, ProvesArithmeticFromFacts) {
  SmtEncoder smt;
  Sym n("n");
  smt.assume(smt.var(n) > 0);
  EXPECT_TRUE(
      smt.prove(smt.encode(cmp(BinOpKind::Gt,
                               op(BinOpKind::Add, var(n), lit(1)), lit(1))))
          .yes());
  EXPECT_TRUE(smt.prove(smt.var(n) > 1).no());
}

TEST(SmtEncoder, DivisionIsFloorDivisionForNegativeNumerators) {
  SmtEncoder smt;
  Sym i("i");
  smt.assume(smt.var(i) == -1);
  z3::expr q = smt.encode(op(BinOpKind::Div, var(i), lit(4)));
  EXPECT_TRUE(smt.prove(q == -1).yes());
  z3::expr r = smt.encode(op(BinOpKind::Mod, var(i), lit(4)));
  EXPECT_TRUE(smt.prove(r == 3).yes());
}

TEST(SmtEncoder, ModuloLiesBetweenZeroAndDivisor) {
  SmtEncoder smt;
  Sym i("i");
  z3::expr r = smt.encode(op(BinOpKind::Mod, var(i), lit(8)));
  EXPECT_TRUE(smt.prove(0 <= r && r < 8).yes());
  // The same numerator reuses one quotient, so a/8*8 + a%8 == a.
  z3::expr q = smt.encode(op(BinOpKind::Div, var(i), lit(8)));
  EXPECT_TRUE(smt.prove(8 * q + r == smt.var(i)).yes());
}

TEST(SmtEncoder, DivisibilityFactMakesTilesExact) {
  SmtEncoder smt;
  Sym n("n"), io("io"), ii("ii");
  smt.assume(smt.var(n) > 0);
  smt.assume(smt.encode(
      cmp(BinOpKind::Eq, op(BinOpKind::Mod, var(n), lit(4)), lit(0))));
  z3::expr tiles = smt.encode(op(BinOpKind::Div, var(n), lit(4)));
  smt.assume(0 <= smt.var(io) && smt.var(io) < tiles);
  smt.assume(0 <= smt.var(ii) && smt.var(ii) < 4);
  EXPECT_TRUE(smt.prove(4 * smt.var(io) + smt.var(ii) < smt.var(n)).yes());
}

TEST(SmtEncoder, RefutationCarriesCounterexample) {
  SmtEncoder smt;
  Sym i("i"), n("n");
  smt.assume(smt.var(n) == 7);
  smt.assume(0 <= smt.var(i) && smt.var(i) <= smt.var(n));
  QueryResult r = smt.prove(smt.var(i) < smt.var(n));
  ASSERT_TRUE(r.no());
  EXPECT_EQ(smt.value_in(r, smt.var(i)), "7");
  EXPECT_EQ(smt.value_in(r, smt.var(i) + 1), "8");
  EXPECT_EQ(smt.counterexample(r, {{"n", smt.var(n)}, {"i", smt.var(i)}}),
            " n = 7, i = 7");
}

TEST(SmtEncoder, PopForgetsFactsAndBindings) {
  SmtEncoder smt;
  Sym i("i"), m("m");
  smt.push();
  smt.assume(smt.var(i) == 3);
  smt.bind(m, smt.int_value(5));
  EXPECT_TRUE(smt.prove(smt.var(i) == 3).yes());
  EXPECT_TRUE(smt.prove(smt.encode(var(m)) == 5).yes());
  smt.pop();
  EXPECT_TRUE(smt.prove(smt.var(i) == 3).no());
  EXPECT_TRUE(smt.prove(smt.encode(var(m)) == 5).no());
  EXPECT_THROW(smt.pop(), std::logic_error);
}

TEST(SmtEncoder, IntervalsFollowTheFactsAndQuotientsOfEachQuery) {
  // The intervals are learned once per change of the facts: each query
  // below sees exactly the facts in scope when it is asked.
  SmtEncoder smt;
  Sym i("i"), n("n");
  smt.assume(0 <= smt.var(i) && smt.var(i) < 8);
  EXPECT_EQ(smt.interval_value(smt.var(i) < 8), true);
  EXPECT_EQ(smt.interval_value(smt.var(i) < 4), std::nullopt);
  smt.push();
  smt.assume(smt.var(i) < 4);
  EXPECT_EQ(smt.interval_value(smt.var(i) < 4), true);
  smt.pop();
  EXPECT_EQ(smt.interval_value(smt.var(i) < 4), std::nullopt);
  EXPECT_TRUE(smt.prove(smt.var(i) < 4).no());
  // Popped and assumed again to as many facts, other ones.
  smt.push();
  smt.assume(smt.var(i) >= 6);
  EXPECT_EQ(smt.interval_value(smt.var(i) < 4), false);
  smt.pop();
  // A quotient encoded after the facts gets its interval from them.
  smt.assume(0 <= smt.var(n) && smt.var(n) < 16);
  EXPECT_EQ(smt.interval_value(smt.var(n) < 16), true);
  z3::expr q = smt.encode(op(BinOpKind::Div, var(n), lit(4)));
  EXPECT_EQ(smt.interval_value(q < 4), true);
}

TEST(SmtEncoder, StridesAreVariablesUnlessBound) {
  SmtEncoder smt;
  Sym x("x"), y("y");
  Expr sx = make_stride_expr(x, 0, {});
  EXPECT_TRUE(smt.prove(smt.encode(sx) == 1).no());
  smt.bind_stride(x, 0, smt.int_value(1));
  EXPECT_TRUE(smt.prove(smt.encode(sx) == 1).yes());
  // Different buffers and dimensions are different variables.
  EXPECT_TRUE(smt.prove(smt.stride(y, 0) == smt.stride(y, 1)).no());
  EXPECT_TRUE(smt.prove(smt.stride(y, 1) == smt.stride(y, 1)).yes());
}

TEST(SmtEncoder, ConfigFieldsAreVariablesUntilWritten) {
  SmtEncoder smt;
  auto cfg = std::make_shared<const Config>(
      "Cfg",
      std::vector<std::pair<std::string, Type>>{{"k", Type(TypeKind::Size)},
                                                {"on", kBool}},
      true);
  Expr k = make_read_config(cfg, "k", {}, Type(TypeKind::Size));
  Expr on = make_read_config(cfg, "on", {}, kBool);
  EXPECT_TRUE(smt.prove(smt.encode(k) == 4).no());
  smt.bind_config(*cfg, "k", smt.int_value(4));
  EXPECT_TRUE(smt.prove(smt.encode(k) == 4).yes());
  EXPECT_TRUE(smt.satisfiable(smt.encode(on)).yes());
  EXPECT_TRUE(smt.satisfiable(smt.encode(on) && !smt.encode(on)).no());
}

TEST(SmtEncoder, BooleanVariablesAndLogic) {
  SmtEncoder smt;
  Sym b("b"), i("i");
  Expr e = op(BinOpKind::Or, var(b, kBool), cmp(BinOpKind::Lt, var(i), lit(0)),
              kBool);
  smt.assume(!smt.var(b, true));
  smt.assume(smt.encode(e));
  EXPECT_TRUE(smt.prove(smt.var(i) < 0).yes());
  EXPECT_TRUE(smt.prove(smt.encode(cmp(BinOpKind::Eq, var(b, kBool),
                                       make_const(false, {}, kBool))))
                  .yes());
}

TEST(SmtEncoder, TimeoutIsNeitherYesNorNo) {
  // Nonlinear integer arithmetic Z3 cannot decide quickly (x^3 + y^3 = z^3).
  SmtEncoder smt(50);
  z3::context& c = smt.context();
  z3::expr x = c.int_const("x"), y = c.int_const("y"), z = c.int_const("z");
  smt.assume(x > 0 && y > 0 && z > 0);
  QueryResult r = smt.satisfiable(x * x * x + y * y * y == z * z * z);
  EXPECT_TRUE(r.timed_out());
  EXPECT_FALSE(r.reason_unknown.empty());
  EXPECT_FALSE(r.yes());
  EXPECT_FALSE(r.no());
}

TEST(SmtEncoder, RejectsDataExpressions) {
  SmtEncoder smt;
  Sym x("x");
  Expr data = make_read(x, {lit(0)}, {}, Type(TypeKind::F32));
  EXPECT_FALSE(SmtEncoder::is_encodable(data));
  EXPECT_THROW(smt.encode(data), std::invalid_argument);
  EXPECT_THROW(smt.encode(make_const(2.0, {}, Type(TypeKind::R))),
               std::invalid_argument);
  EXPECT_TRUE(SmtEncoder::is_encodable(op(BinOpKind::Div, var(x), lit(3))));
  EXPECT_FALSE(SmtEncoder::is_encodable(op(BinOpKind::Div, var(x), lit(0))));
}

TEST(SmtEncoder, CachesAnswersAcrossEncoders) {
  SmtEncoder::clear_cache();
  Sym n("n");
  // A refutation: the solver's, for its counterexample (the intervals of
  // the variables answer only proofs).
  auto ask = [&] {
    SmtEncoder smt;
    smt.assume(smt.var(n) > 0);
    return smt.prove(smt.var(n) >= 2).no();
  };
  EXPECT_TRUE(ask());
  EXPECT_EQ(SmtEncoder::cache_size(), 1u);
  EXPECT_EQ(SmtEncoder::cache_hits(), 0u);
  EXPECT_TRUE(ask());
  EXPECT_EQ(SmtEncoder::cache_size(), 1u);
  EXPECT_EQ(SmtEncoder::cache_hits(), 1u);
}

TEST(SmtEncoder, CachesOneAnswerForQueriesThatDifferOnlyInNames) {
  SmtEncoder::clear_cache();
  // The same refutation about two loops (i < n, j < m): one solver call,
  // each counterexample in its own names.
  auto ask = [](const Sym& i, const Sym& n) {
    SmtEncoder smt;
    smt.assume(smt.var(n) == 5);
    smt.assume(0 <= smt.var(i) && smt.var(i) <= smt.var(n));
    QueryResult r = smt.prove(smt.var(i) < smt.var(n));
    EXPECT_TRUE(r.no());
    return smt.counterexample(r,
                              {{n.name(), smt.var(n)}, {i.name(), smt.var(i)}});
  };
  EXPECT_EQ(ask(Sym("i"), Sym("n")), " n = 5, i = 5");
  EXPECT_EQ(ask(Sym("j"), Sym("m")), " m = 5, j = 5");
  EXPECT_EQ(SmtEncoder::cache_size(), 1u);
  EXPECT_EQ(SmtEncoder::cache_hits(), 1u);
  // The same shape with another constant is another question.
  SmtEncoder smt;
  Sym i("i"), n("n");
  smt.assume(smt.var(n) == 6);
  smt.assume(0 <= smt.var(i) && smt.var(i) <= smt.var(n));
  EXPECT_TRUE(smt.prove(smt.var(i) < smt.var(n)).no());
  EXPECT_EQ(SmtEncoder::cache_size(), 2u);
  // Renaming keeps distinct variables distinct: i < j is not i < i.
  Sym a("a"), b("b");
  EXPECT_TRUE(
      smt.prove(smt.var(a) < smt.var(b) || smt.var(b) < smt.var(a)).no());
  EXPECT_TRUE(smt.prove(!(smt.var(a) < smt.var(a))).yes());
}

TEST(SmtEncoder, ProvesAgreesWithProveAndLeavesNoModelBehind) {
  SmtEncoder::clear_cache();
  SmtEncoder smt;
  Sym i("i"), j("j"), n("n");
  smt.assume(0 <= smt.var(i) && smt.var(i) < smt.var(n));
  smt.assume(0 <= smt.var(j) && smt.var(j) < smt.var(n));
  // Beyond the intervals (n is unbounded): the solver decides both.
  const z3::expr holds = smt.var(i) + smt.var(j) < 2 * smt.var(n);
  const z3::expr fails = smt.var(i) + smt.var(j) < smt.var(n);
  EXPECT_EQ(smt.interval_value(holds), std::nullopt);
  EXPECT_TRUE(smt.proves(holds));
  EXPECT_FALSE(smt.proves(fails));
  EXPECT_EQ(SmtEncoder::cache_size(), 2u);
  // The refutation cached without its counterexample: a query that needs
  // one asks again and gets it.
  QueryResult r = smt.prove(fails);
  ASSERT_TRUE(r.no());
  const std::optional<std::string> sum =
      smt.value_in(r, smt.var(i) + smt.var(j));
  const std::optional<std::string> bound = smt.value_in(r, smt.var(n));
  ASSERT_TRUE(sum && bound);
  // A witness of the facts (a missing model would read as all zeros,
  // which 0 <= i < n excludes).
  EXPECT_FALSE(r.model.empty());
  EXPECT_GE(std::stoll(*bound), 1);
  EXPECT_GE(std::stoll(*sum), std::stoll(*bound));
  EXPECT_TRUE(smt.prove(holds).yes());
  EXPECT_EQ(SmtEncoder::cache_size(), 2u);
}

TEST(SmtEncoder, QueriesOnlyIncludeDefinitionsTheyMention) {
  SmtEncoder smt;
  Sym a("a"), b("b");
  // Encoding a/2 records a definition; a query about b must not need it.
  smt.encode(op(BinOpKind::Div, var(a), lit(2)));
  QueryResult r = smt.prove(smt.var(b) > 0);
  ASSERT_TRUE(r.no());
  for (const auto& [name, value] : r.model)
    EXPECT_EQ(name.find("div!"), std::string::npos) << name;
}

TEST(SmtEncoder, FindsFormulasThatFixOnlyAFreeConstant) {
  SmtEncoder smt;
  Sym n("n"), m("m"), k("k"), x("x");
  smt.assume(smt.var(n) > 0);
  // stride(x, 0) == 1 and n + 1 == k fix a constant nothing else mentions.
  EXPECT_TRUE(smt.defines_free_constant(smt.stride(x, 0) == 1));
  EXPECT_TRUE(smt.defines_free_constant(smt.var(n) + 1 == smt.var(k)));
  // n is constrained by a fact, and m appears on both sides.
  EXPECT_FALSE(smt.defines_free_constant(smt.var(n) == 1));
  EXPECT_FALSE(smt.defines_free_constant(smt.var(m) == smt.var(m) + 1));
  EXPECT_FALSE(smt.defines_free_constant(smt.var(m) < 3));
  // A quotient q = m / 2 is fixed by its definition, which mentions m.
  z3::expr q = smt.encode(op(BinOpKind::Div, var(m), lit(2)));
  EXPECT_FALSE(smt.defines_free_constant(q == 5));
  EXPECT_TRUE(smt.defines_free_constant(smt.var(m) == 5));
  EXPECT_FALSE(smt.defines_free_constant(smt.var(m) == q));
  // A fact on q constrains m through q's definition.
  smt.assume(q > 3);
  EXPECT_FALSE(smt.defines_free_constant(smt.var(m) == 5));
}

// x³ + y³ = z³ in positive integers (x above `above`): no model, and none
// that Z3's nonlinear arithmetic finds out in a millisecond.
QueryResult fermat_cubes(SmtEncoder& smt, int above) {
  const z3::expr x = smt.fresh_int("x"), y = smt.fresh_int("y"),
                 z = smt.fresh_int("z");
  return smt.satisfiable(x > above && y > 0 && z > 0 &&
                         x * x * x + y * y * y == z * z * z);
}

// Many queries that time out, one after the other: the solver must give
// up on each within its deadline, never hang, and answer the next query
// as before. Z3 4.8.12's own timer (Debian 12's libz3) deadlocked here: a
// worker whose timer had fired went back to the pool while its scope,
// still open, held its mutex, and the next timer of that scope picked it
// up and locked that mutex again.
TEST(SmtEncoder, ManyTimeoutsEndAndLeaveTheSolverUsable) {
  for (int round = 0; round < 1000; ++round) {
    SmtEncoder smt(1);
    const QueryResult r = fermat_cubes(smt, round);
    ASSERT_TRUE(r.timed_out()) << "round " << round;
    ASSERT_EQ(r.reason_unknown, "timeout") << "round " << round;
  }
  SmtEncoder smt;
  const z3::expr i = smt.fresh_int("i");
  EXPECT_TRUE(smt.satisfiable(i > 3 && i < 5).yes());
  EXPECT_TRUE(smt.prove(i * i >= 0).yes());
}

// A child forked after queries ran (the BLAS generator forks its workers
// so) keeps its deadlines: the parent's watchdog thread is not copied.
TEST(SmtEncoder, TimeoutsHoldInAForkedChild) {
  SmtEncoder parent(1);
  ASSERT_TRUE(fermat_cubes(parent, 0).timed_out());
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    alarm(60);  // a hang ends the child by SIGALRM
    SmtEncoder smt(1);
    const bool timed_out =
        fermat_cubes(smt, 1).timed_out() && fermat_cubes(smt, 2).timed_out();
    _exit(timed_out ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status)) << "the child hung or crashed: " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace exo2
