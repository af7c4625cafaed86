#include "exo2/analysis/queries.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/existential_substitution.hpp"
#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/core_ir/symbol_table.hpp"
#include "statement_steps.hpp"

namespace exo2 {

// ---- Locating statements and building contexts ----------------------------

namespace {

// Statement list `child` of `s` (0: the body, 1: an if's else branch).
const Block& child_block_of(const Stmt& s, int child) {
  if (const Block* b = child_block(s, child)) return *b;
  throw std::out_of_range("stmt_at: statement has no such child block");
}

const Stmt& stmt_in(const Block& b, int index) {
  if (index < 0 || static_cast<size_t>(index) >= b.size())
    throw std::out_of_range("stmt_at: statement index out of range");
  return b[static_cast<size_t>(index)];
}

}  // namespace

const Stmt& stmt_at(const Proc& p, const cursors::Path& path) {
  const StatementSteps steps = statement_steps(path);
  const Block* block = &p->body;
  for (const auto& [index, child] : steps.enclosing)
    block = &child_block_of(stmt_in(*block, index), child);
  return stmt_in(*block, steps.index);
}

QueryContext::QueryContext(const Proc& p, unsigned timeout_ms)
    : proc_(p), encoder_(timeout_ms) {
  for (const FnArg& a : p->args) {
    if (!a.type.is_indexable()) continue;
    z3::expr v = encoder_.var(a.name);
    shown_.push_back(NamedTerm{a.name.name(), v});
    if (a.type.kind() == TypeKind::Size) encoder_.assume(v > 0);
  }
  for (const Expr& pred : p->preds) assume_if_encodable(pred);
}

QueryContext::QueryContext(const Proc& p, const cursors::Path& path,
                           unsigned timeout_ms)
    : QueryContext(p, timeout_ms) {
  const StatementSteps at = statement_steps(path);
  const Block* block = &p->body;
  auto advance_to = [&](int index) {
    for (int k = 0; k < index && static_cast<size_t>(k) < block->size(); ++k)
      advance_over((*block)[static_cast<size_t>(k)]);
  };
  for (const auto& [index, child] : at.enclosing) {
    advance_to(index);
    const Stmt& s = stmt_in(*block, index);
    if (s->kind == StmtKind::For) {
      const auto& f = s->as<For>();
      enter_loop(f.iter, f.lo, f.hi, f.body);
    } else if (s->kind == StmtKind::If) {
      enter_branch(s->as<If>().cond, child == 0);
    }
    block = &child_block_of(s, child);
  }
  advance_to(at.index);
  // The walk's scopes stay entered for the life of this context.
  saved_.clear();
}

void QueryContext::assume_if_encodable(const Expr& fact) {
  if (SmtEncoder::is_encodable(fact) && fact->type.is_bool())
    encoder_.assume(encoder_.encode(fact));
}

void QueryContext::enter_loop(const Sym& iter, const Expr& lo, const Expr& hi,
                              const Block& body) {
  saved_.push_back(Saved{shown_.size(), windows_});
  encoder_.push();
  z3::expr i = encoder_.var(iter);
  if (SmtEncoder::is_encodable(lo)) encoder_.assume(encoder_.encode(lo) <= i);
  if (SmtEncoder::is_encodable(hi)) encoder_.assume(i < encoder_.encode(hi));
  shown_.push_back(NamedTerm{iter.name(), i});
  forget_config_values(encoder_, config_fields_written(body));
}

void QueryContext::enter_branch(const Expr& cond, bool holds) {
  saved_.push_back(Saved{shown_.size(), windows_});
  encoder_.push();
  if (SmtEncoder::is_encodable(cond) && cond->type.is_bool()) {
    z3::expr c = encoder_.encode(cond);
    encoder_.assume(holds ? c : !c);
  }
}

void QueryContext::add_window(const Sym& name, const WindowExpr& w) {
  saved_.push_back(Saved{shown_.size(), windows_});
  encoder_.push();
  declare_window(name, w);
}

void QueryContext::advance_over(const Stmt& s) {
  if (s->kind == StmtKind::WindowStmt) {
    const auto& w = s->as<WindowStmt>();
    if (w.rhs->kind == ExprKind::WindowExpr)
      declare_window(w.name, w.rhs->as<WindowExpr>());
  }
  advance_config_state(encoder_, *s);
}

void QueryContext::declare_window(const Sym& name, const WindowExpr& w) {
  BufferView view = resolve_window(w, windows_);
  for (WindowAccess& d : view.dims) {
    if (d.lo) d.lo = pin_config_reads(d.lo);
    if (d.hi) d.hi = pin_config_reads(d.hi);
  }
  windows_[name] = std::move(view);
}

// `e` with each control config read replaced by a new variable bound to the
// field's current value, so that later writes of the field leave it alone.
Expr QueryContext::pin_config_reads(const Expr& e) {
  class PinConfigReads : public IRMutator {
   public:
    explicit PinConfigReads(SmtEncoder& enc) : enc_(enc) {}

   protected:
    Expr mutate_read_config(const Expr& e) override {
      const auto& r = e->as<ReadConfig>();
      if (!e->type.is_control()) return e;
      const Sym pinned(r.config->name() + "_" + r.field);
      enc_.bind(pinned, enc_.config_field(*r.config, r.field));
      return make_read(pinned, {}, e->srcinfo, e->type);
    }

   private:
    SmtEncoder& enc_;
  };
  return PinConfigReads(encoder_).mutate(e);
}

void QueryContext::leave() {
  if (saved_.empty()) throw std::logic_error("QueryContext::leave: no scope");
  encoder_.pop();
  shown_.resize(saved_.back().shown, NamedTerm{"", encoder_.int_value(0)});
  windows_ = std::move(saved_.back().windows);
  saved_.pop_back();
}

// ---- Results ----------------------------------------------------------------

std::string ReportedAccess::str() const {
  return fmt::format("{} {} at {}", text, access_kind_participle(kind),
                     srcinfo.str());
}

namespace {

ReportedAccess report(const Access& a) {
  return ReportedAccess{a.location.str(), a.text, a.kind, a.srcinfo};
}

SafetyResult proven() { return SafetyResult{}; }

SafetyResult refuted(std::string detail, std::string counterexample = "") {
  SafetyResult r;
  r.status = SafetyResult::Status::Refuted;
  if (!counterexample.empty()) detail += " when" + counterexample;
  r.detail = std::move(detail);
  r.counterexample = std::move(counterexample);
  return r;
}

SafetyResult timed_out(const SmtEncoder& enc, const QueryResult& q,
                       const std::string& deciding) {
  SafetyResult r;
  r.status = SafetyResult::Status::TimedOut;
  r.detail = fmt::format("the solver timed out after {} ms ({}) deciding {}",
                         enc.timeout_ms(), q.reason_unknown, deciding);
  return r;
}

// A term for an expression outside the encoded fragment: unconstrained, so
// conclusions hold whatever its value.
z3::expr encode_or_fresh(SmtEncoder& enc, const Expr& e) {
  if (SmtEncoder::is_encodable(e)) return enc.encode(e);
  return enc.fresh_int("unknown");
}

// The instances of an access, in terms of the constants bound to the outer
// iterators by the caller: `when` says which values of the fresh constants
// of its own loops make an instance, `idx` is the element it touches.
struct Instance {
  z3::expr when;
  std::vector<z3::expr> idx;
};

using Bindings = std::vector<std::pair<Sym, z3::expr>>;

Instance instantiate(QueryContext& ctx, const Access& a, const Bindings& outer,
                     const std::string& suffix, std::vector<NamedTerm>& shown) {
  SmtEncoder& enc = ctx.encoder();
  enc.push();
  for (const auto& [sym, term] : outer) enc.bind(sym, term);
  for (const Expr& u : a.unknowns) {
    const Sym& sym = u->as<Read>().name;
    enc.bind(sym, u->type.is_bool() ? enc.fresh_bool(sym.name())
                                    : enc.fresh_int(sym.name()));
  }
  z3::expr when = enc.bool_value(true);
  for (const LoopRange& l : a.loops) {
    z3::expr lo = encode_or_fresh(enc, l.lo);
    z3::expr hi = encode_or_fresh(enc, l.hi);
    z3::expr i = enc.fresh_int(l.iter.name());
    enc.bind(l.iter, i);
    when = when && lo <= i && i < hi;
    shown.push_back(NamedTerm{l.iter.name() + suffix, i});
  }
  for (const Guard& g : a.guards) {
    // An unencodable guard is dropped: more instances, never fewer.
    if (!SmtEncoder::is_encodable(g.cond) || !g.cond->type.is_bool()) continue;
    z3::expr c = enc.encode(g.cond);
    when = when && (g.holds ? c : !c);
  }
  Instance inst{when, {}};
  for (const Expr& i : a.idx) inst.idx.push_back(encode_or_fresh(enc, i));
  enc.pop();
  return inst;
}

z3::expr same_element(SmtEncoder& enc, const Instance& a, const Instance& b) {
  z3::expr eq = enc.bool_value(true);
  for (size_t d = 0; d < a.idx.size() && d < b.idx.size(); ++d)
    eq = eq && a.idx[d] == b.idx[d];
  return eq;
}

// Which pairs of access kinds a condition forbids to overlap.
enum class ConflictRule {
  Commute,   // writes with anything; reductions with reads
  Disjoint,  // a write or reduction with anything
  Flow,      // a write or reduction with a later read or reduction
};

bool kinds_conflict(ConflictRule rule, AccessKind a, AccessKind b) {
  using K = AccessKind;
  switch (rule) {
    case ConflictRule::Commute:
      return a == K::Write || b == K::Write ||
             (a == K::Reduce && b == K::Read) ||
             (a == K::Read && b == K::Reduce);
    case ConflictRule::Disjoint:
      return a != K::Read || b != K::Read;
    case ConflictRule::Flow:
      return a != K::Read && b != K::Write;
  }
  return true;
}

// The two sides of a conflict search: accesses, and the constants their
// outer iterators take (shown in counterexamples under `shown`).
struct Side {
  const std::vector<Access>& accesses;
  Bindings outer;
  std::string suffix;
};

// Whether the pair of accesses at these positions of the two sides is
// harmless even where they overlap.
using Excused = std::function<bool(size_t, size_t)>;

// Searches instances of an access of `a` and one of `b` touching the same
// element while `relation` holds. Proven when no pair can (or every pair
// that can is `excused`); otherwise the first refuted pair, or the first
// timeout when nothing was refuted.
SafetyResult find_conflict(QueryContext& ctx, const Side& a, const Side& b,
                           const z3::expr& relation,
                           const std::vector<NamedTerm>& relation_terms,
                           ConflictRule rule, const Excused& excused = {}) {
  SmtEncoder& enc = ctx.encoder();
  std::optional<SafetyResult> first_timeout;
  for (size_t px = 0; px < a.accesses.size(); ++px) {
    const Access& x = a.accesses[px];
    for (size_t py = 0; py < b.accesses.size(); ++py) {
      const Access& y = b.accesses[py];
      if (!x.location.same_as(y.location) ||
          !kinds_conflict(rule, x.kind, y.kind))
        continue;
      std::vector<NamedTerm> shown = ctx.shown_terms();
      shown.insert(shown.end(), relation_terms.begin(), relation_terms.end());
      Instance ix = instantiate(ctx, x, a.outer, a.suffix, shown);
      Instance iy = instantiate(ctx, y, b.outer, b.suffix, shown);
      QueryResult q = enc.satisfiable(relation && ix.when && iy.when &&
                                      same_element(enc, ix, iy));
      const std::string pair =
          fmt::format("{} and {}", report(x).str(), report(y).str());
      if (q.timed_out()) {
        if (!first_timeout)
          first_timeout =
              timed_out(enc, q, "whether " + pair + " touch the same element");
        continue;
      }
      if (q.no() || (excused && excused(px, py))) continue;
      SafetyResult r = refuted(
          fmt::format("{} conflicts with {}", report(x).str(), report(y).str()),
          enc.counterexample(q, shown));
      r.first = report(x);
      r.second = report(y);
      return r;
    }
  }
  if (first_timeout) return *first_timeout;
  return proven();
}

// The first write, among `effects`, of a config field that `exprs` read.
SafetyResult config_reads_unchanged(const std::vector<Expr>& exprs,
                                    const std::vector<Access>& effects,
                                    const std::string& reader) {
  for (const Expr& e : exprs) {
    if (!e) continue;
    for (const ConfigRead& read : config_fields_read(e)) {
      for (const Access& a : effects) {
        if (!a.modifies() || !a.location.same_as(read.field)) continue;
        SafetyResult res = refuted(
            fmt::format("{} {}, which is {} at {}", reader, read.field.str(),
                        access_kind_participle(a.kind), a.srcinfo.str()));
        res.first = report(a);
        res.second = ReportedAccess{read.field.str(), read.field.str(),
                                    AccessKind::Read, read.srcinfo};
        return res;
      }
    }
  }
  return proven();
}

// The bounds of a loop must mean the same before and after the rewrite: no
// config field they read is written by the moved code.
SafetyResult bounds_unaffected(const For& loop,
                               const std::vector<Access>& effects) {
  return config_reads_unchanged(
      {loop.lo, loop.hi}, effects,
      fmt::format("the bounds of the loop over {} read", loop.iter.name()));
}

const For& as_loop(const Stmt& s, const char* query) {
  if (s->kind != StmtKind::For)
    throw std::invalid_argument(std::string(query) + ": expected a loop");
  return s->as<For>();
}

// Two instances of a loop's iterator, named `i` and `i'` in
// counterexamples, with `lo <= first, second < hi`.
struct IteratorPair {
  z3::expr first, second, in_range;
  std::vector<NamedTerm> shown;
};

IteratorPair iterator_pair(QueryContext& ctx, const Sym& iter, const Expr& lo,
                           const Expr& hi) {
  SmtEncoder& enc = ctx.encoder();
  z3::expr l = encode_or_fresh(enc, lo);
  z3::expr h = encode_or_fresh(enc, hi);
  z3::expr i1 = enc.fresh_int(iter.name());
  z3::expr i2 = enc.fresh_int(iter.name());
  return IteratorPair{
      i1,
      i2,
      l <= i1 && i1 < h && l <= i2 && i2 < h,
      {NamedTerm{iter.name(), i1}, NamedTerm{iter.name() + "'", i2}}};
}

// ---- Writes a split loop repeats without effect ----------------------------
//
// Splitting `for k: A; B` runs A at every later iteration j before B at any
// i < j. A conflicting pair (A at j, B at i) is still harmless when what A
// does to the location at j changes nothing B at i sees nor what is left at
// the end (docs/internals/effect-analysis.md, "Repeated writes"):
// - Invariant writes. Every modification A makes of the location is a write
//   whose element, inner loops, guards and value are the same at every
//   iteration (they mention neither k nor a config value the loop changes,
//   and the value reads nothing the loop modifies nor a buffer the loop
//   allocates). A at every iteration then leaves the same values in the
//   same elements, so B at i reads in both orders what A at i wrote. B's own
//   modifications of those elements conflict with A's writes and are
//   excused only when they are invariant writes of the same value.
// - Reloads. A's only modification of X is a copy `X[f] = Y[g]` the same at
//   every iteration, pairing elements one way (instances writing the same X
//   element read the same Y element), and A does not modify Y. B ends with
//   the store `Y[g'] = X[f']` of every pair (one way too), after which it
//   modifies neither X nor Y. Then X[f] == Y[g] for every pair wherever A
//   at j can be moved to (after A at j - 1, or after B at some i), so the
//   copy is a no-op there and none of its accesses matter.
// - Shadowed writes. A write of A and one of B of a scalar or config field
//   L (no indices), where neither part reads L (nor reduces into it) and B
//   writes L unconditionally: at its top level, in no if and no inner loop.
//   B at the last iteration runs after every A and every other B in both
//   orders, and writes L there, so L ends with what that run of B leaves
//   in it; that depends on no value of L, only on other locations, whose
//   pairs are checked as usual. Nobody reads the values L holds in
//   between. (A write of B in an if or an inner loop may not run at the
//   last iteration, and A's write at a later iteration would be the last.)

struct SplitPart {
  const std::vector<Access>& accesses;
  Sym iter;
};

// Whether `e` reads `sym`, as a value, a buffer, a window or a stride.
bool mentions_symbol(const Expr& e, const Sym& sym) {
  class Mentions : public IRVisitor {
   public:
    explicit Mentions(const Sym& sym) : sym_(sym) {}
    bool found = false;

   protected:
    void visit_read(const Read& e) override {
      if (!note(e.name)) IRVisitor::visit_read(e);
    }
    void visit_window_expr(const WindowExpr& e) override {
      if (!note(e.name)) IRVisitor::visit_window_expr(e);
    }
    void visit_stride_expr(const StrideExpr& e) override { note(e.name); }

   private:
    const Sym& sym_;
    bool note(const Sym& name) {
      if (name != sym_) return false;
      found = true;
      stop();
      return true;
    }
  } mentions(sym);
  mentions.visit(e);
  return mentions.found;
}

// Whether the instances of `a` (element, inner loops, guards) are the same
// at every iteration of the loop over `iter`.
bool same_every_iteration(const Access& a, const Sym& iter) {
  if (!a.unknowns.empty()) return false;
  for (const Expr& i : a.idx)
    if (mentions_symbol(i, iter)) return false;
  for (const LoopRange& l : a.loops)
    if (mentions_symbol(l.lo, iter) || mentions_symbol(l.hi, iter))
      return false;
  for (const Guard& g : a.guards)
    if (mentions_symbol(g.cond, iter)) return false;
  return true;
}

class RepeatedWrites {
 public:
  RepeatedWrites(QueryContext& ctx, const For& loop, SplitPart a, SplitPart b)
      : ctx_(ctx), loop_(loop), a_(a), b_(b) {}

