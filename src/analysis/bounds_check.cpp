// Definition-time bounds checking (docs/writing-kernels.md, docs/errors.md).
//
// The checker walks the procedure once, in source order, keeping a context of
// facts in an SmtEncoder: size arguments are positive, preconditions hold,
// loop iterators lie in their ranges, and `if` conditions (or their negation)
// hold. At each point it proves with Z3:
// - every index of a read, write or reduction lies in [0, extent) of the
//   accessed buffer. An access through a window parameter is checked
//   against the parameter's extents (all the callee knows); an access
//   through a window statement's alias `z = x[...]` is checked, as in Exo,
//   where it lands: in x (the alias's own extents do not bound it);
// - every window expression passed to a call, and every alias passed whole,
//   lies inside the buffer it windows (the callee may access all of it).
//   A window statement itself is checked where it is used, so a window that
//   leaves its buffer but is never accessed there is accepted, as in Exo.
//   Exo reports accesses through windows as reads of the windowed buffer,
//   so a window whose points or bounds leave the buffer is reported as
//   `x is read out-of-bounds when: ...`; an interval `lo:hi` with `hi < lo`
//   is reported with Exo's non-negative form on `hi - lo`;
// - every tensor dimension (arguments and allocations) is positive;
// - every loop runs a non-negative number of times (`hi - lo`), as Exo
//   checks with its non-negative form;
// - every call: size arguments positive, argument shapes equal to the
//   callee's parameter shapes after substituting the actual arguments, and
//   the callee's preconditions hold (its `stride(x, d)` refer to the strides
//   of the actual arguments);
// - every precondition is satisfiable (it is assumed afterwards either way).
// All failures are collected and thrown as one effect_check_error. Passing
// one buffer to two data parameters of a call is a SchedulingError, raised
// only when the effect check found nothing (aliasing is checked last).
//
// Message texts follow Exo's boundscheck.py: the counterexample lists the
// integer variables in scope (size, index and stride arguments, then the
// iterators of the enclosing loops) as ` name = value` items joined by
// commas after two spaces; the call-related forms (`type-shape ...`,
// `Could not verify assertion ...`) end without a period, as in Exo.

#include "exo2/analysis/bounds_check.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exo2/analysis/call_site.hpp"
#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"

namespace exo2 {

namespace {

std::string shape_text(const std::vector<Expr>& shape) {
  std::vector<std::string> parts;
  for (const auto& d : shape) parts.push_back(print_expr(d));
  return fmt::format("[{}]", fmt::join(parts, ","));
}

// Where a window statement's alias lies in the buffer it views (an
// argument or allocation, never another alias: chains are composed), per
// dimension of that buffer: a point index, or an interval's lower bound and
// extent.
struct AliasView {
  Sym base;
  std::vector<bool> is_interval;
  std::vector<z3::expr> lo;      // the index of a point
  std::vector<z3::expr> extent;  // of an interval (a point's is unused)
};

// What the checker knows about a buffer name in scope.
struct BufferInfo {
  Sym root;                       // the allocation or argument owning the data
  std::vector<Expr> shape_exprs;  // extents as written (for messages)
  std::vector<z3::expr> shape;    // extents as terms
  std::optional<AliasView> view;  // for a window statement's alias
};

// A shape as printed and as terms.
struct Shape {
  std::vector<Expr> exprs;
  std::vector<z3::expr> terms;
};

// Statements check their accesses and extend the context; data
// expressions check their reads.
class BoundsChecker : public IRVisitor {
 public:
  explicit BoundsChecker(const Proc& p) : proc_(p) {}
  // Checks only the call statement `focus`; the rest of the procedure only
  // gives it its context.
  BoundsChecker(const Proc& p, const StmtNode& focus)
      : proc_(p), focus_(&focus), checking_(false) {}

  std::vector<CheckFailure> check_focus() {
    const ProcNode& p = *proc_;
    for (const auto& a : p.args) declare_arg(a);
    for (const auto& pred : p.preds) smt_.assume(smt_.encode(pred));
    visit(p.body);
    return failures_;
  }

