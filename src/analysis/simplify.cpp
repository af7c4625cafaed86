#include "exo2/analysis/simplify.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/queries.hpp"
#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/ir_functor.hpp"

namespace exo2 {

namespace {

const Type kIntType(TypeKind::Int);
const Type kBoolType(TypeKind::Bool);

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floor_mod(int64_t a, int64_t b) { return a - b * floor_div(a, b); }

bool is_int_const(const Expr& e) {
  return e->kind == ExprKind::Const && e->as<Const>().is_int();
}

// Exo compares literals by value: `0.0` counts as zero, `1.0` as one.
bool is_const_value(const Expr& e, double v) {
  if (e->kind != ExprKind::Const) return false;
  const auto& c = e->as<Const>();
  if (c.is_int()) return static_cast<double>(c.int_value()) == v;
  if (c.is_float()) return std::get<double>(c.value) == v;
  return false;
}

bool is_bool_value(const Expr& e, bool v) {
  return e->kind == ExprKind::Const && e->as<Const>().is_bool() &&
         std::get<bool>(e->as<Const>().value) == v;
}

// ---- Affine forms
// -------------------------------------------------------------

// `constant + Σ coeff * var`, each variable with the type of its reads.
struct AffineForm {
  int64_t constant = 0;
  std::map<Sym, std::pair<int64_t, Type>> terms;
};

// Whether an expression has parts the normal form keeps as they are:
// anything but reads, literals, negations and `+ - *`.
class HasOpaquePart final : public ExprFunctor<bool()> {
 protected:
  bool visit_read(const Expr&) override { return false; }
  bool visit_const(const Expr&) override { return false; }
  bool visit_usub(const Expr& e) override { return visit(e->as<USub>().arg); }
  bool visit_binop(const Expr& e) override {
    const auto& b = e->as<BinOp>();
    if (b.op == BinOpKind::Div || b.op == BinOpKind::Mod) return true;
    return visit(b.lhs) || visit(b.rhs);
  }
  bool visit_expr_default(const Expr&) override { return true; }
};

bool has_opaque_part(const Expr& e) { return HasOpaquePart().visit(e); }

// Structural equality of control expressions, ignoring whether a part is
// typed `size`, `index` or `int` (`n / 8` reads the same either way).
bool same_control_expr(const Expr& a, const Expr& b);

// Compares a node of `a` with the node of `b` of the same kind.
class SameControlExpr final : public ExprFunctor<bool(const Expr&)> {
 protected:
  bool visit_read(const Expr& a, const Expr& b) override {
    return a->as<Read>().idx.empty() && b->as<Read>().idx.empty() &&
           a->as<Read>().name == b->as<Read>().name;
  }
  bool visit_usub(const Expr& a, const Expr& b) override {
    return same_control_expr(a->as<USub>().arg, b->as<USub>().arg);
  }
  bool visit_binop(const Expr& a, const Expr& b) override {
    const auto &x = a->as<BinOp>(), &y = b->as<BinOp>();
    return x.op == y.op && same_control_expr(x.lhs, y.lhs) &&
           same_control_expr(x.rhs, y.rhs);
  }
  bool visit_expr_default(const Expr& a, const Expr& b) override {
    return equal(a, b);
  }
};

bool same_control_expr(const Expr& a, const Expr& b) {
  return a->kind == b->kind && SameControlExpr().visit(a, b);
}

// A sum: the affine form of its variables plus its atoms (maximal opaque
// subexpressions: `n / 8`, `n % 8`, `n * m`, `Cfg.f`), each with a
// coefficient, so that `i + n / 8 * 8 - n / 8 * 8` can become `i`.
struct SumForm {
  AffineForm affine;
  std::vector<std::pair<Expr, int64_t>> atoms;  // in order of appearance
  int occurrences = 0;                          // atoms before combining
  bool ok = true;  // false: the sum holds a non-integer literal

  // Adds `coeff` times `e`.
  void add(const Expr& e, int64_t coeff) { Adder(*this).visit(e, coeff); }

  // What `add` does per kind: variables and integer literals go to the
  // affine form, sums and products by constants are taken apart, and
  // everything else is an atom.
  class Adder final : public ExprFunctor<void(int64_t)> {
   public:
    explicit Adder(SumForm& f) : f_(f) {}

