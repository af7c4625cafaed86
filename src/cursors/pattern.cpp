// The search of docs/cursors.md ("Finding code"), following Exo's
// pattern_match.py: at each statement of a list, first a match starting there,
// then matches inside it, then the rest of the list; expressions before their
// children.
#include "exo2/cursors/pattern.hpp"

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::cursors {

namespace {

bool name_matches(const std::string& pattern, const std::string& name) {
  return pattern == "_" || pattern == name;
}

double numeric_value(const ConstValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  if (const int64_t* i = std::get_if<int64_t>(&v))
    return static_cast<double>(*i);
  return std::get<double>(v);
}

bool match_expr(const ExprPattern& pat, const Expr& e);

bool match_pairwise(const std::vector<ExprPattern>& pats,
                    const std::vector<Expr>& es) {
  for (size_t i = 0; i < pats.size() && i < es.size(); i++)
    if (!match_expr(pats[i], es[i])) return false;
  return true;
}

// Whether an expression matches a pattern, one override per kind.
class ExprMatch final : public ExprFunctor<bool(const ExprPattern&)> {
  using K = ExprPattern::Kind;

 protected:
  bool visit_read(const Expr& e, const ExprPattern& pat) override {
    return pat.kind == K::Read &&
           name_matches(pat.name, e->as<Read>().name.name()) &&
           match_pairwise(pat.children, e->as<Read>().idx);
  }
  bool visit_window_expr(const Expr& e, const ExprPattern& pat) override {
    // Only `x[_]` matches a window of x.
    return pat.kind == K::Read && pat.children.size() == 1 &&
           pat.children[0].kind == K::Hole &&
           name_matches(pat.name, e->as<WindowExpr>().name.name());
  }
  bool visit_const(const Expr& e, const ExprPattern& pat) override {
    return pat.kind == K::Const &&
           pat.value == numeric_value(e->as<Const>().value);
  }
  bool visit_usub(const Expr& e, const ExprPattern& pat) override {
    return pat.kind == K::USub &&
           match_expr(pat.children[0], e->as<USub>().arg);
  }
  bool visit_binop(const Expr& e, const ExprPattern& pat) override {
    const auto& b = e->as<BinOp>();
    return pat.kind == K::BinOp && pat.op == b.op &&
           match_expr(pat.children[0], b.lhs) &&
           match_expr(pat.children[1], b.rhs);
  }
  bool visit_extern_call(const Expr& e, const ExprPattern& pat) override {
    const auto& c = e->as<ExternCall>();
    return pat.kind == K::Extern && name_matches(pat.name, c.f->name()) &&
           match_pairwise(pat.children, c.args);
  }
  bool visit_stride_expr(const Expr& e, const ExprPattern& pat) override {
    const auto& s = e->as<StrideExpr>();
    return pat.kind == K::Stride && name_matches(pat.name, s.name.name()) &&
           (!pat.dim || *pat.dim == 0 || *pat.dim == s.dim);
  }
  bool visit_read_config(const Expr& e, const ExprPattern& pat) override {
    const auto& c = e->as<ReadConfig>();
    return pat.kind == K::Config && pat.name == c.config->name() &&
           pat.field == c.field;
  }
};

bool match_expr(const ExprPattern& pat, const Expr& e) {
  using K = ExprPattern::Kind;
  if (pat.kind == K::Hole) return true;
  // `-3` parses as -(3) but matches the literal -3.
  if (pat.kind == K::USub && pat.children[0].kind == K::Const &&
      e->kind == ExprKind::Const)
    return -pat.children[0].value == numeric_value(e->as<Const>().value);
  return ExprMatch().visit(e, pat);
}

int match_sequence(const std::vector<StmtPattern>& pats, const Block& list,
                   int lo, int hi);

// Whether a statement matches a pattern, one override per kind.
class StmtMatch final : public StmtFunctor<bool(const StmtPattern&)> {
  using K = StmtPattern::Kind;

 protected:
  bool visit_assign(const Stmt& s, const StmtPattern& pat) override {
    const auto& a = s->as<Assign>();
    const K want = s->kind == StmtKind::Assign ? K::Assign : K::Reduce;
    if (pat.kind != want || !name_matches(pat.name, a.name.name()))
      return false;
    const std::vector<ExprPattern> idx(pat.exprs.begin(), pat.exprs.end() - 1);
    return match_pairwise(idx, a.idx) && match_expr(pat.exprs.back(), a.rhs);
  }
  bool visit_window_stmt(const Stmt& s, const StmtPattern& pat) override {
    const auto& w = s->as<WindowStmt>();
    return pat.kind == K::Assign && pat.exprs.size() == 1 &&
           name_matches(pat.name, w.name.name()) &&
           match_expr(pat.exprs[0], w.rhs);
  }
  bool visit_pass(const Stmt&, const StmtPattern& pat) override {
    return pat.kind == K::Pass;
  }
  bool visit_if(const Stmt& s, const StmtPattern& pat) override {
    const auto& f = s->as<If>();
    return pat.kind == K::If && match_expr(pat.exprs[0], f.cond) &&
           match_sequence(pat.body, f.body, 0, f.body.size()) >= 0 &&
           match_sequence(pat.orelse, f.orelse, 0, f.orelse.size()) >= 0;
  }
  bool visit_for(const Stmt& s, const StmtPattern& pat) override {
    const auto& f = s->as<For>();
    return pat.kind == K::For && name_matches(pat.name, f.iter.name()) &&
           match_expr(pat.exprs[0], f.lo) && match_expr(pat.exprs[1], f.hi) &&
           match_sequence(pat.body, f.body, 0, f.body.size()) >= 0;
  }
  // No pattern names a `free`.
  bool visit_alloc(const Stmt& s, const StmtPattern& pat) override {
    const auto& a = s->as<Alloc>();
    return s->kind == StmtKind::Alloc && pat.kind == K::Alloc &&
           name_matches(pat.name, a.name.name()) &&
           match_pairwise(pat.exprs, a.type.shape());
  }
  bool visit_call(const Stmt& s, const StmtPattern& pat) override {
    return pat.kind == K::Call && name_matches(pat.name, s->as<Call>().f->name);
  }
  bool visit_write_config(const Stmt& s, const StmtPattern& pat) override {
    const auto& w = s->as<WriteConfig>();
    return pat.kind == K::WriteConfig &&
           name_matches(pat.name, w.config->name()) &&
           name_matches(pat.field, w.field);
  }
  bool visit_with(const Stmt& s, const StmtPattern& pat) override {
    const auto& w = s->as<With>();
    return pat.kind == K::With &&
           match_sequence(pat.body, w.body, 0, w.body.size()) >= 0;
  }
  bool visit_sync(const Stmt& s, const StmtPattern& pat) override {
    return pat.kind == K::Sync &&
           pat.name == sync_kind_name(s->as<Sync>().sync);
  }
};

bool match_stmt(const StmtPattern& pat, const Stmt& s) {
  return StmtMatch().visit(s, pat);
}

// How many statements of list[lo, hi) starting at lo the sequence matches,
// or -1. A hole takes statements until the pattern after it matches; a
// final hole takes the rest.
int match_sequence(const std::vector<StmtPattern>& pats, const Block& list,
                   int lo, int hi) {
  size_t i = 0;
  int j = lo;
  while (i < pats.size() && j < hi) {
    if (pats[i].kind == StmtPattern::Kind::Hole) {
      if (i + 1 == pats.size()) return hi - lo;
      if (match_stmt(pats[i + 1], list[j])) i += 2;
    } else if (match_stmt(pats[i], list[j])) {
      i += 1;
    } else {
      return -1;
    }
    j++;
  }
  return i == pats.size() ? j - lo : -1;
}

// Collects matches in pre-order, keeping the current path.
class Search {
 public:
  Search(const Pattern& pattern, std::optional<int> match_no)
      : pattern_(pattern), remaining_(match_no) {}

  // Returns false once the wanted match is found.
  bool list(const Block& stmts, Slot slot, int lo, int hi) {
    for (int j = lo; j < hi; j++) {
      path_.push_back(Step{slot, j});
      const bool more = stmt(stmts, j, hi);
      path_.pop_back();
      if (!more) return false;
    }
    return true;
  }

  bool expr(const Expr& e) {
    const auto& pat = std::get<ExprPattern>(pattern_);
    if (match_expr(pat, e) && !add(Location::node(path_))) return false;
    bool more = true;
    for_each_expr_child(e, [&](Step step, const Expr& child) {
      if (!more) return;
      path_.push_back(step);
      more = expr(child);
      path_.pop_back();
    });
    return more;
  }

  void set_path(Path p) { path_ = std::move(p); }
  std::vector<Location> results() { return std::move(results_); }

 private:
  // The statement stmts[j], whose step is on the path.
  bool stmt(const Block& stmts, int j, int hi) {
    const Stmt& s = stmts[j];
    if (const auto* seq = std::get_if<std::vector<StmtPattern>>(&pattern_)) {
      const int n = match_sequence(*seq, stmts, j, hi);
      if (n > 0 && !add(Location::block(path_, j + n))) return false;
    } else {
      bool more = true;
      for_each_expr_child(s, [&](Step step, const Expr& child) {
        if (!more) return;
        path_.push_back(step);
        more = expr(child);
        path_.pop_back();
      });
      if (!more) return false;
    }
    for (int which = 0; const Block* body = exo2::child_block(s, which);
         which++)
      if (!list(*body, block_slot(which), 0, body->size())) return false;
    return true;
  }

  bool add(Location loc) {
    if (!remaining_) {
      results_.push_back(std::move(loc));
      return true;
    }
    if (*remaining_ == 0) {
      results_.push_back(std::move(loc));
      return false;
    }
    --*remaining_;
    return true;
  }

  const Pattern& pattern_;
  std::optional<int> remaining_;
  Path path_;
  std::vector<Location> results_;
};

bool only_holes(const Pattern& pattern) {
  if (const auto* e = std::get_if<ExprPattern>(&pattern))
    return e->kind == ExprPattern::Kind::Hole;
  for (const auto& s : std::get<std::vector<StmtPattern>>(pattern))
    if (s.kind != StmtPattern::Kind::Hole) return false;
  return true;
}

}  // namespace

std::vector<Location> find_matches(const Proc& proc, const Location& scope,
                                   const Pattern& pattern,
                                   std::optional<int> match_no) {
  if (only_holes(pattern))
    throw PatternMatchError("pattern match on 'anything' unsupported");
  Search search(pattern, match_no);
  if (scope.kind == LocationKind::Gap) return {};
  if (scope.path.empty()) {
    search.list(proc->body, Slot::Body, 0, proc->body.size());
    return search.results();
  }
  const bool statement = is_statement_slot(scope.path.back().slot);
  if (statement) {
    const Block& stmts = enclosing_list(proc, scope.path);
    const int lo = scope.path.back().index;
    const int hi = scope.kind == LocationKind::Block ? scope.hi : lo + 1;
    search.set_path(owner_path(scope));
    search.list(stmts, scope.path.back().slot, lo, hi);
    return search.results();
  }
  if (std::holds_alternative<ExprPattern>(pattern) &&
      scope.path[0].slot != Slot::Param) {
    search.set_path(scope.path);
    search.expr(resolve_expr(proc, scope.path));
  }
  return search.results();
}

}  // namespace exo2::cursors
