#include "exo2/primitives/fold_into_reduce.hpp"

#include "exo2/primitives/data_locations.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult fold_into_reduce(const Proc& proc,
                                     const cursors::Location& assign) {
  Stmt s = stmt_of_kind(proc, assign, StmtKind::Assign);
  const Assign& w = s->as<Assign>();
  if (w.rhs->kind != ExprKind::BinOp || w.rhs->as<BinOp>().op != BinOpKind::Add)
    refuse("The rhs of the assignment must be an add.",
           {.srcinfo = s->srcinfo});
  const BinOp& sum = w.rhs->as<BinOp>();
  if (!reads_written_element(sum.lhs, s))
    refuse(
        "The lhs of the addition is not a read to the lhs of the "
        "assignment.",
        {.srcinfo = sum.lhs->srcinfo});
  return cursors::replace(
      proc, assign, {make_reduce(w.name, w.type, w.idx, sum.rhs, s->srcinfo)});
}

}  // namespace exo2::primitives
