#include "exo2/primitives/fission.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

using cursors::Location;
using cursors::Path;
using cursors::Slot;

namespace {

// A split point: the statement list (owner statement and slot) and the
// index of the first statement after the split.
struct Split {
  Path owner;
  Slot slot;
  int at;
};

// Refuses when the first part declares a buffer or window the second part
// uses.
void check_allocations(const Block& first, const Block& second) {
  for (const Stmt& s : first)
    if (const Sym* name = declared_name(s); name && mentions(second, *name))
      refuse(fmt::format("Will not fission here, because doing so will hide "
                         "the allocation of {} from a later use site.",
                         name->name()),
             {.srcinfo = s->srcinfo});
}

// Splits the loop at `owner`: a second loop (same iterator) after it gets
// the statements from `at` on, moved so that their cursors follow.
void split_loop(EditSequence& edits, const Path& owner, int at,
                bool unsafe_disable_checks) {
  const Proc& proc = edits.proc();
  const Stmt loop_stmt = cursors::resolve_stmt(proc, owner);
  const For& loop = loop_stmt->as<For>();
  const Block first(loop.body.begin(), loop.body.begin() + at);
  const Block second(loop.body.begin() + at, loop.body.end());
  check_allocations(first, second);
  if (!unsafe_disable_checks) {
    QueryContext ctx(proc, owner);
    require_proven(
        prove_fission_safe(ctx, loop_stmt, at),
        fmt::format("Cannot fission loop over {} at {}.", loop.iter.name(),
                    loop.srcinfo.str()),
        {.srcinfo = loop.srcinfo,
         .condition = fmt::format("FissionSafe({})", loop.iter.name()),
         .hint = "the second part of an earlier iteration must not touch "
                 "what the first part of a later one does; stage_mem, or "
                 "expand_dim + lift_alloc on a scalar temporary, can remove "
                 "the conflict"});
  }
  edits.apply(cursors::insert(
      proc, Location::gap(owner, cursors::GapSide::After),
      {make_for(loop.iter, loop.lo, loop.hi, {make_pass(loop.srcinfo)},
                loop.mode, loop.srcinfo)}));
  Path second_loop = owner;
  second_loop.back().index += 1;
  Path pass = second_loop;
  pass.push_back({Slot::Body, 0});
  Path moved = owner;
  moved.push_back({Slot::Body, at});
  // A block is [first, hi): `hi` is the end of the loop body.
  edits.apply(cursors::move(
      edits.proc(), Location::block(moved, static_cast<int>(loop.body.size())),
      Location::gap(pass, cursors::GapSide::Before)));
  pass.back().index = static_cast<int>(second.size());
  edits.apply(cursors::remove(edits.proc(), Location::node(pass)));
}

// Splits the if at `owner` in the branch `slot`; the split statements move,
// so their cursors follow. Split in the then-branch, the statements before
// the split move into a new `if c:` inserted before, and the original if
// (keeping its else branch) is the second one; split in the else-branch,
// the statements after the split move into a new `if c: pass else: ...`
// inserted after.
void split_if(EditSequence& edits, const Path& owner, Slot slot, int at,
              bool unsafe_disable_checks) {
  const Stmt if_stmt = cursors::resolve_stmt(edits.proc(), owner);
  const If& s = if_stmt->as<If>();
  const Block& branch = slot == Slot::Body ? s.body : s.orelse;
  check_allocations(Block(branch.begin(), branch.begin() + at),
                    Block(branch.begin() + at, branch.end()));
  if (!unsafe_disable_checks)
    require_condition_kept(s, slot, Block(branch.begin(), branch.begin() + at));
  const Stmt pass = make_pass(s.srcinfo);
  Path new_if = owner;
  Path moved = owner;
  int moved_end = at;
  if (slot == Slot::Body) {
    edits.apply(cursors::insert(edits.proc(),
                                Location::gap(owner, cursors::GapSide::Before),
                                {make_if(s.cond, {pass}, {}, s.srcinfo)}));
    moved.back().index += 1;
    moved.push_back({Slot::Body, 0});
  } else {
    edits.apply(cursors::insert(edits.proc(),
                                Location::gap(owner, cursors::GapSide::After),
                                {make_if(s.cond, {pass}, {pass}, s.srcinfo)}));
    new_if.back().index += 1;
    moved.push_back({Slot::Orelse, at});
    moved_end = static_cast<int>(branch.size());
  }
  // The placeholder `pass` of the branch receiving the statements.
  Path placeholder = new_if;
  placeholder.push_back({slot, 0});
  edits.apply(
      cursors::move(edits.proc(), Location::block(moved, moved_end),
                    Location::gap(placeholder, cursors::GapSide::Before)));
  placeholder.back().index = moved_end - moved.back().index;
  edits.apply(cursors::remove(edits.proc(), Location::node(placeholder)));
}

}  // namespace

void require_condition_kept(const If& s, Slot slot, const Block& before) {
  Block first_part = before;
  if (slot == Slot::Orelse)
    first_part.insert(first_part.begin(), s.body.begin(), s.body.end());
  const SafetyResult unchanged = prove_config_reads_unchanged(
      {s.cond}, first_part,
      fmt::format("the condition at {} reads", s.srcinfo.str()));
  require_proven(unchanged,
                 fmt::format("Cannot fission the if statement: {}, and the "
                             "second if would evaluate it again.",
                             unchanged.detail),
                 {.srcinfo = s.srcinfo, .condition = "ReadsUnchanged"});
}

cursors::EditResult fission(const Proc& proc, const Location& gap, int n_lifts,
                            bool unsafe_disable_checks) {
  const int at = interior_gap_index(proc, gap);

  Split split{Path(gap.path.begin(), gap.path.end() - 1), gap.path.back().slot,
              at};
  EditSequence edits(proc);
  for (int level = 0; level < n_lifts; level++) {
    if (split.owner.empty())
      refuse("Can only lift past a for loop or an if statement");
    const Stmt owner = cursors::resolve_stmt(edits.proc(), split.owner);
    if (owner->kind != StmtKind::For && owner->kind != StmtKind::If)
      refuse("Can only lift past a for loop or an if statement",
             {.srcinfo = owner->srcinfo});
    const int size = static_cast<int>(
        cursors::statement_list(edits.proc(), owner, split.slot).size());
    const int owner_index = split.owner.back().index;
    int next_at = owner_index + 1;
    if (split.at == 0) {
      next_at = owner_index;
    } else if (split.at < size) {
      if (owner->kind == StmtKind::For)
        split_loop(edits, split.owner, split.at, unsafe_disable_checks);
      else
        split_if(edits, split.owner, split.slot, split.at,
                 unsafe_disable_checks);
    }
    const Slot slot = split.owner.back().slot;
    split.owner.pop_back();
    split.slot = slot;
    split.at = next_at;
  }
  return edits.result();
}

}  // namespace exo2::primitives
