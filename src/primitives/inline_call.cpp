#include "exo2/primitives/inline_call.hpp"

#include <fmt/format.h>

#include <unordered_map>

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
Block write_fields(const Block& block, const ConfigParams& params) {
  Block out;
  for (const Stmt& s : block) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce: {
        const Assign& a = s->as<Assign>();
        auto it = params.find(a.name);
        if (it == params.end()) {
          out.push_back(s);
          break;
        }
        const ReadConfig& field = *it->second;
        Expr rhs = a.rhs;
        if (s->kind == StmtKind::Reduce)
          rhs = make_binop(
              BinOpKind::Add,
              make_read_config(field.config, field.field, s->srcinfo, a.type),
              rhs, s->srcinfo, a.type);
        out.push_back(
            make_write_config(field.config, field.field, rhs, s->srcinfo));
        break;
      }
      case StmtKind::For: {
        const For& f = s->as<For>();
        out.push_back(make_for(f.iter, f.lo, f.hi, write_fields(f.body, params),
                               f.mode, s->srcinfo));
        break;
      }
      case StmtKind::If: {
        const If& i = s->as<If>();
        out.push_back(make_if(i.cond, write_fields(i.body, params),
                              write_fields(i.orelse, params), s->srcinfo));
        break;
      }
      case StmtKind::With: {
        const With& w = s->as<With>();
        out.push_back(
            make_with(w.ctx, write_fields(w.body, params), s->srcinfo));
        break;
      }
      default:
        out.push_back(s);
    }
  }
  return out;
}

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
      // (read through the substitution, written by write_fields).
      control[param.name] = arg;
      if (param.type.is_numeric() && arg->kind == ExprKind::ReadConfig)
        fields[param.name] = &arg->as<ReadConfig>();
    }
  }
  body.insert(body.end(), f.body.begin(), f.body.end());
  Block inlined = fresh_copy(body, control, buffers);
  if (!fields.empty()) inlined = write_fields(inlined, fields);
  return cursors::replace(proc, call, std::move(inlined));
}

}  // namespace exo2::primitives
