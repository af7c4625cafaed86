// The typechecker (Exo's frontend/typecheck.py): gives every expression a
// type, desugars partial reads of tensors into windows, completes window
// bounds, and reports every misuse of types with the texts Exo uses.
//
// Walk order is source order; each error is reported once, and an expression
// that failed gets the type Error so that its parents stay silent.
#include "exo2/core_ir/typecheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exo2/core_ir/instr_template.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {

// Where a literal integer appears: `int` in control positions, `R` in data.
enum class Context { Data, Control };

// Exo's `is_indexable`: values usable as indices and extents. Unlike
// Type::is_indexable, strides are not included.
bool is_index_like(const Type& t) {
  return t.kind() == TypeKind::Int || t.kind() == TypeKind::Index ||
         t.kind() == TypeKind::Size;
}

// Exo's `is_stridable`: what `==` accepts next to a stride.
bool is_stridable(const Type& t) {
  return t.kind() == TypeKind::Int || t.kind() == TypeKind::Stride;
}

bool is_int_literal(const Expr& e) {
  return e->kind == ExprKind::Const && e->as<Const>().is_int() &&
         e->type.kind() == TypeKind::Int;
}

const Type kError(TypeKind::Error);

// Statements and expressions are checked by one override per kind; each
// override checks its children itself, in source order.
class TypeChecker final : public StmtFunctor<Stmt()>,
                          public ExprFunctor<Expr(Context)> {
 public:
  explicit TypeChecker(ControlProducts products) : products_(products) {}

  Proc check(const Proc& p) {
    std::vector<FnArg> args;
    for (const FnArg& a : p->args) {
      current_ = a.srcinfo;
      Type t = check_type(a.type, a.srcinfo, /*is_alloc=*/false);
      env_[a.name] = t;
      MemoryPtr mem = a.mem;
      if (!mem && t.kind() != TypeKind::Size && t.kind() != TypeKind::Index)
        mem = default_memory();
      args.push_back({a.name, t, mem, a.srcinfo});
    }

    std::vector<Expr> preds;
    for (const Expr& pred : p->preds) {
      current_ = pred ? pred->srcinfo : p->srcinfo;
      Expr typed = check_expr(pred, Context::Control);
      if (!typed->type.is_error() && !typed->type.is_bool())
        error(typed->srcinfo, "expected a bool expression");
      preds.push_back(typed);
    }

    Block body = check_block(p->body);

    if (p->name.empty())
      error(p->srcinfo, "expected all procedures to be named");

    return make_proc(p->name, std::move(args), std::move(preds),
                     std::move(body), p->instr, p->srcinfo);
  }

  Expr check_in_env(const Expr& e, const std::unordered_map<Sym, Type>& env) {
    env_ = env;
    current_ = e ? e->srcinfo : SrcInfo();
    return check_expr(e, Context::Control);
  }

  std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

 private:
  ControlProducts products_;
  std::unordered_map<Sym, Type> env_;
  std::vector<Diagnostic> diagnostics_;
  // Location of the statement being checked, for malformed (null) children.
  SrcInfo current_;

  void error(const SrcInfo& where, std::string message) {
    diagnostics_.push_back({where, std::move(message)});
  }

  // The type of `name`, or nullopt after reporting it as undefined.
  std::optional<Type> lookup(const Sym& name, const SrcInfo& where) {
    auto it = env_.find(name);
    if (it == env_.end()) {
      error(where, fmt::format("variable '{}' undefined", name.name()));
      return std::nullopt;
    }
    return it->second;
  }

  Expr error_expr(const SrcInfo& where) { return make_int(0, where, kError); }

  // ---------------------------------------------------------------- types

  // Types the shape expressions of `t`. Allocations also reject control and
  // window types.
  Type check_type(const Type& t, const SrcInfo& where, bool is_alloc) {
    const Type elem = t.basetype();
    if (is_alloc) {
      if (t.is_window()) {
        error(where,
              "Window expression such as [R] should only be used in the "
              "function signature");
        return kError;
      }
      if (!is_data_kind(elem.kind()) && elem.kind() != TypeKind::Barrier) {
        error(where, fmt::format("Cannot allocate an intermediate value of "
                                 "type {}",
                                 type_kind_name(elem.kind())));
        return kError;
      }
    }
    if (!t.is_tensor()) return t;
    std::vector<Expr> shape;
    bool ok = true;
    for (const Expr& extent : t.shape()) {
      Expr typed = check_expr(extent, Context::Control);
      if (typed->type.is_error()) {
        ok = false;
      } else if (!is_index_like(typed->type)) {
        error(typed->srcinfo,
              "expected array size expression to have type 'size' or type "
              "'index'");
        ok = false;
      }
      shape.push_back(typed);
    }
    if (!ok) return kError;
    return Type::tensor(elem, std::move(shape), t.is_window(),
                        t.dim_annotations());
  }

  // ----------------------------------------------------------- statements

  Block check_block(const Block& block) {
    Block out;
    out.reserve(block.size());
    for (const Stmt& s : block) {
      if (!s) continue;
      out.push_back(check_stmt(s));
    }
    return out;
  }

  Stmt check_stmt(const Stmt& s) {
    current_ = s->srcinfo;
    return StmtFunctor::visit(s);
  }

  Stmt visit_assign(const Stmt& s) override {
    return check_assign(s->as<Assign>());
  }
  Stmt visit_write_config(const Stmt& s) override {
    return check_write_config(s->as<WriteConfig>());
  }
  Stmt visit_pass(const Stmt& s) override { return s; }
  Stmt visit_if(const Stmt& s) override {
    const auto& st = s->as<If>();
    Expr cond = check_expr(st.cond, Context::Control);
    if (!cond->type.is_error() && !cond->type.is_bool())
      error(cond->srcinfo, "expected a bool expression");
    Block body = check_block(st.body);
    Block orelse = check_block(st.orelse);
    return make_if(cond, std::move(body), std::move(orelse), st.srcinfo);
  }
  Stmt visit_for(const Stmt& s) override {
    const auto& st = s->as<For>();
    Expr lo = check_loop_bound(st.lo);
    Expr hi = check_loop_bound(st.hi);
    env_[st.iter] = Type(TypeKind::Index);
    Block body = check_block(st.body);
    return make_for(st.iter, lo, hi, std::move(body),
                    st.mode ? st.mode : LoopMode::seq(), st.srcinfo);
  }
  Stmt visit_alloc(const Stmt& s) override {
    const auto& st = s->as<Alloc>();
    Type t = check_type(st.type, st.srcinfo, /*is_alloc=*/true);
    env_[st.name] = t;
    MemoryPtr mem = st.mem ? st.mem : default_memory();
    return s->kind == StmtKind::Alloc ? make_alloc(st.name, t, mem, st.srcinfo)
                                      : make_free(st.name, t, mem, st.srcinfo);
  }
  Stmt visit_call(const Stmt& s) override { return check_call(s->as<Call>()); }
  Stmt visit_window_stmt(const Stmt& s) override {
    return check_window_stmt(s->as<WindowStmt>());
  }
  Stmt visit_with(const Stmt& s) override {
    const auto& st = s->as<With>();
    return make_with(st.ctx, check_block(st.body), st.srcinfo);
  }
  Stmt visit_sync(const Stmt& s) override {
    const auto& st = s->as<Sync>();
    std::vector<Expr> barriers;
    for (const Expr& b : st.barriers) barriers.push_back(check_barrier(b));
    return with_barriers(st, std::move(barriers));
  }

  Stmt check_assign(const Assign& st) {
    auto [idx, type] = check_access(st.srcinfo, st.name, st.idx,
                                    /*lvalue=*/true);
    Expr rhs = check_expr(st.rhs, Context::Data);
    if (!rhs->type.is_error() && !rhs->type.is_real_scalar())
      error(rhs->srcinfo, fmt::format("cannot assign/reduce a '{}' type value",
                                      rhs->type.str()));
    return st.kind == StmtKind::Assign
               ? make_assign(st.name, type, std::move(idx), rhs, st.srcinfo)
               : make_reduce(st.name, type, std::move(idx), rhs, st.srcinfo);
  }

  Stmt check_write_config(const WriteConfig& st) {
    if (!st.config) {
      error(st.srcinfo, "expected a configuration to write to");
      return make_write_config(st.config, st.field,
                               check_expr(st.rhs, Context::Data), st.srcinfo);
    }
    if (!st.config->has_field(st.field)) {
      error(st.srcinfo, fmt::format("expected '{}'  to be a field in config "
                                    "'{}'",
                                    st.field, st.config->name()));
      return make_write_config(st.config, st.field,
                               check_expr(st.rhs, Context::Data), st.srcinfo);
    }
    const Type& field_type = st.config->lookup_type(st.field);
    const bool control = is_index_like(field_type) ||
                         is_stridable(field_type) || field_type.is_bool();
    Expr rhs = check_expr(st.rhs, control ? Context::Control : Context::Data);
    const Type& t = rhs->type;
    if (!t.is_error()) {
      if (field_type.is_real_scalar()) {
        if (!t.is_real_scalar())
          error(rhs->srcinfo, fmt::format("expected a real scalar value, but "
                                          "got an expression of type {}",
                                          t.str()));
      } else if (is_index_like(field_type)) {
        if (!is_index_like(t))
          error(rhs->srcinfo, fmt::format("expected an index or size type "
                                          "expression, but got type {}",
                                          t.str()));
      } else if (field_type.is_bool()) {
        if (!t.is_bool())
          error(rhs->srcinfo,
                fmt::format("expected a bool expression, but got type {}",
                            t.str()));
      } else if (is_stridable(field_type)) {
        if (!is_stridable(t))
          error(rhs->srcinfo, fmt::format("expected a stride type "
                                          "expression, but got type {}",
                                          t.str()));
      }
    }
    return make_write_config(st.config, st.field, rhs, st.srcinfo);
  }

  Expr check_loop_bound(const Expr& bound) {
    Expr typed = check_expr(bound, Context::Control);
    if (!typed->type.is_error() && !is_index_like(typed->type))
      error(typed->srcinfo, "expected loop bound to be indexable.");
    return typed;
  }

  Stmt check_call(const Call& st) {
    if (!st.f) {
      error(st.srcinfo, "expected a procedure to call");
      return make_call(st.f, st.args, st.srcinfo);
    }
    std::vector<Expr> barriers;
    for (const Expr& b : st.barriers) barriers.push_back(check_barrier(b));
    if (!st.barriers.empty() && !st.f->is_instr())
      error(st.srcinfo,
            fmt::format("only instructions can signal barriers, but {} is "
                        "not an instruction",
                        st.f->name));
    const std::vector<FnArg>& params = st.f->args;
    if (params.size() != st.args.size())
      error(st.srcinfo, fmt::format("expected {} arguments but got {}",
                                    params.size(), st.args.size()));
    std::vector<Expr> args;
    for (size_t i = 0; i < st.args.size(); ++i) {
      if (i >= params.size()) {
        // Extra arguments have no parameter type to check against.
        args.push_back(st.args[i]);
        continue;
      }
      const Type& sig = params[i].type;
      const bool control = sig.kind() == TypeKind::Size ||
                           sig.kind() == TypeKind::Index ||
                           sig.kind() == TypeKind::Stride || sig.is_bool();
      Expr arg =
          check_expr(st.args[i], control ? Context::Control : Context::Data);
      check_call_arg(arg, sig);
      args.push_back(arg);
    }
    return make_call(st.f, std::move(args), st.srcinfo, std::move(barriers));
  }

  // Exo's check_call_types for one argument.
  void check_call_arg(const Expr& arg, const Type& sig) {
    const Type& t = arg->type;
    if (t.is_error()) return;
    if (sig.kind() == TypeKind::Size || sig.kind() == TypeKind::Index) {
      if (!is_index_like(t))
        error(arg->srcinfo, fmt::format("expected size or index type "
                                        "expression, but got type {}",
                                        t.str()));
    } else if (sig.is_bool()) {
      if (!t.is_bool())
        error(arg->srcinfo,
              fmt::format("expected bool-type variable, but got type {}",
                          t.str()));
    } else if (sig.is_stride()) {
      if (!is_stridable(t))
        error(arg->srcinfo,
              fmt::format("expected stride-type variable, but got type {}",
                          t.str()));
    } else if (sig.is_numeric()) {
      if (!t.is_numeric()) {
        error(arg->srcinfo,
              fmt::format("expected numeric type expression, but got type {}",
                          t.str()));
      } else if (t.shape().size() != sig.shape().size()) {
        error(arg->srcinfo,
              fmt::format("expected argument of type '{}', but got type '{}'",
                          sig.str(), t.str()));
      } else if (t.is_real_scalar() && arg->kind != ExprKind::ReadConfig &&
                 !(arg->kind == ExprKind::Read &&
                   arg->as<Read>().idx.empty())) {
        error(arg->srcinfo,
              "expected scalar arguments to be simply variable names for now");
      }
    } else {
      error(arg->srcinfo,
            fmt::format("unsupported parameter type {}", sig.str()));
    }
  }

  Stmt check_window_stmt(const WindowStmt& st) {
    Expr rhs = check_expr(st.rhs, Context::Data);
    if (rhs->type.is_error()) {
      env_[st.name] = kError;
    } else if (rhs->kind == ExprKind::WindowExpr) {
      env_[st.name] = rhs->type;
    } else {
      error(st.srcinfo, fmt::format("unable to disambiguate assignment to "
                                    "undefined variable '{}'",
                                    st.name.name()));
      env_[st.name] = kError;
    }
    return make_window_stmt(st.name, rhs, st.srcinfo, st.mem);
  }

  // A barrier access of a synchronisation statement: `bar` or `bar[i]`.
  // One element of a barrier buffer, `full[k]`, named by a sync statement
  // or a trailing barrier (docs/cuda.md).
  Expr check_barrier(const Expr& e) {
    if (!e || e->kind != ExprKind::Read) {
      const SrcInfo& at = e ? e->srcinfo : current_;
      error(at, "expected one element of a barrier buffer, such as 'full[k]'");
      return error_expr(at);
    }
    const auto& r = e->as<Read>();
    std::optional<Type> t = lookup(r.name, r.srcinfo);
    std::vector<Expr> idx;
    for (const Expr& i : r.idx) idx.push_back(check_index(i));
    if (!t) return make_read(r.name, std::move(idx), r.srcinfo, kError);
    if (t->basetype().kind() != TypeKind::Barrier) {
      error(r.srcinfo, fmt::format("expected '{}' to be a barrier buffer, but "
                                   "it has type {}",
                                   r.name.name(), t->str()));
      return make_read(r.name, std::move(idx), r.srcinfo, kError);
    }
    if (idx.size() != t->shape().size()) {
      error(r.srcinfo,
            fmt::format("expected {} indices for barrier '{}', got "
                        "{}",
                        t->shape().size(), r.name.name(), idx.size()));
      return make_read(r.name, std::move(idx), r.srcinfo, kError);
    }
    return make_read(r.name, std::move(idx), r.srcinfo, t->basetype());
  }

  // ---------------------------------------------------------- expressions

  Expr check_expr(const Expr& e, Context ctx) {
    if (!e) {
      error(current_, "expected an expression");
      return error_expr(current_);
    }
    return ExprFunctor::visit(e, ctx);
  }

  Expr visit_read(const Expr& e, Context) override {
    return check_read(e->as<Read>());
  }
  Expr visit_const(const Expr& e, Context ctx) override {
    return check_const(e->as<Const>(), ctx);
  }
  Expr visit_usub(const Expr& e, Context ctx) override {
    return check_usub(e->as<USub>(), ctx);
  }
  Expr visit_binop(const Expr& e, Context ctx) override {
    return check_binop(e->as<BinOp>(), ctx);
  }
  Expr visit_extern_call(const Expr& e, Context) override {
    return check_extern_call(e->as<ExternCall>());
  }
  Expr visit_window_expr(const Expr& e, Context) override {
    const auto& w = e->as<WindowExpr>();
    return check_window(w.name, w.idx, w.srcinfo);
  }
  Expr visit_stride_expr(const Expr& e, Context) override {
    return check_stride(e->as<StrideExpr>());
  }
  Expr visit_read_config(const Expr& e, Context) override {
    const auto& r = e->as<ReadConfig>();
    if (!r.config) {
      error(r.srcinfo, "expected a configuration to read from");
      return with_type(e, kError);
    }
    if (!r.config->has_field(r.field)) {
      error(r.srcinfo, fmt::format("'{}' has to be a field in config '{}'",
                                   r.field, r.config->name()));
      return with_type(e, kError);
    }
    return with_type(e, r.config->lookup_type(r.field));
  }

  // An index expression: control context, must be index-like.
  Expr check_index(const Expr& i) {
    Expr typed = check_expr(i, Context::Control);
    if (!typed->type.is_error() && !is_index_like(typed->type))
      error(typed->srcinfo,
            fmt::format("cannot index with expression of type '{}'",
                        typed->type.str()));
    return typed;
  }

  // Exo's check_access: types the indices of `name[idx]` and the accessed
  // value. `where` is the location of the whole access.
  std::pair<std::vector<Expr>, Type> check_access(const SrcInfo& where,
                                                  const Sym& name,
                                                  const std::vector<Expr>& idx,
                                                  bool lvalue) {
    std::vector<Expr> typed_idx;
    for (const Expr& i : idx) typed_idx.push_back(check_index(i));

    std::optional<Type> found = lookup(name, where);
    if (!found || found->is_error()) return {std::move(typed_idx), kError};
    const Type& t = *found;
    const size_t rank = t.shape().size();
    if (t.is_numeric()) {
      if (typed_idx.size() > rank) {
        error(where, fmt::format("expected access of variable '{}' of type "
                                 "'{}' to have no more than {} indices, but "
                                 "{} were found.",
                                 name.name(), t.str(), rank, typed_idx.size()));
        return {std::move(typed_idx), kError};
      }
      if (lvalue && typed_idx.size() != rank) {
        error(where, fmt::format("expected lvalue access of variable '{}' of "
                                 "type '{}' to have exactly {} indices, but "
                                 "{} were found.",
                                 name.name(), t.str(), rank, typed_idx.size()));
        return {std::move(typed_idx), kError};
      }
      if (!typed_idx.empty()) return {std::move(typed_idx), t.basetype()};
      return {std::move(typed_idx), t};
    }
    if (lvalue) {
      error(where, fmt::format("cannot assign/reduce to '{}', a non-numeric "
                               "variable of type '{}'",
                               name.name(), t.str()));
      return {std::move(typed_idx), kError};
    }
    if (!typed_idx.empty()) {
      error(where,
            fmt::format("cannot index a variable of type '{}'", t.str()));
      return {std::move(typed_idx), kError};
    }
    return {std::move(typed_idx), t};
  }

  Expr check_read(const Read& r) {
    auto it = env_.find(r.name);
    if (it != env_.end() && it->second.is_tensor()) {
      const size_t rank = it->second.shape().size();
      if (!r.idx.empty() && r.idx.size() < rank) {
        // `x[i]` on a 2-D `x` is sugar for `x[i, :]`.
        std::vector<WindowAccess> accesses;
        for (const Expr& i : r.idx) accesses.push_back(WindowAccess::point(i));
        for (size_t d = r.idx.size(); d < rank; ++d)
          accesses.push_back(WindowAccess::interval(nullptr, nullptr));
        return check_window(r.name, accesses, r.srcinfo);
      }
    }
    auto [idx, type] = check_access(r.srcinfo, r.name, r.idx,
                                    /*lvalue=*/false);
    return make_read(r.name, std::move(idx), r.srcinfo, type);
  }

  Expr check_window(const Sym& name, const std::vector<WindowAccess>& accesses,
                    const SrcInfo& where) {
    std::optional<Type> found = lookup(name, where);
    if (!found || found->is_error())
      return make_window_expr(name, accesses, where, kError);
    const Type& t = *found;
    if (!t.is_tensor()) {
      error(where, fmt::format("cannot perform windowing on non-tensor, "
                               "non-window type {}",
                               t.str()));
      return make_window_expr(name, accesses, where, kError);
    }
    const std::vector<Expr>& shape = t.shape();
    bool ok = true;
    if (shape.size() != accesses.size()) {
      error(where, fmt::format("expected {} indices for window but got {}",
                               shape.size(), accesses.size()));
      ok = false;
    }
    std::vector<WindowAccess> typed;
    std::vector<Expr> window_shape;
    for (size_t d = 0; d < accesses.size(); ++d) {
      const WindowAccess& w = accesses[d];
      if (!w.is_interval) {
        Expr pt = check_index(w.lo);
        ok = ok && !pt->type.is_error() && is_index_like(pt->type);
        typed.push_back(WindowAccess::point(pt));
        continue;
      }
      Expr lo = w.lo ? check_index(w.lo) : make_int(0, where);
      Expr hi;
      if (w.hi) {
        hi = check_index(w.hi);
      } else if (d < shape.size()) {
        hi = shape[d];
      } else {
        hi = error_expr(where);
      }
      ok = ok && !lo->type.is_error() && is_index_like(lo->type) &&
           !hi->type.is_error() && is_index_like(hi->type);
      typed.push_back(WindowAccess::interval(lo, hi));
      if (is_int_literal(lo) && lo->as<Const>().int_value() == 0) {
        window_shape.push_back(hi);
      } else {
        window_shape.push_back(make_binop(BinOpKind::Sub, hi, lo, hi->srcinfo,
                                          Type(TypeKind::Index)));
      }
    }
    Type type = ok ? Type::tensor(t.basetype(), std::move(window_shape),
                                  /*is_window=*/true)
                   : kError;
    return make_window_expr(name, std::move(typed), where, type);
  }

  Expr check_const(const Const& c, Context ctx) {
    Type t;
    if (c.is_bool()) {
      t = Type(TypeKind::Bool);
    } else if (c.is_float()) {
      t = Type(TypeKind::R);
    } else {
      t = Type(ctx == Context::Control ? TypeKind::Int : TypeKind::R);
    }
    return make_const(c.value, c.srcinfo, t);
  }

  Expr check_usub(const USub& u, Context ctx) {
    Expr arg = check_expr(u.arg, ctx);
    const Type& t = arg->type;
    if (t.is_error()) return make_usub(arg, u.srcinfo, kError);
    if (!t.is_real_scalar() && !is_index_like(t)) {
      error(u.srcinfo,
            fmt::format("cannot negate expression of type '{}'", t.str()));
      return make_usub(arg, u.srcinfo, kError);
    }
    if (arg->kind == ExprKind::Const) {
      // Exo folds the negation of a literal.
      const auto& c = arg->as<Const>();
      if (c.is_int()) return make_const(-c.int_value(), u.srcinfo, t);
      if (c.is_float())
        return make_const(-std::get<double>(c.value), u.srcinfo, t);
    }
    return make_usub(arg, u.srcinfo, t);
  }

  Expr check_binop(const BinOp& b, Context ctx) {
    Expr lhs = check_expr(b.lhs, ctx);
    Expr rhs = check_expr(b.rhs, ctx);
    Type t = binop_type(b, lhs, rhs);
    return make_binop(b.op, lhs, rhs, b.srcinfo, t);
  }

  Type binop_type(const BinOp& b, const Expr& lhs, const Expr& rhs) {
    const Type& lt = lhs->type;
    const Type& rt = rhs->type;
    if (lt.is_error() || rt.is_error()) return kError;

    if (is_logical(b.op)) {
      for (const Expr* operand : {&lhs, &rhs})
        if (!(*operand)->type.is_bool())
          error((*operand)->srcinfo, "expected 'bool' argument to logical op");
      return Type(TypeKind::Bool);
    }
    if (b.op == BinOpKind::Eq &&
        ((lt.is_bool() && rt.is_bool()) ||
         (is_stridable(lt) && is_stridable(rt) &&
          !(lt.kind() == TypeKind::Int && rt.kind() == TypeKind::Int)))) {
      return Type(TypeKind::Bool);
    }
    if (is_comparison(b.op)) {
      for (const Expr* operand : {&lhs, &rhs})
        if (!is_index_like((*operand)->type))
          error((*operand)->srcinfo,
                fmt::format("expected 'index' or 'size' argument to "
                            "comparison op: {}",
                            binop_text(b.op)));
      return Type(TypeKind::Bool);
    }

    // Arithmetic.
    if (lt.is_real_scalar()) {
      if (!rt.is_real_scalar()) {
        error(rhs->srcinfo, "expected scalar type");
        return kError;
      }
      if (b.op == BinOpKind::Mod) {
        error(b.srcinfo, "cannot compute modulus of 'R' values");
        return kError;
      }
      // Mixed precisions: the left operand's, as Exo (`2.0 * a` is `R`,
      // `a * 2.0` the precision of `a`).
      return lt;
    }
    if (rt.is_real_scalar()) {
      error(lhs->srcinfo, "expected scalar type");
      return kError;
    }
    if (lt.is_bool() || rt.is_bool()) {
      error((lt.is_bool() ? lhs : rhs)->srcinfo,
            "cannot perform arithmetic on 'bool' values");
      return kError;
    }
    if (lt.is_stride() || rt.is_stride()) {
      error((lt.is_stride() ? lhs : rhs)->srcinfo,
            "cannot perform arithmetic on 'stride' values");
      return kError;
    }
    if (lt.is_tensor() || rt.is_tensor()) {
      error(lhs->srcinfo, "cannot perform arithmetic on tensors");
      return kError;
    }
    if (!is_index_like(lt) || !is_index_like(rt)) {
      error(b.srcinfo, "expected scalar type");
      return kError;
    }
    switch (b.op) {
      case BinOpKind::Div:
      case BinOpKind::Mod:
        if (!is_int_literal(rhs)) {
          error(rhs->srcinfo,
                "cannot divide or modulo by a non-constant value");
          return kError;
        }
        if (rhs->as<Const>().int_value() <= 0) {
          error(rhs->srcinfo,
                "cannot divide or modulo by zero or a negative value");
          return kError;
        }
        return lt;
      case BinOpKind::Mul:
        if (lt.kind() == TypeKind::Int) return rt;
        if (rt.kind() == TypeKind::Int) return lt;
        if (products_ == ControlProducts::Refused) {
          error(b.srcinfo,
                "cannot multiply two non-constant indexing/sizing "
                "expressions, since the result would be non-affine");
          return kError;
        }
        // A product is typed as the sum of the two would be.
        [[fallthrough]];
      default:  // + and -
        if (lt.kind() == TypeKind::Index || rt.kind() == TypeKind::Index)
          return Type(TypeKind::Index);
        if (lt.kind() == TypeKind::Size || rt.kind() == TypeKind::Size)
          return Type(TypeKind::Size);
        return Type(TypeKind::Int);
    }
  }

  // The extern's own checks (its arity first) run even when an argument
  // failed, as in Exo; a failed argument counts as a well-typed `R` there,
  // so that its error is not reported twice.
  Expr check_extern_call(const ExternCall& c) {
    std::vector<Expr> args;
    std::vector<Type> arg_types;
    bool ok = true;
    for (const Expr& a : c.args) {
      Expr typed = check_expr(a, Context::Data);
      ok = ok && !typed->type.is_error();
      arg_types.push_back(typed->type.is_error() ? Type(TypeKind::R)
                                                 : typed->type);
      args.push_back(typed);
    }
    Type t = kError;
    if (!c.f) {
      error(c.srcinfo, "expected an extern function to call");
    } else {
      try {
        t = c.f->typecheck(arg_types);
      } catch (const ExternTypecheckError& err) {
        error(c.srcinfo, err.message);
        t = kError;
      }
      if (!ok) t = kError;
    }
    return make_extern_call(c.f, std::move(args), c.srcinfo, t);
  }

  Expr check_stride(const StrideExpr& s) {
    std::optional<Type> found = lookup(s.name, s.srcinfo);
    Type t = Type(TypeKind::Stride);
    if (!found || found->is_error()) {
      t = kError;
    } else if (!found->is_tensor()) {
      error(s.srcinfo,
            fmt::format("expected {} to be a tensor or window", s.name.name()));
      t = kError;
    } else {
      const size_t rank = found->shape().size();
      if (s.dim < 0 || static_cast<size_t>(s.dim) >= rank) {
        error(s.srcinfo,
              fmt::format("expected {} to be in-bounds (i.e. 0 <= {} < {})",
                          s.dim, s.dim, rank));
        t = kError;
      }
    }
    return make_stride_expr(s.name, s.dim, s.srcinfo, t);
  }
};

