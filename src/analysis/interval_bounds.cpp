#include "exo2/analysis/interval_bounds.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace exo2 {

namespace {

using Bound = std::optional<int64_t>;

// Saturating arithmetic on bounds: an overflow gives no bound, which only
// loses precision.
Bound add(Bound a, Bound b) {
  int64_t r = 0;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}

Bound mul(Bound a, int64_t c) {
  int64_t r = 0;
  if (!a || __builtin_mul_overflow(*a, c, &r)) return std::nullopt;
  return r;
}

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

Interval sum(const Interval& a, const Interval& b) {
  return {add(a.lo, b.lo), add(a.hi, b.hi)};
}

Interval scaled(const Interval& a, int64_t c) {
  if (c >= 0) return {mul(a.lo, c), mul(a.hi, c)};
  return {mul(a.hi, c), mul(a.lo, c)};
}

Interval intersect(const Interval& a, const Interval& b) {
  Interval r = a;
  if (b.lo && (!r.lo || *b.lo > *r.lo)) r.lo = b.lo;
  if (b.hi && (!r.hi || *b.hi < *r.hi)) r.hi = b.hi;
  return r;
}

Interval hull(const Interval& a, const Interval& b) {
  return {a.lo && b.lo ? std::min(a.lo, b.lo) : std::nullopt,
          a.hi && b.hi ? std::max(a.hi, b.hi) : std::nullopt};
}

Z3_decl_kind kind(const z3::expr& e) {
  return e.is_app() ? e.decl().decl_kind() : Z3_OP_UNINTERPRETED;
}

bool is_int_constant(const z3::expr& e) {
  return e.is_app() && e.is_const() && e.is_int() &&
         kind(e) == Z3_OP_UNINTERPRETED;
}

// `lhs op rhs` of integers as `difference <= 0`, and also `>= 0` for an
// equality.
struct Comparison {
  z3::expr difference;  // lhs - rhs, plus one for a strict comparison
  bool equality;
};

std::optional<Comparison> comparison(const z3::expr& e, bool negated) {
  if (!e.is_app()) return std::nullopt;  // a quantifier
  Z3_decl_kind k = kind(e);
  if (e.num_args() != 2 || !e.arg(0).is_int()) return std::nullopt;
  const z3::expr a = e.arg(0), b = e.arg(1);
  const z3::expr one = e.ctx().int_val(1);
  if (negated) {  // ¬(a <= b) is a > b, ...
    switch (k) {
      case Z3_OP_LE:
        k = Z3_OP_GT;
        break;
      case Z3_OP_LT:
        k = Z3_OP_GE;
        break;
      case Z3_OP_GE:
        k = Z3_OP_LT;
        break;
      case Z3_OP_GT:
        k = Z3_OP_LE;
        break;
      default:
        return std::nullopt;  // ¬(a = b) bounds nothing
    }
  }
  switch (k) {
    case Z3_OP_LE:
      return Comparison{a - b, false};
    case Z3_OP_LT:
      return Comparison{a - b + one, false};
    case Z3_OP_GE:
      return Comparison{b - a, false};
    case Z3_OP_GT:
      return Comparison{b - a + one, false};
    case Z3_OP_EQ:
      return Comparison{a - b, true};
    default:
      return std::nullopt;
  }
}

}  // namespace

// `Σ coefficient * constant + constant + opaque`, the opaque part the
// interval of the `ite` terms whose condition the intervals do not decide.
// `ok` is false after an overflow or on a term that is not linear (a
// product of two variables): the form then means nothing.
struct IntervalBounds::LinearForm {
  std::map<unsigned, std::pair<z3::expr, int64_t>> vars;  // by id
  int64_t constant = 0;
  Interval opaque{0, 0};
  bool ok = true;

