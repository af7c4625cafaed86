// Functions of IR nodes that return a value: `ExprFunctor<R, Args...>` and
// `StmtFunctor<R, Args...>` dispatch on a node's kind to one virtual method
// per kind, as `IRVisitor` does, but each method returns an `R` and takes
// extra arguments (a precedence, the threads that run a statement). They
// suit code that handles every kind itself and decides where to descend:
// printers, code emitters, evaluators, interpreters. A kind a functor does
// not override goes to `otherwise`, which every functor defines (an error,
// or "nothing to do"). Methods receive the node as its shared pointer, to
// print it or keep it. docs/internals/traversal.md shows when to use which
// base.
#pragma once

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

template <class R, class... Args>
class ExprFunctor {
 public:
  virtual ~ExprFunctor() = default;

  R apply(const Expr& e, Args... args) {
    switch (e->kind) {
      case ExprKind::Read:
        return visit_read(e, args...);
      case ExprKind::Const:
        return visit_const(e, args...);
      case ExprKind::USub:
        return visit_usub(e, args...);
      case ExprKind::BinOp:
        return visit_binop(e, args...);
      case ExprKind::ExternCall:
        return visit_extern_call(e, args...);
      case ExprKind::WindowExpr:
        return visit_window_expr(e, args...);
      case ExprKind::StrideExpr:
        return visit_stride_expr(e, args...);
      case ExprKind::ReadConfig:
        return visit_read_config(e, args...);
    }
    return otherwise(e, args...);
  }

 protected:
  // The kinds that are not overridden.
  virtual R otherwise(const Expr& e, Args... args) = 0;

  virtual R visit_read(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
  virtual R visit_const(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
  virtual R visit_usub(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
  virtual R visit_binop(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
  virtual R visit_extern_call(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
  virtual R visit_window_expr(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
  virtual R visit_stride_expr(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
  virtual R visit_read_config(const Expr& e, Args... args) {
    return otherwise(e, args...);
  }
};

// Assign and Reduce share `visit_assign`, Alloc and Free `visit_alloc`, as
// in `IRVisitor` (read `s->kind` to tell them apart).
template <class R, class... Args>
class StmtFunctor {
 public:
  virtual ~StmtFunctor() = default;

  R apply(const Stmt& s, Args... args) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce:
        return visit_assign(s, args...);
      case StmtKind::WriteConfig:
        return visit_write_config(s, args...);
      case StmtKind::Pass:
        return visit_pass(s, args...);
      case StmtKind::If:
        return visit_if(s, args...);
      case StmtKind::For:
        return visit_for(s, args...);
      case StmtKind::Alloc:
      case StmtKind::Free:
        return visit_alloc(s, args...);
      case StmtKind::Call:
        return visit_call(s, args...);
      case StmtKind::WindowStmt:
        return visit_window_stmt(s, args...);
      case StmtKind::With:
        return visit_with(s, args...);
      case StmtKind::Sync:
        return visit_sync(s, args...);
    }
    return otherwise(s, args...);
  }

 protected:
  // The kinds that are not overridden.
  virtual R otherwise(const Stmt& s, Args... args) = 0;

  virtual R visit_assign(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_write_config(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_pass(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_if(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_for(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_alloc(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_call(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_window_stmt(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_with(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
  virtual R visit_sync(const Stmt& s, Args... args) {
    return otherwise(s, args...);
  }
};

}  // namespace exo2
