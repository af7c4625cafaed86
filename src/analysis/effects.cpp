#include "exo2/analysis/effects.hpp"

#include <unordered_set>
#include <utility>

#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/core_ir/printer.hpp"

namespace exo2 {

bool Location::same_as(const Location& other) const {
  if (is_config() != other.is_config()) return false;
  if (is_config())
    return config->same_as(*other.config) && field == other.field;
  return buffer == other.buffer;
}

std::string Location::str() const {
  return is_config() ? config->name() + "." + field : buffer.name();
}

const char* access_kind_participle(AccessKind kind) {
  switch (kind) {
    case AccessKind::Read:
      return "read";
    case AccessKind::Write:
      return "written";
    case AccessKind::Reduce:
      return "reduced";
  }
  return "accessed";
}

namespace {

// What the walk knows where it stands: how callee parameters and windows
// translate into the analysed code's terms, and the loops and ifs around.
struct Scope {
  // Control parameters of the callees being walked, by their arguments.
  std::unordered_map<Sym, Expr> values;
  // Window statements and data parameters of callees.
  WindowEnv views;
  // Scalar data parameters of callees passed a config field (`g(Cfg.f)`):
  // their reads and writes are the field's.
  std::unordered_map<Sym, Location> config_params;
  std::vector<LoopRange> loops;
  std::vector<Guard> guards;
  // The outermost call being walked through; its location is reported for
  // the accesses of callee bodies.
  const SrcInfo* call_site = nullptr;
  // The values of the control config fields the analysed code has written
  // so far, relative to its start (fields absent are unchanged), and the
  // unknown values introduced so far.
  std::vector<std::pair<Location, Expr>> config_values;
  std::vector<Expr> unknowns;