  // Whether the conflict of A's access `pa` with B's access `pb` is
  // harmless (positions in the two parts' accesses).
  bool excuses(size_t pa, size_t pb) {
    const Access& x = a_.accesses[pa];
    const Access& y = b_.accesses[pb];
    if (x.kind == AccessKind::Write && only_invariant_writes(x.location)) {
      if (y.kind == AccessKind::Read) return true;
      if (invariant_write(b_, pb) && same_value(x, y)) return true;
    }
    if (y.value_of >= 0 && overwritten_store(static_cast<size_t>(y.value_of)))
      return true;
    if (x.kind == AccessKind::Write && y.kind == AccessKind::Write &&
        x.idx.empty() && y.idx.empty() && shadowed_by_b(x.location))
      return true;
    return is_reload(x.value_of >= 0 ? static_cast<size_t>(x.value_of) : pa);
  }

 private:
  bool modifies(const SplitPart& part, const Location& l) const {
    for (const Access& m : part.accesses)
      if (m.modifies() && m.location.same_as(l)) return true;
    return false;
  }

  template <typename F>
  bool all_value_reads(const SplitPart& part, size_t w, F&& ok) const {
    for (const Access& r : part.accesses)
      if (r.value_of == static_cast<int>(w) && !ok(r)) return false;
    return true;
  }

