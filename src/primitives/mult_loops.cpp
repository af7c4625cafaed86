#include "exo2/primitives/mult_loops.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/replace_reads.hpp"

namespace exo2::primitives {

using cursors::Location;
using cursors::Path;
using cursors::Slot;

cursors::EditResult mult_loops(const Proc& proc, const Location& outer_loc,
                               const std::string& new_iter_name) {
  // Check arguments.
  const Stmt outer_stmt = stmt_of_kind(proc, outer_loc, StmtKind::For);
  const For& outer = outer_stmt->as<For>();
  if (outer.body.size() != 1 || outer.body[0]->kind != StmtKind::For)
    throw ArgumentError("expected a loop whose body is one loop");
  const For& inner = outer.body[0]->as<For>();
  const std::optional<int64_t> c = int_literal(inner.hi);
  if (!c)
    refuse(fmt::format("expected the inner loop to have a constant bound, "
                       "got {}.",
                       print_expr(inner.hi)),
           {.srcinfo = inner.srcinfo,
            .hint = "mult_loops needs a literal inner bound; divide_loop "
                    "with perfect=True produces one"});
  // With c <= 0 the inner loop runs nothing, but `e * c` may be positive
  // (and `k / 0` is undefined).
  if (*c <= 0)
    refuse(fmt::format("expected the inner loop to run a positive number of "
                       "iterations, got {}.",
                       *c),
           {.srcinfo = inner.srcinfo});
  if (int_literal(inner.lo) != 0 || int_literal(outer.lo) != 0)
    refuse(fmt::format("expected the inner and outer loops to have a constant "
                       "lower bound of 0, got {} and {}.",
                       print_expr(inner.lo), print_expr(outer.lo)),
           {.srcinfo = outer.srcinfo,
            .hint = "call shift_loop(p, loop, 0) on the loop first"});

  // Edit: reads of i and j become k / c and k % c, the outer loop becomes
  // the fused loop, and the inner loop's body replaces the inner loop.
  const Sym fused(new_iter_name);
  const SrcInfo& src = outer.srcinfo;
  EditSequence edits(proc);
  auto replace_by = [&](const Sym& var, BinOpKind op) {
    edits.apply(
        replace_reads(edits.proc(), outer_loc.path, var, [&](const Expr& read) {
          const SrcInfo& at = read->srcinfo;
          return control_binop(op, iterator_read(fused, at),
                               control_int(*c, at), at);
        }));
  };
  replace_by(outer.iter, BinOpKind::Div);
  replace_by(inner.iter, BinOpKind::Mod);
  const For& current =
      stmt_of_kind(edits.proc(), outer_loc, StmtKind::For)->as<For>();
  const LoopModePtr mode =
      outer.mode->same_as(*inner.mode) ? outer.mode : LoopMode::seq();
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), outer_loc,
      make_for(fused, outer.lo,
               control_binop(BinOpKind::Mul, outer.hi, inner.hi, src),
               current.body, mode, src)));
  Path inner_path = outer_loc.path;
  inner_path.push_back({Slot::Body, 0});
  Path inner_body = inner_path;
  inner_body.push_back({Slot::Body, 0});
  edits.apply(cursors::move(
      edits.proc(),
      Location::block(inner_body, static_cast<int>(inner.body.size())),
      Location::gap(inner_path, cursors::GapSide::After)));
  edits.apply(cursors::remove(edits.proc(), Location::node(inner_path)));
  return edits.result();
}

}  // namespace exo2::primitives
