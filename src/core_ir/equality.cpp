#include "exo2/core_ir/equality.hpp"

#include <optional>

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
class Comparer {
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
  switch (a->kind) {
    case ExprKind::Read: {
      const auto &x = a->as<Read>(), &y = b->as<Read>();
      return sym(x.name, y.name) && list(x.idx, y.idx);
    }
    case ExprKind::Const:
      return a->as<Const>().value == b->as<Const>().value;
    case ExprKind::USub:
      return expr(a->as<USub>().arg, b->as<USub>().arg);
    case ExprKind::BinOp: {
      const auto &x = a->as<BinOp>(), &y = b->as<BinOp>();
      return x.op == y.op && expr(x.lhs, y.lhs) && expr(x.rhs, y.rhs);
    }
    case ExprKind::ExternCall: {
      const auto &x = a->as<ExternCall>(), &y = b->as<ExternCall>();
      return same_object(x.f.get(), y.f.get()) && list(x.args, y.args);
    }
    case ExprKind::WindowExpr: {
      const auto &x = a->as<WindowExpr>(), &y = b->as<WindowExpr>();
      if (!sym(x.name, y.name) || x.idx.size() != y.idx.size()) return false;
      for (size_t i = 0; i < x.idx.size(); i++)
        if (!access(x.idx[i], y.idx[i])) return false;
      return true;
    }
    case ExprKind::StrideExpr: {
      const auto &x = a->as<StrideExpr>(), &y = b->as<StrideExpr>();
      return sym(x.name, y.name) && x.dim == y.dim;
    }
    case ExprKind::ReadConfig: {
      const auto &x = a->as<ReadConfig>(), &y = b->as<ReadConfig>();
      return same_object(x.config.get(), y.config.get()) && x.field == y.field;
    }
  }
  return false;
}

bool Comparer::stmt(const Stmt& a, const Stmt& b) {
  if (shared(a.get(), b.get())) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case StmtKind::Assign:
    case StmtKind::Reduce: {
      const auto &x = a->as<Assign>(), &y = b->as<Assign>();
      return sym(x.name, y.name) && type(x.type, y.type) &&
             list(x.idx, y.idx) && expr(x.rhs, y.rhs);
    }
    case StmtKind::WriteConfig: {
      const auto &x = a->as<WriteConfig>(), &y = b->as<WriteConfig>();
      return same_object(x.config.get(), y.config.get()) &&
             x.field == y.field && expr(x.rhs, y.rhs);
    }
    case StmtKind::Pass:
      return true;
    case StmtKind::If: {
      const auto &x = a->as<If>(), &y = b->as<If>();
      return expr(x.cond, y.cond) && block(x.body, y.body) &&
             block(x.orelse, y.orelse);
    }
    case StmtKind::For: {
      const auto &x = a->as<For>(), &y = b->as<For>();
      return bind(x.iter, y.iter) && same_object(x.mode.get(), y.mode.get()) &&
             expr(x.lo, y.lo) && expr(x.hi, y.hi) && block(x.body, y.body);
    }
    case StmtKind::Alloc:
    case StmtKind::Free: {
      const auto &x = a->as<Alloc>(), &y = b->as<Alloc>();
      const bool names = a->kind == StmtKind::Alloc ? bind(x.name, y.name)
                                                    : sym(x.name, y.name);
      return names && type(x.type, y.type) &&
             same_object(x.mem.get(), y.mem.get());
    }
    case StmtKind::Call: {
      const auto &x = a->as<Call>(), &y = b->as<Call>();
      return x.f == y.f && list(x.args, y.args) && list(x.barriers, y.barriers);
    }
    case StmtKind::WindowStmt: {
      const auto &x = a->as<WindowStmt>(), &y = b->as<WindowStmt>();
      return expr(x.rhs, y.rhs) && bind(x.name, y.name) &&
             same_object(x.mem.get(), y.mem.get());
    }
    case StmtKind::With: {
      const auto &x = a->as<With>(), &y = b->as<With>();
      return same_object(x.ctx.get(), y.ctx.get()) && block(x.body, y.body);
    }
    case StmtKind::Sync: {
      const auto &x = a->as<Sync>(), &y = b->as<Sync>();
      return x.sync == y.sync && same_object(x.pre.get(), y.pre.get()) &&
             same_object(x.post.get(), y.post.get()) &&
             list(x.barriers, y.barriers);
    }
  }
  return false;
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
