#include "exo2/core_ir/equality.hpp"

#include <optional>

#include "exo2/core_ir/ir_functor.hpp"

namespace exo2 {

namespace {

bool same_object(const ExternalObject* a, const ExternalObject* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->same_as(*b);
}

// Compares two trees. Without a renaming, symbols must be identical. With
// one, a symbol of `b` in the renaming stands for its image, and a symbol
// bound in `b` (loop iterator, allocation, window statement) is added to it,
// standing for the symbol bound at the same place in `a`.
// One override per kind compares a node of `a` with the node of `b` of the
// same kind.
class Comparer final : public ExprFunctor<bool(const Expr&)>,
                       public StmtFunctor<bool(const Stmt&)> {
 public:
  explicit Comparer(std::optional<SymRenaming> renaming = std::nullopt)
      : renaming_(std::move(renaming)) {}

  bool type(const Type& a, const Type& b);
  bool expr(const Expr& a, const Expr& b);
  bool stmt(const Stmt& a, const Stmt& b);
  bool block(const Block& a, const Block& b) { return list(a, b); }

 private:
  bool sym(const Sym& a, const Sym& b) const {
    if (!renaming_) return a == b;
    auto it = renaming_->find(b);
    return a == (it == renaming_->end() ? b : it->second);
  }
  bool bind(const Sym& a, const Sym& b) {
    if (!renaming_) return a == b;
    (*renaming_)[b] = a;
    return true;
  }
  // Shared subtrees are equal unless a renaming may change their meaning.
  bool shared(const void* a, const void* b) const {
    return a == b && (!renaming_ || renaming_->empty());
  }
  bool item(const Expr& a, const Expr& b) { return expr(a, b); }
  bool item(const Stmt& a, const Stmt& b) { return stmt(a, b); }
  template <class T>
  bool list(const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++)
      if (!item(a[i], b[i])) return false;
    return true;
  }
  bool access(const WindowAccess& a, const WindowAccess& b) {
    if (a.is_interval != b.is_interval || !expr(a.lo, b.lo)) return false;
    return !a.is_interval || expr(a.hi, b.hi);
  }

  // `a` and `b` have the same kind.
  bool visit_read(const Expr& a, const Expr& b) override;
  bool visit_const(const Expr& a, const Expr& b) override;
  bool visit_usub(const Expr& a, const Expr& b) override;
  bool visit_binop(const Expr& a, const Expr& b) override;
  bool visit_extern_call(const Expr& a, const Expr& b) override;
  bool visit_window_expr(const Expr& a, const Expr& b) override;
  bool visit_stride_expr(const Expr& a, const Expr& b) override;
  bool visit_read_config(const Expr& a, const Expr& b) override;
  bool visit_assign(const Stmt& a, const Stmt& b) override;
  bool visit_write_config(const Stmt& a, const Stmt& b) override;
  bool visit_pass(const Stmt& a, const Stmt& b) override;
  bool visit_if(const Stmt& a, const Stmt& b) override;
  bool visit_for(const Stmt& a, const Stmt& b) override;
  bool visit_alloc(const Stmt& a, const Stmt& b) override;
  bool visit_call(const Stmt& a, const Stmt& b) override;
  bool visit_window_stmt(const Stmt& a, const Stmt& b) override;
  bool visit_with(const Stmt& a, const Stmt& b) override;
  bool visit_sync(const Stmt& a, const Stmt& b) override;