// --------------------------------------------------------------------------
// Configuration writes must not depend on loop iterations. A port of Exo's
// LoopIR_Dependencies: a flow-insensitive map from each written buffer,
// config field or loop iterator to what its value (or whether it is written
// at all) may depend on.

// A buffer/iterator (by symbol id) or a config field.
struct DepKey {
  uint64_t sym = 0;
  const Config* config = nullptr;
  std::string field;

  static DepKey of(const Sym& s) { return {s.id(), nullptr, {}}; }
  static DepKey of(const ConfigPtr& c, const std::string& f) {
    return {0, c.get(), f};
  }
  friend bool operator<(const DepKey& a, const DepKey& b) {
    return std::tie(a.sym, a.config, a.field) <
           std::tie(b.sym, b.config, b.field);
  }
};

const Sym* accessed_buffer(const Expr& e) {
  if (!e) return nullptr;
  switch (e->kind) {
    case ExprKind::Read:
      return &e->as<Read>().name;
    case ExprKind::WindowExpr:
      return &e->as<WindowExpr>().name;
    case ExprKind::StrideExpr:
      return &e->as<StrideExpr>().name;
    default:
      return nullptr;
  }
}

// The expressions of a block's statements (not inside callees) as Exo's
// get_reads_of_stmts sees them: allocation shapes and barriers are not
// among them.
class StatementExprVisitor : public IRVisitor {
 protected:
  void visit_alloc(const Alloc&) override {}
  void visit_call(const Call& s) override { visit(s.args); }
  void visit_sync(const Sync&) override {}
};

