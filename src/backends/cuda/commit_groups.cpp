#include "commit_groups.hpp"

#include <fmt/format.h>

#include <map>

#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/child_blocks.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::cuda {

namespace {

bool is_group_memory(const MemoryPtr& m) {
  const MemKind k = mem_kind(m);
  return k == MemKind::CpAsyncGroup || k == MemKind::WgmmaGroup;
}

// An arrive on `g`: its barrier element.
const Expr* arrive_on(const Sync& y, const Sym& g) {
  if (y.sync != SyncKind::Arrive) return nullptr;
  for (const Expr& b : y.barriers)
    if (b->as<Read>().name == g) return &b;
  return nullptr;
}
const Expr* arrive_on(const Stmt& s, const Sym& g) {
  return s->kind == StmtKind::Sync ? arrive_on(s->as<Sync>(), g) : nullptr;
}

// Whether a statement arrives on `g`, or holds one that does.
bool contains_arrive(const Stmt& s, const Sym& g) {
  class Search : public IRVisitor {
   public:
    explicit Search(const Sym& g) : IRVisitor(Visits::StatementsOnly), g_(g) {}
    bool found = false;

   protected:
    void visit_sync(const Sync& y) override {
      if (!arrive_on(y, g_)) return;
      found = true;
      stop();
    }

   private:
    const Sym& g_;
  } search(g);
  search.visit(s);
  return search.found;
}

// Where a statement sits: its list, its index, and the owner (null for the
// task body).
struct Place {
  const Block* list;
  size_t index;
  const StmtNode* owner;
};

class Depths : public IRVisitor {
 public:
  Depths(const Kernel& k, std::vector<Diagnostic>& errors)
      : IRVisitor(Visits::StatementsOnly), k_(k), errors_(errors) {}

  std::unordered_map<const StmtNode*, int> run() {
    for (const Expr& f : k_.facts)
      if (SmtEncoder::is_encodable(f)) smt_.assume(f);
    for (const KernelParam& p : k_.params)
      if (p.type.kind() == TypeKind::Size) smt_.assume(smt_.var(p.sym) >= 1);
    for (const For* t : k_.tasks) assume_range(*t);
    index(*k_.body, nullptr);
    visit(*k_.body);
    return std::move(out_);
  }

 private:
  const Kernel& k_;
  std::vector<Diagnostic>& errors_;
  std::unordered_map<const StmtNode*, int> out_;
  std::unordered_map<const StmtNode*, Place> places_;
  std::map<Sym, MemoryPtr> memories_;
  SmtEncoder smt_;

  void assume_range(const For& f) {
    if (SmtEncoder::is_encodable(f.lo) && SmtEncoder::is_encodable(f.hi)) {
      z3::expr v = smt_.var(f.iter);
      smt_.assume(smt_.encode(f.lo) <= v && v < smt_.encode(f.hi));
    }
  }

  void index(const Block& b, const StmtNode* owner) {
    for (size_t i = 0; i < b.size(); ++i) {
      places_[b[i].get()] = {&b, i, owner};
      const Stmt& s = b[i];
      if (s->kind == StmtKind::Alloc)
        memories_[s->as<Alloc>().name] = s->as<Alloc>().mem;
      for (const primitives::ChildBlock& c : primitives::child_blocks(s))
        index(c.block, s.get());
    }
  }

  void visit_for(const For& f) override {
    smt_.push();
    assume_range(f);
    IRVisitor::visit_for(f);
    smt_.pop();
  }
  void visit_sync(const Sync& y) override {
    if (y.sync != SyncKind::Await) return;
    const Expr& b0 = y.barriers.front();
    auto mem = memories_.find(b0->as<Read>().name);
    if (mem == memories_.end() || !is_group_memory(mem->second)) return;
    const Place& p = places_.at(&y);
    depth((*p.list)[p.index], b0);
  }

  void error(const Stmt& s, const std::string& why) {
    errors_.push_back(
        {s->srcinfo,
         fmt::format("cannot tell how many commit groups `{}` leaves "
                     "pending: {}",
                     print_stmt(s), why)});
  }

  // The constant value of `arrived - awaited`, or an error.
  std::optional<int> constant_difference(const Expr& arrived,
                                         const Expr& awaited) {
    if (!SmtEncoder::is_encodable(arrived) ||
        !SmtEncoder::is_encodable(awaited))
      return std::nullopt;
    z3::expr d = smt_.encode(arrived) - smt_.encode(awaited);
    QueryResult r = smt_.satisfiable(d == d);
    if (!r.yes()) return std::nullopt;
    auto v = smt_.value_in(r, d);
    if (!v) return std::nullopt;
    const int c = std::stoi(*v);
    if (!smt_.prove(d == c).yes()) return std::nullopt;
    return c;
  }

  static const Expr& group_index(const Expr& b) {
    return b->as<Read>().idx.back();
  }

  // The same indices except the last.
  static bool same_owner(const Expr& a, const Expr& b) {
    const auto& x = a->as<Read>().idx;
    const auto& y = b->as<Read>().idx;
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i + 1 < x.size(); ++i)
      if (!equal(x[i], y[i])) return false;
    return true;
  }