   protected:
    void visit_read(const Expr& e, int64_t coeff) override {
      if (!e->as<Read>().idx.empty()) return visit_expr_default(e, coeff);
      auto [it, fresh] = f_.affine.terms.emplace(
          e->as<Read>().name, std::make_pair(coeff, e->type));
      if (!fresh) it->second.first += coeff;
    }
    void visit_const(const Expr& e, int64_t coeff) override {
      if (is_int_const(e))
        f_.affine.constant += coeff * e->as<Const>().int_value();
      else
        f_.ok = false;
    }
    void visit_usub(const Expr& e, int64_t coeff) override {
      visit(e->as<USub>().arg, -coeff);
    }
    void visit_binop(const Expr& e, int64_t coeff) override {
      const auto& b = e->as<BinOp>();
      if (b.op == BinOpKind::Add || b.op == BinOpKind::Sub) {
        visit(b.lhs, coeff);
        visit(b.rhs, b.op == BinOpKind::Add ? coeff : -coeff);
        return;
      }
      if (b.op == BinOpKind::Mul) {
        SumForm l, r;
        l.add(b.lhs, 1);
        r.add(b.rhs, 1);
        if (!l.ok || !r.ok) {
          f_.ok = false;
          return;
        }
        if (l.is_constant()) return f_.merge(r, coeff * l.affine.constant);
        if (r.is_constant()) return f_.merge(l, coeff * r.affine.constant);
      }
      visit_expr_default(e, coeff);
    }
    // An atom.
    void visit_expr_default(const Expr& e, int64_t coeff) override {
      ++f_.occurrences;
      f_.add_atom(e, coeff);
    }

   private:
    SumForm& f_;
  };

  void add_atom(const Expr& e, int64_t coeff) {
    for (auto& [atom, c] : atoms) {
      if (same_control_expr(atom, e)) {
        c += coeff;
        return;
      }
    }
    atoms.emplace_back(e, coeff);
  }

  // Adds `scale` times `other`.
  void merge(const SumForm& other, int64_t scale) {
    affine.constant += scale * other.affine.constant;
    for (const auto& [sym, term] : other.affine.terms) {
      auto [it, fresh] = affine.terms.emplace(
          sym, std::make_pair(scale * term.first, term.second));
      if (!fresh) it->second.first += scale * term.first;
    }
    for (const auto& [atom, c] : other.atoms) add_atom(atom, scale * c);
    occurrences += other.occurrences;
  }

  // No variables and no atoms (those of `i - i` included).
  bool is_constant() const { return affine.terms.empty() && atoms.empty(); }

  int live_atoms() const {
    return static_cast<int>(std::count_if(
        atoms.begin(), atoms.end(), [](const auto& a) { return a.second; }));
  }
};

// The affine form of an expression without opaque parts, or nullopt when it
// multiplies two non-constant terms.
std::optional<AffineForm> affine_form(const Expr& e) {
  SumForm f;
  f.add(e, 1);
  if (!f.ok || f.occurrences > 0) return std::nullopt;
  return f.affine;
}

// The printed normal form of `c + Σ terms` (docs/reference/printing.md, "Affine
// normal form").
Expr affine_expr(
    int64_t constant,
    const std::vector<std::pair<int64_t, std::pair<Sym, Type>>>& terms,
    const Type& type, const SrcInfo& s) {
  std::vector<std::pair<int64_t, std::pair<Sym, Type>>> sorted;
  for (const auto& t : terms)
    if (t.first != 0) sorted.push_back(t);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    const Sym& x = a.second.first;
    const Sym& y = b.second.first;
    if (x.name() != y.name()) return x.name() < y.name();
    return x.id() < y.id();
  });
  Expr acc = constant != 0 ? make_int(constant, s, kIntType) : nullptr;
  for (const auto& [coeff, var] : sorted) {
    Expr v = make_read(var.first, {}, s, var.second);
    const int64_t magnitude = coeff < 0 ? -coeff : coeff;
    Expr term = magnitude == 1
                    ? v
                    : make_binop(BinOpKind::Mul,
                                 make_int(magnitude, s, kIntType), v, s, type);
    if (!acc) {
      acc = coeff > 0 ? term : make_usub(term, s, type);
    } else {
      acc = make_binop(coeff > 0 ? BinOpKind::Add : BinOpKind::Sub, acc, term,
                       s, type);
    }
  }
  return acc ? acc : make_int(0, s, kIntType);
}

using Terms = std::vector<std::pair<int64_t, std::pair<Sym, Type>>>;

Terms terms_of(const AffineForm& f) {
  Terms out;
  for (const auto& [sym, term] : f.terms)
    if (term.first != 0) out.push_back({term.first, {sym, term.second}});
  return out;
}

// ---- The rewrite ------------------------------------------------------------

// Statements are rewritten by one override per kind.
class Simplifier final : public StmtFunctor<void(Block&)> {
 public:
  Simplifier(const Proc& p, const SimplifyOptions& options,
             KeptStatements* kept)
      : ctx_(p), options_(options), kept_(kept) {
    for (const FnArg& a : p->args)
      if (a.type.is_indexable()) arguments_.insert(a.name);
  }

  // The signature keeps its shapes as the user wrote them (as Exo's
  // simplify does): `A: R[n + m + 12]` is part of the procedure's interface.
  Proc run(const Proc& p) {
    std::vector<Expr> preds;
    for (const Expr& e : p->preds) preds.push_back(expr(e));
    return make_proc(p->name, p->args, std::move(preds),
                     block(p->body, cursors::Slot::Body), p->instr, p->srcinfo);
  }