// Symbols read anywhere in `block` (Exo's get_reads_of_stmts).
std::set<uint64_t> reads_of(const Block& block) {
  class Reads : public StatementExprVisitor {
   public:
    std::set<uint64_t> syms;

   protected:
    void visit_read(const Read& e) override {
      syms.insert(e.name.id());
      StatementExprVisitor::visit_read(e);
    }
    void visit_window_expr(const WindowExpr& e) override {
      syms.insert(e.name.id());
      StatementExprVisitor::visit_window_expr(e);
    }
    void visit_stride_expr(const StrideExpr& e) override {
      syms.insert(e.name.id());
    }
  } reads;
  reads.visit(block);
  return std::move(reads.syms);
}

// Config fields read anywhere in `block`, in order.
std::vector<std::pair<ConfigPtr, std::string>> readconfigs_of(
    const Block& block) {
  class ConfigReads : public StatementExprVisitor {
   public:
    std::vector<std::pair<ConfigPtr, std::string>> fields;

   protected:
    void visit_read_config(const ReadConfig& e) override {
      fields.emplace_back(e.config, e.field);
    }
  } reads;
  reads.visit(block);
  return std::move(reads.fields);
}

// Buffers written in `block`, through callees too (Exo's
// get_writes_of_stmts).
std::set<uint64_t> writes_of(const Block& block) {
  class Writes : public IRVisitor {
   public:
    Writes() : IRVisitor(Visits::StatementsOnly) {}
    std::set<uint64_t> buffers;

   protected:
    void visit_assign(const Assign& s) override { buffers.insert(s.name.id()); }
    void visit_call(const Call& c) override {
      if (!c.f) return;
      std::set<uint64_t> sub = writes_of(c.f->body);
      for (size_t i = 0; i < c.args.size() && i < c.f->args.size(); ++i) {
        if (!sub.count(c.f->args[i].name.id())) continue;
        if (const Sym* buf = accessed_buffer(c.args[i]))
          buffers.insert(buf->id());
      }
    }
  } writes;
  writes.visit(block);
  return std::move(writes.buffers);
}