  // The group index of the latest Arrive on `g` before statement `at`, as
  // an expression valid where `at` runs; nullopt with an error.
  std::optional<Expr> latest(const Stmt& s, const StmtNode* at,
                             const Expr& awaited) {
    const Sym& g = awaited->as<Read>().name;
    const Place& p = places_.at(at);
    for (size_t i = p.index; i-- > 0;) {
      bool failed = false;
      std::optional<Expr> a = last_arrive_in(s, (*p.list)[i], awaited, failed);
      if (failed) return std::nullopt;
      if (a) return a;
    }
    if (!p.owner) {
      error(s,
            fmt::format("no Arrive on {} precedes it in the task", g.name()));
      return std::nullopt;
    }
    // Each thread runs one iteration of a cuda_threads loop: its previous
    // iterations are other threads'.
    if (p.owner->kind != StmtKind::For ||
        loop_kind(static_cast<const For&>(*p.owner)) == LoopKind::Threads)
      return latest(s, p.owner, awaited);
    // At the top of a loop body: the previous iteration's last Arrive, or
    // before the loop for the first iteration.
    const For& f = static_cast<const For&>(*p.owner);
    std::optional<Expr> last;
    for (size_t i = f.body.size(); i-- > 0 && !last;) {
      bool failed = false;
      last = last_arrive_in(s, f.body[i], awaited, failed);
      if (failed) return std::nullopt;
    }
    const Type idx(TypeKind::Index);
    Expr k = make_read(f.iter, {}, f.srcinfo, idx);
    if (!last) {
      // Nothing in the loop: the index before the loop must not move.
      return latest(s, p.owner, awaited);
    }
    Expr prev_iter = primitives::substitute(
        *last,
        {{f.iter, make_binop(BinOpKind::Sub, k, make_int(1, f.srcinfo, idx),
                             f.srcinfo, idx)}});
    // The first iteration.
    smt_.push();
    z3::expr kv = smt_.var(f.iter);
    smt_.assume(kv == smt_.encode(f.lo));
    std::optional<Expr> before = latest(s, p.owner, awaited);
    smt_.pop();
    if (!before) return std::nullopt;
    auto d0 = first_iteration_depth(*before, awaited, f);
    smt_.push();
    smt_.assume(kv > smt_.encode(f.lo));
    auto d1 = constant_difference(prev_iter, group_index(awaited));
    smt_.pop();
    if (!d0 || !d1 || *d0 != *d1) {
      error(s, fmt::format("in loop {} the first iteration leaves {} and the "
                           "others {} groups pending",
                           f.iter.name(), d0 ? std::to_string(*d0) : "?",
                           d1 ? std::to_string(*d1) : "?"));
      return std::nullopt;
    }
    // An expression with the right difference for every iteration.
    return make_binop(BinOpKind::Add, group_index(awaited),
                      make_int(*d1, f.srcinfo, idx), f.srcinfo, idx);
  }

  // The group index of the last Arrive on the awaited barrier that `prev`
  // executes (nullopt when none; `failed` after an error).
  std::optional<Expr> last_arrive_in(const Stmt& s, const Stmt& prev,
                                     const Expr& awaited, bool& failed) {
    const Sym& g = awaited->as<Read>().name;
    if (const Expr* a = arrive_on(prev, g)) {
      if (!same_owner(*a, awaited)) {
        error(s, fmt::format("the latest Arrive on {} ({}) is for another "
                             "owner",
                             g.name(), print_expr(*a)));
        failed = true;
        return std::nullopt;
      }
      return group_index(*a);
    }
    if (!contains_arrive(prev, g)) return std::nullopt;
    auto in_block = [&](const Block& b) -> std::optional<Expr> {
      for (size_t i = b.size(); i-- > 0;) {
        std::optional<Expr> a = last_arrive_in(s, b[i], awaited, failed);
        if (failed || a) return a;
      }
      return std::nullopt;
    };
    if (prev->kind == StmtKind::With) return in_block(prev->as<With>().body);
    if (prev->kind == StmtKind::For) {
      const For& f = prev->as<For>();
      if (loop_kind(f) == LoopKind::Threads) return in_block(f.body);
      // The last iteration's; the loop must run at least once.
      std::optional<Expr> a = in_block(f.body);
      if (failed || !a) return a;
      const bool runs = SmtEncoder::is_encodable(f.lo) &&
                        SmtEncoder::is_encodable(f.hi) &&
                        smt_.prove(smt_.encode(f.hi) > smt_.encode(f.lo)).yes();
      if (!runs) {
        error(s, fmt::format("the loop {} at {} arrives on {} but may run no "
                             "iteration",
                             f.iter.name(), f.srcinfo.str(), g.name()));
        failed = true;
        return std::nullopt;
      }
      const Type idx(TypeKind::Index);
      return primitives::substitute(
          *a,
          {{f.iter, make_binop(BinOpKind::Sub, f.hi,
                               make_int(1, f.srcinfo, idx), f.srcinfo, idx)}});
    }
    error(s, fmt::format("an Arrive on {} under the condition at {} precedes "
                         "it",
                         g.name(), prev->srcinfo.str()));
    failed = true;
    return std::nullopt;
  }

  std::optional<int> first_iteration_depth(const Expr& before,
                                           const Expr& awaited, const For& f) {
    Expr at_lo = primitives::substitute(group_index(awaited), {{f.iter, f.lo}});
    return constant_difference(before, at_lo);
  }

  void depth(const Stmt& s, const Expr& awaited) {
    std::optional<Expr> arrived = latest(s, s.get(), awaited);
    if (!arrived) return;
    auto d = constant_difference(*arrived, group_index(awaited));
    if (!d) {
      error(s, fmt::format("the latest Arrive commits group {} and the "
                           "difference to {} is not a constant",
                           print_expr(*arrived),
                           print_expr(group_index(awaited))));
      return;
    }
    if (*d < 0) {
      error(s, fmt::format("it waits for group {}, which is committed after "
                           "it ({} groups later)",
                           print_expr(group_index(awaited)), -*d));
      return;
    }
    out_[s.get()] = *d;
  }
};

}  // namespace

std::unordered_map<const StmtNode*, int> commit_group_depths(
    const Kernel& k, std::vector<Diagnostic>& errors) {
  return Depths(k, errors).run();
}

}  // namespace exo2::cuda
