#include "exo2/analysis/z3_encoding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

#include "exo2/analysis/interval_bounds.hpp"
#include "exo2/analysis/solver_deadline.hpp"
#include "exo2/core_ir/ir_functor.hpp"

namespace exo2 {

namespace {

// Process-wide cache of query answers, keyed by the complete formula, its
// constants renamed (`renamed_constants`), and the timeout. Z3 shares equal
// terms of one context (hash-consing), so two formulas are equal exactly
// when they are one term, with one id while it lives: the cache keeps each
// formula alive beside its answer. The formula contains every fact, so the
// cache is shared by all encoders (of the one shared context).
struct QueryCache {
  struct Entry {
    z3::expr formula;
    QueryResult result;
    // False for a satisfiable formula answered without its model.
    bool has_model = true;
  };
  struct KeyHash {
    size_t operator()(const std::pair<unsigned, unsigned>& k) const {
      return std::hash<uint64_t>()((uint64_t{k.first} << 32) | k.second);
    }
  };
  std::mutex mutex;
  std::unordered_map<std::pair<unsigned, unsigned>, Entry, KeyHash> results;
  size_t hits = 0;
  size_t checked = 0;
  size_t interval_answers = 0;
};

QueryCache& query_cache() {
  static QueryCache cache;
  return cache;
}

void count_interval_answer() {
  QueryCache& cache = query_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  ++cache.checked;
  ++cache.interval_answers;
}

// The uninterpreted constants of `e` (numerals and operators excluded).
void collect_constants(const z3::expr& e, std::unordered_set<unsigned>& seen,
                       std::vector<z3::expr>& out) {
  if (!seen.insert(e.id()).second) return;
  if (!e.is_app()) return;
  if (e.is_const() && !e.is_numeral() && !e.is_true() && !e.is_false() &&
      e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
    out.push_back(e);
    return;
  }
  for (unsigned i = 0; i < e.num_args(); ++i)
    collect_constants(e.arg(i), seen, out);
}

// A formula whose uninterpreted constants are renamed `q!0`, `q!1`, ... in
// the order a depth-first walk meets them, and their names by index. Whether
// a formula has a model does not depend on its constants' names: the same
// question about the iterators of another variant, or about a loop a rewrite
// gave a new symbol, becomes the same term, which the cache answers once
// (in the level-2 BLAS kernels, half the solver's queries).
struct RenamedFormula {
  z3::expr formula;
  std::vector<std::string> names;

  // `q!k` back to the name it stands for.
  std::string original(const std::string& name) const {
    if (name.rfind("q!", 0) != 0) return name;
    const size_t k = std::stoul(name.substr(2));
    return k < names.size() ? names[k] : name;
  }
};

RenamedFormula renamed_constants(const z3::expr& formula) {
  std::unordered_set<unsigned> seen;
  std::vector<z3::expr> constants;
  collect_constants(formula, seen, constants);
  z3::context& ctx = formula.ctx();
  z3::expr_vector from(ctx), to(ctx);
  std::vector<std::string> names;
  for (size_t k = 0; k < constants.size(); ++k) {
    from.push_back(constants[k]);
    to.push_back(
        ctx.constant(fmt::format("q!{}", k).c_str(), constants[k].get_sort()));
    names.push_back(constants[k].decl().name().str());
  }
  // Every constant is replaced at once: none keeps a name `q!k` could clash
  // with.
  return {z3::expr(formula).substitute(from, to), std::move(names)};
}

// Whether `formula` has a model, by one incremental solver for the process
// (unknown when it gives up): each query between a push and a pop, so that
// what the solver builds for the theory (the constants `q!k` of renamed
// formulas recur) is kept; about twice as fast as a one-shot solver.
// Whether a formula has a model does not depend on what the solver answered
// before; its models would, which is why a model is asked of a one-shot
// solver.
z3::check_result check_incrementally(const z3::expr& formula,
                                     unsigned timeout_ms) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  // Leaked with the context it belongs to (shared_context).
  static auto* solver = new z3::solver(formula.ctx());
  solver->push();
  try {
    solver->add(formula);
    const z3::check_result r = check_within(*solver, timeout_ms).result;
    solver->pop();
    return r;
  } catch (...) {
    // nothing of this query may stay for the next
    solver->reset();
    throw;
  }
}

std::string numeral_text(const z3::expr& v) {
  if (v.is_true()) return "true";
  if (v.is_false()) return "false";
  int64_t i = 0;
  if (v.is_numeral_i64(i)) return std::to_string(i);
  if (v.is_numeral()) return Z3_get_numeral_string(v.ctx(), v);
  return v.to_string();
}

int64_t positive_divisor(const Expr& e) {
  if (e->kind != ExprKind::Const || !e->as<Const>().is_int() ||
      e->as<Const>().int_value() <= 0)
    throw std::invalid_argument(
        "z3 encoding: `/` and `%` need a positive integer literal divisor");
  return e->as<Const>().int_value();
}

}  // namespace