 private:
  // ---- Statements ----
  // `b`, the `slot` list of the statement at `old_path_` (the result goes
  // to the same slot of the statement at `new_path_`).
  Block block(const Block& b, cursors::Slot slot) {
    Block out = statements(b, slot);
    if (out.empty() && !b.empty()) out.push_back(make_pass(b.front()->srcinfo));
    return out;
  }

  // `block` without the `pass` for a list left empty.
  Block statements(const Block& b, cursors::Slot slot) {
    const cursors::Slot outer_slot = new_slot_;
    new_slot_ = slot;
    Block out;
    for (size_t i = 0; i < b.size(); ++i) stmt(b[i], out, {slot, int(i)});
    new_slot_ = outer_slot;
    return out;
  }

  // Appends the simplified statement `s`, found at `step` of the list at
  // `old_path_` (zero or more statements), to `out`.
  void stmt(const Stmt& s, Block& out, cursors::Step step) {
    old_path_.push_back(step);
    const size_t before = out.size();
    visit(s, out);
    if (s->kind != StmtKind::If && out.size() == before + 1) keep(out);
    // An if and a `with` advance past themselves (an if replaced by its
    // branch through the branch's statements).
    if (s->kind != StmtKind::If && s->kind != StmtKind::With) passed(s);
    old_path_.pop_back();
  }

  // The walk moves past `s`: config fields take the values it leaves, and
  // the facts about the fields it may write no longer hold.
  void passed(const Stmt& s) {
    ctx_.advance_over(s);
    forget_facts_about(config_fields_written(s));
  }

  void forget_facts_about(const std::vector<Location>& fields) {
    if (fields.empty()) return;
    auto mentions_field = [&](const Expr& e) {
      for (const ConfigRead& r : config_fields_read(e))
        for (const Location& f : fields)
          if (r.field.same_as(f)) return true;
      return false;
    };
    for (auto& scope : facts_)
      std::erase_if(scope, [&](const std::pair<Expr, Expr>& fact) {
        return mentions_field(fact.first) || mentions_field(fact.second);
      });
  }

  // Records that the statement at `old_path_` became the last of `out`.
  void keep(const Block& out) {
    if (!kept_) return;
    cursors::Path path = new_path_;
    path.push_back({new_slot_, int(out.size()) - 1});
    (*kept_)[old_path_] = std::move(path);
  }

  // `block` (or `statements`, without `pass`) of a child list of the
  // statement that `out` gets next.
  Block child_block(const Block& b, cursors::Slot slot, const Block& out,
                    bool pass_if_empty = true) {
    new_path_.push_back({new_slot_, int(out.size())});
    Block result = pass_if_empty ? block(b, slot) : statements(b, slot);
    new_path_.pop_back();
    return result;
  }

  // One override per statement kind: appends what `s` becomes to `out`.
  void visit_assign(const Stmt& s, Block& out) override {
    const auto& a = s->as<Assign>();
    std::vector<Expr> idx = exprs(a.idx);
    Expr rhs = expr(a.rhs);
    out.push_back(s->kind == StmtKind::Assign
                      ? make_assign(a.name, a.type, idx, rhs, s->srcinfo)
                      : make_reduce(a.name, a.type, idx, rhs, s->srcinfo));
  }
  void visit_write_config(const Stmt& s, Block& out) override {
    const auto& w = s->as<WriteConfig>();
    out.push_back(
        make_write_config(w.config, w.field, expr(w.rhs), s->srcinfo));
  }
  void visit_alloc(const Stmt& s, Block& out) override {
    const auto& a = s->as<Alloc>();
    if (s->kind == StmtKind::Free) {
      out.push_back(s);
      return;
    }
    out.push_back(make_alloc(a.name, type(a.type), a.mem, s->srcinfo));
  }
  void visit_call(const Stmt& s, Block& out) override {
    const auto& c = s->as<Call>();
    out.push_back(make_call(c.f, exprs(c.args), s->srcinfo, exprs(c.barriers)));
  }
  void visit_window_stmt(const Stmt& s, Block& out) override {
    const auto& w = s->as<WindowStmt>();
    out.push_back(make_window_stmt(w.name, expr(w.rhs), s->srcinfo, w.mem));
  }
  void visit_with(const Stmt& s, Block& out) override {
    const auto& w = s->as<With>();
    out.push_back(make_with(
        w.ctx, child_block(w.body, cursors::Slot::Body, out), s->srcinfo));
  }
  void visit_sync(const Stmt& s, Block& out) override {
    out.push_back(with_barriers(s->as<Sync>(), exprs(s->as<Sync>().barriers)));
  }
  void visit_pass(const Stmt& s, Block& out) override { out.push_back(s); }

