#include "exo2/primitives/resize_dim.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "exo2/analysis/queries.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/buffer_accesses.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

z3::expr term(SmtEncoder& enc, const Expr& e) {
  return SmtEncoder::is_encodable(e) ? enc.encode(e) : enc.fresh_int("unknown");
}

// The instances of an access: `when` constrains fresh iterators of its
// loops, `idx` is the element.
struct Instance {
  z3::expr when;
  std::vector<z3::expr> iters;
  std::vector<z3::expr> idx;
};

Instance instantiate(SmtEncoder& enc, const Access& a,
                     const std::string& suffix, std::vector<NamedTerm>& shown) {
  enc.push();
  Instance inst{enc.bool_value(true), {}, {}};
  for (const LoopRange& l : a.loops) {
    const z3::expr lo = term(enc, l.lo);
    const z3::expr hi = term(enc, l.hi);
    const z3::expr i = enc.fresh_int(l.iter.name() + suffix);
    enc.bind(l.iter, i);
    inst.when = inst.when && lo <= i && i < hi;
    inst.iters.push_back(i);
    shown.push_back({l.iter.name() + suffix, i});
  }
  for (const Guard& g : a.guards) {
    // An unencodable guard is dropped: more instances, never fewer.
    if (!SmtEncoder::is_encodable(g.cond) || !g.cond->type.is_bool()) continue;
    const z3::expr c = enc.encode(g.cond);
    inst.when = inst.when && (g.holds ? c : !c);
  }
  for (const Expr& i : a.idx) inst.idx.push_back(term(enc, i));
  enc.pop();
  return inst;
}

// Whether instance `a` of access number `p` runs before instance `b` of
// access number `q` (accesses in program order): lexicographic order on
// the iterators of their common loops, then textual order. Common loops are
// the same loop, not loops binding the same iterator: every instance of a
// loop runs before any of a later sibling loop.
z3::expr runs_before(SmtEncoder& enc, const Access& first, const Instance& a,
                     size_t p, const Access& second, const Instance& b,
                     size_t q) {
  size_t common = 0;
  while (common < first.loops.size() && common < second.loops.size() &&
         first.loops[common].id == second.loops[common].id)
    common++;
  z3::expr before = enc.bool_value(p < q);
  for (size_t k = common; k-- > 0;)
    before = a.iters[k] < b.iters[k] || (a.iters[k] == b.iters[k] && before);
  return before;
}

// Folding dimension `dim` to `size` keeps every value a read needs: no
// write to an element `size` or more away lands between them. It suffices
// that for each pair of accesses, one a write, agreeing on the other
// dimensions, the earlier index is less than `size` above the later one.
void require_foldable(const Proc& proc, const cursors::Location& alloc,
                      const Sym& buffer, int dim, int64_t size) {
  QueryContext ctx(proc, to_stmt_path(alloc.path));
  SmtEncoder& enc = ctx.encoder();
  std::vector<Access> accesses;
  for (Access& a : effects_of(rest_of_block(proc, alloc), ctx.windows()))
    if (!a.location.is_config() && a.location.buffer == buffer)
      accesses.push_back(std::move(a));
  for (size_t p = 0; p < accesses.size(); p++) {
    for (size_t q = 0; q < accesses.size(); q++) {
      const Access& first = accesses[p];
      const Access& second = accesses[q];
      if (!first.modifies() && !second.modifies()) continue;
      std::vector<NamedTerm> shown = ctx.shown_terms();
      const Instance a = instantiate(enc, first, "", shown);
      const Instance b = instantiate(enc, second, "'", shown);
      z3::expr same_rest = enc.bool_value(true);
      for (size_t d = 0; d < a.idx.size() && d < b.idx.size(); d++)
        if (static_cast<int>(d) != dim)
          same_rest = same_rest && a.idx[d] == b.idx[d];
      const size_t d = static_cast<size_t>(dim);
      const QueryResult r = enc.satisfiable(
          a.when && b.when && runs_before(enc, first, a, p, second, b, q) &&
          same_rest && a.idx[d] - b.idx[d] >= enc.int_value(size));
      if (r.no()) continue;
      const std::string why =
          r.timed_out()
              ? fmt::format("the solver gave up ({})", r.reason_unknown)
              : "";
      refuse(
          fmt::format("Buffer folding failed because {} at {} may access "
                      "{} or more before {} at {}, which runs earlier.",
                      second.text, second.srcinfo.str(), size, first.text,
                      first.srcinfo.str()),
          {.srcinfo = second.srcinfo,
           .condition = "accesses move forward within a window of " +
                        std::to_string(size),
           .counterexample = r.timed_out() ? "" : enc.counterexample(r, shown),
           .hint = why});
    }
  }
}

}  // namespace

