#include "exo2/primitives/add_unsafe_guard.hpp"

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

Proc add_unsafe_guard(const Proc& proc, const cursors::Location& block,
                      const Expr& cond) {
  Expr c = typecheck_in_scope(proc, block.path, cond, ExprCategory::Bool);
  const cursors::Location first = cursors::Location::node(block.path);
  const Stmt s = cursors::resolve_stmt(proc, block.path);
  return cursors::replace(proc, first,
                          {make_if(c, fresh_copy({s}), {}, s->srcinfo)})
      .proc;
}

}  // namespace exo2::primitives
