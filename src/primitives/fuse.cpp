#include "exo2/primitives/fuse.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/replace_reads.hpp"

namespace exo2::primitives {

using cursors::Location;
using cursors::Path;
using cursors::Slot;

namespace {

void require_equivalent(QueryContext& ctx, const Expr& a, const Expr& b,
                        const SrcInfo& where) {
  require_proven(prove_equivalent(ctx, a, b),
                 fmt::format("Expressions are not equivalent:\n{}\nvs.\n{}",
                             print_expr(a), print_expr(b)),
                 {.srcinfo = where,
                  .condition = "ExprEqv",
                  .formula = print_expr(a) + " == " + print_expr(b)});
}

bool adjacent(const Location& first, const Location& second) {
  Path expected = first.path;
  expected.back().index += 1;
  return second.path == expected;
}

// Moves the statements of `from`'s list `slot` to the end of `into`'s, and
// deletes `from` (left holding a `pass`).
void append_body_and_remove(EditSequence& edits, const Path& into,
                            const Path& from, Slot slot, int into_size,
                            int from_size) {
  Path first_moved = from;
  first_moved.push_back({slot, 0});
  Path last_kept = into;
  last_kept.push_back({slot, into_size - 1});
  edits.apply(cursors::move(edits.proc(),
                            Location::block(first_moved, from_size),
                            Location::gap(last_kept, cursors::GapSide::After)));
  edits.apply(cursors::remove(edits.proc(), Location::node(from)));
}

}  // namespace

cursors::EditResult fuse(const Proc& proc, const Location& first_loc,
                         const Location& second_loc,
                         bool unsafe_disable_check) {
  const Stmt first = cursors::resolve_stmt(proc, first_loc.path);
  const Stmt second = cursors::resolve_stmt(proc, second_loc.path);
  const bool loops =
      first->kind == StmtKind::For && second->kind == StmtKind::For;
  const bool ifs = first->kind == StmtKind::If && second->kind == StmtKind::If;
  if (!loops && !ifs)
    throw ArgumentError(
        "expected the two argument cursors to either both point to loops or "
        "both point to if-guards");
  if (!adjacent(first_loc, second_loc)) {
    if (ifs)
      refuse(
          "expected the two if statements to be fused to come one right "
          "after the other",
          {.srcinfo = second->srcinfo});
    const Block& list = cursors::enclosing_list(proc, first_loc.path);
    const size_t next = first_loc.path.back().index + 1;
    refuse(fmt::format(
               "expected the two loops to be fused to come one right after "
               "the other. However, the statement after the first loop "
               "is:\n{}\n, not the provided second loop:\n {}",
               next < list.size() ? print_stmt(list[next]) : "None",
               print_stmt(second)),
           {.srcinfo = second->srcinfo});
  }

  QueryContext ctx(proc, to_stmt_path(first_loc.path));
  EditSequence edits(proc);
  if (loops) {
    const For& a = first->as<For>();
    const For& b = second->as<For>();
    require_equivalent(ctx, a.lo, b.lo, b.srcinfo);
    require_equivalent(ctx, a.hi, b.hi, b.srcinfo);
    if (!unsafe_disable_check)
      require_proven(
          prove_fusion_safe(ctx, first, second),
          fmt::format("Cannot fission loop over {} at {}.", a.iter.name(),
                      a.srcinfo.str()),
          {.srcinfo = a.srcinfo,
           .condition = fmt::format("FissionSafe({})", a.iter.name()),
           .hint = "the second loop's body at an earlier iteration must not "
                   "touch what the first loop's body does at a later one"});
    edits.apply(
        replace_reads(proc, second_loc.path, b.iter, [&](const Expr& read) {
          return iterator_read(a.iter, read->srcinfo);
        }));
    append_body_and_remove(edits, first_loc.path, second_loc.path, Slot::Body,
                           static_cast<int>(a.body.size()),
                           static_cast<int>(b.body.size()));
    return edits.result();
  }

  const If& a = first->as<If>();
  const If& b = second->as<If>();
  // The fused if evaluates one condition, before the first if's code.
  const SafetyResult unchanged = prove_config_reads_unchanged(
      {b.cond}, {first},
      fmt::format("the condition at {} reads", b.srcinfo.str()));
  require_proven(unchanged,
                 fmt::format("Cannot fuse the if statements: {}, before it "
                             "is evaluated.",
                             unchanged.detail),
                 {.srcinfo = b.srcinfo, .condition = "ReadsUnchanged"});
  require_equivalent(ctx, a.cond, b.cond, b.srcinfo);
  if (a.orelse.empty() && b.orelse.empty()) {
    append_body_and_remove(edits, first_loc.path, second_loc.path, Slot::Body,
                           static_cast<int>(a.body.size()),
                           static_cast<int>(b.body.size()));
    return edits.result();
  }
  Block body = a.body, orelse = a.orelse;
  body.insert(body.end(), b.body.begin(), b.body.end());
  orelse.insert(orelse.end(), b.orelse.begin(), b.orelse.end());
  return cursors::replace(
      proc, Location::block(first_loc.path, first_loc.path.back().index + 2),
      {make_if(a.cond, std::move(body), std::move(orelse), a.srcinfo)});
}

}  // namespace exo2::primitives
