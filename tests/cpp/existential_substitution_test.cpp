// Existential quantifiers removed by substitution
// (existential_substitution.hpp): which terms are linear in a variable, and
// that the substituted formula is equivalent to the quantified one, in the
// cases it applies to and in those it leaves quantified.
#include "exo2/analysis/existential_substitution.hpp"

#include <gtest/gtest.h>

namespace exo2 {
namespace {

// Whether `a` and `b` are equivalent for every value of their free
// constants.
bool equivalent(z3::context& ctx, const z3::expr& a, const z3::expr& b) {
  z3::solver s(ctx);
  s.add(a != b);
  return s.check() == z3::unsat;
}

bool is_quantifier(const z3::expr& e) { return e.is_quantifier(); }

TEST(ExistentialSubstitution, CoefficientsOfLinearTerms) {
  z3::context ctx;
  z3::expr w = ctx.int_const("w"), y = ctx.int_const("y");
  EXPECT_EQ(coefficient_of(w + 32 * y, w), 1);
  EXPECT_EQ(coefficient_of(3 - w, w), -1);
  EXPECT_EQ(coefficient_of(2 * (w + 1) - w, w), 1);
  EXPECT_EQ(coefficient_of(4 * w, w), 4);
  EXPECT_EQ(coefficient_of(y + 1, w), 0);
  EXPECT_EQ(coefficient_of(w * y, w), std::nullopt);  // not linear
  EXPECT_EQ(coefficient_of(z3::ite(w > 0, w, y), w), std::nullopt);
}

TEST(ExistentialSubstitution, SubstitutesAVariableAnEquationDetermines) {
  z3::context ctx;
  z3::expr w = ctx.int_const("w"), r = ctx.int_const("r");
  // Some row w in [0, 4) equals r + 2: exactly r in [-2, 2).
  z3::expr body = 0 <= w && w < 4;
  z3::expr out = exists_with_equations({w}, body, {{w, r + 2}});
  EXPECT_FALSE(is_quantifier(out));
  EXPECT_TRUE(equivalent(ctx, out, -2 <= r && r < 2));
  // Coefficient -1: 3 - w = r.
  out = exists_with_equations({w}, body, {{3 - w, r}});
  EXPECT_FALSE(is_quantifier(out));
  EXPECT_TRUE(equivalent(ctx, out, 0 <= r && r < 4));
}

TEST(ExistentialSubstitution, KeepsWhatNoEquationDetermines) {
  z3::context ctx;
  z3::expr w = ctx.int_const("w"), v = ctx.int_const("v"),
           r = ctx.int_const("r");
  // 2 * w = r holds for even r only: w stays quantified.
  z3::expr body = 0 <= w && w < 4;
  z3::expr out = exists_with_equations({w}, body, {{2 * w, r}});
  ASSERT_TRUE(is_quantifier(out));
  z3::expr_vector ws(ctx);
  ws.push_back(w);
  EXPECT_TRUE(equivalent(ctx, out, z3::exists(ws, body && 2 * w == r)));
  // v is determined by w + v = r, w by nothing (w appears only in the
  // body once v is substituted).
  out = exists_with_equations({v, w}, body && 0 <= v && v < 2, {{w + v, r}});
  ASSERT_TRUE(is_quantifier(out));
  ws.push_back(v);
  EXPECT_TRUE(equivalent(
      ctx, out, z3::exists(ws, body && 0 <= v && v < 2 && w + v == r)));
}

}  // namespace
}  // namespace exo2
