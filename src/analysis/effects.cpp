#include "exo2/analysis/effects.hpp"

#include <unordered_set>
#include <utility>

#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
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

// A control expression of the walked code in the analysed code's terms:
// callee parameters become their arguments, config fields their values so
// far, and the strides of views the strides of their buffers. A control
// expression reads no data (the typechecker's rule), so every read is a
// variable.
class InAnalysedTerms : public IRMutator {
 public:
  explicit InAnalysedTerms(const Scope& scope) : scope_(scope) {}

 protected:
  Expr mutate_read_config(const Expr& e) override {
    const Expr* value = scope_.config_value(e->as<ReadConfig>());
    return value ? *value : e;
  }
  Expr mutate_read(const Expr& e) override {
    auto it = scope_.values.find(e->as<Read>().name);
    return it == scope_.values.end() ? e : it->second;
  }
  // Dimension d of a view is the d-th viewed dimension of its buffer.
  Expr mutate_stride_expr(const Expr& e) override {
    const auto& s = e->as<StrideExpr>();
    auto it = scope_.views.find(s.name);
    if (it == scope_.views.end()) return e;
    int viewed = 0;
    for (size_t d = 0; d < it->second.dims.size(); ++d) {
      if (!it->second.dims[d].is_interval) continue;
      if (viewed++ == s.dim)
        return make_stride_expr(it->second.buffer, static_cast<int>(d),
                                e->srcinfo);
    }
    return e;
  }

 private:
  const Scope& scope_;
};

