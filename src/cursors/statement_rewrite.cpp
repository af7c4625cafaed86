#include "exo2/cursors/statement_rewrite.hpp"

#include <stdexcept>

#include "exo2/cursors/navigation.hpp"
#include "rebuild_spine.hpp"

namespace exo2::cursors {

StatementRewrite::StatementRewrite(Proc proc, const Location& stmt)
    : original_(std::move(proc)), stmt_path_(stmt.path) {
  if (stmt.kind != LocationKind::Node || stmt.path.empty() ||
      !is_statement_slot(stmt.path.back().slot))
    throw std::invalid_argument("expected a statement: " + to_string(stmt));
  const Stmt s = resolve_stmt(original_, stmt.path);
  local_ = make_proc(original_->name, original_->args, original_->preds,
                     {make_pass(s->srcinfo), s, make_pass(s->srcinfo)},
                     original_->instr, original_->srcinfo);
}

Location StatementRewrite::to_local(const Location& loc) const {
  if (!starts_with(loc.path, stmt_path_))
    throw std::invalid_argument("not inside the rewritten statement: " +
                                to_string(loc));
  Location local = loc;
  local.path = stmt();
  local.path.insert(local.path.end(), loc.path.begin() + stmt_path_.size(),
                    loc.path.end());
  return local;
}

void StatementRewrite::apply(EditResult local_edit) {
  local_ = std::move(local_edit.proc);
  local_forwarding_ = local_forwarding_.then(local_edit.forwarding);
}

EditResult StatementRewrite::result() const {
  const Block& body = local_->body;
  if (body.size() < 3)
    throw std::logic_error("a statement rewrite must leave a statement");
  const ListAddress list = list_of(stmt_path_);
  const int index = stmt_path_.back().index;
  Block new_list = enclosing_list(original_, stmt_path_);
  new_list.erase(new_list.begin() + index);
  new_list.insert(new_list.begin() + index, body.begin() + 1, body.end() - 1);
  const int count = static_cast<int>(body.size()) - 2;
  return {
      with_statement_list(original_, list, std::move(new_list)),
      forward_through_statement_rewrite(stmt_path_, count, local_forwarding_)};
}

}  // namespace exo2::cursors
