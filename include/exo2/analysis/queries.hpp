// The safety conditions of the scheduling primitives
// (docs/reference/primitives.md, "Safety conditions"), decided by Z3 over the
// effects of effects.hpp.
//
// A query runs in a QueryContext: the facts that hold where the rewritten
// code sits (size arguments positive, preconditions, ranges of the enclosing
// loops, conditions of the enclosing ifs) and the window statements in scope
// there. Every query answers proven, refuted (with a counterexample and, for
// conflicts between accesses, the two accesses), or timed out; a primitive
// treats anything but proven as failure. Queries go through SmtEncoder, so
// answers are cached process-wide by formula text.
//
// How a conflict is decided: two accesses of the same location conflict
// when some instance of each (values of their loop iterators within range,
// their guards true, and the relation the query asks between the instances'
// outer iterators) touches the same element. One satisfiability query per
// pair of accesses whose kinds matter.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "exo2/analysis/effects.hpp"
#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2 {

// The statement at a statement path (cursors/location.hpp: Body and Orelse
// steps only); throws std::out_of_range for a path that leads nowhere.
const Stmt& stmt_at(const Proc& p, const cursors::Path& path);

class QueryContext {
 public:
  // The facts of the whole procedure: size arguments are positive and the
  // preconditions hold.
  explicit QueryContext(const Proc& p,
                        unsigned timeout_ms = SmtEncoder::kDefaultTimeoutMs);
  // The facts just before the statement at `at`: also the ranges of the
  // enclosing loops, the conditions of the enclosing ifs (negated in else
  // branches), the values config fields hold there (config_state.hpp), and
  // the window statements in scope.
  QueryContext(const Proc& p, const cursors::Path& at,
               unsigned timeout_ms = SmtEncoder::kDefaultTimeoutMs);
  QueryContext(const QueryContext&) = delete;
  QueryContext& operator=(const QueryContext&) = delete;

  const Proc& proc() const { return proc_; }
  SmtEncoder& encoder() { return encoder_; }
  const WindowEnv& windows() const { return windows_; }
  // Variables shown in counterexamples: control arguments, then enclosing
  // loop iterators (outermost first).
  const std::vector<NamedTerm>& shown_terms() const { return shown_; }

  // Enters a loop / an if branch below the current point (used by walks that
  // keep one context while descending, such as simplify). The config fields
  // `body` writes are unknown at the head of the loop body: earlier
  // iterations may have written them. The bounds and the condition are
  // evaluated with the config values of the current point.
  void enter_loop(const Sym& iter, const Expr& lo, const Expr& hi,
                  const Block& body = {});
  void enter_branch(const Expr& cond, bool holds);
  void add_window(const Sym& name, const WindowExpr& w);
  // Undoes the last enter_* / add_window.
  void leave();
  // Moves the point past `s`, a statement of the current block: the config
  // fields take the values `s` leaves, and a window statement comes into
  // scope. Undone with the enclosing scope by leave().
  void advance_over(const Stmt& s);

 private:
  void assume_if_encodable(const Expr& fact);
  // The window `name = w` in scope from here on; its config reads keep the
  // values they have here.
  void declare_window(const Sym& name, const WindowExpr& w);
  Expr pin_config_reads(const Expr& e);

  Proc proc_;
  SmtEncoder encoder_;
  WindowEnv windows_;
  std::vector<NamedTerm> shown_;
  struct Saved {
    size_t shown;
    WindowEnv windows;
  };
  std::vector<Saved> saved_;
};

// One side of a failed safety condition, for messages such as
// `x[i] written at k.py:14:12`.
struct ReportedAccess {
  std::string location;  // `x`, `Cfg.field`
  std::string text;      // `x[i + 1]`
  AccessKind kind = AccessKind::Read;
  SrcInfo srcinfo;
  std::string str() const;
};

struct SafetyResult {
  enum class Status { Proven, Refuted, TimedOut };
  Status status = Status::Proven;
  // ` i = 0, n = 4` (SmtEncoder::counterexample), when refuted by a model.
  std::string counterexample;
  // The conflicting accesses, when the condition is about accesses.
  std::optional<ReportedAccess> first, second;
  // What failed, in words: `x[i] written at k.py:14:12 conflicts with
  // x[i + 1] read at k.py:15:20 when i = 0, n = 4`, or `the solver timed out
  // after 5000 ms (timeout)`. Empty when proven.
  std::string detail;

  bool proven() const { return status == Status::Proven; }
  bool refuted() const { return status == Status::Refuted; }
  bool timed_out() const { return status == Status::TimedOut; }
};

// ---- Conditions on accesses -----------------------------------------------
// Commute(S1, S2): no location written by one is read or written by the
// other, except that reductions commute with reductions; a buffer allocated
// at the top level of one block may not be used by the other.
SafetyResult prove_commutes(QueryContext& ctx, const Block& first,
                            const Block& second);
// ReorderSafe for `for x: for y: S` (`outer` is a For whose body is one
// For): for (x, y), (x', y') with x < x' and y' < y, S(x, y) commutes with
// S(x', y'); the loop bounds read no config field the body writes.
SafetyResult prove_reorder_safe(QueryContext& ctx, const Stmt& outer);
// FissionSafe for splitting the body of `loop` (a For) before statement
// `split`: for iterations i < j, the first part at j commutes with the
// second part at i; the bounds read no config field either part writes.
SafetyResult prove_fission_safe(QueryContext& ctx, const Stmt& loop,
                                size_t split);
// Fusing two adjacent loops with equal bounds (proven separately with
// prove_equivalent): FissionSafe of the fused loop, whose second part is
// `second`'s body with its iterator renamed to `first`'s.
SafetyResult prove_fusion_safe(QueryContext& ctx, const Stmt& first,
                               const Stmt& second);