  const Expr* config_value(const ReadConfig& r) const {
    for (const auto& [field, value] : config_values)
      if (field.config->same_as(*r.config) && field.field == r.field)
        return &value;
    return nullptr;
  }
  void set_config_value(const Location& field, Expr value) {
    for (auto& [known, v] : config_values) {
      if (!known.same_as(field)) continue;
      v = std::move(value);
      return;
    }
    config_values.emplace_back(field, std::move(value));
  }
  // The fields (control ones; data fields never occur in indices) get
  // unknown values.
  void forget(const std::vector<Location>& fields, const SrcInfo& at) {
    for (const Location& f : fields) {
      if (!is_control_field(f)) continue;
      Expr unknown =
          make_read(Sym(f.str()), {}, at, f.config->lookup_type(f.field));
      unknowns.push_back(unknown);
      set_config_value(f, std::move(unknown));
    }
  }
};

const Type kIndexType(TypeKind::Index);

bool is_zero(const Expr& e) {
  return e->kind == ExprKind::Const && e->as<Const>().is_int() &&
         e->as<Const>().int_value() == 0;
}

// A control expression of the walked code in the analysed code's terms.
Expr translate(const Expr& e, const Scope& scope) {
  switch (e->kind) {
    case ExprKind::ReadConfig: {
      const Expr* value = scope.config_value(e->as<ReadConfig>());
      return value ? *value : e;
    }
    case ExprKind::Read: {
      const auto& r = e->as<Read>();
      if (!r.idx.empty()) return e;
      auto it = scope.values.find(r.name);
      return it == scope.values.end() ? e : it->second;
    }
    case ExprKind::USub: {
      Expr arg = translate(e->as<USub>().arg, scope);
      if (arg == e->as<USub>().arg) return e;
      return make_usub(arg, e->srcinfo, e->type);
    }
    case ExprKind::BinOp: {
      const auto& b = e->as<BinOp>();
      Expr l = translate(b.lhs, scope);
      Expr r = translate(b.rhs, scope);
      if (l == b.lhs && r == b.rhs) return e;
      return make_binop(b.op, l, r, e->srcinfo, e->type);
    }
    case ExprKind::StrideExpr: {
      // Dimension d of a view is the d-th viewed dimension of its buffer.
      const auto& s = e->as<StrideExpr>();
      auto it = scope.views.find(s.name);
      if (it == scope.views.end()) return e;
      int viewed = 0;
      for (size_t d = 0; d < it->second.dims.size(); ++d) {
        if (!it->second.dims[d].is_interval) continue;
        if (viewed++ == s.dim)
          return make_stride_expr(it->second.buffer, static_cast<int>(d),
                                  e->srcinfo);
      }
      return e;
    }
    default:
      return e;
  }
}

// The buffer and indices that `name[idx]` touches.
std::pair<Sym, std::vector<Expr>> resolve_access(const Sym& name,
                                                 const std::vector<Expr>& idx,
                                                 const Scope& scope) {
  std::vector<Expr> translated;
  translated.reserve(idx.size());
  for (const Expr& i : idx) translated.push_back(translate(i, scope));
  auto it = scope.views.find(name);
  if (it == scope.views.end()) return {name, std::move(translated)};
  std::vector<Expr> out;
  size_t next = 0;
  for (const WindowAccess& d : it->second.dims) {
    if (!d.is_interval) {
      out.push_back(d.lo);
      continue;
    }
    // A whole-buffer view passed to a callee that indexes fewer dimensions
    // never happens after typechecking; guard anyway.
    Expr i = next < translated.size() ? translated[next] : make_int(0);
    ++next;
    out.push_back(is_zero(d.lo) ? i
                                : make_binop(BinOpKind::Add, d.lo, i,
                                             i->srcinfo, kIndexType));
  }
  return {it->second.buffer, std::move(out)};
}

BufferView view_of_window(const WindowExpr& w, const Scope& scope) {
  std::vector<Expr> offsets;
  std::vector<bool> is_interval;
  for (const WindowAccess& a : w.idx) {
    offsets.push_back(a.lo ? a.lo : make_int(0));
    is_interval.push_back(a.is_interval);
  }
  // Resolving the window's lower corner gives the buffer coordinates of each
  // of its entries; the viewed ones stay intervals.
  auto [buffer, corner] = resolve_access(w.name, offsets, scope);
  BufferView view{buffer, {}};
  auto outer = scope.views.find(w.name);
  size_t entry = 0;
  for (size_t d = 0; d < corner.size(); ++d) {
    bool interval;
    if (outer == scope.views.end()) {
      interval = is_interval[d];
    } else if (!outer->second.dims[d].is_interval) {
      interval = false;
    } else {
      interval = is_interval[entry++];
    }
    view.dims.push_back(interval ? WindowAccess::interval(corner[d], nullptr)
                                 : WindowAccess::point(corner[d]));
  }
  return view;
}

// The view a data argument of a call gives the callee's parameter.
BufferView view_of_argument(const Expr& arg, const Scope& scope) {
  if (arg->kind == ExprKind::WindowExpr)
    return view_of_window(arg->as<WindowExpr>(), scope);
  const auto& r = arg->as<Read>();
  if (r.idx.empty()) {
    auto it = scope.views.find(r.name);
    if (it != scope.views.end()) return it->second;
    BufferView whole{r.name, {}};
    for (size_t d = 0; d < arg->type.shape().size(); ++d)
      whole.dims.push_back(WindowAccess::interval(make_int(0), nullptr));
    return whole;
  }
  // `x[i, j]` passed to a scalar parameter: a view of one element.
  auto [buffer, idx] = resolve_access(r.name, r.idx, scope);
  BufferView point{buffer, {}};
  for (Expr& i : idx) point.dims.push_back(WindowAccess::point(std::move(i)));
  return point;
}

// Adds the symbols `e` reads (as control variables) to `out`.
void read_symbols(const Expr& e, std::unordered_set<Sym>& out) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::Read:
      if (e->as<Read>().idx.empty()) out.insert(e->as<Read>().name);
      return;
    case ExprKind::USub:
      read_symbols(e->as<USub>().arg, out);
      return;
    case ExprKind::BinOp:
      read_symbols(e->as<BinOp>().lhs, out);
      read_symbols(e->as<BinOp>().rhs, out);
      return;
    default:
      return;
  }
}

// The unknown values of `scope` that the indices, loops or guards of `a`
// mention.
std::vector<Expr> unknowns_mentioned(const Access& a, const Scope& scope) {
  if (scope.unknowns.empty()) return {};
  std::unordered_set<Sym> used;
  for (const Expr& i : a.idx) read_symbols(i, used);
  for (const LoopRange& l : a.loops) {
    read_symbols(l.lo, used);
    read_symbols(l.hi, used);
  }
  for (const Guard& g : a.guards) read_symbols(g.cond, used);
  std::vector<Expr> out;
  for (const Expr& u : scope.unknowns)
    if (used.count(u->as<Read>().name)) out.push_back(u);
  return out;
}

