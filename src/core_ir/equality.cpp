#include "exo2/core_ir/equality.hpp"

namespace exo2 {

namespace {
template <class T>
bool equal_lists(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (!equal(a[i], b[i])) return false;
  return true;
}

bool same_object(const ExternalObject* a, const ExternalObject* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->same_as(*b);
}

bool equal_access(const WindowAccess& a, const WindowAccess& b) {
  if (a.is_interval != b.is_interval || !equal(a.lo, b.lo)) return false;
  return !a.is_interval || equal(a.hi, b.hi);
}
}  // namespace

bool equal(const Type& a, const Type& b) {
  if (a.kind() != b.kind()) return false;
  if (!a.is_tensor()) return true;
  if (a.is_window() != b.is_window()) return false;
  if (!equal(a.basetype(), b.basetype())) return false;
  const auto& aa = a.dim_annotations();
  const auto& ba = b.dim_annotations();
  if (aa.size() != ba.size()) return false;
  for (size_t i = 0; i < aa.size(); i++)
    if (!same_object(aa[i].get(), ba[i].get())) return false;
  return equal_lists(a.shape(), b.shape());
}

bool equal(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !equal(a->type, b->type)) return false;
  switch (a->kind) {
    case ExprKind::Read: {
      const auto &x = a->as<Read>(), &y = b->as<Read>();
      return x.name == y.name && equal_lists(x.idx, y.idx);
    }
    case ExprKind::Const:
      return a->as<Const>().value == b->as<Const>().value;
    case ExprKind::USub:
      return equal(a->as<USub>().arg, b->as<USub>().arg);
    case ExprKind::BinOp: {
      const auto &x = a->as<BinOp>(), &y = b->as<BinOp>();
      return x.op == y.op && equal(x.lhs, y.lhs) && equal(x.rhs, y.rhs);
    }
    case ExprKind::ExternCall: {
      const auto &x = a->as<ExternCall>(), &y = b->as<ExternCall>();
      return same_object(x.f.get(), y.f.get()) && equal_lists(x.args, y.args);
    }
    case ExprKind::WindowExpr: {
      const auto &x = a->as<WindowExpr>(), &y = b->as<WindowExpr>();
      if (x.name != y.name || x.idx.size() != y.idx.size()) return false;
      for (size_t i = 0; i < x.idx.size(); i++)
        if (!equal_access(x.idx[i], y.idx[i])) return false;
      return true;
    }
    case ExprKind::StrideExpr: {
      const auto &x = a->as<StrideExpr>(), &y = b->as<StrideExpr>();
      return x.name == y.name && x.dim == y.dim;
    }
    case ExprKind::ReadConfig: {
      const auto &x = a->as<ReadConfig>(), &y = b->as<ReadConfig>();
      return same_object(x.config.get(), y.config.get()) && x.field == y.field;
    }
  }
  return false;
}

bool equal(const Block& a, const Block& b) { return equal_lists(a, b); }

bool equal(const Stmt& a, const Stmt& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case StmtKind::Assign:
    case StmtKind::Reduce: {
      const auto &x = a->as<Assign>(), &y = b->as<Assign>();
      return x.name == y.name && equal(x.type, y.type) &&
             equal_lists(x.idx, y.idx) && equal(x.rhs, y.rhs);
    }
    case StmtKind::WriteConfig: {
      const auto &x = a->as<WriteConfig>(), &y = b->as<WriteConfig>();
      return same_object(x.config.get(), y.config.get()) &&
             x.field == y.field && equal(x.rhs, y.rhs);
    }
    case StmtKind::Pass:
      return true;
    case StmtKind::If: {
      const auto &x = a->as<If>(), &y = b->as<If>();
      return equal(x.cond, y.cond) && equal(x.body, y.body) &&
             equal(x.orelse, y.orelse);
    }
    case StmtKind::For: {
      const auto &x = a->as<For>(), &y = b->as<For>();
      return x.iter == y.iter && same_object(x.mode.get(), y.mode.get()) &&
             equal(x.lo, y.lo) && equal(x.hi, y.hi) && equal(x.body, y.body);
    }
    case StmtKind::Alloc:
    case StmtKind::Free: {
      const auto &x = a->as<Alloc>(), &y = b->as<Alloc>();
      return x.name == y.name && equal(x.type, y.type) &&
             same_object(x.mem.get(), y.mem.get());
    }
    case StmtKind::Call: {
      const auto &x = a->as<Call>(), &y = b->as<Call>();
      return x.f == y.f && equal_lists(x.args, y.args);
    }
    case StmtKind::WindowStmt: {
      const auto &x = a->as<WindowStmt>(), &y = b->as<WindowStmt>();
      return x.name == y.name && equal(x.rhs, y.rhs) &&
             same_object(x.mem.get(), y.mem.get());
    }
    case StmtKind::With: {
      const auto &x = a->as<With>(), &y = b->as<With>();
      return same_object(x.ctx.get(), y.ctx.get()) && equal(x.body, y.body);
    }
    case StmtKind::Sync: {
      const auto &x = a->as<Sync>(), &y = b->as<Sync>();
      return x.text == y.text && equal_lists(x.barriers, y.barriers) &&
             same_object(x.info.get(), y.info.get());
    }
  }
  return false;
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
  if (a->instr && (a->instr->c_instr != b->instr->c_instr ||
                   a->instr->c_global != b->instr->c_global))
    return false;
  return equal_lists(a->preds, b->preds) && equal(a->body, b->body);
}

}  // namespace exo2