cursors::EditResult resize_dim(const Proc& proc, const cursors::Location& alloc,
                               int dim, const Expr& size_untyped,
                               const Expr& offset_untyped, bool fold) {
  const Stmt alloc_stmt = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const auto& a = alloc_stmt->as<Alloc>();
  const std::vector<Expr>& shape = a.type.shape();
  if (dim < 0 || dim >= static_cast<int>(shape.size()))
    throw std::invalid_argument(
        fmt::format("Cannot resize out-of-bounds dimension index {}", dim));
  const std::string x = a.name.name();
  const Expr size = control_expr_before(proc, alloc, size_untyped);
  const SrcInfo& srcinfo = size->srcinfo;

  std::optional<int64_t> fold_size;
  if (fold) {
    fold_size = int_literal(size);
    if (!fold_size || *fold_size <= 0)
      throw std::invalid_argument(
          "resize_dim: fold needs a positive integer literal size");
  } else {
    QueryContext ctx(proc, to_stmt_path(alloc.path));
    require_proven(
        prove_compare(ctx, size, BinOpKind::Gt, 0),
        fmt::format("The expression {} is not guaranteed to be greater than 0.",
                    print_expr(size)),
        {.srcinfo = alloc_stmt->srcinfo,
         .condition = "Bound(size > 0)",
         .formula = print_expr(size) + " > 0"});
  }
  const Expr offset =
      fold ? nullptr : control_expr_before(proc, alloc, offset_untyped);
  const Expr modulus = fold ? control_int(*fold_size, srcinfo) : nullptr;
  auto shift = [&](const Expr& e) {
    return fold ? control_binop(BinOpKind::Mod, e, modulus, e->srcinfo)
                : control_binop(BinOpKind::Sub, e, offset, e->srcinfo);
  };
  auto refuse_call = [&](const AccessSite& site) {
    if (fold && site.call_argument)
      refuse(fmt::format("Buffer folding failed because {} is passed to a "
                         "sub-procedure at {}.",
                         x, site.srcinfo.str()),
             {.srcinfo = site.srcinfo});
  };

  BufferAccessRewrite rewrite;
  rewrite.point = [&](const std::vector<Expr>& idx, const AccessSite& site) {
    refuse_call(site);
    std::vector<Expr> out = idx;
    out[static_cast<size_t>(dim)] = shift(idx[static_cast<size_t>(dim)]);
    return PointAccess{a.name, std::move(out)};
  };
  rewrite.window = [&](const std::vector<WindowAccess>& idx,
                       const AccessSite& site) {
    refuse_call(site);
    std::vector<WindowAccess> out = idx;
    WindowAccess& w = out[static_cast<size_t>(dim)];
    if (!w.is_interval) {
      w.lo = shift(w.lo);
    } else if (fold) {
      const Expr lo = shift(w.lo);
      w.hi = control_binop(BinOpKind::Add, lo,
                           control_binop(BinOpKind::Sub, w.hi, w.lo, srcinfo),
                           w.hi->srcinfo);
      w.lo = lo;
    } else {
      w.lo = shift(w.lo);
      w.hi = shift(w.hi);
    }
    return WindowedAccess{a.name, std::move(out)};
  };
  rewrite.stride = [&](int d, const AccessSite& site) {
    if (d < dim)
      refuse(fmt::format("Cannot resize {} because the value of stride({}, "
                         "{}) at {} would change",
                         x, x, d, site.srcinfo.str()),
             {.srcinfo = site.srcinfo});
    return d;
  };
  rewrite.whole_buffer = [&](const AccessSite& site) {
    refuse(fmt::format(
               "Cannot resize {} because buffer is passed as an argument", x),
           {.srcinfo = site.srcinfo});
  };

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  if (fold) require_foldable(proc, alloc, a.name, dim, *fold_size);

  std::vector<Expr> new_shape = shape;
  new_shape[static_cast<size_t>(dim)] = size;
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), alloc, with_shape(alloc_stmt, new_shape)));
  require_in_bounds(edits.proc(), alloc, new_shape);
  return edits.result();
}

}  // namespace exo2::primitives
