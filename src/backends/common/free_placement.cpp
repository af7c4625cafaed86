// Memory analysis (Exo's mem_analysis.py): memories must agree at calls,
// and each allocation is freed right after the last statement of its block
// that uses it. [fix] A use of a window derived from the buffer (`y =
// x[...]`, then `y`) counts as a use of the buffer, so the buffer outlives
// its windows.
#include <unordered_map>
#include <unordered_set>

#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"

namespace exo2 {

namespace {

class FreePlacement {
 public:
  Proc run(const Proc& p) {
    for (const FnArg& a : p->args)
      if (a.type.is_numeric() && a.mem) mems_[a.name] = a.mem;
    return make_proc(p->name, p->args, p->preds, block(p->body), p->instr,
                     p->srcinfo);
  }

 private:
  std::unordered_map<Sym, MemoryPtr> mems_;
  std::unordered_map<Sym, Sym> alias_;  // window name -> windowed buffer

  Sym root(const Sym& s) const {
    auto it = alias_.find(s);
    return it == alias_.end() ? s : it->second;
  }
  void use(const Sym& s, std::unordered_set<Sym>& used) const {
    used.insert(s);
    used.insert(root(s));
  }

  void used_expr(const Expr& e, std::unordered_set<Sym>& used) const {
    switch (e->kind) {
      case ExprKind::Read:
        use(e->as<Read>().name, used);
        for (const Expr& i : e->as<Read>().idx) used_expr(i, used);
        break;
      case ExprKind::USub:
        used_expr(e->as<USub>().arg, used);
        break;
      case ExprKind::BinOp:
        used_expr(e->as<BinOp>().lhs, used);
        used_expr(e->as<BinOp>().rhs, used);
        break;
      case ExprKind::ExternCall:
        for (const Expr& a : e->as<ExternCall>().args) used_expr(a, used);
        break;
      case ExprKind::WindowExpr:
        use(e->as<WindowExpr>().name, used);
        break;
      case ExprKind::StrideExpr:
        use(e->as<StrideExpr>().name, used);
        break;
      default:
        break;
    }
  }

  void used_stmt(const Stmt& s, std::unordered_set<Sym>& used) const {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce:
        use(s->as<Assign>().name, used);
        used_expr(s->as<Assign>().rhs, used);
        break;
      case StmtKind::WriteConfig:
        used_expr(s->as<WriteConfig>().rhs, used);
        break;
      case StmtKind::If:
        used_expr(s->as<If>().cond, used);
        for (const Stmt& b : s->as<If>().body) used_stmt(b, used);
        for (const Stmt& b : s->as<If>().orelse) used_stmt(b, used);
        break;
      case StmtKind::For:
        for (const Stmt& b : s->as<For>().body) used_stmt(b, used);
        break;
      case StmtKind::With:
        for (const Stmt& b : s->as<With>().body) used_stmt(b, used);
        break;
      case StmtKind::Alloc:
        use(s->as<Alloc>().name, used);
        break;
      case StmtKind::Call:
        for (const Expr& a : s->as<Call>().args) used_expr(a, used);
        break;
      case StmtKind::WindowStmt:
        used_expr(s->as<WindowStmt>().rhs, used);
        break;
      default:
        break;
    }
  }

  const MemoryPtr& memory_of(const Expr& e) {
    const Sym& name = e->kind == ExprKind::Read ? e->as<Read>().name
                                                : e->as<WindowExpr>().name;
    return mems_.at(name);
  }

  Stmt stmt(const Stmt& s, std::vector<const Alloc*>& allocs) {
    switch (s->kind) {
      case StmtKind::WindowStmt: {
        const auto& w = s->as<WindowStmt>();
        const Sym& base = w.rhs->kind == ExprKind::WindowExpr
                              ? w.rhs->as<WindowExpr>().name
                              : w.rhs->as<Read>().name;
        mems_[w.name] = mems_.at(base);
        alias_[w.name] = root(base);
        return s;
      }
      case StmtKind::Call: {
        const auto& c = s->as<Call>();
        for (size_t k = 0; k < c.args.size(); ++k) {
          const FnArg& param = c.f->args[k];
          if (!param.type.is_numeric() || !param.mem) continue;
          // A config field lives in the context struct, in DRAM.
          const MemoryPtr& cmem = c.args[k]->kind == ExprKind::ReadConfig
                                      ? default_memory()
                                      : memory_of(c.args[k]);
          if (!cmem->is_subclass_of(*param.mem))
            throw CodegenError(CodegenError::Kind::Type,
                               c.args[k]->srcinfo.str() +
                                   ": expected argument in " +
                                   param.mem->name() +
                                   " but got an argument in " + cmem->name());
        }
        return s;
      }
      case StmtKind::If: {
        const auto& i = s->as<If>();
        return make_if(i.cond, block(i.body), block(i.orelse), s->srcinfo);
      }
      case StmtKind::For: {
        const auto& f = s->as<For>();
        return make_for(f.iter, f.lo, f.hi, block(f.body), f.mode, s->srcinfo);
      }
      case StmtKind::With: {
        const auto& w = s->as<With>();
        return make_with(w.ctx, block(w.body), s->srcinfo);
      }
      case StmtKind::Alloc:
        mems_[s->as<Alloc>().name] = s->as<Alloc>().mem;
        allocs.push_back(&s->as<Alloc>());
        return s;
      default:
        return s;
    }
  }

  Block block(const Block& b) {
    std::vector<const Alloc*> allocs;
    Block mapped;
    for (const Stmt& s : b) mapped.push_back(stmt(s, allocs));
    // Backwards: the first statement met that uses an allocation is its
    // last use. Frees after one statement come in reverse allocation order.
    Block reversed;
    for (auto it = mapped.rbegin(); it != mapped.rend(); ++it) {
      std::unordered_set<Sym> used;
      used_stmt(*it, used);
      std::vector<const Alloc*> remaining;
      for (const Alloc* a : allocs) {
        if (used.count(a->name))
          reversed.push_back(
              make_free(a->name, a->type, a->mem, (*it)->srcinfo));
        else
          remaining.push_back(a);
      }
      allocs = std::move(remaining);
      reversed.push_back(*it);
    }
    return Block(reversed.rbegin(), reversed.rend());
  }
};

}  // namespace

Proc place_frees(const Proc& p) { return FreePlacement().run(p); }

}  // namespace exo2