  // The write at `w` of `part` stores the same value in the same elements
  // at every iteration.
  bool invariant_write(const SplitPart& part, size_t w) const {
    const Access& x = part.accesses[w];
    if (x.kind != AccessKind::Write || !x.value ||
        mentions_symbol(x.value, part.iter) ||
        !same_every_iteration(x, part.iter))
      return false;
    return all_value_reads(part, w, [&](const Access& r) {
      return same_every_iteration(r, part.iter) && !modifies(a_, r.location) &&
             !modifies(b_, r.location);
    });
  }

  // The write at `w` of B stores into the same elements at every iteration,
  // and A and B read none of them nor A writes them: what B at i stores is
  // overwritten by B at i + 1 before anything reads it, in either order, so
  // the value it reads does not matter (B at the last iteration runs after
  // every A in both orders).
  bool overwritten_store(size_t w) const {
    const Access& store = b_.accesses[w];
    if (store.kind != AccessKind::Write ||
        !same_every_iteration(store, b_.iter))
      return false;
    for (const Access& m : a_.accesses)
      if (m.location.same_as(store.location)) return false;
    for (const Access& r : b_.accesses)
      if (r.kind != AccessKind::Write && r.location.same_as(store.location))
        return false;
    return true;
  }

  // B writes the scalar or config field `l` at every iteration, after
  // everything A does, and no access of A or B reads `l` (a reduction reads
  // it too): the last write of `l` is B's at the last iteration in both
  // orders (a write in an if or an inner loop may not run there).
  bool shadowed_by_b(const Location& l) const {
    for (const SplitPart* part : {&a_, &b_})
      for (const Access& m : part->accesses)
        if (m.location.same_as(l) && m.kind != AccessKind::Write) return false;
    for (const Access& w : b_.accesses)
      if (w.kind == AccessKind::Write && w.location.same_as(l) &&
          w.idx.empty() && w.loops.empty() && w.guards.empty() &&
          w.unknowns.empty())
        return true;
    return false;
  }

  bool only_invariant_writes(const Location& l) const {
    for (size_t k = 0; k < a_.accesses.size(); ++k) {
      const Access& m = a_.accesses[k];
      if (m.modifies() && m.location.same_as(l) && !invariant_write(a_, k))
        return false;
    }
    return true;
  }

  // Equal values, naming no iterator of the loops around either write (whose
  // instances may differ where the writes meet).
  static bool same_value(const Access& x, const Access& y) {
    if (!x.value || !y.value || !equal(x.value, y.value)) return false;
    for (const Access* w : {&x, &y})
      for (const LoopRange& l : w->loops)
        if (mentions_symbol(x.value, l.iter)) return false;
    return true;
  }

  // The position of the one read of the value of the write at `w` when that
  // value is a plain read of another location (a copy `X[f] = Y[g]`).
  static std::optional<size_t> copied_from(const SplitPart& part, size_t w) {
    const Access& x = part.accesses[w];
    if (x.kind != AccessKind::Write || !x.value ||
        (x.value->kind != ExprKind::Read &&
         x.value->kind != ExprKind::ReadConfig))
      return std::nullopt;
    std::optional<size_t> from;
    for (size_t k = 0; k < part.accesses.size(); ++k) {
      if (part.accesses[k].value_of != static_cast<int>(w)) continue;
      if (from) return std::nullopt;
      from = k;
    }
    if (!from || part.accesses[*from].location.same_as(x.location))
      return std::nullopt;
    return from;
  }

  // The copy as one access whose indices are the destination's then the
  // source's (one instance gives both elements).
  static Access copy_pair(const Access& to, const Access& from) {
    Access pair = to;
    pair.idx.insert(pair.idx.end(), from.idx.begin(), from.idx.end());
    return pair;
  }

  // An iteration of the split loop: a constant and its range.
  std::pair<z3::expr, z3::expr> iteration() {
    SmtEncoder& enc = ctx_.encoder();
    z3::expr k = enc.fresh_int(loop_.iter.name());
    return {k, encode_or_fresh(enc, loop_.lo) <= k &&
                   k < encode_or_fresh(enc, loop_.hi)};
  }