  void run() {
    check_all();
    if (!diags_.empty()) throw effect_check_error(diags_);
    if (alias_error_)
      throw SchedulingError(alias_error_->first,
                            {.srcinfo = alias_error_->second,
                             .condition = "NoAlias",
                             .hint = "pass disjoint windows, or copy one "
                                     "argument through a temporary buffer"});
  }

  std::vector<CheckFailure> failures() {
    check_all();
    return failures_;
  }

 private:
  void check_all() {
    const ProcNode& p = *proc_;
    for (const auto& a : p.args) declare_arg(a);

    // Preconditions: each must be satisfiable given the arguments and the
    // earlier preconditions; all are assumed afterwards, as in Exo. While
    // every one so far was satisfiable (the sizes' `> 0` are), so are the
    // facts, and a precondition that only fixes a new variable
    // (`stride(x, 0) == 1`) needs no query.
    std::vector<Diagnostic> pred_diags;
    bool facts_satisfiable = true;
    for (const auto& pred : p.preds) {
      z3::expr fact = smt_.encode(pred);
      if (facts_satisfiable && smt_.defines_free_constant(fact)) {
        smt_.assume(fact);
        continue;
      }
      const QueryResult r = smt_.satisfiable(fact);
      facts_satisfiable = facts_satisfiable && r.yes();
      if (r.no()) {
        const std::string what =
            fmt::format("The assertion {} at {} is always unsatisfiable",
                        print_expr(pred), pred->srcinfo.str());
        pred_diags.push_back({pred->srcinfo, what + "."});
        failures_.push_back({pred->srcinfo, what, ""});
      }
      smt_.assume(fact);
    }
    // Argument extents come first in the source, so they are reported
    // before the preconditions (but checked assuming them).
    for (const auto& a : p.args)
      if (a.type.is_tensor())
        for (const auto& d : a.type.shape()) check_positive(d);
    diags_.insert(diags_.end(), pred_diags.begin(), pred_diags.end());

    visit(p.body);
  }

  // ---- Declarations --------------------------------------------------------

  void declare_arg(const FnArg& a) {
    switch (a.type.kind()) {
      case TypeKind::Size:
        scope_vars_.push_back({a.name.name(), smt_.var(a.name)});
        smt_.assume(smt_.var(a.name) > 0);
        return;
      case TypeKind::Index:
      case TypeKind::Int:
      case TypeKind::Stride:
        scope_vars_.push_back({a.name.name(), smt_.var(a.name)});
        return;
      case TypeKind::Tensor:
        if (a.type.is_window()) {
          // Unknown strides: stride(x, d) stays a free variable.
          buffers_.insert_or_assign(
              a.name,
              BufferInfo{a.name, a.type.shape(), encode_all(a.type.shape())});
        } else {
          declare_dense(a.name, a.type);
        }
        return;
      default:
        if (a.type.is_real_scalar())
          buffers_.insert_or_assign(a.name, BufferInfo{a.name, {}, {}});
        return;
    }
  }

  // A dense row-major tensor: stride 1 in the last dimension, and each
  // other stride the product of the later extents.
  void declare_dense(const Sym& name, const Type& type) {
    BufferInfo info{name, type.shape(), encode_all(type.shape())};
    z3::expr stride = smt_.int_value(1);
    for (size_t d = info.shape.size(); d-- > 0;) {
      smt_.bind_stride(name, static_cast<int>(d), stride);
      stride = (stride * info.shape[d]).simplify();
    }
    buffers_.insert_or_assign(name, std::move(info));
  }

  std::vector<z3::expr> encode_all(const std::vector<Expr>& es) {
    std::vector<z3::expr> out;
    for (const auto& e : es) out.push_back(smt_.encode(e));
    return out;
  }

  const BufferInfo* buffer(const Sym& name) const {
    auto it = buffers_.find(name);
    return it == buffers_.end() ? nullptr : &it->second;
  }

  // The entries of a window expression, with omitted interval bounds (null
  // before typechecking) filled in as `0` and the extent.
  std::vector<WindowAccess> accesses(const WindowExpr& w) const {
    std::vector<WindowAccess> out = w.idx;
    const BufferInfo* info = buffer(w.name);
    for (size_t d = 0; d < out.size(); ++d) {
      if (!out[d].is_interval) continue;
      if (!out[d].lo) out[d].lo = make_int(0, w.srcinfo);
      if (!out[d].hi && info && d < info->shape_exprs.size())
        out[d].hi = info->shape_exprs[d];
    }
    return out;
  }