  void visit_if(const Stmt& s, Block& out) override {
    const auto& i = s->as<If>();
    Expr cond = expr(i.cond);
    std::optional<bool> taken;
    if (cond->kind == ExprKind::Const && cond->as<Const>().is_bool()) {
      taken = std::get<bool>(cond->as<Const>().value);
    } else if (options_.remove_provably_dead_code) {
      const Truth t = decide(ctx_, cond);
      if (t != Truth::Unknown) taken = t == Truth::AlwaysTrue;
    }
    if (taken) {
      const Block& branch = *taken ? i.body : i.orelse;
      const cursors::Slot slot =
          *taken ? cursors::Slot::Body : cursors::Slot::Orelse;
      for (size_t k = 0; k < branch.size(); ++k)
        stmt(branch[k], out, {slot, int(k)});
      return;
    }
    ctx_.enter_branch(cond, true);
    facts_.emplace_back();
    add_fact(cond);
    scopes_.push_back(++scopes_entered_);
    Block body = child_block(i.body, cursors::Slot::Body, out);
    scopes_.back() = ++scopes_entered_;
    facts_.pop_back();
    ctx_.leave();
    ctx_.enter_branch(cond, false);
    Block orelse = child_block(i.orelse, cursors::Slot::Orelse, out);
    scopes_.pop_back();
    ctx_.leave();
    out.push_back(
        make_if(cond, std::move(body), std::move(orelse), s->srcinfo));
    keep(out);
    passed(s);
  }

  void visit_for(const Stmt& s, Block& out) override {
    const auto& f = s->as<For>();
    Expr lo = expr(f.lo);
    Expr hi = expr(f.hi);
    if (is_int_const(lo) && is_int_const(hi) &&
        lo->as<Const>().int_value() == hi->as<Const>().int_value())
      return;
    if (options_.remove_provably_dead_code &&
        decide(ctx_, make_binop(BinOpKind::Ge, lo, hi, s->srcinfo,
                                kBoolType)) == Truth::AlwaysTrue)
      return;
    // Earlier iterations may have written these fields.
    forget_facts_about(config_fields_written(f.body));
    ctx_.enter_loop(f.iter, lo, hi, f.body);
    scopes_.push_back(++scopes_entered_);
    Block body = child_block(f.body, cursors::Slot::Body, out, false);
    scopes_.pop_back();
    ctx_.leave();
    if (body.empty()) return;
    out.push_back(
        make_for(f.iter, lo, hi, std::move(body), f.mode, s->srcinfo));
  }

  Type type(const Type& t) {
    if (!t.is_tensor()) return t;
    return Type::tensor(t.basetype(), exprs(t.shape()), t.is_window(),
                        t.dim_annotations());
  }

  // ---- Expressions ----
  std::vector<Expr> exprs(const std::vector<Expr>& es) {
    std::vector<Expr> out;
    out.reserve(es.size());
    for (const Expr& e : es) out.push_back(expr(e));
    return out;
  }

  Expr expr(const Expr& e) { return fold(normalize(e)); }

  // Step 1: the normal form, applied to every maximal index expression.
  Expr normalize(const Expr& e) {
    if (e->type.is_indexable()) return normalize_index(e);
    return Normalize(*this).visit(e);
  }

  // The normal form of a data or boolean expression: its index parts
  // normalized, one override per kind.
  class Normalize final : public ExprFunctor<Expr()> {
   public:
    explicit Normalize(Simplifier& s) : s_(s) {}

   protected:
    Expr visit_read(const Expr& e) override {
      const auto& r = e->as<Read>();
      if (r.idx.empty()) return e;
      return make_read(r.name, s_.exprs_normalized(r.idx), e->srcinfo, e->type);
    }
    Expr visit_usub(const Expr& e) override {
      return make_usub(s_.normalize(e->as<USub>().arg), e->srcinfo, e->type);
    }
    Expr visit_binop(const Expr& e) override {
      const auto& b = e->as<BinOp>();
      return make_binop(b.op, s_.normalize(b.lhs), s_.normalize(b.rhs),
                        e->srcinfo, e->type);
    }
    Expr visit_extern_call(const Expr& e) override {
      const auto& c = e->as<ExternCall>();
      return make_extern_call(c.f, s_.exprs_normalized(c.args), e->srcinfo,
                              e->type);
    }
    Expr visit_window_expr(const Expr& e) override {
      const auto& w = e->as<WindowExpr>();
      std::vector<WindowAccess> idx;
      for (const WindowAccess& a : w.idx) {
        WindowAccess n = a;
        if (a.lo) n.lo = s_.normalize(a.lo);
        if (a.hi) n.hi = s_.normalize(a.hi);
        idx.push_back(n);
      }
      return make_window_expr(w.name, std::move(idx), e->srcinfo, e->type);
    }
    // Literals, strides and config reads.
    Expr visit_expr_default(const Expr& e) override { return e; }

   private:
    Simplifier& s_;
  };

  std::vector<Expr> exprs_normalized(const std::vector<Expr>& es) {
    std::vector<Expr> out;
    for (const Expr& e : es) out.push_back(normalize(e));
    return out;
  }

