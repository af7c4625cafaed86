#include "exo2/primitives/resize_dim.hpp"

#include <fmt/format.h>

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

// The iterators of the first `fixed.size()` loops are `fixed` (an instance
// in the same iteration of those loops as another one), the others fresh.
Instance instantiate(SmtEncoder& enc, const Access& a,
                     const std::string& suffix, std::vector<NamedTerm>& shown,
                     const std::vector<z3::expr>& fixed = {}) {
  enc.push();
  Instance inst{enc.bool_value(true), {}, {}};
  for (const Expr& u : a.unknowns)
    enc.bind(u->as<Read>().name,
             u->type.is_bool() ? enc.fresh_bool(u->as<Read>().name.name())
                               : enc.fresh_int(u->as<Read>().name.name()));
  for (size_t k = 0; k < a.loops.size(); k++) {
    const LoopRange& l = a.loops[k];
    const z3::expr lo = term(enc, l.lo);
    const z3::expr hi = term(enc, l.hi);
    const bool is_fixed = k < fixed.size();
    const z3::expr i =
        is_fixed ? fixed[k] : enc.fresh_int(l.iter.name() + suffix);
    enc.bind(l.iter, i);
    inst.when = inst.when && lo <= i && i < hi;
    inst.iters.push_back(i);
    if (!is_fixed) shown.push_back({l.iter.name() + suffix, i});
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

// Folding dimension `dim` to `size` keeps every value a read needs. After
// folding, a read of element e gets the value of the last write to any
// element sharing e's slot; it differs when a write w2 to another such
// element (`size` or more away, the other dimensions equal) runs after the
// write w1 of e and before the read, unless a write w3 of e runs between
// w2 and the read: one query per (w1, w2, read). (A read of an element no
// earlier write wrote reads an undefined value either way.) Reductions
// count as reads and as writes. The writes w3 considered are those the
// read's own iteration runs before it (no loops of their own, earlier in
// the text): ignoring any other w3 can only refuse more.
class FoldCheck {
 public:
  FoldCheck(const Proc& proc, const cursors::Location& alloc, const Sym& buffer,
            int dim, int64_t size)
      : ctx_(proc, alloc.path), dim_(dim), size_(size) {
    for (Access& a : effects_of(rest_of_block(proc, alloc), ctx_.windows()))
      if (!a.location.is_config() && a.location.buffer == buffer)
        accesses_.push_back(std::move(a));
  }

  void require_foldable() {
    for (size_t w1 = 0; w1 < accesses_.size(); w1++)
      for (size_t w2 = 0; w2 < accesses_.size(); w2++)
        for (size_t r = 0; r < accesses_.size(); r++)
          if (accesses_[w1].modifies() && accesses_[w2].modifies() &&
              accesses_[r].kind != AccessKind::Write)
            require_kept(w1, w2, r);
  }

 private:
  QueryContext ctx_;
  int dim_;
  int64_t size_;
  std::vector<Access> accesses_;

  // Equal indices in every dimension but the folded one (and in that one
  // too with `all`).
  z3::expr same(const Instance& a, const Instance& b, bool all) {
    z3::expr out = ctx_.encoder().bool_value(true);
    for (size_t d = 0; d < a.idx.size() && d < b.idx.size(); d++)
      if (all || static_cast<int>(d) != dim_) out = out && a.idx[d] == b.idx[d];
    return out;
  }
  // Whether every loop around `inner` is one around `outer` too, so that an
  // instance of `outer` fixes one of `inner`.
  static bool encloses(const Access& outer, const Access& inner) {
    if (inner.loops.size() > outer.loops.size()) return false;
    for (size_t k = 0; k < inner.loops.size(); k++)
      if (inner.loops[k].id != outer.loops[k].id) return false;
    return true;
  }
  // `a` and `b` are `size` or more apart in the folded dimension.
  z3::expr apart(const Instance& a, const Instance& b) {
    const size_t d = static_cast<size_t>(dim_);
    const z3::expr n = ctx_.encoder().int_value(size_);
    return a.idx[d] - b.idx[d] >= n || b.idx[d] - a.idx[d] >= n;
  }

  void require_kept(size_t w1, size_t w2, size_t r) {
    SmtEncoder& enc = ctx_.encoder();
    std::vector<NamedTerm> shown = ctx_.shown_terms();
    const Access& first = accesses_[w1];
    const Access& between = accesses_[w2];
    const Access& read = accesses_[r];
    const Instance a = instantiate(enc, first, "", shown);
    const Instance b = instantiate(enc, between, "'", shown);
    const Instance c = instantiate(enc, read, "''", shown);
    z3::expr lost = a.when && b.when && c.when &&
                    runs_before(enc, first, a, w1, between, b, w2) &&
                    runs_before(enc, between, b, w2, read, c, r) &&
                    same(a, b, false) && same(a, c, true) && apart(a, b);
    for (size_t w3 = 0; w3 < r; w3++) {
      const Access& rewrite = accesses_[w3];
      if (rewrite.kind != AccessKind::Write || !encloses(read, rewrite))
        continue;
      std::vector<NamedTerm> unused;
      const std::vector<z3::expr> same_iteration(
          c.iters.begin(),
          c.iters.begin() + static_cast<long>(rewrite.loops.size()));
      const Instance d =
          instantiate(enc, rewrite, "_w3", unused, same_iteration);
      lost = lost && !(d.when && same(d, c, true) &&
                       runs_before(enc, between, b, w2, rewrite, d, w3));
    }
    const QueryResult q = enc.satisfiable(lost);
    if (q.no()) return;
    refuse(fmt::format("Buffer folding failed because {} at {} reads the "
                       "value {} at {} wrote, but {} at {}, which runs "
                       "between them, writes {} or more away from it.",
                       read.text, read.srcinfo.str(), first.text,
                       first.srcinfo.str(), between.text, between.srcinfo.str(),
                       size_),
           report(q, shown, read.srcinfo));
  }

  SchedulingReport report(const QueryResult& q,
                          const std::vector<NamedTerm>& shown,
                          const SrcInfo& at) {
    return {.srcinfo = at,
            .condition =
                "no value a read needs is overwritten in a window "
                "of " +
                std::to_string(size_),
            .counterexample =
                q.timed_out() ? "" : ctx_.encoder().counterexample(q, shown),
            .hint = q.timed_out() ? fmt::format("the solver gave up ({})",
                                                q.reason_unknown)
                                  : ""};
  }
};

}  // namespace

cursors::EditResult resize_dim(const Proc& proc, const cursors::Location& alloc,
                               int dim, const Expr& size_untyped,
                               const Expr& offset_untyped, bool fold) {
  const Stmt alloc_stmt = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const auto& a = alloc_stmt->as<Alloc>();
  const std::vector<Expr>& shape = a.type.shape();
  if (dim < 0 || dim >= static_cast<int>(shape.size()))
    throw ArgumentError(
        fmt::format("Cannot resize out-of-bounds dimension index {}", dim));
  const std::string x = a.name.name();
  const Expr size = control_expr_before(proc, alloc, size_untyped);
  const SrcInfo& srcinfo = size->srcinfo;

  std::optional<int64_t> fold_size;
  if (fold) {
    fold_size = int_literal(size);
    if (!fold_size || *fold_size <= 0)
      throw ArgumentError(
          "resize_dim: fold needs a positive integer literal size");
  } else {
    QueryContext ctx(proc, alloc.path);
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
  if (offset) require_same_at_every_access(proc, alloc, offset, "offset");
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
  rewrite.stride = [](int d, const AccessSite&) { return d; };
  rewrite.whole_buffer = [&](const AccessSite& site) {
    refuse(fmt::format(
               "Cannot resize {} because buffer is passed as an argument", x),
           {.srcinfo = site.srcinfo});
  };

  std::vector<Expr> new_shape = shape;
  new_shape[static_cast<size_t>(dim)] = size;
  rewrite.new_shape = new_shape;
  rewrite.action = "resize";

  EditSequence edits(proc);
  edits.apply(rewrite_buffer_accesses(proc, alloc, rewrite));
  if (fold) FoldCheck(proc, alloc, a.name, dim, *fold_size).require_foldable();
  edits.apply(cursors::replace_stmt_attributes(
      edits.proc(), alloc, with_shape(alloc_stmt, new_shape)));
  require_in_bounds(edits.proc(), alloc, new_shape);
  return edits.result();
}

}  // namespace exo2::primitives
