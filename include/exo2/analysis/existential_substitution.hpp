// Removing existential quantifiers whose variable an equation determines
// (docs/internals/effect-analysis.md, "Queries").
//
// `∃w. (w = t ∧ P(w))` is `P(t)`: exactly equivalent, and without the
// quantifier the solver answers much faster (or the variables' intervals
// answer alone, interval_bounds.hpp). An equation `lhs = rhs` determines `w`
// when `lhs` is linear in `w` with coefficient 1 or -1 (sums, differences,
// negations and multiples by numerals; no other term mentions `w`) and
// `rhs` does not mention it: then `w = ±(rhs - lhs[w := 0])`, an integer.
// Variables no equation determines stay quantified.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace exo2 {

// The coefficient of the constant `w` in the integer term `e` when `e` is
// linear in `w` (0 when `e` does not mention it), nullopt otherwise.
std::optional<int64_t> coefficient_of(const z3::expr& e, const z3::expr& w);

// `∃ vars. body ∧ ⋀ lhs = rhs`, with every variable that one of the
// equations determines substituted by its solution (in turn: a solution may
// mention variables later equations determine).
z3::expr exists_with_equations(
    const std::vector<z3::expr>& vars, z3::expr body,
    std::vector<std::pair<z3::expr, z3::expr>> equations);

}  // namespace exo2
