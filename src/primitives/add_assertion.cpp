#include "exo2/primitives/add_assertion.hpp"

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/primitives/new_expressions.hpp"

namespace exo2::primitives {

Proc add_assertion(const Proc& proc, const Expr& untyped) {
  const cursors::Path first = {cursors::Step{cursors::Slot::Body, 0}};
  Expr typed = typecheck_in_scope(proc, first, untyped, ExprCategory::Bool);
  std::vector<Expr> preds = proc->preds;
  preds.push_back(std::move(typed));
  return make_proc(proc->name, proc->args, std::move(preds), proc->body,
                   proc->instr, proc->srcinfo);
}

}  // namespace exo2::primitives