  Expr normalize_index(const Expr& e) {
    Expr n = e;
    if (e->kind == ExprKind::BinOp) {
      const auto& b = e->as<BinOp>();
      n = make_binop(b.op, normalize_index(b.lhs), normalize_index(b.rhs),
                     e->srcinfo, e->type);
    } else if (e->kind == ExprKind::USub) {
      n = make_usub(normalize_index(e->as<USub>().arg), e->srcinfo, e->type);
    }
    if (n->kind == ExprKind::BinOp) {
      const auto& b = n->as<BinOp>();
      if ((b.op == BinOpKind::Div || b.op == BinOpKind::Mod) &&
          is_int_const(b.rhs) && b.rhs->as<Const>().int_value() > 0) {
        // As Exo: a numerator holding a quotient, a remainder or a config
        // read is kept as written, only nested divisors merge (`n / 8 * 8 /
        // 8` stays; `n / 2 / 3` → `n / 6`), so printed shapes read as Exo's.
        if (has_opaque_part(b.lhs))
          return b.op == BinOpKind::Div ? merge_divisors(n) : n;
        return b.op == BinOpKind::Div ? simplify_division_splitting(n)
                                      : simplify_modulo(n);
      }
    }
    if (has_opaque_part(n)) return combine_atoms(n);
    std::optional<AffineForm> f = affine_form(n);
    if (!f) return n;
    return affine_expr(f->constant, terms_of(*f), n->type, n->srcinfo);
  }

  // The sum `e` with its equal atoms combined, when some cancel or merge;
  // otherwise `e` unchanged (its printed form only changes when simpler).
  static Expr combine_atoms(const Expr& e) {
    SumForm f;
    f.add(e, 1);
    if (!f.ok || f.live_atoms() == f.occurrences) return e;
    return sum_expr(f, e->type, e->srcinfo);
  }

  // The affine normal form of the variables, then `+ atom * c` per atom.
  static Expr sum_expr(const SumForm& f, const Type& type, const SrcInfo& s) {
    Expr acc = affine_expr(f.affine.constant, terms_of(f.affine), type, s);
    const bool acc_zero = is_const_value(acc, 0);
    bool first = acc_zero;
    for (const auto& [atom, coeff] : f.atoms) {
      if (coeff == 0) continue;
      const int64_t magnitude = coeff < 0 ? -coeff : coeff;
      Expr term = magnitude == 1
                      ? atom
                      : make_binop(BinOpKind::Mul, atom,
                                   make_int(magnitude, s, kIntType), s, type);
      if (first)
        acc = coeff > 0 ? term : make_usub(term, s, type);
      else
        acc = make_binop(coeff > 0 ? BinOpKind::Add : BinOpKind::Sub, acc, term,
                         s, type);
      first = false;
    }
    return acc;
  }

  // `(n / a) / b` → `n / (a * b)`.
  static Expr merge_divisors(const Expr& e) {
    Expr n = e;
    while (true) {
      const auto& outer = n->as<BinOp>();
      if (outer.op != BinOpKind::Div || outer.lhs->kind != ExprKind::BinOp)
        return n;
      const auto& inner = outer.lhs->as<BinOp>();
      if (inner.op != BinOpKind::Div || !is_int_const(inner.rhs)) return n;
      const int64_t d = inner.rhs->as<Const>().int_value() *
                        outer.rhs->as<Const>().int_value();
      n = make_binop(BinOpKind::Div, inner.lhs,
                     make_int(d, inner.rhs->srcinfo, inner.rhs->type),
                     n->srcinfo, n->type);
    }
  }

  // Whether the context proves 0 <= e < bound.
  bool in_range(const Expr& e, int64_t bound) {
    if (!SmtEncoder::is_encodable(e)) return false;
    for (const auto& [known, b] : outside_)
      if (bound <= b && same_control_expr(known, e)) return false;
    const bool inside = in_range_asked(e, bound);
    if (!inside && splitting_) outside_.emplace_back(e, bound);
    return inside;
  }

  // The query of in_range. The answer for an expression of the arguments
  // alone (`n % 8 < 8`, asked at every `n / 8`) changes only with the facts
  // a scope adds (the body of `for i in seq(0, n - 1)` knows n >= 2, which
  // the statements after the loop do not), so it is asked once per scope;
  // a proof in an enclosing scope holds in every scope inside it.
  bool in_range_asked(const Expr& e, int64_t bound) {
    SmtEncoder& enc = ctx_.encoder();
    z3::expr v = enc.encode(e);
    z3::expr goal = 0 <= v && v < enc.int_value(bound);
    if (!reads_only_arguments(e)) return enc.proves(goal);
    // Keyed by the goal's term: equal goals are one term of the shared
    // context (its id is stable while the map keeps it alive).
    for (unsigned scope : scopes_) {
      auto it = argument_facts_.find({goal.id(), scope});
      if (it == argument_facts_.end()) continue;
      if (it->second.second || scope == scopes_.back())
        return it->second.second;
    }
    const bool proven = enc.proves(goal);
    argument_facts_.emplace(std::make_pair(goal.id(), scopes_.back()),
                            std::make_pair(goal, proven));
    return proven;
  }