// Config fields written in `block`, through callees too, in order.
std::vector<std::pair<ConfigPtr, std::string>> writeconfigs_of(
    const Block& block) {
  class ConfigWrites : public IRVisitor {
   public:
    ConfigWrites() : IRVisitor(Visits::StatementsOnly) {}
    std::vector<std::pair<ConfigPtr, std::string>> fields;

   protected:
    void visit_write_config(const WriteConfig& w) override {
      if (w.config) fields.emplace_back(w.config, w.field);
    }
    void visit_call(const Call& c) override {
      if (c.f) visit(c.f->body);
    }
  } writes;
  writes.visit(block);
  return std::move(writes.fields);
}

// The dependencies of every write. Only expressions visited while a write
// is open (`lhs_`) or a condition is read (`control_`) record anything.
class ConfigWriteDependencies : public IRVisitor {
 public:
  explicit ConfigWriteDependencies(const Block& body) { visit(body); }

  // Everything `key` transitively depends on.
  std::set<DepKey> result(const DepKey& key) {
    std::set<DepKey> depends = depends_[key];
    std::vector<DepKey> todo(depends.begin(), depends.end());
    std::set<DepKey> done;
    while (!todo.empty()) {
      DepKey k = todo.back();
      todo.pop_back();
      if (!done.insert(k).second) continue;
      for (const DepKey& d : depends_[k]) {
        depends.insert(d);
        if (!done.count(d)) todo.push_back(d);
      }
    }
    return depends;
  }