  void add_var(const z3::expr& v, int64_t c) {
    auto [it, fresh] = vars.try_emplace(v.id(), v, 0);
    if (__builtin_add_overflow(it->second.second, c, &it->second.second))
      ok = false;
    if (it->second.second == 0) vars.erase(it);
  }
  void add_constant(int64_t c) {
    if (__builtin_add_overflow(constant, c, &constant)) ok = false;
  }
  // `this + k * other`.
  void add_scaled(const LinearForm& other, int64_t k) {
    int64_t p = 0;
    for (const auto& [id, term] : other.vars) {
      if (__builtin_mul_overflow(term.second, k, &p)) ok = false;
      add_var(term.first, p);
    }
    if (__builtin_mul_overflow(other.constant, k, &p)) ok = false;
    add_constant(p);
    opaque = sum(opaque, scaled(other.opaque, k));
    ok = ok && other.ok;
  }
};

// By term id: a linear form read without an `ite` (whose condition the
// intervals decide) depends on the term alone. The facts of a loop nest are
// learned again by every query context in it, and every quotient's
// numerator is read at each use; cleared when full.
class IntervalBounds::LinearForms {
 public:
  struct Entry {
    z3::expr term;  // kept alive: its id stays its own
    LinearForm form;
  };
  static constexpr size_t kLimit = 1 << 16;
  std::unordered_map<unsigned, Entry> by_id;
};

std::shared_ptr<IntervalBounds::LinearForms>
IntervalBounds::new_linear_forms() {
  return std::make_shared<LinearForms>();
}

IntervalBounds::IntervalBounds(const std::vector<z3::expr>& facts,
                               const Quotients& quotients,
                               std::shared_ptr<LinearForms> forms)
    : quotients_(quotients), forms_(std::move(forms)) {
  extend(facts, 0);
}

IntervalBounds::IntervalBounds(const IntervalBounds&) = default;

IntervalBounds::~IntervalBounds() = default;

void IntervalBounds::extend(const std::vector<z3::expr>& facts, size_t from) {
  for (size_t k = from; k < facts.size(); ++k) learn(facts[k]);
  // A second round: a bound may follow from another learned after it
  // (`j < i` before `i < 8`).
  for (const LinearForm& g : at_most_zero_facts_) narrow_by(g);
}

IntervalBounds::LinearForm IntervalBounds::linear(const z3::expr& term) {
  if (forms_) {
    auto it = forms_->by_id.find(term.id());
    if (it != forms_->by_id.end()) return it->second.form;
  }
  const bool outer_read_ite = read_ite_;
  read_ite_ = false;
  LinearForm f;
  add_linear(f, term, 1);
  if (forms_ && !read_ite_) {
    if (forms_->by_id.size() >= LinearForms::kLimit) forms_->by_id.clear();
    forms_->by_id.emplace(term.id(), LinearForms::Entry{term, f});
  }
  read_ite_ = read_ite_ || outer_read_ite;
  return f;
}

void IntervalBounds::add_linear(LinearForm& f, const z3::expr& e,
                                int64_t scale) {
  int64_t v = 0;
  if (e.is_numeral_i64(v)) {
    int64_t p = 0;
    if (__builtin_mul_overflow(v, scale, &p)) f.ok = false;
    f.add_constant(p);
    return;
  }
  switch (kind(e)) {
    case Z3_OP_ADD:
      for (unsigned i = 0; i < e.num_args(); ++i)
        add_linear(f, e.arg(i), scale);
      return;
    case Z3_OP_SUB:
      add_linear(f, e.arg(0), scale);
      for (unsigned i = 1; i < e.num_args(); ++i)
        add_linear(f, e.arg(i), -scale);
      return;
    case Z3_OP_UMINUS:
      add_linear(f, e.arg(0), -scale);
      return;
    case Z3_OP_MUL: {
      // Numeral factors times at most one other term: linear.
      int64_t c = scale;
      std::optional<z3::expr> rest;
      bool linear = true;
      for (unsigned i = 0; i < e.num_args() && linear; ++i) {
        int64_t k = 0;
        if (e.arg(i).is_numeral_i64(k)) {
          linear = !__builtin_mul_overflow(c, k, &c);
        } else if (rest) {
          linear = false;
        } else {
          rest = e.arg(i);
        }
      }
      if (linear && rest) {
        add_linear(f, *rest, c);
        return;
      }
      if (linear) {
        f.add_constant(c);
        return;
      }
      break;
    }
    case Z3_OP_ITE: {
      read_ite_ = true;
      // Deciding the condition may need the range of a quotient whose
      // numerator holds this `ite` (`n - m % 3` after `if n < 3: m = 2`,
      // under a fact that holds the quotient): asked again while it is
      // being decided, the condition is left undecided, or the recursion
      // would not end.
      std::optional<bool> c;
      if (deciding_.insert(e.arg(0).id()).second) {
        c = decide(e.arg(0));
        deciding_.erase(e.arg(0).id());
      }
      if (c) {
        add_linear(f, e.arg(*c ? 1 : 2), scale);
        return;
      }
      f.opaque =
          sum(f.opaque, scaled(hull(range(e.arg(1)), range(e.arg(2))), scale));
      return;
    }
    default:
      if (is_int_constant(e)) {
        f.add_var(e, scale);
        return;
      }
      break;
  }
  f.ok = false;  // not an integer term the intervals can follow
}

