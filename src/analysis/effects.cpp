#include "exo2/analysis/effects.hpp"

#include <unordered_set>
#include <utility>

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
  std::vector<LoopRange> loops;
  std::vector<Guard> guards;
  // The outermost call being walked through; its location is reported for
  // the accesses of callee bodies.
  const SrcInfo* call_site = nullptr;
};

const Type kIndexType(TypeKind::Index);

bool is_zero(const Expr& e) {
  return e->kind == ExprKind::Const && e->as<Const>().is_int() &&
         e->as<Const>().int_value() == 0;
}

// A control expression of the walked code in the analysed code's terms.
Expr translate(const Expr& e, const Scope& scope) {
  switch (e->kind) {
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
        auto [buffer, idx] = resolve_access(a.name, a.idx, scope);
        add(s.kind == StmtKind::Assign ? AccessKind::Write : AccessKind::Reduce,
            Location{buffer, nullptr, ""}, std::move(idx), s.srcinfo, scope);
        break;
      }
      case StmtKind::WriteConfig: {
        const auto& w = s.as<WriteConfig>();
        reads(w.rhs, scope);
        add(AccessKind::Write, Location{Sym(), w.config, w.field}, {},
            s.srcinfo, scope);
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
        break;
      }
      case StmtKind::For: {
        const auto& f = s.as<For>();
        config_reads(f.lo, scope);
        config_reads(f.hi, scope);
        Scope body = scope;
        body.loops.push_back(LoopRange{f.iter, translate(f.lo, scope),
                                       translate(f.hi, scope),
                                       next_loop_id_++});
        block(f.body, std::move(body));
        break;
      }
      case StmtKind::Alloc:
        locals_.insert(s.as<Alloc>().name);
        break;
      case StmtKind::Call:
        call(s.as<Call>(), s.srcinfo, scope);
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
    for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); ++k) {
      const Expr& arg = c.args[k];
      const FnArg& param = c.f->args[k];
      if (param.type.is_numeric()) {
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
    block(c.f->body, std::move(callee));
  }

  // Data reads and config reads of an expression.
  void reads(const Expr& e, const Scope& scope) {
    switch (e->kind) {
      case ExprKind::Read: {
        const auto& r = e->as<Read>();
        for (const Expr& i : r.idx) config_reads(i, scope);
        if (!e->type.is_numeric()) return;
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
    a.srcinfo = scope.call_site ? *scope.call_site : srcinfo;
    out_.push_back(std::move(a));
  }

  std::vector<Access>& out_;
  int next_loop_id_ = 0;
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

std::vector<Access> effects_of(const Block& block, const WindowEnv& env) {
  std::vector<Access> out;
  Scope scope;
  scope.views = env;
  EffectCollector(out).block(block, std::move(scope));
  return out;
}

std::vector<Access> effects_of(const Stmt& stmt, const WindowEnv& env) {
  return effects_of(Block{stmt}, env);
}

}  // namespace exo2