// ---- ScopedMap
// ---------------------------------------------------------------

template <class K, class Hash>
const z3::expr* SmtEncoder::ScopedMap<K, Hash>::find(const K& k) const {
  auto it = map_.find(k);
  return it == map_.end() ? nullptr : &it->second;
}

template <class K, class Hash>
void SmtEncoder::ScopedMap<K, Hash>::set(const K& k, const z3::expr& v) {
  auto it = map_.find(k);
  if (it == map_.end()) {
    undo_.emplace_back(k, std::nullopt);
    map_.emplace(k, v);
  } else {
    undo_.emplace_back(k, it->second);
    it->second = v;
  }
}

template <class K, class Hash>
void SmtEncoder::ScopedMap<K, Hash>::undo_to(size_t mark) {
  while (undo_.size() > mark) {
    auto& [k, old] = undo_.back();
    if (old) {
      map_.find(k)->second = *old;
    } else {
      map_.erase(k);
    }
    undo_.pop_back();
  }
}

size_t SmtEncoder::StrideKeyHash::operator()(
    const std::pair<Sym, int>& k) const {
  return std::hash<Sym>()(k.first) * 31 + static_cast<size_t>(k.second);
}

size_t SmtEncoder::ConfigKeyHash::operator()(
    const std::pair<const Config*, std::string>& k) const {
  return std::hash<const void*>()(k.first) ^ std::hash<std::string>()(k.second);
}

// ---- Terms
// -------------------------------------------------------------------

z3::context& SmtEncoder::shared_context() {
  // Leaked on purpose: Z3 objects of other static caches may outlive it.
  static auto* context = new z3::context();
  return *context;
}

namespace {

// The linear forms the intervals read, for every encoder (all share the
// context); leaked with the context, whose terms it holds.
const std::shared_ptr<IntervalBounds::LinearForms>& shared_linear_forms() {
  static auto* forms = new std::shared_ptr<IntervalBounds::LinearForms>(
      IntervalBounds::new_linear_forms());
  return *forms;
}

}  // namespace

SmtEncoder::SmtEncoder(unsigned timeout_ms)
    : ctx_(shared_context()), timeout_ms_(timeout_ms) {}

SmtEncoder::~SmtEncoder() = default;

z3::expr SmtEncoder::int_value(int64_t v) { return ctx_.int_val(v); }
z3::expr SmtEncoder::bool_value(bool v) { return ctx_.bool_val(v); }

std::string SmtEncoder::fresh_name(const std::string& hint) {
  // `!` never occurs in the names of symbols, so fresh names cannot clash
  // with variables.
  return fmt::format("{}!{}", hint, fresh_counter_++);
}

z3::expr SmtEncoder::fresh_int(const std::string& hint) {
  return ctx_.int_const(fresh_name(hint).c_str());
}

z3::expr SmtEncoder::fresh_bool(const std::string& hint) {
  return ctx_.bool_const(fresh_name(hint).c_str());
}

z3::expr SmtEncoder::var(const Sym& s, bool is_bool) {
  if (const z3::expr* bound = var_bindings_.find(s)) return *bound;
  auto it = var_consts_.find(s);
  if (it != var_consts_.end()) return it->second;
  // `name_id` is unique: the id is the last `_` segment and has no `_`.
  const std::string name = fmt::format("{}_{}", s.name(), s.id());
  z3::expr c =
      is_bool ? ctx_.bool_const(name.c_str()) : ctx_.int_const(name.c_str());
  var_consts_.emplace(s, c);
  return c;
}

z3::expr SmtEncoder::stride(const Sym& buffer, int dim) {
  if (const z3::expr* bound = stride_bindings_.find({buffer, dim}))
    return *bound;
  auto it = stride_consts_.find({buffer, dim});
  if (it != stride_consts_.end()) return it->second;
  const std::string name =
      fmt::format("stride!{}_{}!{}", buffer.name(), buffer.id(), dim);
  z3::expr c = ctx_.int_const(name.c_str());
  stride_consts_.emplace(std::make_pair(buffer, dim), c);
  return c;
}