 private:
  std::map<DepKey, std::set<DepKey>> depends_;
  std::map<uint64_t, DepKey> alias_;
  std::optional<DepKey> lhs_;
  std::set<DepKey> context_;
  bool control_ = false;

  DepKey resolve(const Sym& s) const {
    auto it = alias_.find(s.id());
    return it == alias_.end() ? DepKey::of(s) : it->second;
  }

  void start_write(const DepKey& key) {
    lhs_ = key;
    depends_[key].insert(key);
    depends_[key].insert(context_.begin(), context_.end());
  }

  void visit_assign(const Assign& a) override {
    start_write(resolve(a.name));
    IRVisitor::visit_assign(a);
    lhs_.reset();
  }

  void visit_write_config(const WriteConfig& w) override {
    start_write(DepKey::of(w.config, w.field));
    visit(w.rhs);
    lhs_.reset();
  }

  void visit_window_stmt(const WindowStmt& w) override {
    const Sym* src = accessed_buffer(w.rhs);
    if (!src) return;
    DepKey buf = resolve(*src);
    alias_[w.name.id()] = buf;
    lhs_ = buf;
    depends_[buf].insert(buf);
    visit(w.rhs);
    lhs_.reset();
  }

  void visit_if(const If& st) override {
    std::set<DepKey> saved = context_;
    control_ = true;
    visit(st.cond);
    control_ = false;
    visit(st.body);
    visit(st.orelse);
    context_ = std::move(saved);
  }

