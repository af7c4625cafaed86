#include "exo2/primitives/merge_writes.hpp"

#include "exo2/core_ir/equality.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/data_locations.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

bool is_write(const Stmt& s) {
  return s->kind == StmtKind::Assign || s->kind == StmtKind::Reduce;
}

}  // namespace

cursors::EditResult merge_writes(const Proc& proc,
                                 const cursors::Location& block) {
  if (block.kind != cursors::LocationKind::Block || block.hi - block.lo() != 2)
    throw ArgumentError("merge_writes: expected a block of size 2");
  cursors::Path first = block.path;
  cursors::Path second = block.path;
  second.back().index++;
  Stmt s1 = cursors::resolve_stmt(proc, first);
  Stmt s2 = cursors::resolve_stmt(proc, second);
  if (!is_write(s1) || !is_write(s2))
    throw ArgumentError("expected two consecutive assign/reduce statements");
  const Assign& w1 = s1->as<Assign>();
  const Assign& w2 = s2->as<Assign>();
  if (w1.name != w2.name || !equal(w1.type, w2.type))
    throw ArgumentError(
        "expected the two statements' left hand sides to have the same name "
        "& type");
  if (!w1.rhs->type.is_numeric() || !w2.rhs->type.is_numeric())
    throw ArgumentError(
        "expected the two statements' right hand sides to have numeric "
        "types.");

  QueryContext ctx(proc, to_stmt_path(first));
  for (size_t k = 0; k < w1.idx.size(); k++)
    require_proven(prove_equivalent(ctx, w1.idx[k], w2.idx[k]),
                   "expected the left hand side's indices to be the same.",
                   {.srcinfo = s2->srcinfo, .condition = "ExprEqv(e1, e2)"});
  if (contains(locations_read(w2.rhs, ctx.windows()),
               location_written(s1, ctx.windows())))
    refuse(
        "expected the right hand side of the second statement to not depend "
        "on the left hand side of the first statement.",
        {.srcinfo = w2.rhs->srcinfo});

  EditSequence edits(proc);
  edits.apply(cursors::remove(proc, cursors::Location::node(first)));
  if (s2->kind == StmtKind::Assign) return edits.result();
  // A reduction adds to what s1 left: s1's kind, with both values.
  Expr sum = make_binop(BinOpKind::Add, w1.rhs, w2.rhs, s1->srcinfo,
                        w1.type.basetype());
  Stmt merged = s1->kind == StmtKind::Assign
                    ? make_assign(w1.name, w1.type, w1.idx, sum, s1->srcinfo)
                    : make_reduce(w1.name, w1.type, w1.idx, sum, s1->srcinfo);
  edits.apply(cursors::replace(
      edits.proc(), edits.forward(cursors::Location::node(second)), {merged}));
  return edits.result();
}

}  // namespace exo2::primitives