  // The extents of a window expression: `hi - lo` per interval.
  Shape window_shape(const WindowExpr& w) {
    Shape s;
    const auto& typed = w.type.shape();
    size_t k = 0;
    for (const auto& acc : accesses(w)) {
      if (!acc.is_interval) continue;
      s.terms.push_back(smt_.encode(acc.hi) - smt_.encode(acc.lo));
      s.exprs.push_back(k < typed.size()
                            ? typed[k]
                            : make_binop(BinOpKind::Sub, acc.hi, acc.lo,
                                         acc.hi->srcinfo, acc.hi->type));
      ++k;
    }
    return s;
  }

  // ---- Reporting -----------------------------------------------------------

  // The second line of a message: the counterexample of `r`, or a note that
  // the solver gave up.
  std::string witness_line(const QueryResult& r) {
    if (r.timed_out() && r.reason_unknown != "timeout" &&
        r.reason_unknown != "canceled" && !r.reason_unknown.empty())
      return fmt::format("   (unknown: the Z3 solver gave up: {})",
                         r.reason_unknown);
    if (r.timed_out())
      return fmt::format("   (unknown: the Z3 solver timed out after {} ms)",
                         smt_.timeout_ms());
    const std::string values = smt_.counterexample(r, scope_vars_);
    if (values.empty())
      return "   (always: the condition depends on no variable)";
    return "  " + values;
  }

  // Proves `goal` in the current context; otherwise reports
  // `<head>\n  <counterexample>.` at `at`. Returns whether it held.
  bool require(const z3::expr& goal, const SrcInfo& at,
               const std::string& head) {
    if (!checking_) return true;
    QueryResult r = smt_.prove(goal);
    if (r.yes()) return true;
    diags_.push_back({at, head + "\n" + witness_line(r) + "."});
    failures_.push_back({at, sentence(head),
                         r.no() ? smt_.counterexample(r, scope_vars_) : ""});
    return false;
  }

  // `head` without its trailing `... when:` clause.
  static std::string sentence(const std::string& head) {
    const std::string when = " when:";
    if (head.size() < when.size() ||
        head.compare(head.size() - when.size(), when.size(), when) != 0)
      return head;
    const size_t last = head.rfind(". ");
    return last == std::string::npos ? head.substr(0, head.size() - when.size())
                                     : head.substr(0, last);
  }

  void check_positive(const Expr& e) {
    require(smt_.encode(e) > 0, e->srcinfo,
            fmt::format("expected expression {} to always be positive. It can "
                        "be non positive when:",
                        print_expr(e)));
  }

  void check_non_negative(const Expr& printed, const z3::expr& term,
                          const SrcInfo& at) {
    require(term >= 0, at,
            fmt::format("expected expression {} to always be non-negative. It "
                        "can be negative when:",
                        print_expr(printed)));
  }

  // ---- Accesses ------------------------------------------------------------

  void check_access(const Sym& name, const std::vector<Expr>& idx,
                    const char* verb, const SrcInfo& at) {
    const BufferInfo* info = buffer(name);
    if (!info || idx.empty() || info->shape.size() != idx.size()) return;
    if (info->view) {
      // Through an alias: where the access lands in the viewed buffer.
      const AliasView& v = *info->view;
      const BufferInfo* base = buffer(v.base);
      if (!base || base->shape.size() != v.lo.size()) return;
      z3::expr in_bounds = smt_.bool_value(true);
      size_t k = 0;
      for (size_t d = 0; d < v.lo.size(); ++d) {
        z3::expr i =
            v.is_interval[d] ? v.lo[d] + smt_.encode(idx[k++]) : v.lo[d];
        in_bounds = in_bounds && 0 <= i && i < base->shape[d];
      }
      require(in_bounds, at,
              fmt::format("{} is {} out-of-bounds when:", v.base.name(), verb));
      return;
    }
    z3::expr in_bounds = smt_.bool_value(true);
    for (size_t d = 0; d < idx.size(); ++d) {
      z3::expr i = smt_.encode(idx[d]);
      in_bounds = in_bounds && 0 <= i && i < info->shape[d];
    }
    require(in_bounds, at,
            fmt::format("{} is {} out-of-bounds when:", name.name(), verb));
  }

