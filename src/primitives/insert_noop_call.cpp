#include "exo2/primitives/insert_noop_call.hpp"

#include <fmt/format.h>

#include <string>

#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/call_checks.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {
namespace {

bool is_index_like(const Type& t) {
  return t.kind() == TypeKind::Int || t.kind() == TypeKind::Index ||
         t.kind() == TypeKind::Size;
}

// Why `arg` cannot be passed for `param` (Exo's check_call_types), or "".
std::string argument_mismatch(const FnArg& param, const Expr& arg) {
  const Type& sig = param.type;
  const Type& t = arg->type;
  if (sig.kind() == TypeKind::Size || sig.kind() == TypeKind::Index) {
    if (!is_index_like(t))
      return "expected size or index type expression, but got type " + t.str();
  } else if (sig.is_bool()) {
    if (!t.is_bool())
      return "expected bool-type variable, but got type " + t.str();
  } else if (sig.is_stride()) {
    if (t.kind() != TypeKind::Int && t.kind() != TypeKind::Stride)
      return "expected stride-type variable, but got type " + t.str();
  } else if (sig.is_numeric()) {
    if (!t.is_numeric())
      return "expected numeric type expression, but got type " + t.str();
    if (t.shape().size() != sig.shape().size())
      return fmt::format("expected argument of type '{}', but got type '{}'",
                         sig.str(), t.str());
    if (t.is_real_scalar() && arg->kind != ExprKind::ReadConfig &&
        !(arg->kind == ExprKind::Read && arg->as<Read>().idx.empty()))
      return "expected scalar arguments to be simply variable names for now";
  }
  return "";
}

}  // namespace

cursors::EditResult insert_noop_call(const Proc& proc,
                                     const cursors::Location& gap,
                                     const Proc& instr,
                                     const std::vector<Expr>& args) {
  if (instr->body.size() != 1 || instr->body[0]->kind != StmtKind::Pass)
    refuse("Cannot insert a proc whose body is not pass");
  if (args.size() != instr->args.size())
    throw ArgumentError("Function argument count mismatch");
  const SrcInfo& where = cursors::resolve_stmt(proc, gap.path)->srcinfo;
  std::vector<Expr> typed;
  for (size_t k = 0; k < args.size(); k++) {
    typed.push_back(
        typecheck_in_scope(proc, gap.path, args[k], ExprCategory::Any));
    std::string why = argument_mismatch(instr->args[k], typed.back());
    if (!why.empty())
      refuse("Function argument type mismatch:" + why,
             {.srcinfo = typed.back()->srcinfo});
  }
  cursors::EditResult edit =
      cursors::insert(proc, gap, {make_call(instr, std::move(typed), where)});
  cursors::Path call = gap.path;
  call.back().index = gap.gap_index();
  require_call_safe(edit.proc, call);
  return edit;
}

}  // namespace exo2::primitives
