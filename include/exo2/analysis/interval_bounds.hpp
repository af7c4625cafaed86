// A quick, sound and incomplete decision of queries from interval bounds,
// tried before the solver (docs/internals/effect-analysis.md, "Queries").
//
// Most queries the primitives and `simplify` ask are decided by the ranges
// of the variables alone: `0 <= i + 8 * io < 8 * n` inside `for io in seq(0,
// n)` and `for i in seq(0, 8)`, `0 >= 8` for a loop's emptiness. The facts
// in scope give each integer constant an interval (`0 <= i`, `i < 8`, and
// for a quotient `q` of `a / c` the interval of `a` divided by `c`); a
// formula is then evaluated in three-valued logic over those intervals. An
// answer is given only when the intervals decide it for every value they
// contain, so it is the solver's answer; otherwise the solver is asked.
#pragma once

#include <z3++.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace exo2 {

// A closed integer interval; an absent end is unbounded.
struct Interval {
  std::optional<int64_t> lo, hi;
};

class IntervalBounds {
 public:
  // The bounds that the conjunction of `facts` implies for its integer
  // constants; `quotients` maps a quotient constant's id to its numerator
  // and positive divisor (`q = a / c`).
  using Quotients = std::unordered_map<unsigned, std::pair<z3::expr, int64_t>>;
  // The linear forms of terms, kept across the IntervalBounds of one Z3
  // context (`linear`); it holds terms of that context, so it must not
  // outlive it.
  class LinearForms;
  static std::shared_ptr<LinearForms> new_linear_forms();
  IntervalBounds(const std::vector<z3::expr>& facts, const Quotients& quotients,
                 std::shared_ptr<LinearForms> forms = nullptr);
  IntervalBounds(const IntervalBounds&);  // a copy to extend
  ~IntervalBounds();

  // Learns `facts[from..]` too, then narrows by every fact again. The
  // intervals are those of learning all the facts at once, or narrower
  // (a fact learned later narrows with what the others taught): still
  // implied by the facts, so every answer stays the solver's.
  void extend(const std::vector<z3::expr>& facts, size_t from);

  // The value `formula` has for every assignment within the bounds, when
  // there is one.
  std::optional<bool> decide(const z3::expr& formula);

 private:
  struct LinearForm;  // Σ coefficient * constant + constant + opaque part
  LinearForm linear(const z3::expr& term);
  void add_linear(LinearForm& f, const z3::expr& term, int64_t scale);
  Interval range(const z3::expr& term);
  Interval range(LinearForm f);
  Interval bound(unsigned constant_id);
  std::optional<bool> at_most_zero(const z3::expr& difference);
  void learn(const z3::expr& fact);
  void narrow_by(const LinearForm& at_most_zero);

  const Quotients& quotients_;
  std::shared_ptr<LinearForms> forms_;  // none: nothing kept
  bool read_ite_ = false;  // whether `add_linear` read an `ite` since reset
  std::unordered_map<unsigned, Interval> bounds_;  // by constant id
  std::vector<LinearForm> at_most_zero_facts_;     // each fact G as G <= 0
  std::unordered_set<unsigned> deciding_;          // ids of `ite` conditions
};

}  // namespace exo2