z3::expr SmtEncoder::config_field(const Config& config,
                                  const std::string& field) {
  const auto key = std::make_pair(&config, field);
  if (const z3::expr* bound = config_bindings_.find(key)) return *bound;
  auto it = config_consts_.find(key);
  if (it != config_consts_.end()) return it->second;
  const bool is_bool = config.has_field(field) &&
                       config.lookup_type(field).kind() == TypeKind::Bool;
  const std::string name = fresh_name(config.name() + "." + field);
  z3::expr c =
      is_bool ? ctx_.bool_const(name.c_str()) : ctx_.int_const(name.c_str());
  config_consts_.emplace(key, c);
  return c;
}

void SmtEncoder::bind(const Sym& s, const z3::expr& value) {
  var_bindings_.set(s, value);
}

void SmtEncoder::bind_stride(const Sym& buffer, int dim,
                             const z3::expr& value) {
  stride_bindings_.set({buffer, dim}, value);
  // Terms encoded before the binding (a config field written with
  // `stride(x, 0)`, read later) hold the free constant: it is that value.
  auto it = stride_consts_.find({buffer, dim});
  if (it != stride_consts_.end()) assume(it->second == value);
}

void SmtEncoder::bind_config(const Config& config, const std::string& field,
                             const z3::expr& value) {
  config_bindings_.set({&config, field}, value);
}

// ---- Encoding
// ----------------------------------------------------------------

namespace {

// Whether an expression is in the encoded fragment: control values, with
// `/` and `%` by positive integer literals.
class Encodable final : public ExprFunctor<bool()> {
 protected:
  bool visit_read(const Expr& e) override {
    return e->as<Read>().idx.empty() && e->type.is_control();
  }
  bool visit_const(const Expr& e) override {
    return !e->as<Const>().is_float() && !e->type.is_numeric();
  }
  bool visit_usub(const Expr& e) override { return visit(e->as<USub>().arg); }
  bool visit_binop(const Expr& e) override {
    const auto& b = e->as<BinOp>();
    if ((b.op == BinOpKind::Div || b.op == BinOpKind::Mod) &&
        (b.rhs->kind != ExprKind::Const || !b.rhs->as<Const>().is_int() ||
         b.rhs->as<Const>().int_value() <= 0))
      return false;
    return visit(b.lhs) && visit(b.rhs);
  }
  bool visit_stride_expr(const Expr&) override { return true; }
  bool visit_read_config(const Expr& e) override {
    return e->type.is_control();
  }
  // Extern calls and windows.
  bool visit_expr_default(const Expr&) override { return false; }
};

}  // namespace

bool SmtEncoder::is_encodable(const Expr& e) {
  return e && Encodable().visit(e);
}

class ExprEncoding final : public ExprFunctor<z3::expr()> {
 public:
  explicit ExprEncoding(SmtEncoder& enc) : enc_(enc) {}

