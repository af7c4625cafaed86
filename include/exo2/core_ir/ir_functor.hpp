// The typed traversal bases: `ExprFunctor<R(Args...)>` computes a value of
// type R from an expression, `StmtFunctor<R(Args...)>` from a statement, as
// TVM's ExprFunctor. `visit(node, args...)` dispatches on the node's kind to
// one virtual method per kind, which receives the node (as the shared
// pointer: `e->as<BinOp>()` gives the fields) and the extra arguments. A
// method that is not overridden calls `visit_expr_default` /
// `visit_stmt_default`, which throws: a functor either handles a kind or
// says what the other kinds give. Unlike IRVisitor, nothing descends by
// itself: an override recurses by calling `visit` on the children it wants.
// docs/internals/traversal.md says when to use which base.
#pragma once

#include <stdexcept>
#include <string>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

template <class Signature>
class ExprFunctor;

template <class R, class... Args>
class ExprFunctor<R(Args...)> {
 public:
  virtual ~ExprFunctor() = default;

  R visit(const Expr& e, Args... args) {
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
    return visit_expr_default(e, args...);
  }

 protected:
  virtual R visit_read(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  virtual R visit_const(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  virtual R visit_usub(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  virtual R visit_binop(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  virtual R visit_extern_call(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  virtual R visit_window_expr(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  virtual R visit_stride_expr(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  virtual R visit_read_config(const Expr& e, Args... args) {
    return visit_expr_default(e, args...);
  }
  // What the kinds a functor does not override give.
  virtual R visit_expr_default(const Expr& e, Args...) {
    throw std::logic_error(std::string("ExprFunctor: no case for ") +
                           kind_name(e->kind));
  }
};

template <class Signature>
class StmtFunctor;

template <class R, class... Args>
class StmtFunctor<R(Args...)> {
 public:
  virtual ~StmtFunctor() = default;

  R visit(const Stmt& s, Args... args) {
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
    return visit_stmt_default(s, args...);
  }

 protected:
  // Assign and Reduce share `visit_assign`; Alloc and Free `visit_alloc`
  // (read `s->kind` to tell them apart), as in IRVisitor.
  virtual R visit_assign(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_write_config(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_pass(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_if(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_for(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_alloc(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_call(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_window_stmt(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_with(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  virtual R visit_sync(const Stmt& s, Args... args) {
    return visit_stmt_default(s, args...);
  }
  // What the kinds a functor does not override give.
  virtual R visit_stmt_default(const Stmt& s, Args...) {
    throw std::logic_error(std::string("StmtFunctor: no case for ") +
                           kind_name(s->kind));
  }
};

// The statement lists a statement holds, numbered in printed order: 0 is
// the body of a loop, an if or a `with`, 1 an if's else branch (present
// even when empty). Null for any other number, and for statements that
// hold none.
inline const Block* child_block(const Stmt& s, int which);
// `s` with its statement list `which` replaced by `body`; the statement
// must hold that list.
Stmt with_child_block(const Stmt& s, int which, Block body);

namespace detail {

// Statement list `which` of a statement (null where it has none). In the
// header so that the dispatch inlines into the walks that call it for
// every statement (the pattern search).
class ChildBlock final : public StmtFunctor<const Block*(int)> {
 protected:
  const Block* visit_if(const Stmt& s, int which) override {
    const auto& i = s->as<If>();
    return which == 0 ? &i.body : which == 1 ? &i.orelse : nullptr;
  }
  const Block* visit_for(const Stmt& s, int which) override {
    return which == 0 ? &s->as<For>().body : nullptr;
  }
  const Block* visit_with(const Stmt& s, int which) override {
    return which == 0 ? &s->as<With>().body : nullptr;
  }
  const Block* visit_stmt_default(const Stmt&, int) override { return nullptr; }
};

}  // namespace detail

inline const Block* child_block(const Stmt& s, int which) {
  return detail::ChildBlock().visit(s, which);
}

}  // namespace exo2