  // Instances of the copy `pair` (destination indices first, `n_to` of them)
  // that write the same destination element read the same source element.
  bool one_way(const Access& pair, size_t n_to, const Sym& iter) {
    SmtEncoder& enc = ctx_.encoder();
    auto [k, in_range] = iteration();
    std::vector<NamedTerm> shown;
    Instance t = instantiate(ctx_, pair, {{iter, k}}, "", shown);
    Instance u = instantiate(ctx_, pair, {{iter, k}}, "'", shown);
    z3::expr same_to = enc.bool_value(true), same_from = enc.bool_value(true);
    for (size_t d = 0; d < t.idx.size(); ++d)
      (d < n_to ? same_to : same_from) =
          (d < n_to ? same_to : same_from) && t.idx[d] == u.idx[d];
    return enc
        .satisfiable(in_range && t.when && u.when && same_to && !same_from)
        .no();
  }

  // Every instance of the reload `load` (X[f], Y[g]) is stored back by an
  // instance of `store` (Y[g'], X[f']) in the same iteration.
  bool stores_back(const Access& load, size_t n_x, const Access& store,
                   size_t n_y) {
    SmtEncoder& enc = ctx_.encoder();
    auto [k, in_range] = iteration();
    std::vector<NamedTerm> shown, own;
    Instance t = instantiate(ctx_, load, {{a_.iter, k}}, "", shown);
    Instance s = instantiate(ctx_, store, {{b_.iter, k}}, "'", own);
    const size_t n_load = t.idx.size();
    z3::expr same = s.when;
    for (size_t d = 0; d < n_load - n_x; ++d)
      same = same && s.idx[d] == t.idx[n_x + d];  // Y elements
    for (size_t d = 0; d < n_x; ++d)
      same = same && s.idx[n_y + d] == t.idx[d];  // X elements
    if (!own.empty()) {
      z3::expr_vector vars(enc.context());
      for (const NamedTerm& v : own) vars.push_back(v.term);
      same = z3::exists(vars, same);
    }
    return enc.satisfiable(in_range && t.when && !same).no();
  }

  // Whether B modifies X or Y after an instance of the store at `ps`
  // (`pair`: its Y indices, `n_y` of them, then its X indices) in an element
  // that instance pairs: later in program order, or in a later iteration of
  // a loop around both.
  bool modified_after(size_t ps, const Access& pair, size_t n_y,
                      const Location& x, const Location& y) {
    const Access& store = b_.accesses[ps];
    SmtEncoder& enc = ctx_.encoder();
    for (size_t q = 0; q < b_.accesses.size(); ++q) {
      const Access& m = b_.accesses[q];
      const bool on_y = m.location.same_as(y);
      if (q == ps || !m.modifies() || !(on_y || m.location.same_as(x)))
        continue;
      if (q > ps) return true;
      size_t n_shared = 0;
      while (n_shared < m.loops.size() && n_shared < store.loops.size() &&
             m.loops[n_shared].id == store.loops[n_shared].id)
        n_shared++;
      if (n_shared == 0) continue;
      auto [k, in_range] = iteration();
      std::vector<NamedTerm> loops_m, loops_s;
      Instance im = instantiate(ctx_, m, {{b_.iter, k}}, "", loops_m);
      Instance is = instantiate(ctx_, pair, {{b_.iter, k}}, "'", loops_s);
      // m's instance runs after the store's: its shared iterators are
      // lexicographically greater.
      z3::expr later = enc.bool_value(false), prefix = enc.bool_value(true);
      for (size_t d = 0; d < n_shared; ++d) {
        later = later || (prefix && loops_m[d].term > loops_s[d].term);
        prefix = prefix && loops_m[d].term == loops_s[d].term;
      }
      z3::expr same = enc.bool_value(true);
      for (size_t d = 0; d < im.idx.size(); ++d)
        same = same && im.idx[d] == is.idx[(on_y ? 0 : n_y) + d];
      if (!enc.satisfiable(in_range && im.when && is.when && later && same)
               .no())
        return true;
    }
    return false;
  }

  bool is_reload(size_t w) {
    auto known = reloads_.find(w);
    if (known != reloads_.end()) return known->second;
    return reloads_[w] = check_reload(w);
  }

  bool check_reload(size_t w) {
    const std::optional<size_t> from = copied_from(a_, w);
    if (!from) return false;
    const Access& x = a_.accesses[w];
    const Access& y = a_.accesses[*from];
    if (!same_every_iteration(x, a_.iter) ||
        !same_every_iteration(y, a_.iter) || modifies(a_, y.location))
      return false;
    for (size_t k = 0; k < a_.accesses.size(); ++k)
      if (k != w && a_.accesses[k].modifies() &&
          a_.accesses[k].location.same_as(x.location))
        return false;
    const Access load = copy_pair(x, y);
    if (!one_way(load, x.idx.size(), a_.iter)) return false;
    for (size_t ps = 0; ps < b_.accesses.size(); ++ps) {
      const std::optional<size_t> back = copied_from(b_, ps);
      if (!back) continue;
      const Access& to = b_.accesses[ps];
      const Access& src = b_.accesses[*back];
      if (!to.location.same_as(y.location) ||
          !src.location.same_as(x.location) || !to.unknowns.empty() ||
          !src.unknowns.empty())
        continue;
      const Access store = copy_pair(to, src);
      if (!modified_after(ps, store, to.idx.size(), x.location, y.location) &&
          one_way(store, to.idx.size(), b_.iter) &&
          stores_back(load, x.idx.size(), store, to.idx.size()))
        return true;
    }
    return false;
  }

