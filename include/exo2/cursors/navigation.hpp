// Resolving locations in a procedure, and moving between them. Everything
// here reads the IR along one path (O(depth)) and builds no IR.
#pragma once

#include <optional>
#include <stdexcept>

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

template <class F>
void for_each_expr_child(const Stmt& s, F&& f) {
  auto list = [&](Slot slot, const std::vector<Expr>& es) {
    for (int i = 0; i < static_cast<int>(es.size()); i++)
      f(Step{slot, i}, es[i]);
  };
  switch (s->kind) {
    case StmtKind::Assign:
    case StmtKind::Reduce: {
      const auto& a = s->as<Assign>();
      list(Slot::Idx, a.idx);
      f(Step{Slot::Rhs, 0}, a.rhs);
      return;
    }
    case StmtKind::WriteConfig:
      f(Step{Slot::Rhs, 0}, s->as<WriteConfig>().rhs);
      return;
    case StmtKind::WindowStmt:
      f(Step{Slot::Rhs, 0}, s->as<WindowStmt>().rhs);
      return;
    case StmtKind::If:
      f(Step{Slot::Cond, 0}, s->as<If>().cond);
      return;
    case StmtKind::For:
      f(Step{Slot::Lo, 0}, s->as<For>().lo);
      f(Step{Slot::Hi, 0}, s->as<For>().hi);
      return;
    case StmtKind::Call:
      list(Slot::Arg, s->as<Call>().args);
      list(Slot::Barrier, s->as<Call>().barriers);
      return;
    case StmtKind::Sync:
      list(Slot::Barrier, s->as<Sync>().barriers);
      return;
    case StmtKind::Pass:
    case StmtKind::Alloc:
    case StmtKind::Free:
    case StmtKind::With:
      return;
  }
}

template <class F>
void for_each_expr_child(const Expr& e, F&& f) {
  auto list = [&](Slot slot, const std::vector<Expr>& es) {
    for (int i = 0; i < static_cast<int>(es.size()); i++)
      f(Step{slot, i}, es[i]);
  };
  switch (e->kind) {
    case ExprKind::Read:
      list(Slot::Idx, e->as<Read>().idx);
      return;
    case ExprKind::USub:
      f(Step{Slot::Operand, 0}, e->as<USub>().arg);
      return;
    case ExprKind::BinOp:
      f(Step{Slot::Lhs, 0}, e->as<BinOp>().lhs);
      f(Step{Slot::Rhs, 0}, e->as<BinOp>().rhs);
      return;
    case ExprKind::ExternCall:
      list(Slot::Arg, e->as<ExternCall>().args);
      return;
    case ExprKind::WindowExpr: {
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
      return;
    }
    case ExprKind::Const:
    case ExprKind::StrideExpr:
    case ExprKind::ReadConfig:
      return;
  }
}

}  // namespace exo2::cursors