class EffectCollector {
 public:
  explicit EffectCollector(std::vector<Access>& out) : out_(out) {}

  void block(const Block& b, Scope scope) {
    for (const Stmt& s : b) stmt(*s, scope);
  }

  // `scope` is the scope of the statement's block: window statements extend
  // it for the statements after them.
  void stmt(const StmtNode& s, Scope& scope) {
    switch (s.kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce: {
        const auto& a = s.as<Assign>();
        for (const Expr& i : a.idx) config_reads(i, scope);
        reads(a.rhs, scope);
        const AccessKind kind =
            s.kind == StmtKind::Assign ? AccessKind::Write : AccessKind::Reduce;
        if (auto field = scope.config_params.find(a.name);
            field != scope.config_params.end()) {
          add(kind, field->second, {}, s.srcinfo, scope);
          break;
        }
        auto [buffer, idx] = resolve_access(a.name, a.idx, scope);
        add(kind, Location{buffer, nullptr, ""}, std::move(idx), s.srcinfo,
            scope);
        break;
      }
      case StmtKind::WriteConfig: {
        const auto& w = s.as<WriteConfig>();
        reads(w.rhs, scope);
        const Location field{Sym(), w.config, w.field};
        add(AccessKind::Write, field, {}, s.srcinfo, scope);
        if (!is_control_field(field)) break;
        if (SmtEncoder::is_encodable(w.rhs))
          scope.set_config_value(field, translate(w.rhs, scope));
        else
          scope.forget({field}, s.srcinfo);
        break;
      }
      case StmtKind::If: {
        const auto& i = s.as<If>();
        config_reads(i.cond, scope);
        Scope then_scope = scope;
        then_scope.guards.push_back(Guard{translate(i.cond, scope), true});
        block(i.body, std::move(then_scope));
        Scope else_scope = scope;
        else_scope.guards.push_back(Guard{translate(i.cond, scope), false});
        block(i.orelse, std::move(else_scope));
        scope.forget(config_fields_written(i.body), s.srcinfo);
        scope.forget(config_fields_written(i.orelse), s.srcinfo);
        break;
      }
      case StmtKind::For: {
        const auto& f = s.as<For>();
        config_reads(f.lo, scope);
        config_reads(f.hi, scope);
        Scope body = scope;
        body.loops.push_back(
            LoopRange{f.iter, translate(f.lo, scope), translate(f.hi, scope)});
        // Earlier iterations may have written these.
        const std::vector<Location> written = config_fields_written(f.body);
        body.forget(written, s.srcinfo);
        block(f.body, std::move(body));
        scope.forget(written, s.srcinfo);
        break;
      }
      case StmtKind::Alloc:
        locals_.insert(s.as<Alloc>().name);
        break;
      case StmtKind::Call:
        call(s.as<Call>(), s.srcinfo, scope);
        scope.forget(config_fields_written(s.as<Call>().f->body), s.srcinfo);
        break;
      case StmtKind::WindowStmt: {
        const auto& w = s.as<WindowStmt>();
        if (w.rhs->kind != ExprKind::WindowExpr) break;
        window_config_reads(w.rhs->as<WindowExpr>(), scope);
        scope.views[w.name] = view_of_window(w.rhs->as<WindowExpr>(), scope);
        break;
      }
      case StmtKind::With:
        block(s.as<With>().body, scope);
        scope.forget(config_fields_written(s.as<With>().body), s.srcinfo);
        break;
      case StmtKind::Pass:
      case StmtKind::Free:
      case StmtKind::Sync:
        break;
    }
  }