  // Where the window expression `w` lies in the buffer it finally views
  // (through aliases), or nullopt for a name the checker does not know.
  std::optional<AliasView> view_of(const WindowExpr& w) {
    const BufferInfo* info = buffer(w.name);
    if (!info || info->shape.size() != w.idx.size()) return std::nullopt;
    const std::vector<WindowAccess> idx = accesses(w);
    if (!info->view) {
      AliasView v{w.name, {}, {}, {}};
      for (const WindowAccess& acc : idx) {
        z3::expr lo = smt_.encode(acc.lo);
        v.is_interval.push_back(acc.is_interval);
        v.extent.push_back(acc.is_interval ? smt_.encode(acc.hi) - lo : lo);
        v.lo.push_back(lo);
      }
      return v;
    }
    AliasView v = *info->view;
    size_t k = 0;
    for (size_t d = 0; d < v.lo.size(); ++d) {
      if (!v.is_interval[d]) continue;
      const WindowAccess& acc = idx[k++];
      z3::expr lo = smt_.encode(acc.lo);
      v.is_interval[d] = acc.is_interval;
      v.extent[d] = acc.is_interval ? smt_.encode(acc.hi) - lo : lo;
      v.lo[d] = v.lo[d] + lo;
    }
    return v;
  }

  // The whole view lies inside the buffer it views (a callee may access
  // any element of a window it is passed).
  void check_view_inside(const AliasView& v, const SrcInfo& at) {
    const BufferInfo* base = buffer(v.base);
    if (!base || base->shape.size() != v.lo.size()) return;
    z3::expr inside = smt_.bool_value(true);
    for (size_t d = 0; d < v.lo.size(); ++d) {
      inside = inside && 0 <= v.lo[d];
      inside =
          inside && (v.is_interval[d] ? v.lo[d] + v.extent[d] <= base->shape[d]
                                      : v.lo[d] < base->shape[d]);
    }
    require(inside, at,
            fmt::format("{} is read out-of-bounds when:", v.base.name()));
  }

  // An interval `lo:hi` of a window has `hi - lo >= 0`.
  void check_window_extents(const WindowExpr& w) {
    for (const auto& acc : accesses(w)) {
      if (!acc.is_interval || !acc.lo || !acc.hi) continue;
      Expr extent =
          make_binop(BinOpKind::Sub, acc.hi, acc.lo, w.srcinfo, acc.hi->type);
      check_non_negative(extent, smt_.encode(acc.hi) - smt_.encode(acc.lo),
                         w.srcinfo);
    }
  }

  // A window expression a call is passed lies inside its buffer.
  void check_window(const WindowExpr& w) {
    if (std::optional<AliasView> v = view_of(w))
      check_view_inside(*v, w.srcinfo);
    check_window_extents(w);
  }

  // ---- Data expressions: their reads, left to right -----------------------

  void visit_read(const Read& r) override {
    if (!r.idx.empty()) check_access(r.name, r.idx, "read", r.srcinfo);
  }

  void visit_window_expr(const WindowExpr& w) override { check_window(w); }

  // ---- Statements ----------------------------------------------------------

  void visit_assign(const Assign& a) override {
    check_access(a.name, a.idx,
                 a.kind == StmtKind::Assign ? "written" : "reduced", a.srcinfo);
    visit(a.rhs);
  }

  void visit_write_config(const WriteConfig& w) override {
    visit(w.rhs);
    advance_config_state(smt_, w);
  }

  void visit_if(const If& i) override {
    z3::expr cond = smt_.encode(i.cond);
    smt_.push();
    smt_.assume(cond);
    visit(i.body);
    smt_.pop();
    smt_.push();
    smt_.assume(!cond);
    visit(i.orelse);
    smt_.pop();
    advance_config_state(smt_, i);
  }