  // Whether `e` is made of literals and reads of the procedure's control
  // arguments.
  bool reads_only_arguments(const Expr& e) const {
    class ReadsOnly final : public ExprFunctor<bool()> {
     public:
      explicit ReadsOnly(const std::set<Sym>& arguments)
          : arguments_(arguments) {}

     protected:
      bool visit_const(const Expr&) override { return true; }
      bool visit_read(const Expr& e) override {
        return arguments_.count(e->as<Read>().name) > 0;
      }
      bool visit_usub(const Expr& e) override {
        return visit(e->as<USub>().arg);
      }
      bool visit_binop(const Expr& e) override {
        return visit(e->as<BinOp>().lhs) && visit(e->as<BinOp>().rhs);
      }
      bool visit_expr_default(const Expr&) override { return false; }

     private:
      const std::set<Sym>& arguments_;
    };
    return ReadsOnly(arguments_).visit(e);
  }

  // `lhs / d` for an affine `lhs`: the terms divisible by d divide exactly;
  // the rest drops when it is provably in [0, d).
  Expr simplify_division(const Expr& e) {
    const auto& b = e->as<BinOp>();
    const int64_t d = b.rhs->as<Const>().int_value();
    std::optional<AffineForm> f = affine_form(b.lhs);
    if (!f) return e;
    Terms divisible, rest;
    for (const auto& t : terms_of(*f))
      (t.first % d == 0 ? divisible : rest).push_back(t);
    for (auto& t : divisible) t.first /= d;
    if (rest.empty())
      return affine_expr(floor_div(f->constant, d), divisible, e->type,
                         e->srcinfo);
    if (floor_mod(f->constant, d) == 0) {
      if (in_range(affine_expr(0, rest, e->type, e->srcinfo), d))
        return affine_expr(floor_div(f->constant, d), divisible, e->type,
                           e->srcinfo);
    } else if (in_range(affine_expr(f->constant, rest, e->type, e->srcinfo),
                        d)) {
      return affine_expr(0, divisible, e->type, e->srcinfo);
    }
    return make_binop(
        BinOpKind::Div,
        affine_expr(f->constant, terms_of(*f), b.lhs->type, b.lhs->srcinfo),
        b.rhs, e->srcinfo, e->type);
  }

  // As simplify_division, then `lhs / (a * b)` → `(lhs / a) / b` when one
  // factor divides exactly.
  Expr simplify_division_splitting(const Expr& e) {
    // The splits ask whether the same expression lies in [0, f) for
    // divisors f of d: one not in [0, d) is in no smaller range either.
    splitting_ = true;
    outside_.clear();
    struct Done {
      Simplifier& s;
      ~Done() {
        s.splitting_ = false;
        s.outside_.clear();
      }
    } done{*this};
    Expr s = simplify_division(e);
    if (!is_division(s)) return s;
    const auto& b = s->as<BinOp>();
    const int64_t d = b.rhs->as<Const>().int_value();
    auto divide = [&](const Expr& lhs, int64_t by) {
      return make_binop(BinOpKind::Div, lhs,
                        make_int(by, b.rhs->srcinfo, b.rhs->type), s->srcinfo,
                        s->type);
    };
    for (int64_t f = 2; f * f <= d; ++f) {
      if (d % f != 0) continue;
      for (int64_t first : {f, d / f}) {
        Expr part = simplify_division(divide(b.lhs, first));
        if (!is_division(part)) return divide(part, d / first);
      }
    }
    return s;
  }

  static bool is_division(const Expr& e) {
    return e->kind == ExprKind::BinOp && e->as<BinOp>().op == BinOpKind::Div;
  }

  // `lhs % m` for an affine `lhs`: terms divisible by m vanish; the rest is
  // the result when provably in [0, m).
  Expr simplify_modulo(const Expr& e) {
    const auto& b = e->as<BinOp>();
    const int64_t m = b.rhs->as<Const>().int_value();
    std::optional<AffineForm> f = affine_form(b.lhs);
    if (!f) return e;
    Terms rest;
    for (const auto& t : terms_of(*f))
      if (t.first % m != 0) rest.push_back(t);
    if (rest.empty())
      return make_int(floor_mod(f->constant, m), e->srcinfo, kIntType);
    const int64_t constant = floor_mod(f->constant, m) == 0 ? 0 : f->constant;
    Expr lhs = affine_expr(constant, rest, b.lhs->type, b.lhs->srcinfo);
    if (in_range(lhs, m)) return lhs;
    return make_binop(BinOpKind::Mod, lhs, b.rhs, e->srcinfo, e->type);
  }

  // Step 2: folding.
  Expr fold(const Expr& e) {
    if (Expr known = known_value(e)) return known;
    Expr f = fold_children(e);
    if (Expr known = known_value(f)) return known;
    return f;
  }

  Expr fold_children(const Expr& e) { return Fold(*this).visit(e); }

  // An expression with its children folded, one override per kind.
  class Fold final : public ExprFunctor<Expr()> {
   public:
    explicit Fold(Simplifier& s) : s_(s) {}

