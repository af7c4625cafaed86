#include "exo2/cursors/edits.hpp"

#include <stdexcept>

#include "exo2/cursors/navigation.hpp"
#include "rebuild_spine.hpp"

namespace exo2::cursors {

namespace {

// A non-empty range [lo, hi) of one statement list.
struct StatementRange {
  ListAddress list;
  int lo, hi;
};

StatementRange statement_range(const Proc& proc, const Location& loc) {
  if (loc.kind == LocationKind::Gap || loc.path.empty() ||
      !is_statement_slot(loc.path.back().slot))
    throw std::invalid_argument("expected a statement or a block: " +
                                to_string(loc));
  const int lo = loc.path.back().index;
  const int hi = loc.kind == LocationKind::Block ? loc.hi : lo + 1;
  const int size = static_cast<int>(enclosing_list(proc, loc.path).size());
  if (lo < 0 || lo >= hi || hi > size)
    throw std::invalid_argument("block out of range: " + to_string(loc));
  return {list_of(loc.path), lo, hi};
}

const Block& list_at(const Proc& proc, const ListAddress& list) {
  const Stmt owner =
      list.owner.empty() ? nullptr : resolve_stmt(proc, list.owner);
  return statement_list(proc, owner, list.slot);
}

SrcInfo owner_srcinfo(const Proc& proc, const ListAddress& list) {
  return list.owner.empty() ? proc->srcinfo
                            : resolve_stmt(proc, list.owner)->srcinfo;
}

EditResult insert_at(const Proc& proc, const ListAddress& list, int at,
                     Block stmts) {
  if (stmts.empty()) throw std::invalid_argument("nothing to insert");
  const int count = static_cast<int>(stmts.size());
  Block new_list = list_at(proc, list);
  new_list.insert(new_list.begin() + at, stmts.begin(), stmts.end());
  return {with_statement_list(proc, list, std::move(new_list)),
          forward_through_insert(list, at, count)};
}

// Whether the insertion point `gap` comes before the statement `stmt` in a
// pre-order walk (statements in different branches of one if: false).
bool precedes(const Path& gap, const Path& stmt) {
  for (size_t i = 0; i < gap.size() && i < stmt.size(); i++) {
    if (gap[i].slot != stmt[i].slot) return false;
    if (gap[i].index != stmt[i].index) return gap[i].index < stmt[i].index;
  }
  return true;
}

}  // namespace

EditResult insert(const Proc& proc, const Location& gap, Block stmts) {
  if (gap.kind != LocationKind::Gap)
    throw std::invalid_argument("expected a gap: " + to_string(gap));
  resolve_stmt(proc, gap.path);
  const int at = gap.gap_index();
  return insert_at(proc, list_of(gap.path), at, std::move(stmts));
}

EditResult replace(const Proc& proc, const Location& block, Block stmts) {
  const StatementRange r = statement_range(proc, block);
  const int count = static_cast<int>(stmts.size());
  const Block& old_list = list_at(proc, r.list);
  Block new_list(old_list.begin(), old_list.begin() + r.lo);
  new_list.insert(new_list.end(), stmts.begin(), stmts.end());
  new_list.insert(new_list.end(), old_list.begin() + r.hi, old_list.end());
  if (new_list.empty())
    new_list.push_back(make_pass(owner_srcinfo(proc, r.list)));
  return {with_statement_list(proc, r.list, std::move(new_list)),
          forward_through_replace(r.list, r.lo, r.hi, count)};
}

EditResult remove(const Proc& proc, const Location& block) {
  return replace(proc, block, {});
}

EditResult move(const Proc& proc, const Location& block, const Location& gap) {
  const StatementRange r = statement_range(proc, block);
  if (gap.kind != LocationKind::Gap)
    throw std::invalid_argument("expected a gap: " + to_string(gap));
  resolve_stmt(proc, gap.path);
  const ListAddress target = list_of(gap.path);
  const int at = gap.gap_index();
  if (target == r.list && r.lo <= at && at <= r.hi) return {proc, {}};

  Path insertion = gap.path;
  insertion.back().index = at;
  Path first = r.list.owner;
  first.push_back(Step{r.list.slot, r.lo});
  Path moved_prefix(first.begin(), first.end() - 1);
  if (insertion.size() > first.size() && starts_with(insertion, moved_prefix) &&
      insertion[first.size() - 1].slot == r.list.slot &&
      r.lo <= insertion[first.size() - 1].index &&
      insertion[first.size() - 1].index < r.hi)
    throw std::invalid_argument("cannot move a block into itself");

  const Block& list = list_at(proc, r.list);
  const Block stmts(list.begin() + r.lo, list.begin() + r.hi);
  // Do the later edit first so that the earlier one's paths stay valid.
  if (precedes(insertion, first)) {
    EditResult removed = remove(proc, block);
    EditResult inserted = insert_at(removed.proc, target, at, stmts);
    return {inserted.proc,
            forward_through_move(r.list, r.lo, r.hi, insertion,
                                 removed.forwarding.then(inserted.forwarding))};
  }
  EditResult inserted = insert_at(proc, target, at, stmts);
  EditResult removed = remove(inserted.proc, block);
  Path destination = removed.forwarding(Location::node(insertion)).path;
  return {removed.proc,
          forward_through_move(r.list, r.lo, r.hi, std::move(destination),
                               inserted.forwarding.then(removed.forwarding))};
}

EditResult wrap(const Proc& proc, const Location& block,
                const std::function<Stmt(Block)>& make_wrapper,
                Slot wrapper_slot) {
  const StatementRange r = statement_range(proc, block);
  const Block& old_list = list_at(proc, r.list);
  Stmt wrapper =
      make_wrapper(Block(old_list.begin() + r.lo, old_list.begin() + r.hi));
  if (statement_list(proc, wrapper, wrapper_slot).size() !=
      static_cast<size_t>(r.hi - r.lo))
    throw std::invalid_argument("the wrapper must hold exactly the block");
  Block new_list(old_list.begin(), old_list.begin() + r.lo);
  new_list.push_back(std::move(wrapper));
  new_list.insert(new_list.end(), old_list.begin() + r.hi, old_list.end());
  return {with_statement_list(proc, r.list, std::move(new_list)),
          forward_through_wrap(r.list, r.lo, r.hi, wrapper_slot)};
}

EditResult replace_expr(const Proc& proc, const Location& node, Expr expr) {
  if (node.kind != LocationKind::Node)
    throw std::invalid_argument("expected an expression: " + to_string(node));
  resolve_expr(proc, node.path);
  return {with_expr(proc, node.path, std::move(expr)),
          forward_through_expr_replace(node.path)};
}

EditResult replace_leaves(const Proc& proc, const Location& node, Stmt stmt) {
  if (node.kind != LocationKind::Node)
    throw std::invalid_argument("expected a statement: " + to_string(node));
  const StatementRange r = statement_range(proc, node);
  if (list_at(proc, r.list)[r.lo]->kind != stmt->kind)
    throw std::invalid_argument("the new statement must be of the same kind");
  Block new_list = list_at(proc, r.list);
  new_list[r.lo] = std::move(stmt);
  return {with_statement_list(proc, r.list, std::move(new_list)), {}};
}

EditResult replace_stmt_attributes(const Proc& proc, const Location& node,
                                   Stmt stmt) {
  if (node.kind != LocationKind::Node)
    throw std::invalid_argument("expected a statement: " + to_string(node));
  const Stmt old = resolve_stmt(proc, node.path);
  if (old->kind != stmt->kind)
    throw std::invalid_argument("the new statement must be of the same kind");
  for (Slot slot : {Slot::Body, Slot::Orelse}) {
    const bool has_list = old->kind == StmtKind::If ||
                          (slot == Slot::Body && (old->kind == StmtKind::For ||
                                                  old->kind == StmtKind::With));
    if (has_list && statement_list(proc, old, slot).size() !=
                        statement_list(proc, stmt, slot).size())
      throw std::invalid_argument(
          "the new statement must keep the lengths of its statement lists");
  }
  std::vector<Step> kept;
  for_each_expr_child(stmt,
                      [&](Step step, const Expr&) { kept.push_back(step); });
  if (stmt->kind == StmtKind::Alloc)
    for (int i = 0; i < static_cast<int>(stmt->as<Alloc>().type.shape().size());
         i++)
      kept.push_back(Step{Slot::Shape, i});
  const StatementRange r = statement_range(proc, node);
  Block new_list = list_at(proc, r.list);
  new_list[r.lo] = std::move(stmt);
  return {with_statement_list(proc, r.list, std::move(new_list)),
          forward_through_stmt_update(node.path, std::move(kept))};
}

}  // namespace exo2::cursors