  void visit_for(const For& f) override {
    z3::expr lo = smt_.encode(f.lo);
    z3::expr hi = smt_.encode(f.hi);
    // The trip count `hi - lo`, printed as `hi` when `lo` is 0.
    const bool from_zero = f.lo->kind == ExprKind::Const &&
                           f.lo->as<Const>().is_int() &&
                           f.lo->as<Const>().int_value() == 0;
    check_non_negative(from_zero ? f.hi
                                 : make_binop(BinOpKind::Sub, f.hi, f.lo,
                                              f.srcinfo, Type(TypeKind::Index)),
                       hi - lo, f.srcinfo);
    // The body may run after earlier iterations (and the code after
    // the loop after any number of them).
    forget_config_values(smt_, config_fields_written(f.body));
    smt_.push();
    z3::expr i = smt_.var(f.iter);
    smt_.assume(lo <= i && i < hi);
    scope_vars_.push_back({f.iter.name(), i});
    visit(f.body);
    scope_vars_.pop_back();
    smt_.pop();
  }

  void visit_alloc(const Alloc& a) override {
    if (a.kind == StmtKind::Free) return;
    for (const auto& d : a.type.shape()) check_positive(d);
    if (a.type.is_tensor()) {
      declare_dense(a.name, a.type);
    } else {
      buffers_.insert_or_assign(a.name, BufferInfo{a.name, {}, {}});
    }
  }

  void visit_call(const Call& c) override {
    if (&c == focus_) {
      checking_ = true;
      call(c);
      checking_ = false;
      return;
    }
    call(c);
    barriers(c.barriers);
    advance_config_state(smt_, c);
  }

  void visit_window_stmt(const WindowStmt& w) override { window_stmt(w); }

  void visit_sync(const Sync& s) override { barriers(s.barriers); }

  // Barrier elements are logical: within the full extent of every
  // dimension, ring dimensions included (docs/cuda.md).
  void barriers(const std::vector<Expr>& bs) {
    for (const Expr& b : bs)
      if (b->kind == ExprKind::Read)
        check_access(b->as<Read>().name, b->as<Read>().idx, "signalled",
                     b->srcinfo);
  }

  void window_stmt(const WindowStmt& w) {
    const Expr& rhs = w.rhs;
    if (rhs->kind == ExprKind::WindowExpr) {
      const auto& we = rhs->as<WindowExpr>();
      // Its bounds are checked where it is used (check_access, call).
      check_window_extents(we);
      const BufferInfo* src = buffer(we.name);
      if (!src) return;
      Shape shape = window_shape(we);
      BufferInfo info{src->root, shape.exprs, shape.terms, view_of(we)};
      // Windowing keeps the strides of the interval dimensions.
      int k = 0;
      for (size_t d = 0; d < we.idx.size(); ++d)
        if (we.idx[d].is_interval)
          smt_.bind_stride(w.name, k++,
                           smt_.stride(we.name, static_cast<int>(d)));
      buffers_.insert_or_assign(w.name, std::move(info));
    } else if (rhs->kind == ExprKind::Read) {
      const auto& r = rhs->as<Read>();
      const BufferInfo* src = buffer(r.name);
      if (!src || !r.idx.empty()) return;
      BufferInfo info = *src;
      for (size_t d = 0; d < info.shape.size(); ++d)
        smt_.bind_stride(w.name, static_cast<int>(d),
                         smt_.stride(r.name, static_cast<int>(d)));
      buffers_.insert_or_assign(w.name, std::move(info));
    }
  }

  // The buffer an argument passes, after resolving window aliases.
  std::optional<Sym> passed_buffer(const Expr& arg) const {
    Sym name;
    if (arg->kind == ExprKind::Read) {
      name = arg->as<Read>().name;
    } else if (arg->kind == ExprKind::WindowExpr) {
      name = arg->as<WindowExpr>().name;
    } else {
      return std::nullopt;
    }
    const BufferInfo* info = buffer(name);
    return info ? info->root : name;
  }

  void check_aliasing(const Call& c) {
    if (alias_error_) return;
    std::set<Sym> passed;
    const size_t n = std::min(c.f->args.size(), c.args.size());
    for (size_t k = 0; k < n; ++k) {
      if (!c.f->args[k].type.is_numeric()) continue;
      std::optional<Sym> b = passed_buffer(c.args[k]);
      if (!b) continue;
      if (!passed.insert(*b).second) {
        // Exo's text (rewrite/new_eff.py), two spaces before "Please".
        alias_error_ = {
            fmt::format(
                "Cannot Pass the same buffer '{}' via multiple arguments in "
                "call to {}, since doing so would introduce aliased "
                "arguments.  Please contact the Exo developers if you need "
                "support for aliased arguments.",
                b->name(), c.f->name),
            c.srcinfo};
        return;
      }
    }
  }