  QueryContext& ctx_;
  const For& loop_;
  SplitPart a_, b_;
  std::unordered_map<size_t, bool> reloads_;
};

// FissionSafe over a loop `iter_a in [lo, hi)` whose body is `a` then `b`
// (`b` naming the iterator `iter_b`): `a` at j commutes with `b` at i < j.
SafetyResult prove_split_safe(QueryContext& ctx, const For& loop,
                              const Block& a, const Sym& iter_a, const Block& b,
                              const Sym& iter_b) {
  // Both parts run after earlier iterations of either.
  Block both = a;
  both.insert(both.end(), b.begin(), b.end());
  const std::vector<Location> written = config_fields_written(both);
  const std::vector<Access> ea = effects_of(a, ctx.windows(), written);
  const std::vector<Access> eb = effects_of(b, ctx.windows(), written);
  for (const auto* effects : {&ea, &eb}) {
    SafetyResult r = bounds_unaffected(loop, *effects);
    if (!r.proven()) return r;
  }
  IteratorPair it = iterator_pair(ctx, loop.iter, loop.lo, loop.hi);
  // first = i (second part), second = j (first part), i < j.
  Side later{ea, {{iter_a, it.second}}, "'"};
  Side earlier{eb, {{iter_b, it.first}}, ""};
  RepeatedWrites repeated(ctx, loop, SplitPart{ea, iter_a},
                          SplitPart{eb, iter_b});
  return find_conflict(
      ctx, later, earlier, it.in_range && it.first < it.second, it.shown,
      ConflictRule::Commute,
      [&](size_t pa, size_t pb) { return repeated.excuses(pa, pb); });
}

// ---- Reads a write of the same code always precedes ------------------------

// Whether an index, loop bound or guard of `a` divides (`/`, `%`).
bool has_division(const Access& a) {
  class Divides final : public ExprFunctor<bool()> {
   protected:
    bool visit_usub(const Expr& e) override { return visit(e->as<USub>().arg); }
    bool visit_binop(const Expr& e) override {
      const auto& b = e->as<BinOp>();
      return b.op == BinOpKind::Div || b.op == BinOpKind::Mod || visit(b.lhs) ||
             visit(b.rhs);
    }
    bool visit_expr_default(const Expr&) override { return false; }
  } divides;
  for (const Expr& i : a.idx)
    if (divides.visit(i)) return true;
  for (const LoopRange& l : a.loops)
    if (divides.visit(l.lo) || divides.visit(l.hi)) return true;
  for (const Guard& g : a.guards)
    if (divides.visit(g.cond)) return true;
  return false;
}

// Whether `write`, an access before `read` in the program order of the
// accesses of one piece of code, writes the element every instance of
// `read` reads before that instance runs: in the same iteration of the loops
// of the analysed code they share, and in some iteration of the write's own
// inner loops (a producer nest before a consumer nest; an existential
// query). `outer` binds the iterators of enclosing loops outside the
// analysed code, whose ranges `in_range` states. A write whose element,
// loops or guards depend on an unknown config value covers nothing (the
// existential would choose that value), nor one under a guard the encoding
// drops (it would stand for more instances than run). With `allow_guards`
// false a write in an if covers nothing.
bool always_written_before(QueryContext& ctx, const Access& write,
                           const Access& read, const Bindings& outer,
                           z3::expr in_range, bool allow_guards) {
  if (write.kind != AccessKind::Write || !write.unknowns.empty() ||
      write.idx.size() != read.idx.size() ||
      !write.location.same_as(read.location))
    return false;
  if (!allow_guards && !write.guards.empty()) return false;
  for (const Guard& g : write.guards)
    if (!SmtEncoder::is_encodable(g.cond) || !g.cond->type.is_bool())
      return false;
  SmtEncoder& enc = ctx.encoder();
  size_t n_shared = 0;
  while (n_shared < write.loops.size() && n_shared < read.loops.size() &&
         write.loops[n_shared].id == read.loops[n_shared].id)
    n_shared++;
  Bindings shared = outer;
  for (size_t k = 0; k < n_shared; k++) {
    const LoopRange& l = write.loops[k];
    enc.push();
    for (const auto& [sym, term] : shared) enc.bind(sym, term);
    z3::expr lo = encode_or_fresh(enc, l.lo);
    z3::expr hi = encode_or_fresh(enc, l.hi);
    enc.pop();
    z3::expr i = enc.fresh_int(l.iter.name());
    in_range = in_range && lo <= i && i < hi;
    shared.emplace_back(l.iter, i);
  }
  const auto drop_shared = [n_shared](Access a) {
    a.loops.erase(a.loops.begin(),
                  a.loops.begin() + static_cast<std::ptrdiff_t>(n_shared));
    return a;
  };
  std::vector<NamedTerm> shown, own;
  Instance ir = instantiate(ctx, drop_shared(read), shared, "'", shown);
  Instance iw = instantiate(ctx, drop_shared(write), shared, "'", own);
  z3::expr written = iw.when && same_element(enc, ir, iw);
  if (!own.empty()) {
    std::vector<z3::expr> vars;
    for (const NamedTerm& t : own) vars.push_back(t.term);
    // The write's own iterators its indices determine (`blur_x[yi, x]`
    // read at `blur_x[yi' + 2, x]`: yi = yi' + 2) are substituted, not
    // quantified. Not with `/` or `%`, whose quotients are defined outside
    // the quantifier.
    if (has_division(write)) {
      z3::expr_vector bound(enc.context());
      for (const z3::expr& v : vars) bound.push_back(v);
      written = z3::exists(bound, written);
    } else {
      std::vector<std::pair<z3::expr, z3::expr>> equations;
      for (size_t d = 0; d < iw.idx.size(); ++d)
        equations.emplace_back(iw.idx[d], ir.idx[d]);
      written = exists_with_equations(vars, iw.when, std::move(equations));
    }
  }
  return enc.satisfiable(in_range && ir.when && !written).no();
}

}  // namespace

// ---- Conditions on accesses -------------------------------------------------

SafetyResult prove_commutes(QueryContext& ctx, const Block& first,
                            const Block& second) {
  const std::vector<Access> e1 = effects_of(first, ctx.windows());
  const std::vector<Access> e2 = effects_of(second, ctx.windows());
  // A declaration (allocation or window statement) cannot move past a use
  // of what it declares.
  for (const auto& [block, effects] :
       {std::make_pair(&first, &e2), std::make_pair(&second, &e1)}) {
    for (const Stmt& s : *block) {
      const Sym* declared = declared_name(s);
      if (!declared) continue;
      for (const Access& a : *effects) {
        if (a.location.is_config() || a.location.buffer != *declared) continue;
        SafetyResult r = refuted(fmt::format("{} is allocated at {} and {}",
                                             a.location.str(), s->srcinfo.str(),
                                             report(a).str()));
        r.first = report(a);
        return r;
      }
    }
  }
  return find_conflict(ctx, Side{e1, {}, ""}, Side{e2, {}, "'"},
                       ctx.encoder().bool_value(true), {},
                       ConflictRule::Commute);
}

SafetyResult prove_reorder_safe(QueryContext& ctx, const Stmt& outer) {
  const For& x_loop = as_loop(outer, "prove_reorder_safe");
  if (x_loop.body.size() != 1)
    throw std::invalid_argument(
        "prove_reorder_safe: expected a loop whose body is one loop");
  const For& y_loop = as_loop(x_loop.body[0], "prove_reorder_safe");
  const std::vector<Access> body = effects_of(
      y_loop.body, ctx.windows(), config_fields_written(y_loop.body));
  for (const For* loop : {&x_loop, &y_loop}) {
    SafetyResult r = bounds_unaffected(*loop, body);
    if (!r.proven()) return r;
  }
  SmtEncoder& enc = ctx.encoder();
  IteratorPair xs = iterator_pair(ctx, x_loop.iter, x_loop.lo, x_loop.hi);
  // The inner bounds may mention x: encode them for each x instance.
  auto y_pair = [&](const z3::expr& x_value, const std::string& name) {
    enc.push();
    enc.bind(x_loop.iter, x_value);
    z3::expr lo = encode_or_fresh(enc, y_loop.lo);
    z3::expr hi = encode_or_fresh(enc, y_loop.hi);
    enc.pop();
    z3::expr y = enc.fresh_int(y_loop.iter.name());
    return std::make_pair(
        y, std::make_pair(lo <= y && y < hi, NamedTerm{name, y}));
  };
  auto [y1, r1] = y_pair(xs.first, y_loop.iter.name());
  auto [y2, r2] = y_pair(xs.second, y_loop.iter.name() + "'");
  std::vector<NamedTerm> shown = xs.shown;
  shown.push_back(r1.second);
  shown.push_back(r2.second);
  Side a{body, {{x_loop.iter, xs.first}, {y_loop.iter, y1}}, ""};
  Side b{body, {{x_loop.iter, xs.second}, {y_loop.iter, y2}}, "'"};
  return find_conflict(
      ctx, a, b,
      xs.in_range && r1.first && r2.first && xs.first < xs.second && y2 < y1,
      shown, ConflictRule::Commute);
}

SafetyResult prove_fission_safe(QueryContext& ctx, const Stmt& loop,
                                size_t split) {
  const For& f = as_loop(loop, "prove_fission_safe");
  if (split > f.body.size())
    throw std::invalid_argument("prove_fission_safe: split past the body");
  const auto mid = f.body.begin() + static_cast<std::ptrdiff_t>(split);
  return prove_split_safe(ctx, f, Block(f.body.begin(), mid), f.iter,
                          Block(mid, f.body.end()), f.iter);
}

SafetyResult prove_fusion_safe(QueryContext& ctx, const Stmt& first,
                               const Stmt& second) {
  const For& a = as_loop(first, "prove_fusion_safe");
  const For& b = as_loop(second, "prove_fusion_safe");
  SafetyResult r = bounds_unaffected(b, effects_of(a.body, ctx.windows()));
  if (!r.proven()) return r;
  return prove_split_safe(ctx, a, a.body, a.iter, b.body, b.iter);
}

SafetyResult prove_parallel_safe(QueryContext& ctx, const Stmt& loop) {
  const For& f = as_loop(loop, "prove_parallel_safe");
  const std::vector<Access> body =
      effects_of(f.body, ctx.windows(), config_fields_written(f.body));
  SafetyResult r = bounds_unaffected(f, body);
  if (!r.proven()) return r;
  IteratorPair it = iterator_pair(ctx, f.iter, f.lo, f.hi);
  return find_conflict(ctx, Side{body, {{f.iter, it.first}}, ""},
                       Side{body, {{f.iter, it.second}}, "'"},
                       it.in_range && it.first != it.second, it.shown,
                       ConflictRule::Disjoint);
}

SafetyResult prove_no_carried_flow(QueryContext& ctx, const Stmt& loop,
                                   const Sym& buffer) {
  const For& f = as_loop(loop, "prove_no_carried_flow");
  std::vector<Access> accesses;
  for (Access& a :
       effects_of(f.body, ctx.windows(), config_fields_written(f.body)))
    if (!a.location.is_config() && a.location.buffer == buffer)
      accesses.push_back(std::move(a));
  IteratorPair it = iterator_pair(ctx, f.iter, f.lo, f.hi);
  // A read is covered when a write earlier in program order, in no if,
  // always writes the element the read reads first, in the same iteration
  // of the loop and of the inner loops they share: for every instance of
  // the read, some instance of the write's own inner loops (a sibling loop
  // nest that produces what a later nest consumes) writes that element.
  auto covers = [&](const Access& write, const Access& read) {
    return always_written_before(ctx, write, read, {{f.iter, it.second}},
                                 it.in_range, /*allow_guards=*/false);
  };
  std::vector<Access> uncovered;
  for (size_t r = 0; r < accesses.size(); r++) {
    bool covered = accesses[r].kind == AccessKind::Write;
    for (size_t w = 0; w < r && !covered; w++)
      covered = covers(accesses[w], accesses[r]);
    if (!covered) uncovered.push_back(accesses[r]);
  }
  // The earlier iteration i writes, the later iteration i' reads.
  return find_conflict(ctx, Side{accesses, {{f.iter, it.first}}, ""},
                       Side{uncovered, {{f.iter, it.second}}, "'"},
                       it.in_range && it.first < it.second, it.shown,
                       ConflictRule::Flow);
}

SafetyResult prove_idempotent(QueryContext& ctx, const Block& block) {
  // S; S leaves the state of S when every read (a reduction reads too) of
  // an element S may write is preceded, in the same run, by a write of that
  // element: then the second run reads the values the first run read, step
  // by step, so it makes the same writes (docs/internals/effect-analysis.md,
  // "Idempotence"). Conditions are decided on the first run, in the
  // context's state; instances that never run (a statically dead branch)
  // touch nothing.
  const std::vector<Access> effects = effects_of(block, ctx.windows());
  const z3::expr always = ctx.encoder().bool_value(true);
  std::vector<Access> uncovered;
  for (size_t r = 0; r < effects.size(); ++r) {
    if (effects[r].kind == AccessKind::Write) continue;
    bool covered = false;
    for (size_t w = 0; w < r && !covered; ++w)
      covered = always_written_before(ctx, effects[w], effects[r], {}, always,
                                      /*allow_guards=*/true);
    if (!covered) uncovered.push_back(effects[r]);
  }
  for (const Access& a : uncovered) {
    if (a.kind != AccessKind::Reduce) continue;
    // A reduction that runs reads what it added itself the run before.
    const std::vector<Access> one{a};
    SafetyResult r = find_conflict(ctx, Side{one, {}, ""}, Side{one, {}, "'"},
                                   always, {}, ConflictRule::Flow);
    if (r.timed_out()) return r;
    if (!r.refuted()) continue;
    r.detail = report(a).str() + " accumulates when repeated";
    r.second.reset();
    return r;
  }
  // The second run may read what the first wrote.
  return find_conflict(ctx, Side{effects, {}, ""}, Side{uncovered, {}, "'"},
                       always, {}, ConflictRule::Flow);
}

SafetyResult prove_dead_after(const Proc& p, const cursors::Path& path,
                              const Sym& buffer) {
  const StatementSteps at = statement_steps(path);
  // The blocks on the path and the position taken in each.
  std::vector<std::pair<const Block*, int>> levels;
  const Block* block = &p->body;
  for (const auto& [index, child] : at.enclosing) {
    levels.emplace_back(block, index);
    block = &child_block_of(stmt_in(*block, index), child);
  }
  levels.emplace_back(block, at.index);
  stmt_in(*block, at.index);

  auto allocates_up_to = [&](const Block& b, int index) {
    for (int k = 0; k <= index; ++k) {
      const Stmt& s = b[static_cast<size_t>(k)];
      if (s->kind == StmtKind::Alloc && s->as<Alloc>().name == buffer)
        return true;
    }
    return false;
  };
  Block later;
  for (size_t level = levels.size(); level-- > 0;) {
    const auto& [b, index] = levels[level];
    later.insert(later.end(), b->begin() + index + 1, b->end());
    if (allocates_up_to(*b, index)) break;
    // Inside a loop, the whole body runs again in later iterations.
    if (level > 0) {
      const Stmt& parent =
          (*levels[level - 1]
                .first)[static_cast<size_t>(levels[level - 1].second)];
      if (parent->kind == StmtKind::For)
        later.insert(later.end(), b->begin(), b->begin() + index + 1);
    }
  }
  QueryContext ctx(p, path);
  for (const Access& a : effects_of(later, ctx.windows())) {
    if (a.location.is_config() || a.location.buffer != buffer) continue;
    SafetyResult r = refuted(fmt::format("{} may be used later: {}",
                                         buffer.name(), report(a).str()));
    r.first = report(a);
    return r;
  }
  return proven();
}

SafetyResult prove_element_dead_after(const Proc& p, const cursors::Path& path,
                                      const Access& element) {
  const Sym& buffer = element.location.buffer;
  const StatementSteps at = statement_steps(path);
  QueryContext ctx(p, path);
  SmtEncoder& enc = ctx.encoder();
  std::vector<NamedTerm> written_shown = ctx.shown_terms();
  const Instance written = instantiate(ctx, element, {}, "", written_shown);

  // Reads (or reductions) among `effects` of the element, with `outer`
  // binding the iterators of loops rerun in later iterations.
  auto check = [&](const std::vector<Access>& effects, const Bindings& outer,
                   const z3::expr& relation,
                   const std::vector<NamedTerm>& relation_terms)
      -> std::optional<SafetyResult> {
    for (const Access& a : effects) {
      if (a.location.is_config() || a.location.buffer != buffer ||
          a.kind == AccessKind::Write)
        continue;
      std::vector<NamedTerm> shown = written_shown;
      shown.insert(shown.end(), relation_terms.begin(), relation_terms.end());
      Instance later = instantiate(ctx, a, outer, "'", shown);
      QueryResult q = enc.satisfiable(relation && written.when && later.when &&
                                      same_element(enc, written, later));
      if (q.timed_out())
        return timed_out(
            enc, q, "whether " + report(a).str() + " reads " + element.text);
      if (q.no()) continue;
      SafetyResult r = refuted(fmt::format("{} may be read later by {}",
                                           element.text, report(a).str()),
                               enc.counterexample(q, shown));
      r.first = report(a);
      return r;
    }
    return std::nullopt;
  };

  std::vector<std::pair<const Block*, int>> levels;
  const Block* block = &p->body;
  for (const auto& [index, child] : at.enclosing) {
    levels.emplace_back(block, index);
    block = &child_block_of(stmt_in(*block, index), child);
  }
  levels.emplace_back(block, at.index);
  // Config fields written by loops left behind (or rerun): their values in
  // later code are not the ones where the statement runs.
  std::vector<Location> stale;
  for (size_t level = levels.size(); level-- > 0;) {
    const auto& [b, index] = levels[level];
    const Block rest(b->begin() + index + 1, b->end());
    if (auto r = check(effects_of(rest, ctx.windows(), stale), {},
                       enc.bool_value(true), {}))
      return *r;
    bool allocated_here = false;
    for (int k = 0; k <= index; ++k) {
      const Stmt& s = (*b)[static_cast<size_t>(k)];
      allocated_here |=
          s->kind == StmtKind::Alloc && s->as<Alloc>().name == buffer;
    }
    if (allocated_here || level == 0) break;
    // Inside a loop, the whole body runs again in later iterations.
    const Stmt& parent =
        (*levels[level - 1]
              .first)[static_cast<size_t>(levels[level - 1].second)];
    if (parent->kind != StmtKind::For) continue;
    const For& loop = parent->as<For>();
    const std::vector<Location> body_writes = config_fields_written(loop.body);
    stale.insert(stale.end(), body_writes.begin(), body_writes.end());
    // A later iteration i' > i; `hi` bounds it unless the body changes a
    // field it reads (the bound was evaluated before the first iteration).
    const z3::expr now = enc.var(loop.iter);
    const z3::expr next = enc.fresh_int(loop.iter.name());
    z3::expr relation = now < next;
    if (!reads_any_field(loop.hi, body_writes))
      relation = relation && next < encode_or_fresh(enc, loop.hi);
    if (auto r = check(effects_of(loop.body, ctx.windows(), stale),
                       {{loop.iter, next}}, relation,
                       {NamedTerm{loop.iter.name() + "'", next}}))
      return *r;
  }
  return proven();
}

SafetyResult prove_reduce_only(QueryContext& ctx, const Block& block,
                               const Sym& buffer) {
  // effects_of reports an access through a window as one of the buffer it
  // views.
  const auto view = ctx.windows().find(buffer);
  const Sym& root = view == ctx.windows().end() ? buffer : view->second.buffer;
  for (const Access& a : effects_of(block, ctx.windows())) {
    if (a.location.is_config() || a.location.buffer != root ||
        a.kind == AccessKind::Reduce)
      continue;
    SafetyResult r = refuted(report(a).str() + " is not a reduction");
    r.first = report(a);
    return r;
  }
  return proven();
}

SafetyResult prove_in_bounds(QueryContext& ctx, const Block& block,
                             const Sym& buffer,
                             const std::vector<Expr>& shape) {
  SmtEncoder& enc = ctx.encoder();
  std::vector<z3::expr> extents;
  for (const Expr& n : shape) extents.push_back(encode_or_fresh(enc, n));
  std::optional<SafetyResult> first_timeout;
  for (const Access& a : effects_of(block, ctx.windows())) {
    if (a.location.is_config() || a.location.buffer != buffer) continue;
    std::vector<NamedTerm> shown = ctx.shown_terms();
    Instance inst = instantiate(ctx, a, {}, "", shown);
    z3::expr inside = enc.bool_value(true);
    for (size_t d = 0; d < inst.idx.size() && d < extents.size(); ++d)
      inside = inside && 0 <= inst.idx[d] && inst.idx[d] < extents[d];
    QueryResult q = enc.satisfiable(inst.when && !inside);
    if (q.timed_out()) {
      if (!first_timeout)
        first_timeout =
            timed_out(enc, q, "whether " + report(a).str() + " is in bounds");
      continue;
    }
    if (q.no()) continue;
    SafetyResult r = refuted(report(a).str() + " is out of bounds",
                             enc.counterexample(q, shown));
    r.first = report(a);
    return r;
  }
  if (first_timeout) return *first_timeout;
  return proven();
}

// ---- Conditions on config state
// ----------------------------------------------

SafetyResult prove_config_reads_unchanged(const std::vector<Expr>& exprs,
                                          const Block& code,
                                          const std::string& reader) {
  return config_reads_unchanged(exprs, effects_of(code), reader);
}

// ---- Conditions on control expressions --------------------------------------

namespace {

// Proves `goal` in the context; `what` names it in messages.
SafetyResult prove_goal(QueryContext& ctx, const z3::expr& goal,
                        const std::string& what) {
  SmtEncoder& enc = ctx.encoder();
  QueryResult q = enc.prove(goal);
  if (q.yes()) return proven();
  if (q.timed_out()) return timed_out(enc, q, what);
  return refuted(what + " does not hold",
                 enc.counterexample(q, ctx.shown_terms()));
}

SafetyResult unencodable(const Expr& e) {
  return refuted("cannot reason about `" + print_expr(e) + "`");
}

z3::expr compare(BinOpKind op, const z3::expr& a, const z3::expr& b) {
  switch (op) {
    case BinOpKind::Lt:
      return a < b;
    case BinOpKind::Gt:
      return a > b;
    case BinOpKind::Le:
      return a <= b;
    case BinOpKind::Ge:
      return a >= b;
    case BinOpKind::Eq:
      return a == b;
    default:
      throw std::invalid_argument("prove_compare: expected a comparison");
  }
}

}  // namespace

SafetyResult prove_equivalent(QueryContext& ctx, const Expr& a, const Expr& b) {
  for (const Expr& e : {a, b})
    if (!SmtEncoder::is_encodable(e)) return unencodable(e);
  SmtEncoder& enc = ctx.encoder();
  return prove_goal(ctx, enc.encode(a) == enc.encode(b),
                    fmt::format("{} == {}", print_expr(a), print_expr(b)));
}

namespace {

// The decimal digits of 2^k.
std::string power_of_two(int k) {
  std::string digits = "1";  // least significant first
  for (int n = 0; n < k; ++n) {
    int carry = 0;
    for (char& d : digits) {
      const int v = (d - '0') * 2 + carry;
      d = static_cast<char>('0' + v % 10);
      carry = v / 10;
    }
    if (carry) digits.push_back(static_cast<char>('0' + carry));
  }
  return {digits.rbegin(), digits.rend()};
}

bool is_integer_data(const Type& t) {
  switch (t.basetype().kind()) {
    case TypeKind::I8:
    case TypeKind::UI8:
    case TypeKind::UI16:
    case TypeKind::I32:
      return true;
    default:
      return false;
  }
}

// A data expression as a real number (prove_equivalent_in_reals): literals
// are their exact values, each scalar read or config field one real
// constant, the reads of a buffer one uninterpreted function of the indices
// (so the same element read twice is one value), an extern call an
// uninterpreted function of its arguments. Control subexpressions (indices,
// a control value used as data) go through the encoder. Throws
// std::invalid_argument outside that fragment: `/` and `%` of integer data
// (C truncates), a fraction in integer data, a non-finite literal.
class RealEncoding final : public ExprFunctor<z3::expr()> {
 public:
  // `integer`: the expression computes integer data (its literals may be
  // typed otherwise).
  RealEncoding(SmtEncoder& enc, bool integer)
      : enc_(enc), z3_(enc.context()), integer_(integer) {}

