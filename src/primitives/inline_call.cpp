#include "exo2/primitives/inline_call.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

cursors::EditResult inline_call(const Proc& proc,
                                const cursors::Location& call) {
  Stmt s = stmt_of_kind(proc, call, StmtKind::Call);
  const Call& c = s->as<Call>();
  const ProcNode& f = *c.f;

  // The arguments are evaluated once, at the call; inlined, they are
  // evaluated at each use of their parameter (a window argument still once,
  // by its window statement).
  std::vector<Expr> substituted;
  for (const Expr& arg : c.args)
    if (arg->kind != ExprKind::WindowExpr) substituted.push_back(arg);
  const SafetyResult unchanged = prove_config_reads_unchanged(
      substituted, f.body,
      fmt::format("the arguments of the call at {} read", s->srcinfo.str()));
  require_proven(unchanged,
                 fmt::format("Cannot inline {}: {}, and the inlined body would "
                             "evaluate the arguments at each use instead of "
                             "once at the call.",
                             f.name, unchanged.detail),
                 {.srcinfo = s->srcinfo, .condition = "ReadsUnchanged"});

  Substitution control;
  std::unordered_map<Sym, Sym> buffers;
  Block body;
  for (size_t k = 0; k < f.args.size() && k < c.args.size(); ++k) {
    const FnArg& param = f.args[k];
    const Expr& arg = c.args[k];
    if (arg->kind == ExprKind::WindowExpr) {
      // fresh_copy gives the window statement a fresh symbol and renames the
      // parameter's uses to it.
      body.push_back(make_window_stmt(param.name, arg, arg->srcinfo));
    } else if (param.type.is_numeric() && arg->kind == ExprKind::Read) {
      buffers[param.name] = arg->as<Read>().name;
    } else {
      control[param.name] = arg;
    }
  }
  body.insert(body.end(), f.body.begin(), f.body.end());
  return cursors::replace(proc, call, fresh_copy(body, control, buffers));
}

}  // namespace exo2::primitives
