#include "exo2/primitives/inline_call.hpp"

#include <unordered_map>

#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

cursors::EditResult inline_call(const Proc& proc,
                                const cursors::Location& call) {
  Stmt s = stmt_of_kind(proc, call, StmtKind::Call);
  const Call& c = s->as<Call>();
  const ProcNode& f = *c.f;

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
