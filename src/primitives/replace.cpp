#include "exo2/primitives/replace.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "exo2/analysis/aliasing.hpp"
#include "exo2/analysis/call_site.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/core_ir/symbol_table.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/strides.hpp"
#include "exo2/primitives/substitute.hpp"
#include "exo2/primitives/unification.hpp"

namespace exo2::primitives {
namespace {

const Type* type_in_scope(const std::vector<SymbolInfo>& scope, const Sym& s) {
  for (const SymbolInfo& info : scope)
    if (info.sym == s) return &info.type;
  return nullptr;
}

}  // namespace

cursors::EditResult replace(const Proc& proc, const cursors::Location& block,
                            const Proc& subproc) {
  const Block& list = cursors::enclosing_list(proc, block.path);
  const int lo = block.lo();
  const int n = static_cast<int>(subproc->body.size());
  if (block.hi - lo < n) refuse("Not enough statements to match");
  const Block stmts(list.begin() + lo, list.begin() + lo + n);
  const std::vector<SymbolInfo> scope = variables_in_scope(proc, block.path);
  UnificationResult unified = unify(subproc, stmts, scope);

  // Later statements may not use what the replaced ones declare.
  const Block rest(list.begin() + lo + n, list.end());
  for (const Stmt& s : stmts)
    if (const Sym* declared = declared_name(s);
        declared && mentions(rest, *declared))
      refuse(fmt::format("Cannot replace the statements with a call to {}: "
                         "'{}', which they declare, is used after them",
                         subproc->name, declared->name()),
             {.srcinfo = s->srcinfo});

  // The call evaluates its arguments once, before the replaced statements
  // ran; those evaluated them where they occur.
  const SafetyResult unchanged = prove_config_reads_unchanged(
      unified.args, stmts, "the arguments of the call read");
  require_proven(
      unchanged,
      fmt::format("Cannot replace the statements with a call to {}: "
                  "{}, before the statements that use them.",
                  subproc->name, unchanged.detail),
      {.srcinfo = stmts.front()->srcinfo, .condition = "ReadsUnchanged"});

  QueryContext ctx(proc, block.path);
  bind_known_strides(ctx, scope);
  const SrcInfo& where = stmts.front()->srcinfo;

  for (const SideCondition& c : unified.side_conditions) {
    SafetyResult r = prove_equivalent(ctx, c.lhs, c.rhs);
    if (!r.proven()) throw UnificationError(c.message);
  }

  std::unordered_map<Sym, Expr> by_param;
  for (size_t k = 0; k < subproc->args.size(); k++) {
    const FnArg& param = subproc->args[k];
    const Expr& arg = unified.args[k];
    by_param[param.name] = arg;
    if (param.type.kind() == TypeKind::Size)
      require_proven(
          prove_compare(ctx, arg, BinOpKind::Gt, 0),
          fmt::format(
              "The expression {} is not guaranteed to be greater than 0.",
              print_expr(arg)),
          {.srcinfo = where, .condition = "Bound(e > 0)"});
    if (arg->kind == ExprKind::WindowExpr) {
      const auto& w = arg->as<WindowExpr>();
      const Type* t = type_in_scope(scope, w.name);
      if (t)
        require_proven(
            prove_window_in_bounds(ctx, w, t->shape()),
            fmt::format("The buffer {} is accessed out-of-bounds",
                        w.name.name()),
            {.srcinfo = where, .condition = "InBounds(" + w.name.name() + ")"});
    }
  }

  for (const Expr& pred : subproc->preds) {
    Expr fact = at_call_site(pred, by_param);
    const std::string message =
        fmt::format("Could not verify assertion {} in {} at {}",
                    print_expr(pred), subproc->name, pred->srcinfo.str());
    if (!SmtEncoder::is_encodable(fact)) refuse(message, {.srcinfo = where});
    SmtEncoder& enc = ctx.encoder();
    QueryResult r = enc.prove(enc.encode(fact));
    if (!r.yes())
      refuse(message,
             {.srcinfo = where,
              .condition = "the precondition " + print_expr(pred) + " of " +
                           subproc->name,
              .formula = print_expr(fact),
              .counterexample = enc.counterexample(r, ctx.shown_terms())});
  }

  Stmt call = make_call(subproc, std::move(unified.args), where);
  cursors::EditResult edit = cursors::replace(
      proc, cursors::Location::block(block.path, lo + n), {call});
  if (auto aliased = find_aliased_call(edit.proc))
    refuse(aliased->message(),
           {.srcinfo = aliased->srcinfo, .condition = "NoAlias"});
  return edit;
}

}  // namespace exo2::primitives
