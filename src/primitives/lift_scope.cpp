#include "exo2/primitives/lift_scope.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "exo2/analysis/effects.hpp"
#include "exo2/analysis/queries.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/reorder_loops.hpp"
#include "exo2/primitives/replace_reads.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

using cursors::GapSide;
using cursors::Location;
using cursors::Path;
using cursors::Slot;

namespace {

Path child(Path path, Slot slot, int index) {
  path.push_back({slot, index});
  return path;
}

// The lifted if is rebuilt at its parent's position: the if and its
// condition go there; everything else follows the edits.
class LiftedIfForwarding : public cursors::ForwardingStep {
 public:
  LiftedIfForwarding(Path inner, Path target, cursors::Forwarding edits)
      : inner_(std::move(inner)),
        target_(std::move(target)),
        edits_(std::move(edits)) {}
  Location forward(const Location& loc) const override {
    const size_t depth = inner_.size();
    if (loc.kind == cursors::LocationKind::Node &&
        cursors::starts_with(loc.path, inner_) &&
        (loc.path.size() == depth ||
         !cursors::is_statement_slot(loc.path[depth].slot))) {
      Location out = loc;
      out.path = target_;
      out.path.insert(out.path.end(), loc.path.begin() + depth, loc.path.end());
      return out;
    }
    return edits_(loc);
  }

 private:
  Path inner_, target_;
  cursors::Forwarding edits_;
};

// Refuses when `code` writes a configuration field that `cond` reads: the
// rewrite changes how often and when the condition is evaluated.
void check_condition_unchanged(const Expr& cond, const Block& code,
                               const SrcInfo& src) {
  const SafetyResult r = prove_config_reads_unchanged(
      {cond}, code, fmt::format("the condition at {} reads", src.str()));
  if (!r.proven())
    refuse(fmt::format("Cannot lift scope: the condition at {} reads {}, "
                       "which the code inside writes.",
                       src.str(), r.second->location),
           {.srcinfo = r.first->srcinfo, .condition = "ReadsUnchanged"});
}

// Moves the block `from` (a location of the original procedure) in place of
// the `pass` at `placeholder` (a path of the current procedure).
void move_into(EditSequence& edits, const Location& from,
               const Path& placeholder) {
  const Location source = edits.forward(from);
  edits.apply(cursors::move(edits.proc(), source,
                            Location::gap(placeholder, GapSide::Before)));
  Path pass = placeholder;
  pass.back().index += source.hi - source.lo();
  edits.apply(cursors::remove(edits.proc(), Location::node(pass)));
}

// if in if: the inner if `I` is rebuilt before the outer one `O`, with a
// copy of `O` in each branch, then `O` is removed.
cursors::EditResult lift_if_out_of_if(const Proc& proc, const Path& outer_path,
                                      const Path& inner_path) {
  const Stmt outer_stmt = cursors::resolve_stmt(proc, outer_path);
  const If& outer = outer_stmt->as<If>();
  const If& inner = cursors::resolve_stmt(proc, inner_path)->as<If>();
  const Slot slot = inner_path.back().slot;
  const Slot other = slot == Slot::Body ? Slot::Orelse : Slot::Body;
  const Block& x = slot == Slot::Body ? outer.orelse : outer.body;
  const SrcInfo& src = outer.srcinfo;
  auto pass = [&] { return Block{make_pass(src)}; };
  const int n_then = static_cast<int>(inner.body.size());
  const int n_else = static_cast<int>(inner.orelse.size());
  const int n_other = static_cast<int>(x.size());

  // Placeholders (`pass`) mark where original code moves; the second copy
  // of the parent's other branch is fresh.
  Stmt first, second;
  if (slot == Slot::Body) {
    first = make_if(outer.cond, pass(), x.empty() ? Block{} : pass(), src);
    if (!inner.orelse.empty() || !x.empty())
      second = make_if(outer.cond, pass(), fresh_copy(x), src);
  } else {
    first = make_if(outer.cond, pass(), pass(), src);
    second = make_if(outer.cond, fresh_copy(x),
                     inner.orelse.empty() ? Block{} : pass(), src);
  }
  const Stmt lifted = make_if(inner.cond, {first},
                              second ? Block{second} : Block{}, inner.srcinfo);

  EditSequence edits(proc);
  edits.apply(cursors::insert(proc, Location::gap(outer_path, GapSide::Before),
                              {lifted}));
  const Path first_path = child(outer_path, Slot::Body, 0);
  const Path second_path = child(outer_path, Slot::Orelse, 0);
  const Location t = Location::block(child(inner_path, Slot::Body, 0), n_then);
  const Location x_loc = Location::block(child(outer_path, other, 0), n_other);
  if (slot == Slot::Body) {
    move_into(edits, t, child(first_path, Slot::Body, 0));
    if (n_other > 0)
      move_into(edits, x_loc, child(first_path, Slot::Orelse, 0));
    if (n_else > 0)
      move_into(edits,
                Location::block(child(inner_path, Slot::Orelse, 0), n_else),
                child(second_path, Slot::Body, 0));
  } else {
    move_into(edits, x_loc, child(first_path, Slot::Body, 0));
    move_into(edits, t, child(first_path, Slot::Orelse, 0));
    if (n_else > 0)
      move_into(edits,
                Location::block(child(inner_path, Slot::Orelse, 0), n_else),
                child(second_path, Slot::Orelse, 0));
  }
  edits.apply(
      cursors::remove(edits.proc(), edits.forward(Location::node(outer_path))));
  return {edits.proc(),
          cursors::Forwarding(std::make_shared<LiftedIfForwarding>(
              inner_path, outer_path, edits.result().forwarding))};
}

// loop in if: `if O: for i: A` → `for i: if O: A`, by moves only.
cursors::EditResult lift_loop_out_of_if(const Proc& proc,
                                        const Path& outer_path,
                                        const Path& inner_path) {
  const If& outer = cursors::resolve_stmt(proc, outer_path)->as<If>();
  const For& inner = cursors::resolve_stmt(proc, inner_path)->as<For>();
  if (!outer.orelse.empty())
    refuse("cannot lift for loop when if has an orelse clause",
           {.srcinfo = outer.srcinfo});
  check_condition_unchanged(outer.cond, inner.body, outer.srcinfo);

  const Location outer_loc = Location::node(outer_path);
  const Location inner_loc = Location::node(inner_path);
  EditSequence edits(proc);
  edits.apply(
      cursors::move(proc,
                    Location::block(child(inner_path, Slot::Body, 0),
                                    static_cast<int>(inner.body.size())),
                    Location::gap(inner_path, GapSide::After)));
  edits.apply(cursors::move(
      edits.proc(), edits.forward(inner_loc),
      Location::gap(edits.forward(outer_loc).path, GapSide::After)));
  const Path pass = child(edits.forward(inner_loc).path, Slot::Body, 0);
  edits.apply(cursors::move(edits.proc(), edits.forward(outer_loc),
                            Location::gap(pass, GapSide::After)));
  edits.apply(cursors::remove(
      edits.proc(),
      Location::node(child(edits.forward(inner_loc).path, Slot::Body, 0))));
  return edits.result();
}

// if in loop: each branch of the if gets a copy of the loop, then the if
// replaces the loop.
cursors::EditResult lift_if_out_of_loop(const Proc& proc,
                                        const Path& outer_path,
                                        const Path& inner_path) {
  const For& outer = cursors::resolve_stmt(proc, outer_path)->as<For>();
  const If& inner = cursors::resolve_stmt(proc, inner_path)->as<If>();
  if (mentions(inner.cond, outer.iter))
    refuse("if statement depends on iteration variable",
           {.srcinfo = inner.srcinfo});
  Block code = inner.body;
  code.insert(code.end(), inner.orelse.begin(), inner.orelse.end());
  check_condition_unchanged(inner.cond, code, inner.srcinfo);

  auto wrap_in_loop = [&](EditSequence& edits, Slot slot, int size,
                          const Sym& iter) {
    edits.apply(cursors::wrap(
        edits.proc(), Location::block(child(inner_path, slot, 0), size),
        [&](Block b) {
          return make_for(iter, outer.lo, outer.hi, std::move(b), outer.mode,
                          outer.srcinfo);
        }));
  };
  EditSequence edits(proc);
  wrap_in_loop(edits, Slot::Body, static_cast<int>(inner.body.size()),
               outer.iter);
  if (!inner.orelse.empty()) {
    const Sym iter(outer.iter.name());
    wrap_in_loop(edits, Slot::Orelse, static_cast<int>(inner.orelse.size()),
                 iter);
    edits.apply(replace_reads(
        edits.proc(), child(inner_path, Slot::Orelse, 0), outer.iter,
        [&](const Expr& read) { return iterator_read(iter, read->srcinfo); }));
  }
  edits.apply(cursors::move(edits.proc(), Location::node(inner_path),
                            Location::gap(outer_path, GapSide::Before)));
  edits.apply(
      cursors::remove(edits.proc(), edits.forward(Location::node(outer_path))));
  return edits.result();
}

}  // namespace