 protected:
  z3::expr visit_read(const Expr& e) override {
    const auto& r = e->as<Read>();
    if (!r.idx.empty() || !e->type.is_control())
      throw std::invalid_argument("z3 encoding: `" + r.name.name() +
                                  "` is not a control value");
    return enc_.var(r.name, e->type.is_bool());
  }
  z3::expr visit_const(const Expr& e) override {
    const auto& c = e->as<Const>();
    if (c.is_bool()) return enc_.bool_value(std::get<bool>(c.value));
    if (c.is_int() && !e->type.is_numeric())
      return enc_.int_value(c.int_value());
    throw std::invalid_argument("z3 encoding: data literal");
  }
  z3::expr visit_usub(const Expr& e) override {
    return -visit(e->as<USub>().arg);
  }
  z3::expr visit_binop(const Expr& e) override {
    const auto& b = e->as<BinOp>();
    if (b.op == BinOpKind::Div || b.op == BinOpKind::Mod) {
      const int64_t c = positive_divisor(b.rhs);
      z3::expr a = visit(b.lhs);
      // The numerator by its term id, not its text (printing it cost more
      // than the rest of the encoding); `quotient_parts_` keeps it alive.
      const std::string key = fmt::format("{}/{}", a.id(), c);
      auto it = enc_.quotients_.find(key);
      if (it == enc_.quotients_.end()) {
        z3::expr q = enc_.fresh_int("div");
        z3::expr cv = enc_.int_value(c);
        enc_.definitions_.emplace(q.decl().name().str(),
                                  cv * q <= a && a < cv * q + cv);
        enc_.quotient_parts_.emplace(q.id(), std::make_pair(a, c));
        it = enc_.quotients_.emplace(key, q).first;
      }
      const z3::expr& q = it->second;
      if (b.op == BinOpKind::Div) return q;
      return a - enc_.int_value(c) * q;
    }
    z3::expr l = visit(b.lhs);
    z3::expr r = visit(b.rhs);
    switch (b.op) {
      case BinOpKind::Add:
        return l + r;
      case BinOpKind::Sub:
        return l - r;
      case BinOpKind::Mul:
        return l * r;
      case BinOpKind::Lt:
        return l < r;
      case BinOpKind::Gt:
        return l > r;
      case BinOpKind::Le:
        return l <= r;
      case BinOpKind::Ge:
        return l >= r;
      case BinOpKind::Eq:
        return l == r;
      case BinOpKind::And:
        return l && r;
      case BinOpKind::Or:
        return l || r;
      case BinOpKind::Div:
      case BinOpKind::Mod:
        break;
    }
    throw std::invalid_argument("z3 encoding: unknown operator");
  }
  z3::expr visit_stride_expr(const Expr& e) override {
    const auto& s = e->as<StrideExpr>();
    return enc_.stride(s.name, s.dim);
  }
  z3::expr visit_read_config(const Expr& e) override {
    const auto& c = e->as<ReadConfig>();
    if (!e->type.is_control())
      throw std::invalid_argument("z3 encoding: data config field");
    return enc_.config_field(*c.config, c.field);
  }
  // Extern calls and windows.
  z3::expr visit_expr_default(const Expr&) override {
    throw std::invalid_argument("z3 encoding: not a control expression");
  }

 private:
  SmtEncoder& enc_;
};

z3::expr SmtEncoder::encode(const Expr& e) {
  if (!e) throw std::invalid_argument("z3 encoding: null expression");
  return ExprEncoding(*this).visit(e);
}

// ---- Facts
// -------------------------------------------------------------------

void SmtEncoder::push() {
  scopes_.push_back(Scope{facts_.size(), var_bindings_.mark(),
                          stride_bindings_.mark(), config_bindings_.mark()});
}

void SmtEncoder::pop() {
  if (scopes_.empty()) throw std::logic_error("SmtEncoder::pop without push");
  const Scope s = scopes_.back();
  scopes_.pop_back();
  facts_.erase(facts_.begin() + static_cast<std::ptrdiff_t>(s.facts),
               facts_.end());
  while (!bounds_.empty() && bounds_.back().facts > facts_.size())
    bounds_.pop_back();
  var_bindings_.undo_to(s.vars);
  stride_bindings_.undo_to(s.strides);
  config_bindings_.undo_to(s.configs);
}

void SmtEncoder::assume(const z3::expr& fact) { facts_.push_back(fact); }

// ---- Queries
// -----------------------------------------------------------------

std::vector<z3::expr> SmtEncoder::add_definitions(z3::expr_vector& parts) {
  std::unordered_set<unsigned> seen;
  std::unordered_set<std::string> defined;
  std::vector<z3::expr> constants;
  for (unsigned i = 0; i < parts.size(); ++i)
    collect_constants(parts[i], seen, constants);
  // A definition may mention other quotients: the loop reaches theirs too.
  for (size_t i = 0; i < constants.size(); ++i) {
    const std::string name = constants[i].decl().name().str();
    auto def = definitions_.find(name);
    if (def == definitions_.end() || !defined.insert(name).second) continue;
    parts.push_back(def->second);
    collect_constants(def->second, seen, constants);
  }
  return constants;
}

z3::expr SmtEncoder::query_formula(const z3::expr& extra) {
  z3::expr_vector parts(ctx_);
  for (const auto& f : facts_) parts.push_back(f);
  parts.push_back(extra);
  add_definitions(parts);
  return z3::mk_and(parts);
}

bool SmtEncoder::defines_free_constant(const z3::expr& formula) {
  if (!formula.is_app() || formula.decl().decl_kind() != Z3_OP_EQ ||
      formula.num_args() != 2)
    return false;
  for (unsigned side = 0; side < 2; ++side) {
    const z3::expr c = formula.arg(side);
    if (!c.is_const() || c.is_numeral() ||
        c.decl().decl_kind() != Z3_OP_UNINTERPRETED ||
        definitions_.count(c.decl().name().str()) != 0)
      continue;
    z3::expr_vector rest(ctx_);
    for (const auto& f : facts_) rest.push_back(f);
    rest.push_back(formula.arg(1 - side));
    bool mentioned = false;
    for (const auto& k : add_definitions(rest)) mentioned |= z3::eq(k, c);
    if (!mentioned) return true;
  }
  return false;
}

