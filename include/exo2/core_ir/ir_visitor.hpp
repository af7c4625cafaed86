// The traversal bases of the IR: `IRVisitor` reads a tree, `IRMutator`
// rewrites one. A pass derives from one of them and overrides only the node
// kinds it cares about; every other kind gets the default, which descends
// into the node's children. An override calls the base method
// (`IRVisitor::visit_for(s)`) to keep descending below its node.
// docs/internals/traversal.md shows how to write a pass.
#pragma once

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// Children are visited in the order the printer shows them: indices before
// right-hand sides, bounds and conditions before bodies, a branch's body
// before its else branch. Expressions in types (an allocation's shape) are
// visited too; expression types are not.
class IRVisitor {
 public:
  // A visitor made with `Visits::StatementsOnly` skips every expression: a
  // pass that looks only at statements need not pay for walking them.
  enum class Visits { Everything, StatementsOnly };
  explicit IRVisitor(Visits visits = Visits::Everything)
      : statements_only_(visits == Visits::StatementsOnly) {}
  virtual ~IRVisitor() = default;

  // Dispatch on the node's kind. A null expression is skipped, and so is
  // everything once `stop()` was called.
  void visit(const Expr& e);
  void visit(const Stmt& s);
  void visit(const Block& b);
  void visit(const std::vector<Expr>& es);

 protected:
  // Ends the walk: a search that found what it looks for skips the rest.
  void stop() { stopped_ = true; }

  virtual void visit_read(const Read& e);
  virtual void visit_const(const Const& e);
  virtual void visit_usub(const USub& e);
  virtual void visit_binop(const BinOp& e);
  virtual void visit_extern_call(const ExternCall& e);
  virtual void visit_window_expr(const WindowExpr& e);
  virtual void visit_stride_expr(const StrideExpr& e);
  virtual void visit_read_config(const ReadConfig& e);

  // Assign and Reduce share `visit_assign`; Alloc and Free `visit_alloc`.
  virtual void visit_assign(const Assign& s);
  virtual void visit_write_config(const WriteConfig& s);
  virtual void visit_pass(const Pass& s);
  virtual void visit_if(const If& s);
  virtual void visit_for(const For& s);
  virtual void visit_alloc(const Alloc& s);
  virtual void visit_call(const Call& s);
  virtual void visit_window_stmt(const WindowStmt& s);
  virtual void visit_with(const With& s);
  virtual void visit_sync(const Sync& s);

 private:
  bool statements_only_;
  bool stopped_ = false;
};

// A rewriter that shares what it does not change: each default method
// rebuilds its node only when one of its children came back different, so
// a pass that changes nothing returns its input, and one that changes one
// read rebuilds only the nodes above that read. Overrides receive the node
// as the shared pointer (`e->as<Read>()` gives the fields) so that they can
// return it unchanged.
class IRMutator {
 public:
  // A mutator made with `Visits::StatementsOnly` returns every expression
  // as it is, without walking it.
  using Visits = IRVisitor::Visits;
  explicit IRMutator(Visits visits = Visits::Everything)
      : statements_only_(visits == Visits::StatementsOnly) {}
  virtual ~IRMutator() = default;

  // Dispatch on the node's kind. A null expression comes back null.
  Expr mutate(const Expr& e);
  Stmt mutate(const Stmt& s);
  // The default maps `mutate_block` over the statements.
  Block mutate(const Block& b) { return mutate_block(b); }
  std::vector<Expr> mutate(const std::vector<Expr>& es);
  // The type with its shape mutated (types without a shape are returned).
  Type mutate(const Type& t);

 protected:
  virtual Expr mutate_read(const Expr& e);
  virtual Expr mutate_const(const Expr& e);
  virtual Expr mutate_usub(const Expr& e);
  virtual Expr mutate_binop(const Expr& e);
  virtual Expr mutate_extern_call(const Expr& e);
  virtual Expr mutate_window_expr(const Expr& e);
  virtual Expr mutate_stride_expr(const Expr& e);
  virtual Expr mutate_read_config(const Expr& e);

  virtual Stmt mutate_assign(const Stmt& s);  // Assign and Reduce
  virtual Stmt mutate_write_config(const Stmt& s);
  virtual Stmt mutate_pass(const Stmt& s);
  virtual Stmt mutate_if(const Stmt& s);
  virtual Stmt mutate_for(const Stmt& s);
  virtual Stmt mutate_alloc(const Stmt& s);  // Alloc and Free
  virtual Stmt mutate_call(const Stmt& s);
  virtual Stmt mutate_window_stmt(const Stmt& s);
  virtual Stmt mutate_with(const Stmt& s);
  virtual Stmt mutate_sync(const Stmt& s);
  // A statement list; override to drop or add statements.
  virtual Block mutate_block(const Block& b);

 private:
  bool statements_only_;
};

// Whether two lists hold the same nodes (pointer equality).
bool same_nodes(const std::vector<Expr>& a, const std::vector<Expr>& b);
bool same_nodes(const Block& a, const Block& b);

}  // namespace exo2
