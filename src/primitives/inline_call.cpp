#include "exo2/primitives/inline_call.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {
namespace {

// Scalar data parameters passed a config field (`g(Cfg.f)`), by name.
using ConfigParams = std::unordered_map<Sym, const ReadConfig*>;

// `block` with each write of a parameter of `params` made a write of its
// field: `a = e` becomes `Cfg.f = e`, `a += e` becomes `Cfg.f = Cfg.f + e`
// (reads of `a` are already reads of the field).
class FieldWrites : public IRMutator {
 public:
  explicit FieldWrites(const ConfigParams& params)
      : IRMutator(Visits::StatementsOnly), params_(params) {}

 protected:
  Stmt mutate_assign(const Stmt& s) override {
    const Assign& a = s->as<Assign>();
    auto it = params_.find(a.name);
    if (it == params_.end()) return s;
    const ReadConfig& field = *it->second;
    Expr rhs = a.rhs;
    if (s->kind == StmtKind::Reduce)
      rhs = make_binop(
          BinOpKind::Add,
          make_read_config(field.config, field.field, s->srcinfo, a.type), rhs,
          s->srcinfo, a.type);
    return make_write_config(field.config, field.field, rhs, s->srcinfo);
  }

 private:
  const ConfigParams& params_;
};

}  // namespace

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
  ConfigParams fields;
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
      // Control values, and config fields passed to scalar data parameters
      // (read through the substitution, written by FieldWrites).
      control[param.name] = arg;
      if (param.type.is_numeric() && arg->kind == ExprKind::ReadConfig)
        fields[param.name] = &arg->as<ReadConfig>();
    }
  }
  body.insert(body.end(), f.body.begin(), f.body.end());
  Block inlined = fresh_copy(body, control, buffers);
  if (!fields.empty()) inlined = FieldWrites(fields).mutate(inlined);
  return cursors::replace(proc, call, std::move(inlined));
}

}  // namespace exo2::primitives