  void visit_for(const For& st) override {
    std::set<DepKey> saved = context_;
    control_ = true;
    lhs_ = DepKey::of(st.iter);
    depends_[*lhs_].insert(*lhs_);
    visit(st.lo);
    visit(st.hi);
    lhs_.reset();
    control_ = false;
    visit(st.body);
    context_ = std::move(saved);
  }

  void visit_call(const Call& c) override {
    if (!c.f) return;
    const std::vector<FnArg>& params = c.f->args;
    const size_t n = std::min(params.size(), c.args.size());
    const std::set<uint64_t> sub_reads = reads_of(c.f->body);
    const std::set<uint64_t> sub_writes = writes_of(c.f->body);
    const std::vector<std::pair<ConfigPtr, std::string>> sub_readconfigs =
        readconfigs_of(c.f->body);

    auto process_reads = [&] {
      for (size_t i = 0; i < n; ++i) {
        const bool maybe_read = !params[i].type.is_numeric() ||
                                sub_reads.count(params[i].name.id());
        if (maybe_read) visit(c.args[i]);
      }
      for (const auto& [cfg, field] : sub_readconfigs)
        if (lhs_) depends_[*lhs_].insert(DepKey::of(cfg, field));
    };

    for (size_t i = 0; i < n; ++i) {
      if (!params[i].type.is_numeric() ||
          !sub_writes.count(params[i].name.id()))
        continue;
      const Expr& a = c.args[i];
      DepKey name;
      if (const Sym* buf = accessed_buffer(a)) {
        name = resolve(*buf);
      } else if (a && a->kind == ExprKind::ReadConfig) {
        name =
            DepKey::of(a->as<ReadConfig>().config, a->as<ReadConfig>().field);
      } else {
        continue;
      }
      start_write(name);
      process_reads();
      lhs_.reset();
    }

    for (const auto& [cfg, field] : writeconfigs_of(c.f->body)) {
      start_write(DepKey::of(cfg, field));
      process_reads();
      lhs_.reset();
    }
  }