  std::optional<SymRenaming> renaming_;
};

bool Comparer::type(const Type& a, const Type& b) {
  if (a.kind() != b.kind()) return false;
  if (!a.is_tensor()) return true;
  if (a.is_window() != b.is_window()) return false;
  if (!type(a.basetype(), b.basetype())) return false;
  const auto& aa = a.dim_annotations();
  const auto& ba = b.dim_annotations();
  if (aa.size() != ba.size()) return false;
  for (size_t i = 0; i < aa.size(); i++)
    if (!same_object(aa[i].get(), ba[i].get())) return false;
  return list(a.shape(), b.shape());
}

bool Comparer::expr(const Expr& a, const Expr& b) {
  if (shared(a.get(), b.get())) return true;
  if (!a || !b || a->kind != b->kind || !type(a->type, b->type)) return false;
  return ExprFunctor::visit(a, b);
}

bool Comparer::visit_read(const Expr& a, const Expr& b) {
  const auto &x = a->as<Read>(), &y = b->as<Read>();
  return sym(x.name, y.name) && list(x.idx, y.idx);
}
bool Comparer::visit_const(const Expr& a, const Expr& b) {
  return a->as<Const>().value == b->as<Const>().value;
}
bool Comparer::visit_usub(const Expr& a, const Expr& b) {
  return expr(a->as<USub>().arg, b->as<USub>().arg);
}
bool Comparer::visit_binop(const Expr& a, const Expr& b) {
  const auto &x = a->as<BinOp>(), &y = b->as<BinOp>();
  return x.op == y.op && expr(x.lhs, y.lhs) && expr(x.rhs, y.rhs);
}
bool Comparer::visit_extern_call(const Expr& a, const Expr& b) {
  const auto &x = a->as<ExternCall>(), &y = b->as<ExternCall>();
  return same_object(x.f.get(), y.f.get()) && list(x.args, y.args);
}
bool Comparer::visit_window_expr(const Expr& a, const Expr& b) {
  const auto &x = a->as<WindowExpr>(), &y = b->as<WindowExpr>();
  if (!sym(x.name, y.name) || x.idx.size() != y.idx.size()) return false;
  for (size_t i = 0; i < x.idx.size(); i++)
    if (!access(x.idx[i], y.idx[i])) return false;
  return true;
}
bool Comparer::visit_stride_expr(const Expr& a, const Expr& b) {
  const auto &x = a->as<StrideExpr>(), &y = b->as<StrideExpr>();
  return sym(x.name, y.name) && x.dim == y.dim;
}
bool Comparer::visit_read_config(const Expr& a, const Expr& b) {
  const auto &x = a->as<ReadConfig>(), &y = b->as<ReadConfig>();
  return same_object(x.config.get(), y.config.get()) && x.field == y.field;
}

bool Comparer::stmt(const Stmt& a, const Stmt& b) {
  if (shared(a.get(), b.get())) return true;
  if (!a || !b || a->kind != b->kind) return false;
  return StmtFunctor::visit(a, b);
}

bool Comparer::visit_assign(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<Assign>(), &y = b->as<Assign>();
  return sym(x.name, y.name) && type(x.type, y.type) && list(x.idx, y.idx) &&
         expr(x.rhs, y.rhs);
}
bool Comparer::visit_write_config(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<WriteConfig>(), &y = b->as<WriteConfig>();
  return same_object(x.config.get(), y.config.get()) && x.field == y.field &&
         expr(x.rhs, y.rhs);
}
bool Comparer::visit_pass(const Stmt&, const Stmt&) { return true; }
bool Comparer::visit_if(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<If>(), &y = b->as<If>();
  return expr(x.cond, y.cond) && block(x.body, y.body) &&
         block(x.orelse, y.orelse);
}
bool Comparer::visit_for(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<For>(), &y = b->as<For>();
  return bind(x.iter, y.iter) && same_object(x.mode.get(), y.mode.get()) &&
         expr(x.lo, y.lo) && expr(x.hi, y.hi) && block(x.body, y.body);
}
bool Comparer::visit_alloc(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<Alloc>(), &y = b->as<Alloc>();
  const bool names =
      a->kind == StmtKind::Alloc ? bind(x.name, y.name) : sym(x.name, y.name);
  return names && type(x.type, y.type) && same_object(x.mem.get(), y.mem.get());
}
bool Comparer::visit_call(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<Call>(), &y = b->as<Call>();
  return x.f == y.f && list(x.args, y.args) && list(x.barriers, y.barriers);
}
bool Comparer::visit_window_stmt(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<WindowStmt>(), &y = b->as<WindowStmt>();
  return expr(x.rhs, y.rhs) && bind(x.name, y.name) &&
         same_object(x.mem.get(), y.mem.get());
}
bool Comparer::visit_with(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<With>(), &y = b->as<With>();
  return same_object(x.ctx.get(), y.ctx.get()) && block(x.body, y.body);
}
bool Comparer::visit_sync(const Stmt& a, const Stmt& b) {
  const auto &x = a->as<Sync>(), &y = b->as<Sync>();
  return x.sync == y.sync && same_object(x.pre.get(), y.pre.get()) &&
         same_object(x.post.get(), y.post.get()) &&
         list(x.barriers, y.barriers);
}

}  // namespace

bool equal(const Type& a, const Type& b) { return Comparer().type(a, b); }
bool equal(const Expr& a, const Expr& b) { return Comparer().expr(a, b); }
bool equal(const Stmt& a, const Stmt& b) { return Comparer().stmt(a, b); }
bool equal(const Block& a, const Block& b) { return Comparer().block(a, b); }

bool equal_up_to_renaming(const Block& a, const Block& b,
                          SymRenaming renaming) {
  return Comparer(std::move(renaming)).block(a, b);
}

bool equal(const Proc& a, const Proc& b) {
  if (a == b) return true;
  if (!a || !b || a->name != b->name || a->args.size() != b->args.size())
    return false;
  for (size_t i = 0; i < a->args.size(); i++) {
    const auto &x = a->args[i], &y = b->args[i];
    if (x.name != y.name || !equal(x.type, y.type) ||
        !same_object(x.mem.get(), y.mem.get()))
      return false;
  }
  if (a->instr.has_value() != b->instr.has_value()) return false;
  if (a->instr &&
      (a->instr->c_instr != b->instr->c_instr ||
       a->instr->c_global != b->instr->c_global ||
       !same_object(a->instr->metadata.get(), b->instr->metadata.get())))
    return false;
  if (a->preds.size() != b->preds.size()) return false;
  for (size_t i = 0; i < a->preds.size(); i++)
    if (!equal(a->preds[i], b->preds[i])) return false;
  return equal(a->body, b->body);
}

}  // namespace exo2
