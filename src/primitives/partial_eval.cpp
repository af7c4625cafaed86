#include "exo2/primitives/partial_eval.hpp"

#include <fmt/format.h>

#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

namespace {

// The literal that replaces the parameter `a`.
Expr literal_for(const FnArg& a, const ConstValue& value) {
  if (!a.type.is_control())
    refuse("cannot partially evaluate numeric (non-index, non-bool) arguments",
           {.srcinfo = a.srcinfo});
  if (std::holds_alternative<double>(value))
    refuse("cannot partially evaluate to a non-int, non-bool value",
           {.srcinfo = a.srcinfo});
  const bool is_bool = std::holds_alternative<bool>(value);
  if (a.type.is_bool())
    return make_const(
        is_bool ? std::get<bool>(value) : std::get<int64_t>(value) != 0,
        a.srcinfo, Type(TypeKind::Bool));
  const int64_t n =
      is_bool ? int64_t{std::get<bool>(value)} : std::get<int64_t>(value);
  if (a.type.kind() == TypeKind::Size && n <= 0)
    refuse(fmt::format("cannot partially evaluate the size parameter {} to "
                       "{}: sizes are positive",
                       a.name.name(), n),
           {.srcinfo = a.srcinfo});
  return make_int(n, a.srcinfo, Type(TypeKind::Int));
}

}  // namespace

Proc partial_eval(const Proc& proc, const std::vector<ParameterValue>& values) {
  Substitution subst;
  for (const ParameterValue& v : values) {
    if (v.param < 0 || v.param >= static_cast<int>(proc->args.size()))
      throw ArgumentError("partial_eval: no such parameter");
    const FnArg& a = proc->args[static_cast<size_t>(v.param)];
    subst[a.name] = literal_for(a, v.value);
  }
  std::vector<FnArg> args;
  for (const FnArg& a : proc->args) {
    if (subst.count(a.name)) continue;
    FnArg kept = a;
    if (a.type.is_tensor()) {
      std::vector<Expr> shape;
      for (const Expr& e : a.type.shape())
        shape.push_back(substitute(e, subst));
      kept.type = Type::tensor(a.type.basetype(), std::move(shape),
                               a.type.is_window(), a.type.dim_annotations());
    }
    args.push_back(std::move(kept));
  }
  std::vector<Expr> preds;
  for (const Expr& e : proc->preds) preds.push_back(substitute(e, subst));
  return make_proc(proc->name, std::move(args), std::move(preds),
                   substitute(proc->body, subst), proc->instr, proc->srcinfo);
}

}  // namespace exo2::primitives