  void note_read(const DepKey& key) {
    if (lhs_) depends_[*lhs_].insert(key);
    if (control_) context_.insert(key);
  }

  void visit_read(const Read& e) override {
    note_read(resolve(e.name));
    IRVisitor::visit_read(e);
  }
  void visit_window_expr(const WindowExpr& e) override {
    note_read(resolve(e.name));
    IRVisitor::visit_window_expr(e);
  }
  void visit_read_config(const ReadConfig& e) override {
    note_read(DepKey::of(e.config, e.field));
  }
};

// Where each configuration field is first written in `body`: the write
// itself, or the call whose callee writes it.
std::map<DepKey, SrcInfo> first_write_sites(const Block& body) {
  class Sites : public IRVisitor {
   public:
    Sites() : IRVisitor(Visits::StatementsOnly) {}
    std::map<DepKey, SrcInfo> first;

   protected:
    void visit_write_config(const WriteConfig& w) override {
      if (w.config) first.emplace(DepKey::of(w.config, w.field), w.srcinfo);
    }
    void visit_call(const Call& c) override {
      if (!c.f) return;
      for (const auto& [cfg, field] : writeconfigs_of(c.f->body))
        first.emplace(DepKey::of(cfg, field), c.srcinfo);
    }
  } sites;
  sites.visit(body);
  return std::move(sites.first);
}