Interval IntervalBounds::range(const z3::expr& term) {
  return range(linear(term));
}

Interval IntervalBounds::range(LinearForm f) {
  if (!f.ok) return {};
  // A quotient q of `a / c` beside `t * a`: `t * a = t * c * q + t * r`
  // with the remainder r in [0, c - 1], so that `a - c * q` (how `a % c`
  // is encoded) has the interval of the remainder, not of `a` and `q`
  // taken apart.
  for (auto it = f.vars.begin(); it != f.vars.end();) {
    auto q = quotients_.find(it->first);
    if (q == quotients_.end()) {
      ++it;
      continue;
    }
    const auto& [numerator, c] = q->second;
    const LinearForm a = linear(numerator);
    int64_t t = 0;
    bool matches =
        a.ok && !a.vars.empty() && a.opaque.lo == 0 && a.opaque.hi == 0;
    for (const auto& [id, term] : a.vars) {
      if (!matches) break;
      auto in_f = f.vars.find(id);
      matches = in_f != f.vars.end() &&
                in_f->second.second % term.second == 0 &&
                (t == 0 || in_f->second.second / term.second == t);
      if (matches) t = in_f->second.second / term.second;
    }
    if (!matches || t == 0) {
      ++it;
      continue;
    }
    LinearForm remainder;
    remainder.add_var(it->second.first, c);
    remainder.opaque = Interval{0, c - 1};
    f.add_scaled(a, -t);
    f.add_scaled(remainder, t);
    if (!f.ok) return {};
    it = f.vars.begin();  // the map changed; a matched quotient is gone
  }
  Interval r = sum(Interval{f.constant, f.constant}, f.opaque);
  for (const auto& [id, term] : f.vars)
    r = sum(r, scaled(bound(id), term.second));
  return r;
}

Interval IntervalBounds::bound(unsigned id) {
  Interval x;
  if (auto b = bounds_.find(id); b != bounds_.end()) x = b->second;
  if (auto q = quotients_.find(id); q != quotients_.end()) {
    const Interval a = range(q->second.first);
    const int64_t d = q->second.second;
    x = intersect(x,
                  Interval{a.lo ? Bound(floor_div(*a.lo, d)) : std::nullopt,
                           a.hi ? Bound(floor_div(*a.hi, d)) : std::nullopt});
  }
  return x;
}

void IntervalBounds::learn(const z3::expr& fact) {
  if (kind(fact) == Z3_OP_AND) {
    for (unsigned i = 0; i < fact.num_args(); ++i) learn(fact.arg(i));
    return;
  }
  const bool negated = kind(fact) == Z3_OP_NOT;
  const std::optional<Comparison> c =
      comparison(negated ? fact.arg(0) : fact, negated);
  if (!c) return;
  LinearForm g = linear(c->difference);
  if (!g.ok) return;
  if (c->equality) {
    LinearForm minus;
    minus.add_scaled(g, -1);
    if (!minus.ok) return;
    at_most_zero_facts_.push_back(minus);
    narrow_by(minus);
  }
  at_most_zero_facts_.push_back(g);
  narrow_by(g);
}