QueryResult SmtEncoder::check(const z3::expr& formula, bool with_model) {
  const RenamedFormula renamed = renamed_constants(formula);
  // The answer, its model in the caller's names.
  auto answer = [&](QueryResult result) {
    std::map<std::string, std::string> model;
    for (auto& [name, value] : result.model)
      model.emplace(renamed.original(name), std::move(value));
    result.model = std::move(model);
    return result;
  };
  const std::pair<unsigned, unsigned> key{renamed.formula.id(), timeout_ms_};
  QueryCache& cache = query_cache();
  // A cached answer without its model (of a satisfiable formula) is asked
  // again only for the model.
  bool known_satisfiable = false;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    ++cache.checked;
    auto it = cache.results.find(key);
    if (it != cache.results.end() && (it->second.has_model || !with_model)) {
      ++cache.hits;
      return answer(it->second.result);
    }
    known_satisfiable = it != cache.results.end();
  }
  // Most formulas have no model (a safety condition proven, two accesses
  // that do not meet): the incremental solver says so. A model is asked of
  // the one-shot solver, as is a formula the incremental one gives up on.
  if (!known_satisfiable) {
    const z3::check_result r =
        check_incrementally(renamed.formula, timeout_ms_);
    if (r == z3::unsat || (r == z3::sat && !with_model)) {
      QueryResult result;
      result.answer =
          r == z3::sat ? QueryResult::Answer::Yes : QueryResult::Answer::No;
      std::lock_guard<std::mutex> lock(cache.mutex);
      cache.results.emplace(
          key, QueryCache::Entry{renamed.formula, result, r != z3::sat});
      return result;
    }
  }
  // A one-shot solver built from the `smt` tactic: about 30 times faster to
  // create than the default incremental solver, and its answers do not
  // depend on earlier queries (stable counterexamples). The deadline's
  // interrupt cancels the whole tactic, preprocessing included.
  z3::solver solver = z3::tactic(ctx_, "smt").mk_solver();
  solver.add(renamed.formula);
  QueryResult result;
  const DeadlineCheck checked = check_within(solver, timeout_ms_);
  switch (checked.result) {
    case z3::sat: {
      result.answer = QueryResult::Answer::Yes;
      z3::model m = solver.get_model();
      for (unsigned i = 0; i < m.num_consts(); ++i) {
        z3::func_decl d = m.get_const_decl(i);
        result.model.emplace(d.name().str(),
                             numeral_text(m.get_const_interp(d)));
      }
      break;
    }
    case z3::unsat:
      result.answer = QueryResult::Answer::No;
      break;
    case z3::unknown:
      result.answer = QueryResult::Answer::TimedOut;
      result.reason_unknown =
          checked.timed_out ? "timeout" : solver.reason_unknown();
      break;
  }
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.results.insert_or_assign(key,
                                 QueryCache::Entry{renamed.formula, result});
  return answer(std::move(result));
}

IntervalBounds& SmtEncoder::bounds() {
  // What the intervals learn depends on the facts and on the quotients
  // known (a quotient's interval is its numerator's divided): a new
  // quotient means learning again; new facts are learned on top.
  if (bounds_quotients_ != quotient_parts_.size()) {
    bounds_.clear();
    bounds_quotients_ = quotient_parts_.size();
  }
  if (bounds_.empty()) {
    bounds_.push_back(
        {facts_.size(), std::make_unique<IntervalBounds>(
                            facts_, quotient_parts_, shared_linear_forms())});
  } else if (bounds_.back().facts < facts_.size()) {
    auto more = std::make_unique<IntervalBounds>(*bounds_.back().bounds);
    more->extend(facts_, bounds_.back().facts);
    bounds_.push_back({facts_.size(), std::move(more)});
  }
  return *bounds_.back().bounds;
}

std::optional<bool> SmtEncoder::decided_by_intervals(const z3::expr& formula) {
  if (!use_intervals_) return std::nullopt;
  return bounds().decide(formula);
}

std::optional<bool> SmtEncoder::interval_value(const z3::expr& formula) {
  std::optional<bool> v = decided_by_intervals(formula);
  if (v) count_interval_answer();
  return v;
}