   protected:
    Expr visit_binop(const Expr& e) override { return s_.fold_binop(e); }
    Expr visit_read(const Expr& e) override {
      const auto& r = e->as<Read>();
      if (r.idx.empty()) return e;
      std::vector<Expr> idx;
      for (const Expr& i : r.idx) idx.push_back(s_.fold(i));
      return make_read(r.name, std::move(idx), e->srcinfo, e->type);
    }
    Expr visit_usub(const Expr& e) override {
      return make_usub(s_.fold(e->as<USub>().arg), e->srcinfo, e->type);
    }
    Expr visit_extern_call(const Expr& e) override {
      const auto& c = e->as<ExternCall>();
      std::vector<Expr> args;
      for (const Expr& a : c.args) args.push_back(s_.fold(a));
      return make_extern_call(c.f, std::move(args), e->srcinfo, e->type);
    }
    Expr visit_window_expr(const Expr& e) override {
      const auto& w = e->as<WindowExpr>();
      std::vector<WindowAccess> idx;
      for (const WindowAccess& a : w.idx) {
        WindowAccess n = a;
        if (a.lo) n.lo = s_.fold(a.lo);
        if (a.hi) n.hi = s_.fold(a.hi);
        idx.push_back(n);
      }
      return make_window_expr(w.name, std::move(idx), e->srcinfo, e->type);
    }
    // Literals, strides and config reads.
    Expr visit_expr_default(const Expr& e) override { return e; }

   private:
    Simplifier& s_;
  };

  Expr fold_binop(const Expr& e) {
    const auto& b = e->as<BinOp>();
    Expr l = fold(b.lhs);
    Expr r = fold(b.rhs);
    if (Expr c = fold_literals(b.op, l, r, e)) return c;
    const SrcInfo& s = e->srcinfo;
    switch (b.op) {
      case BinOpKind::Add:
        if (is_const_value(l, 0)) return r;
        if (is_const_value(r, 0)) return l;
        if (Expr n = quotient_remainder(l, r)) return n;
        break;
      case BinOpKind::Sub:
        if (is_const_value(r, 0)) return l;
        if (is_const_value(l, 0)) return make_usub(r, r->srcinfo, r->type);
        if (l->kind == ExprKind::BinOp && l->as<BinOp>().op == BinOpKind::Add) {
          if (equal(l->as<BinOp>().lhs, r)) return l->as<BinOp>().rhs;
          if (equal(l->as<BinOp>().rhs, r)) return l->as<BinOp>().lhs;
        }
        break;
      case BinOpKind::Mul:
        if (is_const_value(l, 0) || is_const_value(r, 0))
          return make_const(ConstValue(int64_t{0}), l->srcinfo, l->type);
        if (is_const_value(l, 1)) return r;
        if (is_const_value(r, 1)) return l;
        break;
      case BinOpKind::Div:
        if (is_const_value(r, 1)) return l;
        break;
      case BinOpKind::Mod:
        if (is_const_value(r, 1))
          return make_const(ConstValue(int64_t{0}), l->srcinfo, l->type);
        break;
      case BinOpKind::And:
      case BinOpKind::Or: {
        const bool absorbing = b.op == BinOpKind::Or;
        for (const auto& [x, y] :
             {std::make_pair(l, r), std::make_pair(r, l)}) {
          if (is_bool_value(x, absorbing))
            return make_const(ConstValue(absorbing), s, kBoolType);
          if (is_bool_value(x, !absorbing)) return y;
        }
        break;
      }
      default:
        break;
    }
    if (l == b.lhs && r == b.rhs) return e;
    return make_binop(b.op, l, r, s, e->type);
  }