 protected:
  z3::expr visit_read(const Expr& e) override {
    const auto& r = e->as<Read>();
    if (e->type.is_control()) return control(e);
    if (!e->type.is_real_scalar())
      throw std::invalid_argument("real encoding: not a scalar");
    const std::string name =
        fmt::format("data!{}_{}", r.name.name(), r.name.id());
    if (r.idx.empty()) return z3_.real_const(name.c_str());
    z3::sort_vector domain(z3_);
    z3::expr_vector args(z3_);
    for (const Expr& i : r.idx) {
      domain.push_back(z3_.int_sort());
      args.push_back(enc_.encode(i));
    }
    return z3_.function(name.c_str(), domain, z3_.real_sort())(args);
  }
  z3::expr visit_const(const Expr& e) override {
    const auto& c = e->as<Const>();
    if (c.is_int()) return z3_.real_val(std::to_string(c.int_value()).c_str());
    if (!c.is_float())
      throw std::invalid_argument("real encoding: boolean literal");
    const double v = std::get<double>(c.value);
    if (!std::isfinite(v))
      throw std::invalid_argument("real encoding: non-finite literal");
    // v = mantissa * 2^exponent exactly, with an integer mantissa.
    int exponent = 0;
    const double m = std::frexp(v, &exponent);
    auto mantissa = static_cast<int64_t>(std::ldexp(m, 53));
    exponent -= 53;
    while (mantissa != 0 && mantissa % 2 == 0 && exponent < 0) {
      mantissa /= 2;
      exponent++;
    }
    if (exponent < 0 && (integer_ || is_integer_data(e->type)))
      throw std::invalid_argument("real encoding: fraction in integer data");
    const std::string magnitude =
        std::to_string(mantissa < 0 ? -mantissa : mantissa);
    z3::expr value =
        exponent >= 0
            ? z3_.real_val(magnitude.c_str()) *
                  z3_.real_val(power_of_two(exponent).c_str())
            : z3_.real_val((magnitude + "/" + power_of_two(-exponent)).c_str());
    return mantissa < 0 ? -value : value;
  }
  z3::expr visit_usub(const Expr& e) override {
    if (e->type.is_control()) return control(e);
    return -visit(e->as<USub>().arg);
  }
  z3::expr visit_binop(const Expr& e) override {
    if (e->type.is_control()) return control(e);
    const auto& b = e->as<BinOp>();
    switch (b.op) {
      case BinOpKind::Add:
        return visit(b.lhs) + visit(b.rhs);
      case BinOpKind::Sub:
        return visit(b.lhs) - visit(b.rhs);
      case BinOpKind::Mul:
        return visit(b.lhs) * visit(b.rhs);
      case BinOpKind::Div:
        if (integer_ || is_integer_data(e->type))
          throw std::invalid_argument("real encoding: integer division");
        return visit(b.lhs) / visit(b.rhs);
      default:
        throw std::invalid_argument("real encoding: operator");
    }
  }
  z3::expr visit_extern_call(const Expr& e) override {
    const auto& c = e->as<ExternCall>();
    const std::string name = fmt::format("extern!{}!{}", c.f->name(),
                                         static_cast<const void*>(c.f.get()));
    z3::sort_vector domain(z3_);
    z3::expr_vector args(z3_);
    for (const Expr& a : c.args) {
      domain.push_back(z3_.real_sort());
      args.push_back(visit(a));
    }
    return z3_.function(name.c_str(), domain, z3_.real_sort())(args);
  }
  z3::expr visit_stride_expr(const Expr& e) override { return control(e); }
  z3::expr visit_read_config(const Expr& e) override {
    if (e->type.is_control()) return control(e);
    const auto& c = e->as<ReadConfig>();
    const std::string name =
        fmt::format("data!{}.{}!{}", c.config->name(), c.field,
                    static_cast<const void*>(c.config.get()));
    return z3_.real_const(name.c_str());
  }
  z3::expr visit_expr_default(const Expr&) override {
    throw std::invalid_argument("real encoding: not a data expression");
  }

