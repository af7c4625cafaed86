#include "exo2/primitives/add_loop.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult add_loop(const Proc& proc,
                             const cursors::Location& stmt_loc,
                             const std::string& iter_name,
                             const Expr& hi_untyped, bool guard,
                             bool unsafe_disable_check) {
  const Stmt stmt = cursors::resolve_stmt(proc, stmt_loc.path);
  const SrcInfo& src = stmt->srcinfo;
  const Expr hi = typecheck_in_scope(proc, stmt_loc.path, hi_untyped,
                                     ExprCategory::Control);
  // A declaration wrapped in a loop would go out of scope before its uses.
  if (stmt->kind == StmtKind::Alloc || stmt->kind == StmtKind::WindowStmt) {
    const Sym& name = stmt->kind == StmtKind::Alloc
                          ? stmt->as<Alloc>().name
                          : stmt->as<WindowStmt>().name;
    refuse(fmt::format("cannot add a loop around the declaration of {} at "
                       "{}: the code after it could no longer use {}",
                       name.name(), src.str(), name.name()),
           {.srcinfo = src});
  }

  if (!unsafe_disable_check) {
    QueryContext ctx(proc, to_stmt_path(stmt_loc.path));
    require_proven(
        prove_idempotent(ctx, {stmt}),
        fmt::format("The statement at {} is not idempotent.", src.str()),
        {.srcinfo = src,
         .condition = "Idempotent",
         .hint = "a reduction, or a location both written and read, makes "
                 "running the statement twice differ from running it once"});
    require_proven(
        prove_compare(ctx, hi, BinOpKind::Gt, 0),
        fmt::format("The expression {} is not guaranteed to be greater "
                    "than 0.",
                    print_expr(hi)),
        {.srcinfo = src,
         .condition = "Bound",
         .formula = print_expr(hi) + " > 0"});
  }

  const Sym iter(iter_name);
  EditSequence edits(proc);
  if (guard)
    edits.apply(cursors::wrap(proc, stmt_loc, [&](Block b) {
      return make_if(control_binop(BinOpKind::Eq, iterator_read(iter, src),
                                   control_int(0, src), src),
                     std::move(b), {}, src);
    }));
  edits.apply(cursors::wrap(edits.proc(), stmt_loc, [&](Block b) {
    return make_for(iter, make_int(0, src, Type(TypeKind::Index)), hi,
                    std::move(b), LoopMode::seq(), src);
  }));
  return edits.result();
}

}  // namespace exo2::primitives
