#include "exo2/cursors/navigation.hpp"

#include <algorithm>

#include "exo2/core_ir/ir_functor.hpp"

namespace exo2::cursors {

namespace {

[[noreturn]] void no_such_node(const Path& path) {
  throw PathError("no node at " + to_string(path));
}

template <class T>
const T& element(const std::vector<T>& list, int index, const Path& path) {
  if (index < 0 || index >= static_cast<int>(list.size())) no_such_node(path);
  return list[index];
}

Expr list_entry(const std::vector<Expr>& list, int index) {
  if (index < 0 || index >= static_cast<int>(list.size())) return nullptr;
  return list[index];
}

}  // namespace

const Block& statement_list(const Proc& proc, const Stmt& owner, Slot slot) {
  if (!owner) {
    if (slot != Slot::Body) throw PathError("the procedure has no else branch");
    return proc->body;
  }
  if (is_statement_slot(slot))
    if (const Block* list = exo2::child_block(owner, block_number(slot)))
      return *list;
  throw PathError("statement has no such statement list");
}

namespace {

// The child a step from a statement enters (null where there is none).
class StmtChild final : public StmtFunctor<Expr(Step)> {
 protected:
  Expr visit_assign(const Stmt& s, Step step) override {
    const auto& a = s->as<Assign>();
    if (step.slot == Slot::Idx) return list_entry(a.idx, step.index);
    if (step.slot == Slot::Rhs) return a.rhs;
    return nullptr;
  }
  Expr visit_write_config(const Stmt& s, Step step) override {
    return step.slot == Slot::Rhs ? s->as<WriteConfig>().rhs : nullptr;
  }
  Expr visit_window_stmt(const Stmt& s, Step step) override {
    return step.slot == Slot::Rhs ? s->as<WindowStmt>().rhs : nullptr;
  }
  Expr visit_if(const Stmt& s, Step step) override {
    return step.slot == Slot::Cond ? s->as<If>().cond : nullptr;
  }
  Expr visit_for(const Stmt& s, Step step) override {
    if (step.slot == Slot::Lo) return s->as<For>().lo;
    if (step.slot == Slot::Hi) return s->as<For>().hi;
    return nullptr;
  }
  Expr visit_alloc(const Stmt& s, Step step) override {
    if (step.slot != Slot::Shape) return nullptr;
    return list_entry(s->as<Alloc>().type.shape(), step.index);
  }
  Expr visit_call(const Stmt& s, Step step) override {
    if (step.slot == Slot::Arg)
      return list_entry(s->as<Call>().args, step.index);
    if (step.slot == Slot::Barrier)
      return list_entry(s->as<Call>().barriers, step.index);
    return nullptr;
  }
  Expr visit_sync(const Stmt& s, Step step) override {
    return step.slot == Slot::Barrier
               ? list_entry(s->as<Sync>().barriers, step.index)
               : nullptr;
  }
  // Pass and With hold no expressions.
  Expr visit_stmt_default(const Stmt&, Step) override { return nullptr; }
};

// The child a step from an expression enters (null where there is none).
class ExprChild final : public ExprFunctor<Expr(Step)> {
 protected:
  Expr visit_read(const Expr& e, Step step) override {
    return step.slot == Slot::Idx ? list_entry(e->as<Read>().idx, step.index)
                                  : nullptr;
  }
  Expr visit_usub(const Expr& e, Step step) override {
    return step.slot == Slot::Operand ? e->as<USub>().arg : nullptr;
  }
  Expr visit_binop(const Expr& e, Step step) override {
    if (step.slot == Slot::Lhs) return e->as<BinOp>().lhs;
    if (step.slot == Slot::Rhs) return e->as<BinOp>().rhs;
    return nullptr;
  }
  Expr visit_extern_call(const Expr& e, Step step) override {
    return step.slot == Slot::Arg
               ? list_entry(e->as<ExternCall>().args, step.index)
               : nullptr;
  }
  Expr visit_window_expr(const Expr& e, Step step) override {
    const auto& w = e->as<WindowExpr>();
    if (step.index < 0 || step.index >= static_cast<int>(w.idx.size()))
      return nullptr;
    const WindowAccess& a = w.idx[step.index];
    if (step.slot == Slot::Idx && !a.is_interval) return a.lo;
    if (step.slot == Slot::WindowLo && a.is_interval) return a.lo;
    if (step.slot == Slot::WindowHi && a.is_interval) return a.hi;
    return nullptr;
  }
  // Literals, strides and config reads have no children.
  Expr visit_expr_default(const Expr&, Step) override { return nullptr; }
};

}  // namespace

Expr child_expr(const Stmt& s, Step step) { return StmtChild().visit(s, step); }

Expr child_expr(const Expr& e, Step step) { return ExprChild().visit(e, step); }

Expr child_expr(const FnArg& a, Step step) {
  if (step.slot != Slot::Shape) return nullptr;
  return list_entry(a.type.shape(), step.index);
}

NodeRef resolve(const Proc& proc, const Path& path) {
  NodeRef ref;
  if (path.empty()) return ref;
  size_t i = 0;
  if (path[0].slot == Slot::Param) {
    ref.kind = NodeRef::Kind::Param;
    ref.param = &element(proc->args, path[0].index, path);
    i = 1;
  } else {
    // Statement steps, by pointer into the (immutable) procedure: no
    // reference count changes on the way down.
    static const Stmt kProcedure;  // the owner of the top-level body
    const Stmt* owner = &kProcedure;
    for (; i < path.size() && is_statement_slot(path[i].slot); i++) {
      const Block& list = statement_list(proc, *owner, path[i].slot);
      owner = &element(list, path[i].index, path);
    }
    if (!*owner) no_such_node(path);
    ref.kind = NodeRef::Kind::Stmt;
    ref.stmt = *owner;
  }
  // Expression steps.
  for (; i < path.size(); i++) {
    Expr next;
    switch (ref.kind) {
      case NodeRef::Kind::Param:
        next = child_expr(*ref.param, path[i]);
        break;
      case NodeRef::Kind::Stmt:
        next = child_expr(ref.stmt, path[i]);
        break;
      case NodeRef::Kind::Expr:
        next = child_expr(ref.expr, path[i]);
        break;
      case NodeRef::Kind::Proc:
        break;
    }
    if (!next) no_such_node(path);
    ref.kind = NodeRef::Kind::Expr;
    ref.expr = std::move(next);
  }
  return ref;
}

Stmt resolve_stmt(const Proc& proc, const Path& path) {
  NodeRef ref = resolve(proc, path);
  if (ref.kind != NodeRef::Kind::Stmt)
    throw PathError("not a statement: " + to_string(path));
  return ref.stmt;
}

Expr resolve_expr(const Proc& proc, const Path& path) {
  NodeRef ref = resolve(proc, path);
  if (ref.kind != NodeRef::Kind::Expr)
    throw PathError("not an expression: " + to_string(path));
  return ref.expr;
}

const Block& enclosing_list(const Proc& proc, const Path& stmt_path) {
  if (stmt_path.empty() || !is_statement_slot(stmt_path.back().slot))
    throw PathError("not a statement path: " + to_string(stmt_path));
  const Path owner(stmt_path.begin(), stmt_path.end() - 1);
  const Stmt owner_stmt = owner.empty() ? nullptr : resolve_stmt(proc, owner);
  return statement_list(proc, owner_stmt, stmt_path.back().slot);
}

bool is_valid(const Proc& proc, const Location& loc) {
  try {
    switch (loc.kind) {
      case LocationKind::Node:
        resolve(proc, loc.path);
        return true;
      case LocationKind::Gap:
        resolve_stmt(proc, loc.path);
        return true;
      case LocationKind::Block: {
        const Block& list = enclosing_list(proc, loc.path);
        return 0 <= loc.lo() && loc.lo() < loc.hi &&
               loc.hi <= static_cast<int>(list.size());
      }
    }
  } catch (const PathError&) {
  }
  return false;
}

Path owner_path(const Location& loc) {
  return Path(loc.path.begin(), loc.path.end() - 1);
}

std::optional<Location> parent(const Location& loc) {
  if (loc.path.empty()) return std::nullopt;
  return Location::node(owner_path(loc));
}

std::optional<Location> sibling(const Proc& proc, const Location& stmt,
                                int dist) {
  const Block& list = enclosing_list(proc, stmt.path);
  const int index = stmt.path.back().index + dist;
  if (index < 0 || index >= static_cast<int>(list.size())) return std::nullopt;
  Location out = Location::node(stmt.path);
  out.path.back().index = index;
  return out;
}

std::optional<Location> child_block(const Proc& proc, const Path& stmt_path,
                                    Slot slot) {
  const Stmt owner =
      stmt_path.empty() ? nullptr : resolve_stmt(proc, stmt_path);
  const Block& list = statement_list(proc, owner, slot);
  if (list.empty()) return std::nullopt;
  Path first = stmt_path;
  first.push_back(Step{slot, 0});
  return Location::block(std::move(first), static_cast<int>(list.size()));
}

Location as_block(const Location& stmt) {
  return Location::block(stmt.path, stmt.path.back().index + 1);
}

Location expand(const Proc& proc, const Location& block,
                std::optional<int> delta_lo, std::optional<int> delta_hi) {
  const int size = static_cast<int>(enclosing_list(proc, block.path).size());
  const int lo = delta_lo ? std::max(0, block.lo() - *delta_lo) : 0;
  const int hi = delta_hi ? std::min(size, block.hi + *delta_hi) : size;
  Path first = block.path;
  first.back().index = lo;
  return Location::block(std::move(first), hi);
}

Location gap_before(const Location& loc) {
  return Location::gap(loc.path, GapSide::Before);
}

Location gap_after(const Location& loc) {
  if (loc.kind != LocationKind::Block)
    return Location::gap(loc.path, GapSide::After);
  Path last = loc.path;
  last.back().index = loc.hi - 1;
  return Location::gap(std::move(last), GapSide::After);
}

bool is_ancestor_of(const Path& ancestor, const Location& other) {
  return starts_with(other.path, ancestor);
}

}  // namespace exo2::cursors