QueryResult SmtEncoder::prove(const z3::expr& goal) {
  // A goal the variables' intervals prove needs no solver; a refutation
  // does, for its counterexample.
  if (decided_by_intervals(goal) == true)
    return quick_answer(QueryResult::Answer::Yes);
  // The facts imply `goal` exactly when facts ∧ ¬goal has no model.
  QueryResult r = check(query_formula(!goal));
  switch (r.answer) {
    case QueryResult::Answer::Yes:
      r.answer = QueryResult::Answer::No;
      break;
    case QueryResult::Answer::No:
      r.answer = QueryResult::Answer::Yes;
      break;
    case QueryResult::Answer::TimedOut:
      break;
  }
  return r;
}

bool SmtEncoder::proves(const z3::expr& goal) {
  if (decided_by_intervals(goal) == true) {
    count_interval_answer();
    return true;
  }
  return check(query_formula(!goal), /*with_model=*/false).no();
}

QueryResult SmtEncoder::satisfiable(const z3::expr& formula) {
  if (decided_by_intervals(formula) == false)
    return quick_answer(QueryResult::Answer::No);
  // A model of the facts and `formula` also satisfies the comparisons that
  // `formula` conjoins at its top (the ranges of the fresh iterators of an
  // access instance): the intervals may use them as facts. When `formula`
  // is then false for every value in the intervals, it has no model.
  if (use_intervals_) {
    IntervalBounds with_formula(bounds());
    with_formula.extend({formula}, 0);
    if (with_formula.decide(formula) == false)
      return quick_answer(QueryResult::Answer::No);
  }
  return check(query_formula(formula));
}

std::optional<std::string> SmtEncoder::value_in(const QueryResult& r,
                                                const z3::expr& term) {
  std::unordered_set<unsigned> seen;
  std::vector<z3::expr> constants;
  collect_constants(term, seen, constants);
  z3::expr_vector from(ctx_), to(ctx_);
  for (const auto& c : constants) {
    auto it = r.model.find(c.decl().name().str());
    from.push_back(c);
    if (c.is_bool()) {
      to.push_back(bool_value(it != r.model.end() && it->second == "true"));
    } else {
      to.push_back(
          ctx_.int_val(it == r.model.end() ? "0" : it->second.c_str()));
    }
  }
  z3::expr v = z3::expr(term).substitute(from, to).simplify();
  if (!v.is_numeral() && !v.is_true() && !v.is_false()) return std::nullopt;
  return numeral_text(v);
}

std::string SmtEncoder::counterexample(const QueryResult& r,
                                       const std::vector<NamedTerm>& terms) {
  std::string text;
  auto item = [&](const std::string& name, const std::string& value) {
    if (!text.empty()) text += ",";
    text += fmt::format(" {} = {}", name, value);
  };
  for (const auto& t : terms)
    if (std::optional<std::string> v = value_in(r, t.term)) item(t.name, *v);
  // Config fields and strides the formula mentions: the failure may depend
  // on nothing else (a kernel without integer arguments or loops).
  std::vector<std::pair<std::string, std::string>> more;
  auto add_if_in_model = [&](const std::string& name, const z3::expr& c) {
    auto it = r.model.find(c.decl().name().str());
    if (it != r.model.end()) more.emplace_back(name, it->second);
  };
  for (const auto& [key, c] : config_consts_)
    add_if_in_model(key.first->name() + "." + key.second, c);
  for (const auto& [key, c] : stride_consts_)
    add_if_in_model(fmt::format("stride({}, {})", key.first.name(), key.second),
                    c);
  std::sort(more.begin(), more.end());
  for (const auto& [name, value] : more) item(name, value);
  return text;
}

size_t SmtEncoder::cache_size() {
  QueryCache& cache = query_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.results.size();
}

size_t SmtEncoder::cache_hits() {
  QueryCache& cache = query_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.hits;
}

void SmtEncoder::clear_cache() {
  QueryCache& cache = query_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.results.clear();
  cache.hits = 0;
}

QueryResult SmtEncoder::quick_answer(QueryResult::Answer answer) {
  count_interval_answer();
  QueryResult r;
  r.answer = answer;
  return r;
}

size_t SmtEncoder::interval_answers() {
  QueryCache& cache = query_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.interval_answers;
}

size_t SmtEncoder::queries_checked() {
  QueryCache& cache = query_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.checked;
}

void SmtEncoder::reset_counters() {
  QueryCache& cache = query_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.hits = 0;
  cache.checked = 0;
  cache.interval_answers = 0;
}

}  // namespace exo2
