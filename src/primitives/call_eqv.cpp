#include "exo2/primitives/call_eqv.hpp"

#include <fmt/format.h>

#include "exo2/analysis/aliasing.hpp"
#include "exo2/analysis/config_liveness.hpp"
#include "exo2/primitives/call_checks.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

CallSwapResult call_eqv(const Proc& proc, const cursors::Location& call,
                        const Proc& eqv_proc, bool equivalent,
                        const std::vector<Location>& modulo) {
  Stmt s = stmt_of_kind(proc, call, StmtKind::Call);
  const Call& c = s->as<Call>();
  if (!equivalent || eqv_proc->args.size() != c.f->args.size())
    refuse(fmt::format("{}: Cannot swap call because the two procedures are "
                       "not equivalent",
                       s->srcinfo.str()),
           {.srcinfo = s->srcinfo,
            .hint = "derive the new procedure from the callee with "
                    "scheduling primitives, or record the equivalence with "
                    "unsafe_assert_eq"});

  cursors::EditResult edit = cursors::replace_stmt_attributes(
      proc, call, make_call(eqv_proc, c.args, s->srcinfo, c.barriers));
  // An equivalent procedure may assert more than the callee did
  // (add_assertion).
  require_call_safe(edit.proc, call.path, &proc);

  // Either callee may run again in a later iteration, reading a field the
  // other left different: check the field's liveness in both procedures.
  const StmtPath at = to_stmt_path(call.path);
  std::vector<Location> visible;
  for (const Location& field : modulo) {
    FieldAfter before = config_field_after(proc, at, 1, field);
    FieldAfter after = config_field_after(edit.proc, at, 1, field);
    const FieldAfter& read =
        before.fate == FieldAfter::Fate::Read ? before : after;
    if (read.fate == FieldAfter::Fate::Read)
      refuse(fmt::format("Cannot rewrite at {} because the configuration "
                         "field {} might be read subsequently",
                         s->srcinfo.str(), config_field_name(field)),
             {.srcinfo = read.read_at,
              .condition = "ConfigInvisible",
              .hint = "the field is read here after the call"});
    if (before.fate == FieldAfter::Fate::VisibleAtEnd) visible.push_back(field);
  }

  if (auto aliased = find_aliased_call(edit.proc))
    refuse(aliased->message(),
           {.srcinfo = aliased->srcinfo, .condition = "NoAlias"});
  return {std::move(edit), std::move(visible)};
}

}  // namespace exo2::primitives
