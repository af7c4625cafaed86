#include "exo2/analysis/existential_substitution.hpp"

namespace exo2 {

namespace {

bool mentions(const z3::expr& e, const z3::expr& w) {
  if (z3::eq(e, w)) return true;
  if (!e.is_app()) return true;  // a quantifier: not looked into
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (mentions(e.arg(i), w)) return true;
  return false;
}

std::optional<int64_t> checked_sum(std::optional<int64_t> a,
                                   std::optional<int64_t> b, int64_t sign) {
  int64_t r = 0;
  if (!a || !b || __builtin_mul_overflow(*b, sign, &r) ||
      __builtin_add_overflow(*a, r, &r))
    return std::nullopt;
  return r;
}

}  // namespace

std::optional<int64_t> coefficient_of(const z3::expr& e, const z3::expr& w) {
  if (z3::eq(e, w)) return 1;
  if (!mentions(e, w)) return 0;
  if (!e.is_app()) return std::nullopt;
  switch (e.decl().decl_kind()) {
    case Z3_OP_ADD:
    case Z3_OP_SUB: {
      std::optional<int64_t> c = coefficient_of(e.arg(0), w);
      const int64_t sign = e.decl().decl_kind() == Z3_OP_ADD ? 1 : -1;
      for (unsigned i = 1; i < e.num_args(); ++i)
        c = checked_sum(c, coefficient_of(e.arg(i), w), sign);
      return c;
    }
    case Z3_OP_UMINUS:
      return checked_sum(0, coefficient_of(e.arg(0), w), -1);
    case Z3_OP_MUL: {
      // Numerals times one term mentioning `w`.
      int64_t factor = 1;
      std::optional<int64_t> c;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        int64_t k = 0;
        if (e.arg(i).is_numeral_i64(k)) {
          if (__builtin_mul_overflow(factor, k, &factor)) return std::nullopt;
        } else if (c || !(c = coefficient_of(e.arg(i), w))) {
          return std::nullopt;
        }
      }
      int64_t r = 0;
      if (!c || __builtin_mul_overflow(*c, factor, &r)) return std::nullopt;
      return r;
    }
    default:
      return std::nullopt;
  }
}

z3::expr exists_with_equations(
    const std::vector<z3::expr>& vars, z3::expr body,
    std::vector<std::pair<z3::expr, z3::expr>> equations) {
  z3::context& ctx = body.ctx();
  std::vector<z3::expr> kept;
  for (const z3::expr& w : vars) {
    std::optional<size_t> by;
    int64_t c = 0;
    for (size_t k = 0; k < equations.size() && !by; ++k) {
      const std::optional<int64_t> ck = coefficient_of(equations[k].first, w);
      if ((ck == 1 || ck == -1) && !mentions(equations[k].second, w)) {
        by = k;
        c = *ck;
      }
    }
    if (!by) {
      kept.push_back(w);
      continue;
    }
    // lhs = c * w + rest, so lhs = rhs gives w = c * (rhs - rest).
    z3::expr_vector from(ctx), zero(ctx), to(ctx);
    from.push_back(w);
    zero.push_back(ctx.int_val(0));
    const auto [lhs, rhs] = equations[*by];
    const z3::expr rest = z3::expr(lhs).substitute(from, zero);
    to.push_back(ctx.int_val(c) * (rhs - rest));
    equations.erase(equations.begin() + static_cast<std::ptrdiff_t>(*by));
    body = body.substitute(from, to);
    for (auto& [l, r] : equations) {
      l = l.substitute(from, to);
      r = r.substitute(from, to);
    }
  }
  z3::expr_vector parts(ctx);
  parts.push_back(body);
  for (const auto& [l, r] : equations) parts.push_back(l == r);
  z3::expr all = z3::mk_and(parts);
  if (kept.empty()) return all;
  z3::expr_vector bound(ctx);
  for (const z3::expr& w : kept) bound.push_back(w);
  return z3::exists(bound, all);
}

}  // namespace exo2