  // The shape of a tensor argument in the caller.
  std::optional<Shape> argument_shape(const Expr& arg) {
    if (arg->kind == ExprKind::WindowExpr)
      return window_shape(arg->as<WindowExpr>());
    if (arg->kind == ExprKind::Read && arg->as<Read>().idx.empty()) {
      const BufferInfo* info = buffer(arg->as<Read>().name);
      if (info) return Shape{info->shape_exprs, info->shape};
    }
    return std::nullopt;
  }

  void call(const Call& c) {
    const ProcNode& f = *c.f;
    check_aliasing(c);
    const size_t n = std::min(f.args.size(), c.args.size());
    std::unordered_map<Sym, Expr> subst;
    for (size_t k = 0; k < n; ++k) subst.emplace(f.args[k].name, c.args[k]);

    for (size_t k = 0; k < n; ++k) {
      const FnArg& param = f.args[k];
      const Expr& arg = c.args[k];
      if (arg->kind == ExprKind::WindowExpr) {
        check_window(arg->as<WindowExpr>());
      } else if (arg->kind == ExprKind::Read && arg->as<Read>().idx.empty()) {
        const BufferInfo* info = buffer(arg->as<Read>().name);
        if (info && info->view) check_view_inside(*info->view, arg->srcinfo);
      }
      if (param.type.kind() == TypeKind::Size) check_positive(arg);
      if (!param.type.is_tensor()) continue;
      std::optional<Shape> actual = argument_shape(arg);
      if (!actual || actual->terms.size() != param.type.shape().size())
        continue;
      std::vector<Expr> required;
      z3::expr equal = smt_.bool_value(true);
      for (size_t d = 0; d < actual->terms.size(); ++d) {
        required.push_back(at_call_site(param.type.shape()[d], subst));
        equal = equal && actual->terms[d] == smt_.encode(required.back());
      }
      require(equal, arg->srcinfo,
              fmt::format("type-shape of calling argument may not equal the "
                          "required type-shape: {} vs. {}. It could be non "
                          "equal when:",
                          shape_text(actual->exprs), shape_text(required)));
    }

    for (const auto& pred : f.preds) {
      require(smt_.encode(at_call_site(pred, subst)), c.srcinfo,
              fmt::format("Could not verify assertion {} in {} at {}. "
                          "Assertion is false when:",
                          print_expr(pred), f.name, pred->srcinfo.str()));
    }
  }

  const Proc& proc_;
  // With a focus, only that call is checked.
  const StmtNode* focus_ = nullptr;
  bool checking_ = true;
  std::vector<CheckFailure> failures_;
  SmtEncoder smt_;
  std::vector<Diagnostic> diags_;
  // The message and the call of the first aliased call found.
  std::optional<std::pair<std::string, SrcInfo>> alias_error_;
  std::unordered_map<Sym, BufferInfo> buffers_;
  // The integer variables shown in counterexamples, outermost first.
  std::vector<NamedTerm> scope_vars_;
};

}  // namespace

void check_bounds(const Proc& p) { BoundsChecker(p).run(); }

// Code that primitives produce may hold what the checker cannot encode
// (what the frontend would have refused): that is a failure, not a crash.
template <class F>
std::vector<CheckFailure> failures_or_unencodable(const SrcInfo& at, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    return {{at, fmt::format("cannot check it ({})", e.what()), ""}};
  }
}

std::vector<CheckFailure> bounds_failures(const Proc& p) {
  return failures_or_unencodable(p->srcinfo,
                                 [&] { return BoundsChecker(p).failures(); });
}

std::vector<CheckFailure> check_call(const Proc& p, const StmtNode& call) {
  if (call.kind != StmtKind::Call)
    throw std::invalid_argument("check_call: expected a call statement");
  return failures_or_unencodable(
      call.srcinfo, [&] { return BoundsChecker(p, call).check_focus(); });
}

}  // namespace exo2