// From `G <= 0`: each constant x of G with coefficient a has
// a * x <= -min(G - a * x).
void IntervalBounds::narrow_by(const LinearForm& g) {
  for (const auto& [id, term] : g.vars) {
    const int64_t a = term.second;
    Interval rest = sum(Interval{g.constant, g.constant}, g.opaque);
    for (const auto& [other, other_term] : g.vars)
      if (other != id)
        rest = sum(rest, scaled(bound(other), other_term.second));
    if (!rest.lo || *rest.lo == INT64_MIN || a == INT64_MIN) continue;
    const int64_t limit = -*rest.lo;
    Interval& b = bounds_[id];
    if (a > 0)
      b = intersect(b, Interval{std::nullopt, floor_div(limit, a)});
    else
      b = intersect(b, Interval{-floor_div(limit, -a), std::nullopt});
  }
}

// `F <= 0` from the intervals, or from `F - k * G` for a fact `G <= 0` and
// k > 0 that cancels a variable (F <= F - k * G, as k * G <= 0): inside
// `for io in seq(0, n)`, `8 * io + i < 8 * n` is `8 * io + i - 8 * n + 1 <=
// 0`, and minus 8 times `io - n + 1 <= 0` leaves `i - 7 <= 0`. Likewise
// `F > 0` from `F + k * G`.
std::optional<bool> IntervalBounds::at_most_zero(const z3::expr& difference) {
  const LinearForm f = linear(difference);
  if (!f.ok) return std::nullopt;
  const Interval r = range(f);
  if (r.hi && *r.hi <= 0) return true;
  if (r.lo && *r.lo > 0) return false;
  for (const LinearForm& g : at_most_zero_facts_) {
    for (const auto& [id, term] : g.vars) {
      auto in_f = f.vars.find(id);
      if (in_f == f.vars.end() || in_f->second.second % term.second != 0)
        continue;
      const int64_t k = in_f->second.second / term.second;
      LinearForm combined = f;
      combined.add_scaled(g, -k);
      const Interval c = range(combined);
      if (k > 0 && c.hi && *c.hi <= 0) return true;
      if (k < 0 && c.lo && *c.lo > 0) return false;
    }
  }
  return std::nullopt;
}

std::optional<bool> IntervalBounds::decide(const z3::expr& formula) {
  if (!formula.is_app()) return std::nullopt;  // a quantifier
  switch (kind(formula)) {
    case Z3_OP_TRUE:
      return true;
    case Z3_OP_FALSE:
      return false;
    case Z3_OP_NOT: {
      const std::optional<bool> a = decide(formula.arg(0));
      if (a) return !*a;
      return std::nullopt;
    }
    case Z3_OP_AND:
    case Z3_OP_OR: {
      const bool is_and = kind(formula) == Z3_OP_AND;
      bool all = true;
      for (unsigned i = 0; i < formula.num_args(); ++i) {
        const std::optional<bool> a = decide(formula.arg(i));
        if (a && *a != is_and) return !is_and;  // decides the whole
        all = all && a.has_value();
      }
      if (all) return is_and;
      return std::nullopt;
    }
    case Z3_OP_IMPLIES: {
      const std::optional<bool> a = decide(formula.arg(0));
      if (a && !*a) return true;
      const std::optional<bool> b = decide(formula.arg(1));
      if (b && *b) return true;
      if (a && b) return false;
      return std::nullopt;
    }
    default:
      break;
  }
  if (formula.num_args() != 2) return std::nullopt;
  if (formula.arg(0).is_bool()) {  // `=` or `distinct` of booleans
    const std::optional<bool> a = decide(formula.arg(0));
    const std::optional<bool> b = decide(formula.arg(1));
    if (!a || !b) return std::nullopt;
    if (kind(formula) == Z3_OP_EQ) return *a == *b;
    if (kind(formula) == Z3_OP_DISTINCT) return *a != *b;
    return std::nullopt;
  }
  const bool distinct = kind(formula) == Z3_OP_DISTINCT;
  const std::optional<Comparison> c = comparison(
      distinct ? (formula.arg(0) == formula.arg(1)) : formula, false);
  if (!c) return std::nullopt;
  std::optional<bool> answer = at_most_zero(c->difference);
  if (c->equality && answer != false) {  // d = 0 is d <= 0 and -d <= 0
    const std::optional<bool> at_least = at_most_zero(-c->difference);
    if (at_least == false || answer == true) answer = at_least;
  }
  if (answer && distinct) answer = !*answer;
  return answer;
}

}  // namespace exo2
