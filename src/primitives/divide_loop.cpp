#include "exo2/primitives/divide_loop.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/replace_reads.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

using cursors::Location;
using cursors::Slot;

cursors::EditResult divide_loop(const Proc& proc, const Location& loop_loc,
                                int64_t quotient, const std::string& outer_name,
                                const std::string& inner_name,
                                TailStrategy tail, bool perfect) {
  // Check arguments.
  const Stmt loop_stmt = stmt_of_kind(proc, loop_loc, StmtKind::For);
  const For& loop = loop_stmt->as<For>();
  const SrcInfo& src = loop.srcinfo;
  if (int_literal(loop.lo) != 0)
    refuse(fmt::format("expected the lower bound of the loop to be zero, got "
                       "{}.",
                       print_expr(loop.lo)),
           {.srcinfo = src, .hint = "call shift_loop(p, loop, 0) first"});

  // Prove safety.
  if (!perfect) {
    // The guard and the tail loop evaluate `hi` again, after body iterations
    // ran.
    const char* what = tail == TailStrategy::Guard ? "guard" : "tail loop";
    const SafetyResult unchanged = prove_config_reads_unchanged(
        {loop.hi}, loop.body,
        fmt::format("the bound of the loop over {} reads", loop.iter.name()));
    require_proven(
        unchanged,
        fmt::format("Cannot divide the loop over {} with a {}: {}, and the {} "
                    "evaluates the bound again after body iterations ran.",
                    loop.iter.name(), what, unchanged.detail, what),
        {.srcinfo = src,
         .condition = "ReadsUnchanged",
         .hint = "with perfect=True the bound is evaluated once"});
  }
  const Expr q = control_int(quotient, src);
  Expr outer_hi;
  if (perfect) {
    QueryContext ctx(proc, to_stmt_path(loop_loc.path));
    const std::string hi_text = print_expr(loop.hi);
    require_proven(
        prove_divisible(ctx, loop.hi, quotient),
        fmt::format("cannot perfectly divide '{}' by {}", hi_text, quotient),
        {.srcinfo = src,
         .condition = fmt::format("Divisible({}, {})", hi_text, quotient),
         .formula = fmt::format("{} % {} == 0", hi_text, quotient),
         .hint = fmt::format("use tail=\"cut\" or tail=\"guard\" instead of "
                             "perfect=True, or add `assert {} % {} == 0` to {}",
                             hi_text, quotient, proc->name)});
    std::optional<int64_t> hi = int_literal(loop.hi);
    outer_hi = hi ? control_int(*hi / quotient, src)
                  : control_binop(BinOpKind::Div, loop.hi, q, src);
  } else if (tail == TailStrategy::Guard) {
    outer_hi = control_binop(BinOpKind::Div,
                             control_binop(BinOpKind::Add, loop.hi,
                                           control_int(quotient - 1, src), src),
                             q, src);
  } else {
    // The tail runs hi % q iterations after the hi / q whole blocks: when
    // hi < 0 the loop runs nothing, but floor division leaves hi % q > 0
    // tail iterations (primitives may leave such loops, e.g. lift_scope).
    QueryContext ctx(proc, to_stmt_path(loop_loc.path));
    const std::string hi_text = print_expr(loop.hi);
    require_proven(
        prove_compare(ctx, loop.hi, BinOpKind::Ge, 0),
        fmt::format("cannot cut the tail of the loop over {}: its upper bound "
                    "{} may be negative",
                    loop.iter.name(), hi_text),
        {.srcinfo = src,
         .condition = fmt::format("Bound({} >= 0)", hi_text),
         .formula = hi_text + " >= 0",
         .hint = "use tail=\"guard\", or guard the loop with `if " + hi_text +
                 " > 0:` first"});
    outer_hi = control_binop(BinOpKind::Div, loop.hi, q, src);
  }

  // Edit: the loop becomes the outer loop, its body moves into the guard
  // and the inner loop, and reads of i become q * io + ii.
  const Sym outer(outer_name), inner(inner_name);
  auto split_index = [&](const SrcInfo& at) {
    return control_binop(
        BinOpKind::Add,
        control_binop(BinOpKind::Mul, control_int(quotient, at),
                      iterator_read(outer, at), at),
        iterator_read(inner, at), at);
  };
  EditSequence edits(proc);
  edits.apply(cursors::replace_stmt_attributes(
      proc, loop_loc,
      make_for(outer, make_int(0, src, Type(TypeKind::Index)), outer_hi,
               loop.body, loop.mode, src)));
  const int body_size = static_cast<int>(loop.body.size());
  cursors::Path body_path = loop_loc.path;
  body_path.push_back({Slot::Body, 0});
  const Location body = Location::block(body_path, body_size);
  if (!perfect && tail == TailStrategy::Guard) {
    const Expr cond =
        control_binop(BinOpKind::Lt, split_index(src), loop.hi, src);
    edits.apply(cursors::wrap(edits.proc(), body, [&](Block b) {
      return make_if(cond, std::move(b), {}, src);
    }));
  }
  const Location inner_body = Location::block(
      body_path, perfect || tail != TailStrategy::Guard ? body_size : 1);
  edits.apply(cursors::wrap(edits.proc(), inner_body, [&](Block b) {
    return make_for(inner, make_int(0, src, Type(TypeKind::Index)), q,
                    std::move(b), loop.mode, src);
  }));
  edits.apply(replace_reads(
      edits.proc(), loop_loc.path, loop.iter,
      [&](const Expr& read) { return split_index(read->srcinfo); }));

  if (!perfect && tail != TailStrategy::Guard) {
    const Sym tail_iter(inner_name);
    const Expr tail_hi = control_binop(BinOpKind::Mod, loop.hi, q, src);
    const Expr tail_index =
        control_binop(BinOpKind::Add, iterator_read(tail_iter, src),
                      control_binop(BinOpKind::Mul, outer_hi, q, src), src);
    Stmt tail_loop = make_for(
        tail_iter, make_int(0, src, Type(TypeKind::Index)), tail_hi,
        fresh_copy(loop.body, {{loop.iter, tail_index}}), loop.mode, src);
    if (tail == TailStrategy::CutAndGuard)
      tail_loop = make_if(
          control_binop(BinOpKind::Gt, tail_hi, control_int(0, src), src),
          {tail_loop}, {}, src);
    edits.apply(cursors::insert(
        edits.proc(), Location::gap(loop_loc.path, cursors::GapSide::After),
        {tail_loop}));
  }
  return edits.result();
}

}  // namespace exo2::primitives
