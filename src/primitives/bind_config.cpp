#include "exo2/primitives/bind_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "exo2/analysis/aliasing.hpp"
#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/written_buffers.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

ConfigEditResult bind_config(const Proc& proc, const cursors::Location& expr,
                             const ConfigPtr& config,
                             const std::string& field) {
  Expr e = cursors::resolve_expr(proc, expr.path);
  if (e->kind != ExprKind::Read)
    throw ConfigTypeError("expected a cursor to a single variable Read");
  if (!(e->type.is_real_scalar() && e->as<Read>().idx.empty()) &&
      !e->type.is_bool())
    throw ConfigTypeError(fmt::format(
        "cannot bind non-real-scalar non-boolean value {} to configuration "
        "states, since index and size expressions may depend on loop "
        "iteration",
        print_expr(e)));
  const Type& field_type = config->lookup_type(field);
  if (e->type.kind() != field_type.kind())
    throw ConfigTypeError(
        fmt::format("expected type of expression to bind ({}) to match type "
                    "of Config variable ({})",
                    e->type.str(), field_type.str()));

  // The enclosing statement: the path up to its last statement step.
  cursors::Path stmt = expr.path;
  while (!cursors::is_statement_slot(stmt.back().slot)) stmt.pop_back();
  const Stmt s = cursors::resolve_stmt(proc, stmt);
  // A call argument may be bound when the callee only reads that parameter
  // (a parameter it writes would write the field instead of the argument's
  // buffer) and writes no value into the field (the parameter would change
  // under it). A read of the field by the callee is refused below, as any
  // later read of the new value.
  if (s->kind == StmtKind::Call) {
    const Call& call = s->as<Call>();
    const cursors::Step& step = expr.path[stmt.size()];
    const std::vector<Sym> written = written_buffers(call.f->body);
    if (step.slot != cursors::Slot::Arg ||
        std::find(written.begin(), written.end(),
                  call.f->args[step.index].name) != written.end())
      refuse(fmt::format("cannot bind a call argument to a configuration "
                         "field: {} writes the parameter it is passed to",
                         call.f->name),
             {.srcinfo = e->srcinfo});
    for (const Location& f : config_fields_written(s))
      if (f.config == config && f.field == field)
        refuse(fmt::format("cannot bind a call argument to a configuration "
                           "field: {} writes {}.{}",
                           call.f->name, config->name(), field),
               {.srcinfo = e->srcinfo});
  }

  EditSequence edits(proc);
  edits.apply(cursors::insert(
      proc, cursors::Location::gap(stmt, cursors::GapSide::Before),
      {make_write_config(config, field, e, e->srcinfo)}));
  // Checked before the read is replaced: that read is meant to see it.
  std::vector<Location> visible =
      require_config_invisible(edits.proc(), stmt, 1);
  edits.apply(cursors::replace_expr(
      edits.proc(), edits.forward(expr),
      make_read_config(config, field, e->srcinfo, field_type)));
  if (auto aliased = find_aliased_call(edits.proc()))
    refuse(aliased->message(),
           {.srcinfo = aliased->srcinfo, .condition = "NoAlias"});
  return {edits.result(), std::move(visible)};
}

}  // namespace exo2::primitives
