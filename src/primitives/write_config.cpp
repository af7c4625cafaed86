#include "exo2/primitives/write_config.hpp"

#include <fmt/format.h>

#include "exo2/analysis/config_liveness.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

bool is_index_like(const Type& t) {
  return t.kind() == TypeKind::Int || t.kind() == TypeKind::Index ||
         t.kind() == TypeKind::Size;
}

// Whether a value of type `value` may be stored in a field of type `field`.
bool field_accepts(const Type& field, const Type& value) {
  if (field.is_real_scalar())
    return value.is_real_scalar() || value.kind() == TypeKind::Int;
  if (field.is_bool()) return value.is_bool();
  if (field.is_stride()) return value.is_stride() || is_index_like(value);
  return is_index_like(value);
}

}  // namespace

std::vector<Location> require_config_invisible(const Proc& proc,
                                               const cursors::Path& first,
                                               size_t count) {
  const Stmt s = cursors::resolve_stmt(proc, first);
  ConfigInvisibility r =
      check_config_invisible(proc, to_stmt_path(first), count);
  if (r.data_write)
    refuse(fmt::format("Cannot delete or insert statements at {} because they "
                       "may modify non-configuration data",
                       s->srcinfo.str()),
           {.srcinfo = r.data_write->srcinfo,
            .condition = "ConfigInvisible",
            .hint = r.data_write->text + " is written here"});
  if (r.read_field)
    refuse(fmt::format("Cannot change configuration value of {} at {}; the "
                       "new (and different) values might be read later in "
                       "this procedure",
                       config_field_name(*r.read_field), s->srcinfo.str()),
           {.srcinfo = r.read_at,
            .condition = "ConfigInvisible",
            .hint = "the field is read here, after the change"});
  return r.visible_fields;
}

ConfigEditResult write_config(const Proc& proc, const cursors::Location& gap,
                              const ConfigPtr& config, const std::string& field,
                              const Expr& rhs) {
  Expr e = typecheck_in_scope(proc, gap.path, rhs, ExprCategory::Any);
  if (e->kind != ExprKind::Read && e->kind != ExprKind::StrideExpr &&
      e->kind != ExprKind::Const)
    throw ConfigTypeError(
        "expected the rhs to be read, stride expression, or constant");
  if (e->kind == ExprKind::Read &&
      !(e->type.is_real_scalar() && e->as<Read>().idx.empty()) &&
      !e->type.is_bool())
    throw ConfigTypeError(fmt::format(
        "cannot write non-real-scalar non-boolean value {} to configuration "
        "states, since index and size expressions may depend on loop "
        "iteration",
        print_expr(e)));
  const Type& field_type = config->lookup_type(field);
  if (!field_accepts(field_type, e->type))
    throw ConfigTypeError(
        fmt::format("expected type of expression to write ({}) to match type "
                    "of Config variable ({})",
                    e->type.str(), field_type.str()));

  const SrcInfo& src = cursors::resolve_stmt(proc, gap.path)->srcinfo;
  cursors::EditResult edit =
      cursors::insert(proc, gap, {make_write_config(config, field, e, src)});
  cursors::Path written = gap.path;
  if (gap.side == cursors::GapSide::After) written.back().index += 1;
  std::vector<Location> visible =
      require_config_invisible(edit.proc, written, 1);
  return {std::move(edit), std::move(visible)};
}

}  // namespace exo2::primitives