cursors::EditResult lift_scope(const Proc& proc, const Location& scope) {
  if (scope.kind != cursors::LocationKind::Node)
    throw ArgumentError("expected a statement");
  const Stmt inner = cursors::resolve_stmt(proc, scope.path);
  if (inner->kind != StmtKind::If && inner->kind != StmtKind::For)
    throw ArgumentError("expected an if statement or a loop");
  const char* target =
      inner->kind == StmtKind::If ? "if statement" : "for loop";
  if (scope.path.size() < 2)
    refuse("Cannot lift scope of top-level statement",
           {.srcinfo = inner->srcinfo});
  const Path outer_path(scope.path.begin(), scope.path.end() - 1);
  const Stmt outer = cursors::resolve_stmt(proc, outer_path);
  if (outer->kind != StmtKind::If && outer->kind != StmtKind::For)
    refuse("Can only lift past a for loop or an if statement",
           {.srcinfo = outer->srcinfo});
  if (cursors::statement_list(proc, outer, scope.path.back().slot).size() > 1)
    refuse(fmt::format("expected {} to be directly nested in parent", target),
           {.srcinfo = inner->srcinfo});

  if (outer->kind == StmtKind::If)
    return inner->kind == StmtKind::If
               ? lift_if_out_of_if(proc, outer_path, scope.path)
               : lift_loop_out_of_if(proc, outer_path, scope.path);
  if (inner->kind == StmtKind::If)
    return lift_if_out_of_loop(proc, outer_path, scope.path);
  return reorder_loops(proc, Location::node(outer_path));
}

}  // namespace exo2::primitives