 private:
  z3::expr control(const Expr& e) {
    if (e->type.is_bool() || !SmtEncoder::is_encodable(e))
      throw std::invalid_argument("real encoding: control value");
    return z3::to_real(enc_.encode(e));
  }

  SmtEncoder& enc_;
  z3::context& z3_;
  bool integer_;
};

}  // namespace

SafetyResult prove_equivalent_in_reals(QueryContext& ctx, const Expr& a,
                                       const Expr& b) {
  if (a->type.is_control() && b->type.is_control())
    return prove_equivalent(ctx, a, b);
  SmtEncoder& enc = ctx.encoder();
  std::vector<z3::expr> sides;
  for (const Expr& e : {a, b}) {
    try {
      sides.push_back(RealEncoding(enc, is_integer_data(a->type) ||
                                            is_integer_data(b->type))
                          .visit(e));
    } catch (const std::invalid_argument&) {
      return unencodable(e);
    }
  }
  return prove_goal(ctx, sides[0] == sides[1],
                    fmt::format("{} == {}", print_expr(a), print_expr(b)));
}

SafetyResult prove_compare(QueryContext& ctx, const Expr& e, BinOpKind op,
                           int64_t value) {
  if (!SmtEncoder::is_encodable(e)) return unencodable(e);
  SmtEncoder& enc = ctx.encoder();
  return prove_goal(
      ctx, compare(op, enc.encode(e), enc.int_value(value)),
      fmt::format("{} {} {}", print_expr(e), binop_text(op), value));
}

SafetyResult prove_holds(QueryContext& ctx, const Expr& cond) {
  if (!SmtEncoder::is_encodable(cond) || !cond->type.is_bool())
    return unencodable(cond);
  return prove_goal(ctx, ctx.encoder().encode(cond), print_expr(cond));
}

SafetyResult prove_divisible(QueryContext& ctx, const Expr& e, int64_t q) {
  if (q <= 0) throw std::invalid_argument("prove_divisible: q must be > 0");
  const std::string what = fmt::format("{} % {} == 0", print_expr(e), q);
  if (e->kind == ExprKind::Const && e->as<Const>().is_int()) {
    if (e->as<Const>().int_value() % q == 0) return proven();
    return refuted(what + " does not hold");
  }
  Expr remainder =
      make_binop(BinOpKind::Mod, e, make_int(q), e->srcinfo, e->type);
  if (!SmtEncoder::is_encodable(remainder)) return unencodable(e);
  SmtEncoder& enc = ctx.encoder();
  return prove_goal(ctx, enc.encode(remainder) == 0, what);
}

SafetyResult prove_window_in_bounds(QueryContext& ctx, const WindowExpr& w,
                                    const std::vector<Expr>& shape) {
  SmtEncoder& enc = ctx.encoder();
  z3::expr inside = enc.bool_value(true);
  for (size_t d = 0; d < w.idx.size() && d < shape.size(); ++d) {
    const WindowAccess& a = w.idx[d];
    z3::expr n = encode_or_fresh(enc, shape[d]);
    z3::expr lo = a.lo ? encode_or_fresh(enc, a.lo) : enc.int_value(0);
    if (!a.is_interval) {
      inside = inside && 0 <= lo && lo < n;
      continue;
    }
    z3::expr hi = a.hi ? encode_or_fresh(enc, a.hi) : n;
    inside = inside && 0 <= lo && lo <= hi && hi <= n;
  }
  std::vector<std::string> entries;
  for (const WindowAccess& a : w.idx) {
    const std::string lo = a.lo ? print_expr(a.lo) : "";
    if (!a.is_interval) {
      entries.push_back(lo);
    } else {
      entries.push_back(
          fmt::format("{}:{}", lo, a.hi ? print_expr(a.hi) : std::string()));
    }
  }
  return prove_goal(ctx, inside,
                    fmt::format("the window {}[{}] lies in bounds",
                                w.name.name(), fmt::join(entries, ", ")));
}

WindowPlacement place_in_window(QueryContext& ctx, const Access& access,
                                const std::vector<WindowAccess>& window) {
  SmtEncoder& enc = ctx.encoder();
  std::vector<NamedTerm> shown;
  Instance inst = instantiate(ctx, access, {}, "", shown);
  z3::expr inside = enc.bool_value(true);
  for (size_t d = 0; d < window.size() && d < inst.idx.size(); ++d) {
    const WindowAccess& w = window[d];
    z3::expr lo = encode_or_fresh(enc, w.lo);
    if (w.is_interval) {
      inside = inside && lo <= inst.idx[d] &&
               inst.idx[d] < encode_or_fresh(enc, w.hi);
    } else {
      inside = inside && inst.idx[d] == lo;
    }
  }
  if (enc.satisfiable(inst.when && !inside).no())
    return WindowPlacement::Inside;
  if (enc.satisfiable(inst.when && inside).no())
    return WindowPlacement::Outside;
  return WindowPlacement::Neither;
}

Truth decide(QueryContext& ctx, const Expr& cond) {
  if (!SmtEncoder::is_encodable(cond) || !cond->type.is_bool())
    return Truth::Unknown;
  SmtEncoder& enc = ctx.encoder();
  z3::expr c = enc.encode(cond);
  if (std::optional<bool> v = enc.interval_value(c))
    return *v ? Truth::AlwaysTrue : Truth::AlwaysFalse;
  if (enc.proves(c)) return Truth::AlwaysTrue;
  if (enc.proves(!c)) return Truth::AlwaysFalse;
  return Truth::Unknown;
}

QueryCounters query_counters() {
  return QueryCounters{SmtEncoder::queries_checked(), SmtEncoder::cache_hits(),
                       SmtEncoder::interval_answers()};
}

void reset_query_counters() { SmtEncoder::reset_counters(); }

}  // namespace exo2