  // The value of an operation on two literals, or null.
  static Expr fold_literals(BinOpKind op, const Expr& l, const Expr& r,
                            const Expr& e) {
    if (l->kind != ExprKind::Const || r->kind != ExprKind::Const)
      return nullptr;
    const auto& a = l->as<Const>();
    const auto& b = r->as<Const>();
    const SrcInfo& s = e->srcinfo;
    if (a.is_bool() && b.is_bool()) {
      const bool x = std::get<bool>(a.value), y = std::get<bool>(b.value);
      if (op == BinOpKind::And) return make_const(x && y, s, kBoolType);
      if (op == BinOpKind::Or) return make_const(x || y, s, kBoolType);
      if (op == BinOpKind::Eq) return make_const(x == y, s, kBoolType);
      return nullptr;
    }
    if (a.is_bool() || b.is_bool()) return nullptr;
    if (a.is_int() && b.is_int()) {
      const int64_t x = a.int_value(), y = b.int_value();
      switch (op) {
        case BinOpKind::Add:
          return make_const(x + y, s, l->type);
        case BinOpKind::Sub:
          return make_const(x - y, s, l->type);
        case BinOpKind::Mul:
          return make_const(x * y, s, l->type);
        case BinOpKind::Div:
          // Integer literals of data type divide as reals; leave them.
          if (y == 0 || e->type.is_numeric()) return nullptr;
          return make_const(floor_div(x, y), s, l->type);
        case BinOpKind::Mod:
          if (y == 0 || e->type.is_numeric()) return nullptr;
          return make_const(floor_mod(x, y), s, l->type);
        default:
          break;
      }
    }
    const double x = a.is_int() ? static_cast<double>(a.int_value())
                                : std::get<double>(a.value);
    const double y = b.is_int() ? static_cast<double>(b.int_value())
                                : std::get<double>(b.value);
    switch (op) {
      case BinOpKind::Lt:
        return make_const(x < y, s, kBoolType);
      case BinOpKind::Gt:
        return make_const(x > y, s, kBoolType);
      case BinOpKind::Le:
        return make_const(x <= y, s, kBoolType);
      case BinOpKind::Ge:
        return make_const(x >= y, s, kBoolType);
      case BinOpKind::Eq:
        return make_const(x == y, s, kBoolType);
      case BinOpKind::Add:
        return make_const(x + y, s, l->type);
      case BinOpKind::Sub:
        return make_const(x - y, s, l->type);
      case BinOpKind::Mul:
        return make_const(x * y, s, l->type);
      case BinOpKind::Div: {
        // Only precisions with real division (Exo floors `R` literals).
        const TypeKind k = e->type.kind();
        if (y == 0 ||
            (k != TypeKind::F16 && k != TypeKind::F32 && k != TypeKind::F64))
          return nullptr;
        return make_const(x / y, s, l->type);
      }
      default:
        return nullptr;
    }
  }

  // `N % K + K * (N / K)` (either order, either factor order) → `N`.
  static Expr quotient_remainder(const Expr& l, const Expr& r) {
    for (const auto& [rem, quot] :
         {std::make_pair(l, r), std::make_pair(r, l)}) {
      if (rem->kind != ExprKind::BinOp || rem->as<BinOp>().op != BinOpKind::Mod)
        continue;
      if (quot->kind != ExprKind::BinOp ||
          quot->as<BinOp>().op != BinOpKind::Mul)
        continue;
      const Expr& n = rem->as<BinOp>().lhs;
      const Expr& k = rem->as<BinOp>().rhs;
      const auto& q = quot->as<BinOp>();
      for (const auto& [c, div] :
           {std::make_pair(q.lhs, q.rhs), std::make_pair(q.rhs, q.lhs)}) {
        if (!equal(c, k) || !is_division(div)) continue;
        if (equal(div->as<BinOp>().lhs, n) && equal(div->as<BinOp>().rhs, k))
          return n;
      }
    }
    return nullptr;
  }

  // Facts of `if e == c:` branches: `e` reads as `c`.
  void add_fact(const Expr& cond) {
    if (cond->kind != ExprKind::BinOp || cond->as<BinOp>().op != BinOpKind::Eq)
      return;
    const auto& b = cond->as<BinOp>();
    Expr e, c;
    if (b.rhs->kind == ExprKind::Const) {
      e = b.lhs;
      c = b.rhs;
    } else if (b.lhs->kind == ExprKind::Const) {
      e = b.rhs;
      c = b.lhs;
    } else {
      return;
    }
    facts_.back().emplace_back(e, c);
    // X / M == 0 means X % M is X.
    if (is_division(e) && is_const_value(c, 0)) {
      const auto& d = e->as<BinOp>();
      facts_.back().emplace_back(
          make_binop(BinOpKind::Mod, d.lhs, d.rhs, e->srcinfo, e->type), d.lhs);
    }
  }

  Expr known_value(const Expr& e) const {
    for (auto scope = facts_.rbegin(); scope != facts_.rend(); ++scope)
      for (const auto& [key, value] : *scope)
        if (equal(key, e)) return value;
    return nullptr;
  }

  QueryContext ctx_;
  SimplifyOptions options_;
  std::set<Sym> arguments_;  // the control arguments
  // While a division is split (one point of the walk): expressions known
  // not to lie in [0, b), with b.
  bool splitting_ = false;
  std::vector<std::pair<Expr, int64_t>> outside_;
  // in_range on arguments, by the goal's id and the scope asked in: the
  // walk's enclosing loop bodies and branches, outermost first (0: the
  // procedure's body), each numbered when entered.
  std::map<std::pair<unsigned, unsigned>, std::pair<z3::expr, bool>>
      argument_facts_;
  std::vector<unsigned> scopes_{0};
  unsigned scopes_entered_ = 0;
  std::vector<std::vector<std::pair<Expr, Expr>>> facts_;
  KeptStatements* kept_;    // null: not recorded
  cursors::Path old_path_;  // of the statement being rewritten
  cursors::Path new_path_;  // of the statement whose list is being filled
  cursors::Slot new_slot_ = cursors::Slot::Body;  // and which list
};

}  // namespace

Proc simplify(const Proc& p, const SimplifyOptions& options,
              KeptStatements* kept) {
  return Simplifier(p, options, kept).run(p);
}

}  // namespace exo2
