// Resolving locations in a procedure, and moving between them. Everything
// here reads the IR along one path (O(depth)) and builds no IR.
#pragma once

#include <optional>
#include <stdexcept>
#include <type_traits>

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::cursors {

// A path that does not lead to a node of the procedure (an index out of
// range, or a slot the node does not have).
class PathError : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

// What a node path leads to: the procedure, a parameter, a statement or an
// expression.
struct NodeRef {
  enum class Kind { Proc, Param, Stmt, Expr };
  Kind kind = Kind::Proc;
  const FnArg* param = nullptr;
  Stmt stmt;
  Expr expr;
};

// Throws PathError when the path leads nowhere.
NodeRef resolve(const Proc& proc, const Path& path);
Stmt resolve_stmt(const Proc& proc, const Path& path);
Expr resolve_expr(const Proc& proc, const Path& path);
// Whether `loc` denotes something in `proc` (a block must be in range, a
// gap's anchor must be a statement).
bool is_valid(const Proc& proc, const Location& loc);

// The statement list a statement step enters: `owner` is the procedure
// (null statement) or a statement with bodies. Throws PathError for a
// statement without that list.
const Block& statement_list(const Proc& proc, const Stmt& owner, Slot slot);
// The number `exo2::child_block` gives the list a statement slot enters:
// 0 for a body, 1 for an else branch.
inline int block_number(Slot slot) { return slot == Slot::Orelse ? 1 : 0; }
// The statement slot of list number `which` (the inverse of block_number).
inline Slot block_slot(int which) {
  return which == 1 ? Slot::Orelse : Slot::Body;
}
// The statement list holding the statement at `stmt_path`.
const Block& enclosing_list(const Proc& proc, const Path& stmt_path);

// The expression in one slot of a statement or expression; null when the
// node has no such slot.
Expr child_expr(const Stmt& s, Step step);
Expr child_expr(const Expr& e, Step step);
Expr child_expr(const FnArg& a, Step step);

// Calls `f(step, child)` for each expression child, in pre-order (indices
// before the right-hand side, bounds and conditions before bodies).
template <class F>
void for_each_expr_child(const Stmt& s, F&& f);
template <class F>
void for_each_expr_child(const Expr& e, F&& f);

// Navigation. Each returns nullopt where Exo's cursors give an invalid
// cursor.
//
// The parent of a node or block: the enclosing statement or expression;
// the procedure (empty path) for top-level statements, parameters and
// top-level blocks; nullopt for the procedure itself. A gap's parent is
// its anchor's parent.
std::optional<Location> parent(const Location& loc);
// The statement `dist` positions after (negative: before) the statement at
// `stmt`, in the same list.
std::optional<Location> sibling(const Proc& proc, const Location& stmt,
                                int dist);
// The whole body (`Slot::Body`) or else branch of the statement at
// `stmt_path` (or of the procedure, for the empty path); nullopt when the
// list is empty.
std::optional<Location> child_block(const Proc& proc, const Path& stmt_path,
                                    Slot slot);
// The one-statement block of a statement.
Location as_block(const Location& stmt);
// Grows a block by up to `delta_lo`/`delta_hi` statements at each end;
// nullopt means to the edge of its list.
Location expand(const Proc& proc, const Location& block,
                std::optional<int> delta_lo, std::optional<int> delta_hi);
// Gaps before the first / after the last statement of a node or block.
Location gap_before(const Location& loc);
Location gap_after(const Location& loc);
// The statement whose list holds a block or gap's anchor (empty path: the
// procedure).
Path owner_path(const Location& loc);
// Whether the node at `ancestor` contains `other` (a node, or a block's
// first statement, or a gap's anchor); a node contains itself.
bool is_ancestor_of(const Path& ancestor, const Location& other);

// ---------------------------------------------------------------------------

namespace detail {

// Calls `f(Step{slot, i}, es[i])` for each entry of a list.
template <class F>
void each_entry(Slot slot, const std::vector<Expr>& es, F& f) {
  for (int i = 0; i < static_cast<int>(es.size()); i++) f(Step{slot, i}, es[i]);
}

// The expression children of a statement, one override per kind.
template <class F>
class StmtExprChildren final : public StmtFunctor<void(F&)> {
 protected:
  void visit_assign(const Stmt& s, F& f) override {
    each_entry(Slot::Idx, s->as<Assign>().idx, f);
    f(Step{Slot::Rhs, 0}, s->as<Assign>().rhs);
  }
  void visit_write_config(const Stmt& s, F& f) override {
    f(Step{Slot::Rhs, 0}, s->as<WriteConfig>().rhs);
  }
  void visit_window_stmt(const Stmt& s, F& f) override {
    f(Step{Slot::Rhs, 0}, s->as<WindowStmt>().rhs);
  }
  void visit_if(const Stmt& s, F& f) override {
    f(Step{Slot::Cond, 0}, s->as<If>().cond);
  }
  void visit_for(const Stmt& s, F& f) override {
    f(Step{Slot::Lo, 0}, s->as<For>().lo);
    f(Step{Slot::Hi, 0}, s->as<For>().hi);
  }
  void visit_call(const Stmt& s, F& f) override {
    each_entry(Slot::Arg, s->as<Call>().args, f);
    each_entry(Slot::Barrier, s->as<Call>().barriers, f);
  }
  void visit_sync(const Stmt& s, F& f) override {
    each_entry(Slot::Barrier, s->as<Sync>().barriers, f);
  }
  // Pass, With, and allocations (whose shapes are reached through
  // `child_expr` only).
  void visit_stmt_default(const Stmt&, F&) override {}
};

// The children of an expression, one override per kind.
template <class F>
class ExprChildren final : public ExprFunctor<void(F&)> {
 protected:
  void visit_read(const Expr& e, F& f) override {
    each_entry(Slot::Idx, e->as<Read>().idx, f);
  }
  void visit_usub(const Expr& e, F& f) override {
    f(Step{Slot::Operand, 0}, e->as<USub>().arg);
  }
  void visit_binop(const Expr& e, F& f) override {
    f(Step{Slot::Lhs, 0}, e->as<BinOp>().lhs);
    f(Step{Slot::Rhs, 0}, e->as<BinOp>().rhs);
  }
  void visit_extern_call(const Expr& e, F& f) override {
    each_entry(Slot::Arg, e->as<ExternCall>().args, f);
  }
  void visit_window_expr(const Expr& e, F& f) override {
    const auto& w = e->as<WindowExpr>();
    for (int i = 0; i < static_cast<int>(w.idx.size()); i++) {
      const WindowAccess& a = w.idx[i];
      if (!a.is_interval) {
        f(Step{Slot::Idx, i}, a.lo);
        continue;
      }
      if (a.lo) f(Step{Slot::WindowLo, i}, a.lo);
      if (a.hi) f(Step{Slot::WindowHi, i}, a.hi);
    }
  }
  // Literals, strides and config reads.
  void visit_expr_default(const Expr&, F&) override {}
};

}  // namespace detail

template <class F>
void for_each_expr_child(const Stmt& s, F&& f) {
  detail::StmtExprChildren<std::remove_reference_t<F>>().visit(s, f);
}

template <class F>
void for_each_expr_child(const Expr& e, F&& f) {
  detail::ExprChildren<std::remove_reference_t<F>>().visit(e, f);
}

}  // namespace exo2::cursors