Expr translate(const Expr& e, const Scope& scope) {
  return InAnalysedTerms(scope).mutate(e);
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

// The variables a control expression reads.
class ReadSymbols : public IRVisitor {
 public:
  explicit ReadSymbols(std::unordered_set<Sym>& out) : out_(out) {}

 protected:
  void visit_read(const Read& e) override { out_.insert(e.name); }

 private:
  std::unordered_set<Sym>& out_;
};

// The unknown values of `scope` that the indices, loops or guards of `a`
// mention.
std::vector<Expr> unknowns_mentioned(const Access& a, const Scope& scope) {
  if (scope.unknowns.empty()) return {};
  std::unordered_set<Sym> used;
  ReadSymbols reads(used);
  reads.visit(a.idx);
  for (const LoopRange& l : a.loops) {
    reads.visit(l.lo);
    reads.visit(l.hi);
  }
  for (const Guard& g : a.guards) reads.visit(g.cond);
  std::vector<Expr> out;
  for (const Expr& u : scope.unknowns)
    if (used.count(u->as<Read>().name)) out.push_back(u);
  return out;
}

// Statements record their writes, expressions their data and config reads.
// Control expressions (indices, bounds, conditions, control arguments) read
// no data, so visiting them records their config reads only.
class EffectCollector : public IRVisitor {
 public:
  explicit EffectCollector(std::vector<Access>& out) : out_(out) {}

  // Window statements extend `scope` for the statements after them.
  void walk(const Block& b, Scope scope) {
    Scope* outer = scope_;
    scope_ = &scope;
    visit(b);
    scope_ = outer;
  }

 protected:
  void visit_assign(const Assign& a) override {
    Scope& scope = *scope_;
    visit(a.idx);
    const ValueReads value = value_reads(a.rhs);
    const AccessKind kind =
        a.kind == StmtKind::Assign ? AccessKind::Write : AccessKind::Reduce;
    if (auto field = scope.config_params.find(a.name);
        field != scope.config_params.end()) {
      add(kind, field->second, {}, a.srcinfo);
      return;
    }
    auto [buffer, idx] = resolve_access(a.name, a.idx, scope);
    if (add(kind, Location{buffer, nullptr, ""}, std::move(idx), a.srcinfo) &&
        kind == AccessKind::Write)
      record_value(value, a.rhs);
  }

  void visit_write_config(const WriteConfig& w) override {
    Scope& scope = *scope_;
    const ValueReads value = value_reads(w.rhs);
    const Location field{Sym(), w.config, w.field};
    if (add(AccessKind::Write, field, {}, w.srcinfo))
      record_value(value, w.rhs);
    if (!is_control_field(field)) return;
    if (SmtEncoder::is_encodable(w.rhs))
      scope.set_config_value(field, translate(w.rhs, scope));
    else
      scope.forget({field}, w.srcinfo);
  }

  void visit_if(const If& i) override {
    Scope& scope = *scope_;
    visit(i.cond);
    Scope then_scope = scope;
    then_scope.guards.push_back(Guard{translate(i.cond, scope), true});
    walk(i.body, std::move(then_scope));
    Scope else_scope = scope;
    else_scope.guards.push_back(Guard{translate(i.cond, scope), false});
    walk(i.orelse, std::move(else_scope));
    scope.forget(config_fields_written(i.body), i.srcinfo);
    scope.forget(config_fields_written(i.orelse), i.srcinfo);
  }

  void visit_for(const For& f) override {
    Scope& scope = *scope_;
    visit(f.lo);
    visit(f.hi);
    Scope body = scope;
    body.loops.push_back(LoopRange{f.iter, translate(f.lo, scope),
                                   translate(f.hi, scope), next_loop_id_++});
    // Earlier iterations may have written these.
    const std::vector<Location> written = config_fields_written(f.body);
    body.forget(written, f.srcinfo);
    walk(f.body, std::move(body));
    scope.forget(written, f.srcinfo);
  }

  // An allocation's extents are evaluated where it is: they read the config
  // fields they mention there (code that moves the allocation past a write
  // of one would change its size). A Free has no effect.
  void visit_alloc(const Alloc& a) override {
    if (a.kind != StmtKind::Alloc) return;
    locals_.insert(a.name);
    if (a.type.is_tensor()) visit(a.type.shape());
  }

  void visit_call(const Call& c) override {
    call(c);
    scope_->forget(config_fields_written(c.f->body), c.srcinfo);
  }

  void visit_window_stmt(const WindowStmt& w) override {
    if (w.rhs->kind != ExprKind::WindowExpr) return;
    visit(w.rhs);  // the config reads of its bounds
    scope_->views[w.name] = view_of_window(w.rhs->as<WindowExpr>(), *scope_);
  }

  void visit_with(const With& w) override {
    walk(w.body, *scope_);
    scope_->forget(config_fields_written(w.body), w.srcinfo);
  }

  void visit_sync(const Sync&) override {}

  // Data reads and config reads.
  void visit_read(const Read& r) override {
    visit(r.idx);
    if (!r.type.is_numeric()) return;
    if (auto field = scope_->config_params.find(r.name);
        field != scope_->config_params.end()) {
      add(AccessKind::Read, field->second, {}, r.srcinfo);
      return;
    }
    auto [buffer, idx] = resolve_access(r.name, r.idx, *scope_);
    add(AccessKind::Read, Location{buffer, nullptr, ""}, std::move(idx),
        r.srcinfo);
  }

  void visit_read_config(const ReadConfig& c) override {
    add(AccessKind::Read, Location{Sym(), c.config, c.field}, {}, c.srcinfo);
  }

 private:
  void call(const Call& c) {
    const Scope& scope = *scope_;
    const SrcInfo& srcinfo = c.srcinfo;
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
        // The data is accessed in the callee; here, its window bounds or
        // indices are evaluated.
        if (arg->kind == ExprKind::WindowExpr)
          visit(arg);
        else
          visit(arg->as<Read>().idx);
        callee.views[param.name] = view_of_argument(arg, scope);
      } else {
        visit(arg);
        callee.values[param.name] = translate(arg, scope);
      }
    }
    // The preconditions are checked at the call: they read the config
    // fields they mention there.
    Scope* caller = scope_;
    scope_ = &callee;
    visit(c.f->preds);
    scope_ = caller;
    walk(c.f->body, std::move(callee));
  }

  // The accesses evaluating an assigned value makes, as positions in the
  // output: [begin, end); `complete` unless a read of a local was left out.
  struct ValueReads {
    size_t begin, end;
    bool complete;
  };

  ValueReads value_reads(const Expr& rhs) {
    const size_t begin = out_.size();
    const size_t left_out = left_out_;
    visit(rhs);
    return ValueReads{begin, out_.size(), left_out == left_out_};
  }

  // Links the write just added (the last access) to the value it stores.
  void record_value(const ValueReads& value, const Expr& rhs) {
    if (scope_->call_site || !value.complete) return;
    const int write = static_cast<int>(out_.size()) - 1;
    out_.back().value = rhs;
    for (size_t k = value.begin; k < value.end; ++k) out_[k].value_of = write;
  }

  // Whether the access was added: accesses of local buffers are left out.
  bool add(AccessKind kind, Location location, std::vector<Expr> idx,
           const SrcInfo& srcinfo) {
    const Scope& scope = *scope_;
    if (!location.is_config() && locals_.count(location.buffer)) {
      left_out_++;
      return false;
    }
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
    return true;
  }

  std::vector<Access>& out_;
  // How many accesses of local buffers were left out so far.
  size_t left_out_ = 0;
  int next_loop_id_ = 0;
  // Buffers allocated by the analysed code (symbols are unique, so one set
  // serves every block and callee).
  std::unordered_set<Sym> locals_;
  // The scope of the statement being visited.
  Scope* scope_ = nullptr;
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
  EffectCollector(out).walk(block, std::move(scope));
  return out;
}

std::vector<Access> effects_of(const Stmt& stmt, const WindowEnv& env) {
  return effects_of(Block{stmt}, env);
}

}  // namespace exo2
