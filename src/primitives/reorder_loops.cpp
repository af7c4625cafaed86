#include "exo2/primitives/reorder_loops.hpp"

#include <fmt/format.h>

#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

using cursors::Location;
using cursors::Path;

namespace {

// The two loops trade places: a location at or below the outer loop's
// statement moves to the inner one's and back; the loops' expression
// children go with their loop. Body paths have the same depth, so they
// stay.
class SwapLoopsForwarding : public cursors::ForwardingStep {
 public:
  explicit SwapLoopsForwarding(Path outer) : outer_(std::move(outer)) {
    inner_ = outer_;
    inner_.push_back({cursors::Slot::Body, 0});
  }
  Location forward(const Location& loc) const override {
    Location out = loc;
    if (loc.kind == cursors::LocationKind::Node &&
        cursors::starts_with(loc.path, outer_)) {
      const bool in_body_or_below = cursors::starts_with(loc.path, inner_);
      const size_t depth = in_body_or_below ? inner_.size() : outer_.size();
      const bool is_loop_or_bound =
          loc.path.size() == depth ||
          !cursors::is_statement_slot(loc.path[depth].slot);
      if (is_loop_or_bound) {
        Path rest(loc.path.begin() + depth, loc.path.end());
        out.path = in_body_or_below ? outer_ : inner_;
        out.path.insert(out.path.end(), rest.begin(), rest.end());
      }
    }
    return out;
  }

 private:
  Path outer_, inner_;
};

}  // namespace

cursors::EditResult reorder_loops(const Proc& proc, const Location& outer_loc) {
  const Stmt outer_stmt = stmt_of_kind(proc, outer_loc, StmtKind::For);
  const For& outer = outer_stmt->as<For>();
  if (outer.body.size() != 1 || outer.body[0]->kind != StmtKind::For)
    throw ArgumentError("expected a loop whose body is one loop");
  const For& inner = outer.body[0]->as<For>();
  if (mentions(inner.lo, outer.iter) || mentions(inner.hi, outer.iter))
    refuse("inner loop's lo or hi depends on outer loop's iteration variable",
           {.srcinfo = inner.srcinfo});

  QueryContext ctx(proc, to_stmt_path(outer_loc.path));
  require_proven(
      prove_reorder_safe(ctx, outer_stmt),
      fmt::format("Loops {} and {} at {} cannot be reordered.",
                  outer.iter.name(), inner.iter.name(), outer.srcinfo.str()),
      {.srcinfo = outer.srcinfo,
       .condition = fmt::format("ReorderSafe({}, {})", outer.iter.name(),
                                inner.iter.name()),
       .hint = "the conflicting accesses above must not overlap for "
               "iterations run in the other order; stage_mem, or expand_dim "
               "+ lift_alloc on a scalar temporary, can remove the conflict"});

  Stmt swapped = make_for(inner.iter, inner.lo, inner.hi,
                          {make_for(outer.iter, outer.lo, outer.hi, inner.body,
                                    outer.mode, outer.srcinfo)},
                          inner.mode, inner.srcinfo);
  Proc result = cursors::replace(proc, outer_loc, {swapped}).proc;
  return {result, cursors::Forwarding(
                      std::make_shared<SwapLoopsForwarding>(outer_loc.path))};
}

}  // namespace exo2::primitives
