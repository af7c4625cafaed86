// Functors of the IR: a computation that returns one value per node kind
// (the text of an expression, its Z3 term, whether it matches a pattern).
// A pass derives from `ExprFunctor<R(Args...)>` or `StmtFunctor<R(Args...)>`
// and overrides the kinds it has an answer for; the kinds it does not
// override go to `visit_default`, which throws unless overridden. Unlike
// IRVisitor and IRMutator (ir_visitor.hpp) nothing descends by itself: an
// override calls `visit(child, ...)` for the children it needs.
// docs/internals/traversal.md shows when to use which.
#pragma once

#include <stdexcept>
#include <string>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

template <typename Signature>
class ExprFunctor;

// `R visit(const Expr&, Args...)`: one override per expression kind.
template <typename R, typename... Args>
class ExprFunctor<R(Args...)> {
 public:
  virtual ~ExprFunctor() = default;

  // Dispatch on the node's kind; `e` must not be null.
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
    return visit_default(e, args...);
  }

 protected:
  virtual R visit_read(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  virtual R visit_const(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  virtual R visit_usub(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  virtual R visit_binop(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  virtual R visit_extern_call(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  virtual R visit_window_expr(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  virtual R visit_stride_expr(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  virtual R visit_read_config(const Expr& e, Args... args) {
    return visit_default(e, args...);
  }
  // The kinds without an override.
  virtual R visit_default(const Expr& e, Args...) {
    throw std::logic_error(std::string("no case for expression kind ") +
                           kind_name(e->kind));
  }
};

template <typename Signature>
class StmtFunctor;

// `R visit(const Stmt&, Args...)`: one override per statement kind. As in
// IRVisitor, Assign and Reduce share `visit_assign` and Alloc and Free
// share `visit_alloc` (read `s->kind` to tell them apart).
template <typename R, typename... Args>
class StmtFunctor<R(Args...)> {
 public:
  virtual ~StmtFunctor() = default;

  // Dispatch on the node's kind; `s` must not be null.
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
    return visit_default(s, args...);
  }

 protected:
  virtual R visit_assign(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_write_config(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_pass(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_if(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_for(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_alloc(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_call(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_window_stmt(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_with(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  virtual R visit_sync(const Stmt& s, Args... args) {
    return visit_default(s, args...);
  }
  // The kinds without an override.
  virtual R visit_default(const Stmt& s, Args...) {
    throw std::logic_error(std::string("no case for statement kind ") +
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
  const Block* visit_default(const Stmt&, int) override { return nullptr; }
};

}  // namespace detail

inline const Block* child_block(const Stmt& s, int which) {
  return detail::ChildBlock().visit(s, which);
}

}  // namespace exo2
