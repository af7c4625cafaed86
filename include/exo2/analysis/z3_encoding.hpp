// Encoding of control expressions into Z3, and queries over a context of
// facts. Shared by the definition-time bounds check and the effect checker of
// the scheduling primitives.
//
// What is encoded (docs/writing-kernels.md, "Types" and "What the object
// language means"):
// - `size`, `index`, `int` and `stride` values are Z3 integers; `bool`
//   values are Z3 booleans. A variable is one Z3 constant per `Sym`, unless
//   the caller bound the symbol to another term (`bind`).
// - `+`, `-`, unary `-`, `*` (one side constant after typechecking),
//   comparisons, `and`, `or`.
// - `a / c` and `a % c` with a positive literal `c` (floor semantics): a fresh
//   integer `q` with the definition `c*q <= a < c*q + c`; `a / c` is `q` and
//   `a % c` is `a - c*q`. The definition is added to every query that
//   mentions `q`, so the encoding stays linear.
// - `stride(x, d)`: one integer per (buffer, dimension), or the term the
//   caller bound with `bind_stride` (dense tensors have known strides).
// - `Cfg.field` of a control type: one constant per (config, field), or the
//   term bound with `bind_config` after a write.
//
// Facts (`assume`) and bindings are scoped by `push`/`pop`. A query checks one
// formula against all facts in scope, with a timeout; results are cached
// process-wide by the text of the complete formula, so the cache never
// depends on the state of one encoder.
#pragma once

#include <z3++.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

class IntervalBounds;

// The answer of one query.
struct QueryResult {
  enum class Answer {
    Yes,      // proven (prove) / satisfiable (satisfiable)
    No,       // refuted / unsatisfiable
    TimedOut  // the solver gave up (timeout or incompleteness)
  };
  Answer answer = Answer::TimedOut;
  // A witness when one exists: the counterexample of a refuted `prove`, the
  // model of a satisfiable `satisfiable`. Maps Z3 constant names to values
  // printed as integers (`-3`) or booleans (`true`).
  std::map<std::string, std::string> model;
  // Why the solver gave up: "timeout", "incomplete (theory arithmetic)", ...
  std::string reason_unknown;

  bool yes() const { return answer == Answer::Yes; }
  bool no() const { return answer == Answer::No; }
  bool timed_out() const { return answer == Answer::TimedOut; }
};

// A term shown in a counterexample under a user-facing name (`n`, `i`).
struct NamedTerm {
  std::string name;
  z3::expr term;
};

class SmtEncoder {
 public:
  static constexpr unsigned kDefaultTimeoutMs = 5000;

  explicit SmtEncoder(unsigned timeout_ms = kDefaultTimeoutMs);
  SmtEncoder(const SmtEncoder&) = delete;
  SmtEncoder& operator=(const SmtEncoder&) = delete;
  ~SmtEncoder();

  z3::context& context() { return ctx_; }
  unsigned timeout_ms() const { return timeout_ms_; }
  void set_timeout_ms(unsigned ms) { timeout_ms_ = ms; }

  // ---- Terms ---------------------------------------------------------------
  z3::expr int_value(int64_t v);
  z3::expr bool_value(bool v);
  // The term of a control variable: its binding, or its own constant (a
  // boolean when `is_bool`).
  z3::expr var(const Sym& s, bool is_bool = false);
  // The term of `stride(buffer, dim)`.
  z3::expr stride(const Sym& buffer, int dim);
  // The current term of a control config field.
  z3::expr config_field(const Config& config, const std::string& field);
  // A new unconstrained integer / boolean (named after `hint`).
  z3::expr fresh_int(const std::string& hint);
  z3::expr fresh_bool(const std::string& hint);

  // Scoped bindings: later encodings use `value` for the variable / stride /
  // field until the enclosing scope is popped.
  void bind(const Sym& s, const z3::expr& value);
  void bind_stride(const Sym& buffer, int dim, const z3::expr& value);
  void bind_config(const Config& config, const std::string& field,
                   const z3::expr& value);

  // Encodes a typed control expression. Throws std::invalid_argument for
  // expressions outside the encoded fragment (data values, tensors).
  z3::expr encode(const Expr& e);
  // Whether `encode(e)` succeeds, without encoding.
  static bool is_encodable(const Expr& e);

  // ---- Context of facts --------------------------------------------------
  void push();
  void pop();
  void assume(const z3::expr& fact);
  void assume(const Expr& fact) { assume(encode(fact)); }
  const std::vector<z3::expr>& facts() const { return facts_; }

  // ---- Queries -----------------------------------------------------------
  // Yes when the facts imply `goal` for every value of the free variables;
  // No with a counterexample otherwise.
  QueryResult prove(const z3::expr& goal);
  // Whether the facts imply `goal`: `prove(goal).yes()` without the
  // counterexample, which a refutation would take a second solver call
  // to find (`simplify` and `decide` ask thousands).
  bool proves(const z3::expr& goal);
  // Yes with a model when the facts and `formula` can hold together.
  QueryResult satisfiable(const z3::expr& formula);
  // Whether `formula` is `c == e` (either way round) for a constant `c`
  // (a variable, stride or field) that neither `e`, the facts nor the
  // definitions they need mention. Every model of the facts then extends to one
  // of the facts and `formula` (`c` takes `e`'s value): when the facts are
  // satisfiable, so is `formula` with them, and no query need say so.
  bool defines_free_constant(const z3::expr& formula);
  // The value of `formula` when the intervals of its variables decide it
  // (interval_bounds.hpp): a query the solver need not answer.
  std::optional<bool> interval_value(const z3::expr& formula);
  // Whether queries try the intervals first (on by default; tests compare
  // their answers with the solver's).
  void use_intervals(bool on) { use_intervals_ = on; }