// ParallelSafe for `loop`: distinct iterations touch disjoint memory (a
// write or reduction of one overlaps no access of another, reductions
// included); the bounds read no config field the body writes.
SafetyResult prove_parallel_safe(QueryContext& ctx, const Stmt& loop);
// No value flows through `buffer` between iterations of `loop` (a For):
// for iterations i < j, no element written or reduced at i is read or
// reduced at j, unless a write earlier in iteration j, in no if, always
// writes that element first: in the same iteration of the inner loops it
// shares with the read, and in some iteration of its own inner loops (a
// producer nest before a consumer nest; an existential query). For moving
// an allocation into a loop (sink_alloc), where each iteration then gets
// fresh, undefined contents.
SafetyResult prove_no_carried_flow(QueryContext& ctx, const Stmt& loop,
                                   const Sym& buffer);
// Idempotent(S): running S twice in a row leaves the state of running it
// once. Every read (a reduction reads too) of an element that some instance
// of S writes is preceded, on every path of the same run, by a write of
// that element (in the same iteration of the loops of S around both, in no
// if whose condition the encoding drops, at no config value S changed in
// untracked ways); a reduction not so preceded that may run refutes.
// Instances whose guards or loop ranges cannot hold are no instances.
SafetyResult prove_idempotent(QueryContext& ctx, const Block& block);
// DeadAfter(x, s): no statement that may run after the statement at `at`
// (later statements of its blocks and, inside loops, whole loop bodies)
// reads or writes `buffer`, up to the end of `buffer`'s scope.
SafetyResult prove_dead_after(const Proc& p, const cursors::Path& at,
                              const Sym& buffer);
// ElementDeadAfter(x[idx], s): no statement that may run after the
// statement at `at`, up to the end of the buffer's scope, reads or reduces
// the element `element` (a write access in the coordinates of its buffer,
// evaluated where the statement at `at` runs): the later statements of its
// blocks in the same iterations, whole loop bodies in later iterations. The
// caller refuses a buffer the procedure's caller sees (a parameter) itself.
SafetyResult prove_element_dead_after(const Proc& p, const cursors::Path& at,
                                      const Access& element);
// ReduceOnly(x, S): every access to `buffer` in `block` is a reduction.
// A window statement's name stands for the buffer it views: the accesses
// are those of that buffer, through any name.
SafetyResult prove_reduce_only(QueryContext& ctx, const Block& block,
                               const Sym& buffer);
// InBounds(x): every access to `buffer` in `block` lies inside `shape`.
SafetyResult prove_in_bounds(QueryContext& ctx, const Block& block,
                             const Sym& buffer, const std::vector<Expr>& shape);

// ---- Conditions on config state -------------------------------------------
// ReadsUnchanged(exprs, code): expressions evaluated before `code` runs and
// evaluated again after it, or while it runs, in the rewritten code mean the
// same only if `code` writes no config field they read (callees included;
// config_state.hpp). `reader` is the subject of the message, with its verb:
// `the bounds of the loop over i read`. A refutation names the write
// (`first`) and the read (`second`).
SafetyResult prove_config_reads_unchanged(const std::vector<Expr>& exprs,
                                          const Block& code,
                                          const std::string& reader);

// ---- Conditions on control expressions ------------------------------------
// ExprEqv(a, b): equal in every state of the context.
SafetyResult prove_equivalent(QueryContext& ctx, const Expr& a, const Expr& b);
// ExprEqv(a, b) for rewrite_expr, data expressions included: equal in every
// state of the context, data computed in real arithmetic (as Exo proves
// them): each data read is a real value, the same element read twice one
// value; a literal is the double it denotes; an extern call is an uninterpreted
// function of its arguments. IEEE results may still differ (rounding after
// reassociation, the sign of a zero: `a` and `a + 0.0`). Control expressions
// as prove_equivalent.
SafetyResult prove_equivalent_in_reals(QueryContext& ctx, const Expr& a,
                                       const Expr& b);
// Bound(e ⋈ value) for a comparison `op` (`e > 0`, `e >= 0`, ...).
SafetyResult prove_compare(QueryContext& ctx, const Expr& e, BinOpKind op,
                           int64_t value);
// A boolean control condition holds in every state of the context.
SafetyResult prove_holds(QueryContext& ctx, const Expr& cond);
// Divisible(e, q): `e % q == 0`.
SafetyResult prove_divisible(QueryContext& ctx, const Expr& e, int64_t q);
// A window expression lies inside the extents `shape` of the buffer (or
// window) it names: points in [0, n), intervals with 0 <= lo <= hi <= n.
SafetyResult prove_window_in_bounds(QueryContext& ctx, const WindowExpr& w,
                                    const std::vector<Expr>& shape);

// InOrOut(acc, W): whether every instance of `access` lies inside the
// window view `window` of the same buffer, every instance lies outside it,
// or neither can be proven. `window` entries: points, or intervals with
// both bounds in buffer coordinates.
enum class WindowPlacement { Inside, Outside, Neither };
WindowPlacement place_in_window(QueryContext& ctx, const Access& access,
                                const std::vector<WindowAccess>& window);

// Whether a control condition always holds, never holds, or neither (for
// eliminate_dead_code and simplify).
enum class Truth { AlwaysTrue, AlwaysFalse, Unknown };
Truth decide(QueryContext& ctx, const Expr& cond);

// Counters of queries, for benchmarks: queries asked, answers taken from
// the cache, and answers the variables' intervals gave without the solver,
// since the last reset.
struct QueryCounters {
  size_t queries = 0;
  size_t cache_hits = 0;
  size_t interval_answers = 0;
};
QueryCounters query_counters();
void reset_query_counters();

}  // namespace exo2