 private:
  void call(const Call& c, const SrcInfo& srcinfo, const Scope& scope) {
    Scope callee;
    callee.loops = scope.loops;
    callee.guards = scope.guards;
    callee.call_site = scope.call_site ? scope.call_site : &srcinfo;
    callee.config_values = scope.config_values;
    callee.unknowns = scope.unknowns;
    for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); ++k) {
      const Expr& arg = c.args[k];
      const FnArg& param = c.f->args[k];
      if (param.type.is_numeric() && arg->kind == ExprKind::ReadConfig) {
        const auto& r = arg->as<ReadConfig>();
        callee.config_params[param.name] = Location{Sym(), r.config, r.field};
      } else if (param.type.is_numeric() && arg->kind == ExprKind::Read &&
                 scope.config_params.count(arg->as<Read>().name)) {
        callee.config_params[param.name] =
            scope.config_params.at(arg->as<Read>().name);
      } else if (param.type.is_numeric()) {
        if (arg->kind == ExprKind::WindowExpr)
          window_config_reads(arg->as<WindowExpr>(), scope);
        else
          for (const Expr& i : arg->as<Read>().idx) config_reads(i, scope);
        callee.views[param.name] = view_of_argument(arg, scope);
      } else {
        config_reads(arg, scope);
        callee.values[param.name] = translate(arg, scope);
      }
    }
    // The preconditions are checked at the call: they read the config
    // fields they mention there.
    for (const Expr& pred : c.f->preds) config_reads(pred, callee);
    block(c.f->body, std::move(callee));
  }

  // Data reads and config reads of an expression.
  void reads(const Expr& e, const Scope& scope) {
    switch (e->kind) {
      case ExprKind::Read: {
        const auto& r = e->as<Read>();
        for (const Expr& i : r.idx) config_reads(i, scope);
        if (!e->type.is_numeric()) return;
        if (auto field = scope.config_params.find(r.name);
            field != scope.config_params.end()) {
          add(AccessKind::Read, field->second, {}, e->srcinfo, scope);
          return;
        }
        auto [buffer, idx] = resolve_access(r.name, r.idx, scope);
        add(AccessKind::Read, Location{buffer, nullptr, ""}, std::move(idx),
            e->srcinfo, scope);
        return;
      }
      case ExprKind::ReadConfig: {
        const auto& c = e->as<ReadConfig>();
        add(AccessKind::Read, Location{Sym(), c.config, c.field}, {},
            e->srcinfo, scope);
        return;
      }
      case ExprKind::USub:
        reads(e->as<USub>().arg, scope);
        return;
      case ExprKind::BinOp:
        reads(e->as<BinOp>().lhs, scope);
        reads(e->as<BinOp>().rhs, scope);
        return;
      case ExprKind::ExternCall:
        for (const Expr& a : e->as<ExternCall>().args) reads(a, scope);
        return;
      case ExprKind::WindowExpr:
        window_config_reads(e->as<WindowExpr>(), scope);
        return;
      case ExprKind::Const:
      case ExprKind::StrideExpr:
        return;
    }
  }

  // Config reads are the only effects of control expressions.
  void config_reads(const Expr& e, const Scope& scope) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::ReadConfig:
      case ExprKind::USub:
      case ExprKind::BinOp:
        reads(e, scope);
        return;
      default:
        return;
    }
  }

  void window_config_reads(const WindowExpr& w, const Scope& scope) {
    for (const WindowAccess& a : w.idx) {
      config_reads(a.lo, scope);
      config_reads(a.hi, scope);
    }
  }

  void add(AccessKind kind, Location location, std::vector<Expr> idx,
           const SrcInfo& srcinfo, const Scope& scope) {
    if (!location.is_config() && locals_.count(location.buffer)) return;
    Access a;
    a.kind = kind;
    a.text = location.str();
    if (!idx.empty()) {
      a.text += "[";
      for (size_t d = 0; d < idx.size(); ++d)
        a.text += (d ? ", " : "") + print_expr(idx[d]);
      a.text += "]";
    }
    a.location = std::move(location);
    a.idx = std::move(idx);
    a.loops = scope.loops;
    a.guards = scope.guards;
    a.unknowns = unknowns_mentioned(a, scope);
    a.srcinfo = scope.call_site ? *scope.call_site : srcinfo;
    out_.push_back(std::move(a));
  }

  std::vector<Access>& out_;
  // Buffers allocated by the analysed code (symbols are unique, so one set
  // serves every block and callee).
  std::unordered_set<Sym> locals_;
};

}  // namespace

BufferView resolve_window(const WindowExpr& w, const WindowEnv& env) {
  Scope scope;
  scope.views = env;
  return view_of_window(w, scope);
}

std::vector<Access> effects_of(const Block& block, const WindowEnv& env,
                               const std::vector<Location>& unknown_at_start) {
  std::vector<Access> out;
  Scope scope;
  scope.views = env;
  scope.forget(unknown_at_start,
               block.empty() ? SrcInfo{} : block.front()->srcinfo);
  EffectCollector(out).block(block, std::move(scope));
  return out;
}

std::vector<Access> effects_of(const Stmt& stmt, const WindowEnv& env) {
  return effects_of(Block{stmt}, env);
}

}  // namespace exo2
