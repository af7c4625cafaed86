#include "rebuild_spine.hpp"

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::cursors {

namespace {

// The replacement at the end of the path: a statement list (the path's last
// step enters it) or an expression (the path leads to it).
struct Replacement {
  bool is_list;
  Block list;
  Expr expr;
};

std::vector<Expr> with_entry(std::vector<Expr> list, int index, Expr e) {
  list.at(index) = std::move(e);
  return list;
}

Type with_dim(const Type& t, int index, Expr e) {
  return Type::tensor(t.basetype(), with_entry(t.shape(), index, std::move(e)),
                      t.is_window(), t.dim_annotations());
}

// A statement with the expression at one step replaced.
class StmtWithChild final : public StmtFunctor<Stmt(Step, Expr)> {
 protected:
  Stmt visit_assign(const Stmt& s, Step step, Expr e) override {
    const auto& a = s->as<Assign>();
    auto idx = a.idx;
    Expr rhs = a.rhs;
    if (step.slot == Slot::Idx)
      idx = with_entry(idx, step.index, std::move(e));
    else
      rhs = std::move(e);
    return std::make_shared<const Assign>(
        s->kind, a.name, a.type, std::move(idx), std::move(rhs), s->srcinfo);
  }
  Stmt visit_write_config(const Stmt& s, Step, Expr e) override {
    const auto& w = s->as<WriteConfig>();
    return make_write_config(w.config, w.field, std::move(e), s->srcinfo);
  }
  Stmt visit_window_stmt(const Stmt& s, Step, Expr e) override {
    const auto& w = s->as<WindowStmt>();
    return make_window_stmt(w.name, std::move(e), s->srcinfo, w.mem);
  }
  Stmt visit_if(const Stmt& s, Step, Expr e) override {
    const auto& f = s->as<If>();
    return make_if(std::move(e), f.body, f.orelse, s->srcinfo);
  }
  Stmt visit_for(const Stmt& s, Step step, Expr e) override {
    const auto& f = s->as<For>();
    Expr lo = step.slot == Slot::Lo ? e : f.lo;
    Expr hi = step.slot == Slot::Hi ? e : f.hi;
    return make_for(f.iter, std::move(lo), std::move(hi), f.body, f.mode,
                    s->srcinfo);
  }
  Stmt visit_alloc(const Stmt& s, Step step, Expr e) override {
    const auto& a = s->as<Alloc>();
    return std::make_shared<const Alloc>(
        s->kind, a.name, with_dim(a.type, step.index, e), a.mem, s->srcinfo);
  }
  Stmt visit_call(const Stmt& s, Step step, Expr e) override {
    const auto& c = s->as<Call>();
    if (step.slot == Slot::Barrier)
      return make_call(c.f, c.args, s->srcinfo,
                       with_entry(c.barriers, step.index, std::move(e)));
    return make_call(c.f, with_entry(c.args, step.index, std::move(e)),
                     s->srcinfo, c.barriers);
  }
  Stmt visit_sync(const Stmt& s, Step step, Expr e) override {
    const auto& y = s->as<Sync>();
    return with_barriers(y, with_entry(y.barriers, step.index, std::move(e)));
  }
  // Pass and With hold no expressions.
  Stmt visit_stmt_default(const Stmt&, Step, Expr) override {
    throw PathError("statement has no such expression slot");
  }
};

Stmt copy_with_expr(const Stmt& s, Step step, Expr e) {
  return StmtWithChild().visit(s, step, std::move(e));
}

// An expression with the child at one step replaced.
class ExprWithChild final : public ExprFunctor<Expr(Step, Expr)> {
 protected:
  Expr visit_read(const Expr& e, Step step, Expr child) override {
    const auto& r = e->as<Read>();
    return make_read(r.name, with_entry(r.idx, step.index, std::move(child)),
                     e->srcinfo, e->type);
  }
  Expr visit_usub(const Expr& e, Step, Expr child) override {
    return make_usub(std::move(child), e->srcinfo, e->type);
  }
  Expr visit_binop(const Expr& e, Step step, Expr child) override {
    const auto& b = e->as<BinOp>();
    Expr lhs = step.slot == Slot::Lhs ? child : b.lhs;
    Expr rhs = step.slot == Slot::Rhs ? child : b.rhs;
    return make_binop(b.op, std::move(lhs), std::move(rhs), e->srcinfo,
                      e->type);
  }
  Expr visit_extern_call(const Expr& e, Step step, Expr child) override {
    const auto& c = e->as<ExternCall>();
    return make_extern_call(c.f,
                            with_entry(c.args, step.index, std::move(child)),
                            e->srcinfo, e->type);
  }
  Expr visit_window_expr(const Expr& e, Step step, Expr child) override {
    const auto& w = e->as<WindowExpr>();
    auto idx = w.idx;
    WindowAccess& a = idx.at(step.index);
    if (step.slot == Slot::WindowHi)
      a.hi = std::move(child);
    else
      a.lo = std::move(child);
    return make_window_expr(w.name, std::move(idx), e->srcinfo, e->type);
  }
  // Literals, strides and config reads.
  Expr visit_expr_default(const Expr&, Step, Expr) override {
    throw PathError("expression has no children");
  }
};

Expr copy_with_expr(const Expr& e, Step step, Expr child) {
  return ExprWithChild().visit(e, step, std::move(child));
}

Expr rebuild_expr(const Expr& e, const Path& path, size_t i,
                  const Replacement& r) {
  if (i == path.size()) return r.expr;
  Expr child = child_expr(e, path[i]);
  if (!child) throw PathError("no node at " + to_string(path));
  return copy_with_expr(e, path[i], rebuild_expr(child, path, i + 1, r));
}

Block rebuild_list(const Block& list, const Path& path, size_t i,
                   const Replacement& r);

// `path[i]` is the step out of statement `s`.
Stmt rebuild_stmt(const Stmt& s, const Path& path, size_t i,
                  const Replacement& r) {
  const Step step = path[i];
  if (is_statement_slot(step.slot)) {
    const Block& list = statement_list(nullptr, s, step.slot);
    return with_child_block(s, block_number(step.slot),
                            rebuild_list(list, path, i, r));
  }
  Expr child = child_expr(s, step);
  if (!child) throw PathError("no node at " + to_string(path));
  return copy_with_expr(s, step, rebuild_expr(child, path, i + 1, r));
}

// `path[i]` enters `list`.
Block rebuild_list(const Block& list, const Path& path, size_t i,
                   const Replacement& r) {
  if (r.is_list && i + 1 == path.size()) return r.list;
  const int index = path[i].index;
  if (index < 0 || index >= static_cast<int>(list.size()))
    throw PathError("no node at " + to_string(path));
  Block out = list;
  out[index] = rebuild_stmt(list[index], path, i + 1, r);
  return out;
}

Proc rebuild(const Proc& proc, const Path& path, const Replacement& r) {
  std::vector<FnArg> args = proc->args;
  Block body = proc->body;
  if (path.at(0).slot == Slot::Param) {
    FnArg& arg = args.at(path[0].index);
    if (path.size() < 2 || path[1].slot != Slot::Shape)
      throw PathError("no node at " + to_string(path));
    const Expr dim = child_expr(arg, path[1]);
    if (!dim) throw PathError("no node at " + to_string(path));
    arg.type = with_dim(arg.type, path[1].index, rebuild_expr(dim, path, 2, r));
  } else {
    body = rebuild_list(proc->body, path, 0, r);
  }
  return make_proc(proc->name, std::move(args), proc->preds, std::move(body),
                   proc->instr, proc->srcinfo);
}

}  // namespace

Proc with_statement_list(const Proc& proc, const ListAddress& list,
                         Block new_list) {
  Path path = list.owner;
  path.push_back(Step{list.slot, 0});
  return rebuild(proc, path, Replacement{true, std::move(new_list), nullptr});
}

Proc with_expr(const Proc& proc, const Path& path, Expr new_expr) {
  return rebuild(proc, path, Replacement{false, {}, std::move(new_expr)});
}

}  // namespace exo2::cursors