// The iterators of the loops of `body` (not inside callees).
std::set<DepKey> loop_iterators(const Block& body) {
  class Iterators : public IRVisitor {
   public:
    Iterators() : IRVisitor(Visits::StatementsOnly) {}
    std::set<DepKey> iters;

   protected:
    void visit_for(const For& f) override {
      iters.insert(DepKey::of(f.iter));
      IRVisitor::visit_for(f);
    }
  } loops;
  loops.visit(body);
  return std::move(loops.iters);
}

// Exo's check that no configuration write depends on a loop iterator,
// reported at the first write of each field.
void check_config_writes(const Proc& p, std::vector<Diagnostic>& out) {
  const std::vector<std::pair<ConfigPtr, std::string>> writes =
      writeconfigs_of(p->body);
  if (writes.empty()) return;
  const std::map<DepKey, SrcInfo> sites = first_write_sites(p->body);
  const std::set<DepKey> loop_iters = loop_iterators(p->body);
  ConfigWriteDependencies deps(p->body);
  std::set<DepKey> reported;
  for (const auto& [cfg, field] : writes) {
    DepKey key = DepKey::of(cfg, field);
    if (!reported.insert(key).second) continue;
    for (const DepKey& d : deps.result(key)) {
      if (loop_iters.count(d)) {
        out.push_back({sites.at(key),
                       fmt::format("expected writes to configuration {}.{} "
                                   "does not depend on loop iterations",
                                   cfg->name(), field)});
        break;
      }
    }
  }
}

}  // namespace

Proc typecheck(const Proc& untyped, ControlProducts products) {
  TypeChecker checker(products);
  Proc typed = checker.check(untyped);
  std::vector<Diagnostic>& diagnostics = checker.diagnostics();
  check_config_writes(typed, diagnostics);
  if (std::string problem = instr_template_problem(*typed); !problem.empty())
    diagnostics.push_back({typed->srcinfo, std::move(problem)});
  if (!diagnostics.empty()) throw typecheck_error(std::move(diagnostics));
  return typed;
}

Expr typecheck_expr(const Expr& untyped,
                    const std::unordered_map<Sym, Type>& env) {
  TypeChecker checker(ControlProducts::Allowed);
  Expr typed = checker.check_in_env(untyped, env);
  if (!checker.diagnostics().empty())
    throw typecheck_error(std::move(checker.diagnostics()));
  return typed;
}

}  // namespace exo2
