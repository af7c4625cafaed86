#include "exo2/primitives/split_write.hpp"

#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/data_locations.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult split_write(const Proc& proc,
                                const cursors::Location& stmt) {
  if (stmt.kind != cursors::LocationKind::Node)
    throw ArgumentError("split_write: expected a statement");
  Stmt s = cursors::resolve_stmt(proc, stmt.path);
  if (s->kind != StmtKind::Assign && s->kind != StmtKind::Reduce)
    throw ArgumentError("split_write: expected an assignment or reduction");
  const Assign& w = s->as<Assign>();
  if (w.rhs->kind != ExprKind::BinOp || w.rhs->as<BinOp>().op != BinOpKind::Add)
    refuse("Expected the rhs of the statement to be an addition.",
           {.srcinfo = s->srcinfo});
  const BinOp& sum = w.rhs->as<BinOp>();

  QueryContext ctx(proc, to_stmt_path(stmt.path));
  if (contains(locations_read(sum.rhs, ctx.windows()),
               location_written(s, ctx.windows())))
    refuse(
        "Expected the second operand of the addition to not read the "
        "buffer " +
            w.name.name() + ".",
        {.srcinfo = sum.rhs->srcinfo,
         .hint = "the second write would read the value the first one "
                 "wrote; bind the operand to a new buffer first "
                 "(bind_expr)"});

  Stmt first = s->kind == StmtKind::Assign
                   ? make_assign(w.name, w.type, w.idx, sum.lhs, s->srcinfo)
                   : make_reduce(w.name, w.type, w.idx, sum.lhs, s->srcinfo);
  Stmt second = make_reduce(w.name, w.type, w.idx, sum.rhs, s->srcinfo);
  return cursors::replace(proc, stmt, {first, second});
}

}  // namespace exo2::primitives
