#include "exo2/primitives/inline_assign.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "exo2/analysis/config_state.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/data_locations.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;
using cursors::Slot;
using cursors::Step;

Path child(Path p, Step step) {
  p.push_back(step);
  return p;
}

// The paths of the reads of exactly the element `write` writes, in `e`.
void collect_reads(const Expr& e, const Path& path, const Stmt& write,
                   std::vector<Path>& out) {
  if (reads_written_element(e, write)) {
    out.push_back(path);
    return;
  }
  cursors::for_each_expr_child(e, [&](Step step, const Expr& sub) {
    collect_reads(sub, child(path, step), write, out);
  });
}

void collect_reads(const Stmt& s, const Path& path, const Stmt& write,
                   std::vector<Path>& out) {
  // A call's data arguments must stay buffers; a read left there makes the
  // DeadAfter check refuse.
  if (s->kind == StmtKind::Call) return;
  cursors::for_each_expr_child(s, [&](Step step, const Expr& e) {
    collect_reads(e, child(path, step), write, out);
  });
  auto list = [&](const Block& b, Slot slot) {
    for (int i = 0; i < static_cast<int>(b.size()); i++)
      collect_reads(b[static_cast<size_t>(i)], child(path, Step{slot, i}),
                    write, out);
  };
  if (s->kind == StmtKind::If) {
    list(s->as<If>().body, Slot::Body);
    list(s->as<If>().orelse, Slot::Orelse);
  } else if (s->kind == StmtKind::For) {
    list(s->as<For>().body, Slot::Body);
  } else if (s->kind == StmtKind::With) {
    list(s->as<With>().body, Slot::Body);
  }
}

// The write of `assign` as an access of its buffer, where it runs.
Access element_written(const Stmt& assign, QueryContext& ctx) {
  for (const Access& a : effects_of(assign, ctx.windows()))
    if (a.kind == AccessKind::Write) return a;
  throw std::logic_error("inline_assign: an assignment writes");
}

bool is_parameter(const Proc& proc, const Sym& buffer) {
  for (const FnArg& a : proc->args)
    if (a.name == buffer) return true;
  return false;
}

}  // namespace

cursors::EditResult inline_assign(const Proc& proc,
                                  const cursors::Location& assign) {
  Stmt s = stmt_of_kind(proc, assign, StmtKind::Assign);
  const Assign& w = s->as<Assign>();
  const Block& list = cursors::enclosing_list(proc, assign.path);
  const int at = assign.path.back().index;
  const Block rest(list.begin() + at + 1, list.end());

  QueryContext ctx(proc, assign.path);
  const Location written = location_written(s, ctx.windows());
  // What `e` reads, and the config fields the indices read: a later
  // `x[idx]` names the assigned element only while those keep their value.
  std::vector<Location> inputs = locations_read(w.rhs, ctx.windows());
  for (const Expr& i : w.idx)
    for (const ConfigRead& r : config_fields_read(i)) inputs.push_back(r.field);
  const std::string stmt_text = print_stmt(s);
  for (const Access& a : effects_of(rest, ctx.windows()))
    if (a.modifies() && a.location.same_as(written))
      refuse(fmt::format("Cannot inline assign {} because the buffer is "
                         "written afterwards.",
                         stmt_text),
             {.srcinfo = a.srcinfo});

  // Each statement of the rest reads `e` where it reads `x[idx]`: no input
  // of `e` may change before. A simple statement evaluates its right-hand
  // side before it writes; in a loop or if, a write may precede a read.
  std::vector<Path> reads;
  bool inputs_changed = false;
  for (int i = at + 1; i < static_cast<int>(list.size()); i++) {
    const Stmt& later = list[static_cast<size_t>(i)];
    Path path = assign.path;
    path.back().index = i;
    const size_t before = reads.size();
    collect_reads(later, path, s, reads);
    const bool reads_here = reads.size() > before;
    const bool compound = later->kind == StmtKind::For ||
                          later->kind == StmtKind::If ||
                          later->kind == StmtKind::With;
    bool changes_inputs = false;
    for (const Access& a : effects_of(later, ctx.windows()))
      changes_inputs =
          changes_inputs || (a.modifies() && contains(inputs, a.location));
    if (reads_here && (inputs_changed || (compound && changes_inputs)))
      refuse(fmt::format("Cannot inline assign {} because a value it reads "
                         "is written afterwards.",
                         stmt_text),
             {.srcinfo = list[static_cast<size_t>(i)]->srcinfo,
              .hint = "an input of the assigned value is written before "
                      "this use of " +
                      w.name.name()});
    inputs_changed = inputs_changed || changes_inputs;
  }

  // Replacing one read moves no other expression, so the paths stay valid.
  EditSequence edits(proc);
  for (const Path& read : reads)
    edits.apply(cursors::replace_expr(edits.proc(),
                                      cursors::Location::node(read), w.rhs));

  // Without the assignment the element keeps its old value: no read left
  // after the replacements may see it (other elements are not touched).
  // Checked with the assignment replaced by `pass` (its own next execution
  // is not a use).
  const std::string dead_message = fmt::format(
      "The variable {} can potentially be used after the statement at {} "
      "executes.",
      w.name.name(), s->srcinfo.str());
  const SchedulingReport dead_report{
      .srcinfo = s->srcinfo, .condition = "ElementDeadAfter(x[idx], s)"};
  if (is_parameter(proc, written.buffer)) refuse(dead_message, dead_report);
  Proc probe =
      cursors::replace(edits.proc(), assign, {make_pass(s->srcinfo)}).proc;
  require_proven(
      prove_element_dead_after(probe, assign.path, element_written(s, ctx)),
      dead_message, dead_report);

  edits.apply(cursors::remove(edits.proc(), assign));
  return edits.result();
}

}  // namespace exo2::primitives
