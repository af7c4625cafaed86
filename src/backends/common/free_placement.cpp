// Memory analysis (Exo's mem_analysis.py): memories must agree at calls,
// and each allocation is freed right after the last statement of its block
// that uses it. [fix] A use of a window derived from the buffer (`y =
// x[...]`, then `y`) counts as a use of the buffer, so the buffer outlives
// its windows.
#include <unordered_map>
#include <unordered_set>

#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {

// The buffers a statement uses; a window counts as the buffer it windows.
// Loop bounds, indices and shapes are control expressions: only the
// buffers named in data positions count.
class UsedBuffers : public IRVisitor {
 public:
  UsedBuffers(const std::unordered_map<Sym, Sym>& alias,
              std::unordered_set<Sym>& used)
      : alias_(alias), used_(used) {}

 protected:
  void visit_read(const Read& e) override {
    use(e.name);
    IRVisitor::visit_read(e);
  }
  void visit_window_expr(const WindowExpr& e) override { use(e.name); }
  void visit_stride_expr(const StrideExpr& e) override { use(e.name); }
  void visit_assign(const Assign& s) override {
    use(s.name);
    visit(s.rhs);
  }
  void visit_for(const For& s) override { visit(s.body); }
  void visit_alloc(const Alloc& s) override {
    if (s.kind == StmtKind::Alloc) use(s.name);
  }
  void visit_call(const Call& s) override { visit(s.args); }
  void visit_sync(const Sync&) override {}

 private:
  const std::unordered_map<Sym, Sym>& alias_;
  std::unordered_set<Sym>& used_;

  void use(const Sym& s) {
    used_.insert(s);
    auto it = alias_.find(s);
    used_.insert(it == alias_.end() ? s : it->second);
  }
};

class FreePlacement : public IRMutator {
 public:
  FreePlacement() : IRMutator(Visits::StatementsOnly) {}
  Proc run(const Proc& p) {
    for (const FnArg& a : p->args)
      if (a.type.is_numeric() && a.mem) mems_[a.name] = a.mem;
    return make_proc(p->name, p->args, p->preds, mutate(p->body), p->instr,
                     p->srcinfo);
  }

 protected:
  Stmt mutate_window_stmt(const Stmt& s) override {
    const auto& w = s->as<WindowStmt>();
    const Sym& base = w.rhs->kind == ExprKind::WindowExpr
                          ? w.rhs->as<WindowExpr>().name
                          : w.rhs->as<Read>().name;
    mems_[w.name] = mems_.at(base);
    alias_[w.name] = root(base);
    return s;
  }

  Stmt mutate_call(const Stmt& s) override {
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
                               ": expected argument in " + param.mem->name() +
                               " but got an argument in " + cmem->name());
    }
    return s;
  }

  Stmt mutate_alloc(const Stmt& s) override {
    mems_[s->as<Alloc>().name] = s->as<Alloc>().mem;
    allocs_->push_back(&s->as<Alloc>());
    return s;
  }

  Block mutate_block(const Block& b) override {
    std::vector<const Alloc*> allocs;
    std::vector<const Alloc*>* outer = allocs_;
    allocs_ = &allocs;
    Block mapped = IRMutator::mutate_block(b);
    allocs_ = outer;
    // Backwards: the first statement met that uses an allocation is its
    // last use. Frees after one statement come in reverse allocation order.
    Block reversed;
    for (auto it = mapped.rbegin(); it != mapped.rend(); ++it) {
      std::unordered_set<Sym> used;
      UsedBuffers(alias_, used).visit(*it);
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

 private:
  std::unordered_map<Sym, MemoryPtr> mems_;
  std::unordered_map<Sym, Sym> alias_;  // window name -> windowed buffer
  // The allocations of the statement list being mapped.
  std::vector<const Alloc*>* allocs_ = nullptr;

  Sym root(const Sym& s) const {
    auto it = alias_.find(s);
    return it == alias_.end() ? s : it->second;
  }

  const MemoryPtr& memory_of(const Expr& e) {
    const Sym& name = e->kind == ExprKind::Read ? e->as<Read>().name
                                                : e->as<WindowExpr>().name;
    return mems_.at(name);
  }
};

}  // namespace

Proc place_frees(const Proc& p) { return FreePlacement().run(p); }

}  // namespace exo2