  // The value of `term` in the witness of `r` (unconstrained constants are
  // 0), or nullopt when it does not reduce to a literal.
  std::optional<std::string> value_in(const QueryResult& r,
                                      const z3::expr& term);
  // Exo's counterexample text: ` n = 4, i = 4` (each item ` name = value`,
  // joined by commas), then the config fields and strides the witness
  // gives a value (` Cfg.k = 9`, ` stride(x, 0) = 3`). Terms without a
  // value are left out.
  std::string counterexample(const QueryResult& r,
                             const std::vector<NamedTerm>& terms);

  // The process-wide query cache (tests use these).
  static size_t cache_size();
  static size_t cache_hits();
  static void clear_cache();
  // Queries asked since the last reset, however answered (benchmarks
  // compare it with cache_hits and interval_answers).
  static size_t queries_checked();
  // Queries the variables' intervals answered, without the solver
  // (interval_bounds.hpp).
  static size_t interval_answers();
  // Zeroes the three counters, keeping the cached answers.
  static void reset_counters();

 private:
  // Encodes one expression, one override per kind (z3_encoding.cpp).
  friend class ExprEncoding;

  // The formula checked for a query: facts, div/mod definitions of the
  // fresh variables it mentions, and `extra`.
  z3::expr query_formula(const z3::expr& extra);
  // Appends to `parts` the div/mod definitions of the fresh variables they
  // mention, transitively; returns every constant mentioned, theirs too.
  std::vector<z3::expr> add_definitions(z3::expr_vector& parts);
  // The solver's answer on `formula`; a model of a satisfiable one when
  // `with_model`.
  QueryResult check(const z3::expr& formula, bool with_model = true);
  // The value of `formula` the intervals of the facts' variables give, when
  // they decide it and are used at all.
  std::optional<bool> decided_by_intervals(const z3::expr& formula);
  // The intervals of all the facts (`bounds_`'s last, learned if need be).
  IntervalBounds& bounds();
  static QueryResult quick_answer(QueryResult::Answer answer);
  std::string fresh_name(const std::string& hint);

  // A map whose updates are undone by `pop`.
  template <class K, class Hash = std::hash<K>>
  class ScopedMap {
   public:
    const z3::expr* find(const K& k) const;
    void set(const K& k, const z3::expr& v);
    size_t mark() const { return undo_.size(); }
    void undo_to(size_t mark);

   private:
    std::unordered_map<K, z3::expr, Hash> map_;
    std::vector<std::pair<K, std::optional<z3::expr>>> undo_;
  };
  struct StrideKeyHash {
    size_t operator()(const std::pair<Sym, int>& k) const;
  };
  struct ConfigKeyHash {
    size_t operator()(const std::pair<const Config*, std::string>& k) const;
  };
  struct Scope {
    size_t facts, vars, strides, configs;
  };

  // One Z3 context for the whole process: creating a context costs about
  // 10 ms, more than all the queries of a typical kernel. Encoders are used
  // from one thread at a time (Python calls hold the GIL).
  static z3::context& shared_context();

  z3::context& ctx_;
  unsigned timeout_ms_;
  bool use_intervals_ = true;
  int fresh_counter_ = 0;
  std::vector<z3::expr> facts_;
  std::vector<Scope> scopes_;
  // The intervals of the first `facts` facts (and of the first
  // `bounds_quotients_` quotients), for ever more facts: each a copy of the
  // one before, extended. The queries of one scope (simplify's of every
  // index in a loop body) share the last; a scope entered learns only its
  // own facts, and `pop` drops the intervals of the facts it removes.
  struct LearnedBounds {
    size_t facts;
    std::unique_ptr<IntervalBounds> bounds;
  };
  std::vector<LearnedBounds> bounds_;
  size_t bounds_quotients_ = 0;
  ScopedMap<Sym> var_bindings_;
  ScopedMap<std::pair<Sym, int>, StrideKeyHash> stride_bindings_;
  ScopedMap<std::pair<const Config*, std::string>, ConfigKeyHash>
      config_bindings_;
  // Unbound variables, strides and fields keep one constant each.
  std::unordered_map<Sym, z3::expr> var_consts_;
  std::map<std::pair<Sym, int>, z3::expr> stride_consts_;
  std::map<std::pair<const Config*, std::string>, z3::expr> config_consts_;
  // Fresh quotient variables of `/` and `%`: keyed by "<numerator>/<c>";
  // `definitions_` maps the quotient's name to its defining formula.
  std::unordered_map<std::string, z3::expr> quotients_;
  std::unordered_map<std::string, z3::expr> definitions_;
  // By the quotient's id: its numerator and divisor.
  std::unordered_map<unsigned, std::pair<z3::expr, int64_t>> quotient_parts_;
};

}  // namespace exo2
