#include "exo2/primitives/unification.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/control_exprs.hpp"

namespace exo2::primitives {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw UnificationError(message);
}

// ---- Exact linear algebra -------------------------------------------------

struct Rational {
  int64_t num = 0, den = 1;
  Rational() = default;
  Rational(int64_t n, int64_t d = 1) : num(n), den(d) {  // NOLINT
    if (den < 0) num = -num, den = -den;
    int64_t g = std::gcd(num < 0 ? -num : num, den);
    if (g > 1) num /= g, den /= g;
  }
  bool zero() const { return num == 0; }
  friend Rational operator+(Rational a, Rational b) {
    return {a.num * b.den + b.num * a.den, a.den * b.den};
  }
  friend Rational operator*(Rational a, Rational b) {
    return {a.num * b.num, a.den * b.den};
  }
  friend Rational operator/(Rational a, Rational b) {
    return {a.num * b.den, a.den * b.num};
  }
  Rational operator-() const { return {-num, den}; }
};

// sum(coef[v] * v) + constant, over the variables of the Unifier.
struct Linear {
  std::map<int, Rational> coef;
  Rational constant;

  static Linear of_var(int v) {
    Linear l;
    l.coef[v] = 1;
    return l;
  }
  static Linear of_const(int64_t c) {
    Linear l;
    l.constant = c;
    return l;
  }
  bool is_constant() const { return coef.empty(); }
  Rational at(int v) const {
    auto it = coef.find(v);
    return it == coef.end() ? Rational() : it->second;
  }
  // this += scale * other
  void add(const Linear& other, Rational scale) {
    for (const auto& [v, c] : other.coef) {
      Rational n = at(v) + scale * c;
      if (n.zero())
        coef.erase(v);
      else
        coef[v] = n;
    }
    constant = constant + scale * other.constant;
  }
  void scale(Rational s) {
    for (auto& [v, c] : coef) c = c * s;
    constant = constant * s;
  }
};

Linear operator-(Linear a, const Linear& b) {
  a.add(b, -1);
  return a;
}

enum class VarKind {
  Unknown,  // a parameter or window offset to solve for
  Known,    // a free control value of the block (or a whole subterm)
  Bound,    // a value bound inside the block (loop iterator, or a subterm
            // mentioning one): may not occur in a solution
};

struct Var {
  VarKind kind;
  std::string name;
  Expr expr;  // Known: the block's expression for it
};

struct Equation {
  Linear form;  // == 0
  std::function<std::string()> describe;
};

// One row per solved unknown, kept in reduced form: row == 0 with
// coefficient 1 on the pivot and 0 on every other pivot.
struct LinearSystem {
  struct Row {
    int pivot;
    Linear form;
  };
  std::vector<Row> rows;
  std::vector<const Equation*> residuals;
  std::vector<Linear> residual_forms;
};

std::string access_text(const std::string& name, const std::vector<Expr>& idx) {
  if (idx.empty()) return name;
  std::vector<std::string> parts;
  for (const Expr& e : idx) parts.push_back(print_expr(e));
  return fmt::format("{}[{}]", name, fmt::join(parts, ", "));
}

bool compatible_precision(const Type& a, const Type& b) {
  TypeKind x = a.basetype().kind(), y = b.basetype().kind();
  return x == y || x == TypeKind::R || y == TypeKind::R;
}

double const_number(const Const& c) {
  if (c.is_bool()) return std::get<bool>(c.value) ? 1 : 0;
  if (c.is_int()) return static_cast<double>(c.int_value());
  return std::get<double>(c.value);
}

// ---- The unifier ----------------------------------------------------------

// The sub-procedure's statements and data expressions are matched against
// the block's side by side: each pattern node dispatches on its kind, and
// the block's node of the same kind comes along as the argument.
class Unifier : private StmtFunctor<void(const Stmt&)>,
                private ExprFunctor<void(const Expr&)> {
  using StmtUnifier = StmtFunctor<void(const Stmt&)>;
  using DataUnifier = ExprFunctor<void(const Expr&)>;

 public:
  Unifier(const Proc& subproc, const Block& block,
          const std::vector<SymbolInfo>& scope)
      : sub_(subproc), block_(block) {
    for (const SymbolInfo& s : scope) scope_types_[s.sym] = s.type;
    for (size_t k = 0; k < sub_->args.size(); k++) {
      const FnArg& a = sub_->args[k];
      if (a.type.is_indexable()) {
        control_params_[a.name] = new_var(VarKind::Unknown, a.name.name());
      } else if (a.type.is_bool()) {
        bool_params_[a.name] = nullptr;
      } else if (a.type.is_numeric()) {
        buffer_params_[a.name] = BufferParam{&a, a.type.is_window()};
      }
    }
  }

  UnificationResult run() {
    unify_block(sub_->body, block_);
    check_all_used();
    return solve();
  }

 private:
  struct AccessPair {
    std::vector<Linear> pidx, bidx;
    std::function<std::string()> describe;
  };
  struct BufferParam {
    const FnArg* arg;
    bool windowed;
    std::optional<Sym> solution;
    SrcInfo solution_srcinfo;
    bool shape_unified = false;
    std::vector<int> offsets;  // windowed: one unknown per buffer dimension
    std::vector<AccessPair> accesses;
  };

  int new_var(VarKind kind, std::string name, Expr expr = nullptr) {
    vars_.push_back({kind, std::move(name), std::move(expr)});
    return static_cast<int>(vars_.size()) - 1;
  }
  bool is_unknown(int v) const { return vars_[v].kind == VarKind::Unknown; }

  // ---- statements ---------------------------------------------------------

  void unify_block(const Block& p, const Block& b) {
    if (p.size() != b.size()) {
      std::string ploc = p.empty() ? "" : " (@" + p[0]->srcinfo.str() + ")";
      std::string bloc = b.empty() ? "" : " (@" + b[0]->srcinfo.str() + ")";
      fail(fmt::format("cannot unify {} statement(s){} with {} statement(s){}",
                       p.size(), ploc, b.size(), bloc));
    }
    for (size_t k = 0; k < p.size(); k++) unify_stmt(p[k], b[k]);
  }

  void unify_stmt(const Stmt& ps, const Stmt& bs) {
    if (ps->kind != bs->kind)
      fail(fmt::format(
          "cannot unify a {} statement (@{}) with a {} statement (@{})",
          kind_name(ps->kind), ps->srcinfo.str(), kind_name(bs->kind),
          bs->srcinfo.str()));
    StmtUnifier::visit(ps, bs);
  }

  void visit_assign(const Stmt& ps, const Stmt& bs) override {
    const auto& p = ps->as<Assign>();
    const auto& b = bs->as<Assign>();
    unify_access(p.name, p.type, p.idx, ps->srcinfo, b.name, b.idx,
                 bs->srcinfo);
    unify_expr(p.rhs, b.rhs);
  }

  void visit_write_config(const Stmt& ps, const Stmt& bs) override {
    const auto& p = ps->as<WriteConfig>();
    const auto& b = bs->as<WriteConfig>();
    if (!p.config->same_as(*b.config) || p.field != b.field)
      fail(fmt::format(
          "cannot unify the write of {}.{} (@{}) with the write of {}.{} "
          "(@{})",
          p.config->name(), p.field, ps->srcinfo.str(), b.config->name(),
          b.field, bs->srcinfo.str()));
    unify_expr(p.rhs, b.rhs);
  }

  void visit_pass(const Stmt&, const Stmt&) override {}

  void visit_if(const Stmt& ps, const Stmt& bs) override {
    const auto& p = ps->as<If>();
    const auto& b = bs->as<If>();
    unify_expr(p.cond, b.cond);
    unify_block(p.body, b.body);
    unify_block(p.orelse, b.orelse);
  }

  void visit_for(const Stmt& ps, const Stmt& bs) override {
    const auto& p = ps->as<For>();
    const auto& b = bs->as<For>();
    if (p.mode->name() != b.mode->name() ||
        p.mode->extra_args() != b.mode->extra_args())
      fail(fmt::format("cannot unify a {} loop (@{}) with a {} loop (@{})",
                       p.mode->name(), ps->srcinfo.str(), b.mode->name(),
                       bs->srcinfo.str()));
    bind(p.iter, b.iter, Type(TypeKind::Index));
    unify_control(p.lo, b.lo);
    unify_control(p.hi, b.hi);
    unify_block(p.body, b.body);
  }

  void visit_alloc(const Stmt& ps, const Stmt& bs) override {
    const auto& p = ps->as<Alloc>();
    const auto& b = bs->as<Alloc>();
    check_precision(p.type, ps->srcinfo, b.type, bs->srcinfo);
    unify_shapes(p.type, ps->srcinfo, b.type, bs->srcinfo);
    bind(p.name, b.name, b.type);
  }

  void visit_window_stmt(const Stmt& ps, const Stmt& bs) override {
    const auto& p = ps->as<WindowStmt>();
    const auto& b = bs->as<WindowStmt>();
    unify_window_expr(p.rhs, b.rhs);
    bind(p.name, b.name, b.rhs->type);
  }

  void visit_call(const Stmt& ps, const Stmt& bs) override {
    const auto& p = ps->as<Call>();
    const auto& b = bs->as<Call>();
    if (p.f != b.f && !equal(p.f, b.f))
      fail(fmt::format(
          "cannot unify a call to '{}' (@{}) with a call to {} (@{})",
          p.f->name, ps->srcinfo.str(), b.f->name, bs->srcinfo.str()));
    for (size_t k = 0; k < p.args.size(); k++)
      unify_call_arg(p.f->args[k], p.args[k], b.args[k]);
  }

  // With and Sync statements.
  void visit_stmt_default(const Stmt& ps, const Stmt&) override {
    fail(fmt::format("cannot unify {} statements (@{})", kind_name(ps->kind),
                     ps->srcinfo.str()));
  }

  // A variable the sub-procedure binds stands for the block's at the same
  // place.
  void bind(const Sym& p, const Sym& b, const Type& type) {
    renaming_[p] = b;
    block_bound_.insert(b);
    block_types_[b] = type;
  }

  void unify_call_arg(const FnArg& param, const Expr& pa, const Expr& ba) {
    if (!param.type.is_numeric()) return unify_expr(pa, ba);
    if (pa->kind == ExprKind::WindowExpr && ba->kind == ExprKind::WindowExpr)
      return unify_window_expr(pa, ba);
    if (pa->kind == ExprKind::Read && ba->kind == ExprKind::Read &&
        pa->as<Read>().idx.empty() && ba->as<Read>().idx.empty()) {
      const auto& p = pa->as<Read>();
      const auto& b = ba->as<Read>();
      if (param.type.is_tensor())
        return unify_whole_buffer(p.name, pa->srcinfo, b.name, ba->srcinfo);
      return unify_access(p.name, pa->type, {}, pa->srcinfo, b.name, {},
                          ba->srcinfo);
    }
    fail(fmt::format(
        "cannot unify the call argument {} (@{}) with the call argument {} "
        "(@{})",
        print_expr(pa), pa->srcinfo.str(), print_expr(ba), ba->srcinfo.str()));
  }

  void unify_window_expr(const Expr& pe, const Expr& be) {
    if (pe->kind != ExprKind::WindowExpr || be->kind != ExprKind::WindowExpr)
      fail(fmt::format("cannot unify {} (@{}) with {} (@{})", print_expr(pe),
                       pe->srcinfo.str(), print_expr(be), be->srcinfo.str()));
    const auto& p = pe->as<WindowExpr>();
    const auto& b = be->as<WindowExpr>();
    unify_whole_buffer(p.name, pe->srcinfo, b.name, be->srcinfo);
    if (p.idx.size() != b.idx.size())
      fail(fmt::format(
          "cannot unify the windowing of {} (@{}) using {} indices with the "
          "windowing of {} (@{}) using {}",
          p.name.name(), pe->srcinfo.str(), p.idx.size(), b.name.name(),
          be->srcinfo.str(), b.idx.size()));
    for (size_t k = 0; k < p.idx.size(); k++) {
      const WindowAccess& pw = p.idx[k];
      const WindowAccess& bw = b.idx[k];
      if (pw.is_interval != bw.is_interval)
        fail(fmt::format(
            "cannot unify the windowing of {} (@{}) with the windowing of {} "
            "(@{}) because one evaluates to a point at index {}, while the "
            "other evaluates to an interval",
            p.name.name(), pe->srcinfo.str(), b.name.name(), be->srcinfo.str(),
            k));
      unify_control(pw.lo, bw.lo);
      if (pw.is_interval) unify_control(pw.hi, bw.hi);
    }
  }

  // `p` (a non-window parameter or a buffer the sub-procedure binds) names
  // exactly the block's buffer `b`.
  void unify_whole_buffer(const Sym& p, const SrcInfo& psrc, const Sym& b,
                          const SrcInfo& bsrc) {
    if (renaming_.count(p)) {
      if (renaming_[p] != b) mismatch_buffers(p, psrc, b, bsrc);
      return;
    }
    BufferParam& param = buffer_param(p, psrc, b, bsrc);
    if (param.windowed)
      fail(fmt::format(
          "Cannot unify the windowed buffer '{}' with the buffer '{}' because "
          "'{}' is used in a position where windowing is not currently "
          "supported",
          p.name(), b.name(), b.name()));
    set_solution(param, b, bsrc);
  }

  [[noreturn]] void mismatch_buffers(const Sym& p, const SrcInfo& psrc,
                                     const Sym& b, const SrcInfo& bsrc) {
    fail(fmt::format("Could not unify buffer '{}' (@{}) with buffer '{}' (@{})",
                     p.name(), psrc.str(), b.name(), bsrc.str()));
  }

  // The parameter `p` (which must be one) may take the block's buffer `b`.
  BufferParam& buffer_param(const Sym& p, const SrcInfo& psrc, const Sym& b,
                            const SrcInfo& bsrc) {
    auto it = buffer_params_.find(p);
    if (it == buffer_params_.end() || block_bound_.count(b))
      mismatch_buffers(p, psrc, b, bsrc);
    check_precision(it->second.arg->type, psrc, block_type(b), bsrc);
    return it->second;
  }

  void set_solution(BufferParam& param, const Sym& b, const SrcInfo& bsrc) {
    if (param.solution && *param.solution != b)
      fail(fmt::format(
          "The buffer {} cannot be unified to both the buffer {}, and the "
          "buffer {}",
          param.arg->name.name(), param.solution->name(), b.name()));
    // A tensor parameter takes a whole buffer, never a window of one.
    if (!param.windowed && block_type(b).is_window())
      fail(fmt::format(
          "cannot pass the window {} (@{}) to the tensor parameter {} (@{}): "
          "only a window parameter takes a window",
          b.name(), bsrc.str(), param.arg->name.name(),
          param.arg->srcinfo.str()));
    param.solution = b;
    param.solution_srcinfo = bsrc;
    if (!param.windowed && !param.shape_unified) {
      param.shape_unified = true;
      unify_shapes(param.arg->type, param.arg->srcinfo, block_type(b), bsrc);
    }
  }

  // A scalar access `p[pidx]` (read, or the written element) against
  // `b[bidx]`.
  void unify_access(const Sym& p, const Type& ptype,
                    const std::vector<Expr>& pidx, const SrcInfo& psrc,
                    const Sym& b, const std::vector<Expr>& bidx,
                    const SrcInfo& bsrc) {
    auto describe = [=] {
      return fmt::format("the access {} (@{}) against {} (@{})",
                         access_text(p.name(), pidx), psrc.str(),
                         access_text(b.name(), bidx), bsrc.str());
    };
    if (renaming_.count(p)) {
      if (renaming_[p] != b || pidx.size() != bidx.size())
        mismatch_buffers(p, psrc, b, bsrc);
      for (size_t k = 0; k < pidx.size(); k++) unify_control(pidx[k], bidx[k]);
      return;
    }
    BufferParam& param = buffer_param(p, psrc, b, bsrc);
    (void)ptype;
    if (bidx.size() < pidx.size())
      fail(fmt::format(
          "the access to '{}' (@{}) has too many indices ({}, compared to {}) "
          "to unify with the access to '{}' (@{})",
          p.name(), psrc.str(), pidx.size(), bidx.size(), b.name(),
          bsrc.str()));
    if (!param.windowed) {
      if (bidx.size() != pidx.size())
        fail(fmt::format(
            "cannot unify the access to '{}' (@{}) using {} indices with the "
            "access to '{}' (@{}) using {} indices.",
            p.name(), psrc.str(), pidx.size(), b.name(), bsrc.str(),
            bidx.size()));
      set_solution(param, b, bsrc);
      for (size_t k = 0; k < pidx.size(); k++) unify_control(pidx[k], bidx[k]);
      return;
    }
    if (param.solution && *param.solution != b)
      fail(fmt::format(
          "The buffer {} cannot be unified to both the buffer {}, and the "
          "buffer {}",
          p.name(), param.solution->name(), b.name()));
    if (!param.solution) {
      param.solution = b;
      param.solution_srcinfo = bsrc;
      for (size_t d = 0; d < bidx.size(); d++)
        param.offsets.push_back(new_var(
            VarKind::Unknown, fmt::format("the window of '{}'", p.name())));
    }
    AccessPair pair{{}, {}, describe};
    for (const Expr& e : pidx) pair.pidx.push_back(sub_linear(e));
    for (const Expr& e : bidx) pair.bidx.push_back(block_linear(e));
    param.accesses.push_back(std::move(pair));
  }

  void check_precision(const Type& pt, const SrcInfo& psrc, const Type& bt,
                       const SrcInfo& bsrc) {
    if (!compatible_precision(pt, bt))
      fail(fmt::format("cannot unify type {} (@{}) with type {} (@{})",
                       type_kind_name(pt.basetype().kind()), psrc.str(),
                       type_kind_name(bt.basetype().kind()), bsrc.str()));
  }

  void unify_shapes(const Type& pt, const SrcInfo& psrc, const Type& bt,
                    const SrcInfo& bsrc) {
    if (pt.shape().size() != bt.shape().size())
      fail(fmt::format(
          "cannot unify a tensor-type of {} dimensions (@{}) with a "
          "tensor-type of {} dimensions (@{})",
          pt.shape().size(), psrc.str(), bt.shape().size(), bsrc.str()));
    for (size_t d = 0; d < pt.shape().size(); d++)
      unify_control(pt.shape()[d], bt.shape()[d]);
  }

  const Type& block_type(const Sym& b) {
    auto it = block_types_.find(b);
    if (it != block_types_.end()) return it->second;
    auto jt = scope_types_.find(b);
    if (jt == scope_types_.end())
      fail(fmt::format("'{}' is not visible before the block", b.name()));
    return jt->second;
  }

  // ---- expressions --------------------------------------------------------

  enum class Category { Control, Bool, Data, Other };
  static Category category(const Type& t) {
    if (t.is_indexable()) return Category::Control;
    if (t.is_bool()) return Category::Bool;
    if (t.is_numeric()) return Category::Data;
    return Category::Other;
  }

  void unify_expr(const Expr& pe, const Expr& be) {
    Category c = category(pe->type);
    if (c != category(be->type) || c == Category::Other)
      fail(fmt::format(
          "expected expressions to have similar types:\n  {}: {} [{}]\n  {}: "
          "{} [{}]",
          print_expr(pe), pe->type.str(), pe->srcinfo.str(), print_expr(be),
          be->type.str(), be->srcinfo.str()));
    if (c == Category::Control) return unify_control(pe, be);
    if (c == Category::Bool) return unify_bool(pe, be);
    unify_data(pe, be);
  }

  [[noreturn]] void mismatch_exprs(const Expr& pe, const Expr& be) {
    fail(fmt::format(
        "cannot unify a {} expression (@{}) with a {} expression (@{})",
        kind_name(pe->kind), pe->srcinfo.str(), kind_name(be->kind),
        be->srcinfo.str()));
  }

  void unify_data(const Expr& pe, const Expr& be) {
    if (pe->kind != be->kind) mismatch_exprs(pe, be);
    DataUnifier::visit(pe, be);
  }

  void visit_read(const Expr& pe, const Expr& be) override {
    const auto& p = pe->as<Read>();
    const auto& b = be->as<Read>();
    unify_access(p.name, pe->type, p.idx, pe->srcinfo, b.name, b.idx,
                 be->srcinfo);
  }

  void visit_const(const Expr& pe, const Expr& be) override {
    if (const_number(pe->as<Const>()) != const_number(be->as<Const>()))
      fail(fmt::format("cannot unify {} (@{}) with {} (@{})", print_expr(pe),
                       pe->srcinfo.str(), print_expr(be), be->srcinfo.str()));
  }

  void visit_usub(const Expr& pe, const Expr& be) override {
    unify_expr(pe->as<USub>().arg, be->as<USub>().arg);
  }

  void visit_binop(const Expr& pe, const Expr& be) override {
    const auto& p = pe->as<BinOp>();
    const auto& b = be->as<BinOp>();
    if (p.op != b.op)
      fail(fmt::format("cannot unify a '{}' (@{}) with a '{}' (@{})",
                       binop_text(p.op), pe->srcinfo.str(), binop_text(b.op),
                       be->srcinfo.str()));
    unify_expr(p.lhs, b.lhs);
    unify_expr(p.rhs, b.rhs);
  }

  void visit_extern_call(const Expr& pe, const Expr& be) override {
    const auto& p = pe->as<ExternCall>();
    const auto& b = be->as<ExternCall>();
    if (!p.f->same_as(*b.f) || p.args.size() != b.args.size())
      fail(fmt::format(
          "cannot unify builtin '{}' (@{}) with builtin '{}' (@{})",
          p.f->name(), pe->srcinfo.str(), b.f->name(), be->srcinfo.str()));
    for (size_t k = 0; k < p.args.size(); k++) unify_expr(p.args[k], b.args[k]);
  }

  void visit_read_config(const Expr& pe, const Expr& be) override {
    const auto& p = pe->as<ReadConfig>();
    const auto& b = be->as<ReadConfig>();
    if (!p.config->same_as(*b.config) || p.field != b.field)
      fail(
          fmt::format("cannot unify readconfig '{}.{}' with readconfig '{}.{}'",
                      p.config->name(), p.field, b.config->name(), b.field));
  }

  // Windows and strides are no data values.
  void visit_expr_default(const Expr& pe, const Expr& be) override {
    mismatch_exprs(pe, be);
  }

  static bool is_control_comparison(const Expr& e) {
    if (e->kind != ExprKind::BinOp) return false;
    const auto& b = e->as<BinOp>();
    return is_comparison(b.op) && b.lhs->type.is_indexable() &&
           b.rhs->type.is_indexable();
  }

  // `lhs op rhs` as a value that is positive (`<`, `<=`, `>`, `>=`) or zero
  // (`==`) exactly when the comparison holds, as Exo compares them.
  Linear comparison_form(const BinOp& b, bool sub) {
    auto lin = [&](const Expr& e) {
      return sub ? sub_linear(e) : block_linear(e);
    };
    switch (b.op) {
      case BinOpKind::Lt:
      case BinOpKind::Eq:
        return lin(b.rhs) - lin(b.lhs);
      case BinOpKind::Le:
        return lin(b.rhs) - lin(b.lhs) - Linear::of_const(-1);
      case BinOpKind::Gt:
        return lin(b.lhs) - lin(b.rhs);
      default:  // Ge
        return lin(b.lhs) - lin(b.rhs) - Linear::of_const(-1);
    }
  }

  void unify_bool(const Expr& pe, const Expr& be) {
    if (pe->kind == ExprKind::Read && bool_params_.count(pe->as<Read>().name)) {
      const Sym& name = pe->as<Read>().name;
      if (mentions_bound(be))
        fail(fmt::format(
            "Cannot unify expression {} (@{}) with the boolean argument {} "
            "because it contains variables that are not free in the code "
            "being replaced",
            print_expr(be), be->srcinfo.str(), name.name()));
      Expr& hole = bool_params_[name];
      if (hole && !equal(hole, be))
        fail(fmt::format(
            "Cannot unify the boolean argument {} with two seemingly "
            "inequivalent expressions {} (@{}) and {} (@{})",
            name.name(), print_expr(be), be->srcinfo.str(), print_expr(hole),
            hole->srcinfo.str()));
      hole = be;
      return;
    }
    if (is_control_comparison(pe) && is_control_comparison(be)) {
      BinOpKind p = pe->as<BinOp>().op, b = be->as<BinOp>().op;
      if (p == b || (p != BinOpKind::Eq && b != BinOpKind::Eq)) {
        add_equation(comparison_form(pe->as<BinOp>(), true) -
                         comparison_form(be->as<BinOp>(), false),
                     pe, be);
        return;
      }
    }
    if (pe->kind != be->kind) mismatch_exprs(pe, be);
    if (pe->kind == ExprKind::BinOp) {
      const auto& p = pe->as<BinOp>();
      const auto& b = be->as<BinOp>();
      if (p.op != b.op)
        fail(fmt::format("cannot unify a '{}' (@{}) with a '{}' (@{})",
                         binop_text(p.op), pe->srcinfo.str(), binop_text(b.op),
                         be->srcinfo.str()));
      unify_expr(p.lhs, b.lhs);
      unify_expr(p.rhs, b.rhs);
      return;
    }
    if (pe->kind == ExprKind::Const || pe->kind == ExprKind::ReadConfig ||
        pe->kind == ExprKind::ExternCall)
      return unify_data(pe, be);
    mismatch_exprs(pe, be);
  }

  void unify_control(const Expr& pe, const Expr& be) {
    add_equation(sub_linear(pe) - block_linear(be), pe, be);
  }

  void add_equation(Linear form, const Expr& pe, const Expr& be) {
    equations_.push_back({std::move(form), [pe, be] {
                            return fmt::format(
                                "{} (@{}) against {} (@{})", print_expr(pe),
                                pe->srcinfo.str(), print_expr(be),
                                be->srcinfo.str());
                          }});
  }

  // Whether an expression of the block mentions a value bound inside it.
  class MentionsBound : public IRVisitor {
   public:
    explicit MentionsBound(const std::unordered_set<Sym>& bound)
        : bound_(bound) {}
    bool found = false;

   protected:
    void visit_read(const Read& r) override {
      if (bound_.count(r.name)) return found_it();
      IRVisitor::visit_read(r);
    }
    void visit_window_expr(const WindowExpr& w) override {
      if (bound_.count(w.name)) found_it();
    }
    void visit_stride_expr(const StrideExpr& s) override {
      if (bound_.count(s.name)) found_it();
    }

   private:
    void found_it() {
      found = true;
      stop();
    }
    const std::unordered_set<Sym>& bound_;
  };
  bool mentions_bound(const Expr& e) const {
    MentionsBound mentions(block_bound_);
    mentions.visit(e);
    return mentions.found;
  }

  // A control expression of the sub-procedure as a linear form.
  class SubLinear : public ExprFunctor<Linear()> {
   public:
    explicit SubLinear(Unifier& u) : u_(u) {}

   protected:
    Linear visit_read(const Expr& e) override {
      const Sym& s = e->as<Read>().name;
      if (auto it = u_.control_params_.find(s);
          it != u_.control_params_.end()) {
        u_.used_.insert(s);
        return Linear::of_var(it->second);
      }
      if (auto it = u_.renaming_.find(s); it != u_.renaming_.end())
        return Linear::of_var(u_.block_var(it->second));
      fail(fmt::format("cannot unify the variable {} (@{})", s.name(),
                       e->srcinfo.str()));
    }
    Linear visit_const(const Expr& e) override {
      if (!e->as<Const>().is_int())
        fail(fmt::format("cannot unify the literal {} (@{})", print_expr(e),
                         e->srcinfo.str()));
      return Linear::of_const(e->as<Const>().int_value());
    }
    Linear visit_usub(const Expr& e) override {
      Linear l = visit(e->as<USub>().arg);
      l.scale(-1);
      return l;
    }
    Linear visit_binop(const Expr& e) override {
      const auto& b = e->as<BinOp>();
      if (b.op == BinOpKind::Div || b.op == BinOpKind::Mod)
        fail(
            "unification with sub-procedures making use of '%' or '/' "
            "operations is not currently supported");
      return u_.arithmetic(b, visit(b.lhs), visit(b.rhs));
    }
    Linear visit_read_config(const Expr& e) override {
      return Linear::of_var(u_.opaque_var(e));
    }
    Linear visit_expr_default(const Expr& e) override {
      fail(fmt::format(
          "unification with sub-procedures using {} (@{}) in control "
          "expressions is not currently supported",
          print_expr(e), e->srcinfo.str()));
    }

   private:
    Unifier& u_;
  };
  Linear sub_linear(const Expr& e) { return SubLinear(*this).visit(e); }

  // A control expression of the block as a linear form: what is not affine
  // in its variables is an opaque value.
  class BlockLinear : public ExprFunctor<Linear()> {
   public:
    explicit BlockLinear(Unifier& u) : u_(u) {}

   protected:
    Linear visit_read(const Expr& e) override {
      return Linear::of_var(u_.block_var(e->as<Read>().name));
    }
    Linear visit_const(const Expr& e) override {
      if (!e->as<Const>().is_int()) return Linear::of_var(u_.opaque_var(e));
      return Linear::of_const(e->as<Const>().int_value());
    }
    Linear visit_usub(const Expr& e) override {
      Linear l = visit(e->as<USub>().arg);
      l.scale(-1);
      return l;
    }
    Linear visit_binop(const Expr& e) override {
      const auto& b = e->as<BinOp>();
      if (b.op == BinOpKind::Add || b.op == BinOpKind::Sub ||
          b.op == BinOpKind::Mul)
        return u_.arithmetic(b, visit(b.lhs), visit(b.rhs));
      return Linear::of_var(u_.opaque_var(e));
    }
    Linear visit_expr_default(const Expr& e) override {
      return Linear::of_var(u_.opaque_var(e));
    }

   private:
    Unifier& u_;
  };
  Linear block_linear(const Expr& e) { return BlockLinear(*this).visit(e); }

  Linear arithmetic(const BinOp& b, Linear lhs, Linear rhs) {
    switch (b.op) {
      case BinOpKind::Add:
        lhs.add(rhs, 1);
        return lhs;
      case BinOpKind::Sub:
        lhs.add(rhs, -1);
        return lhs;
      case BinOpKind::Mul:
        if (lhs.is_constant()) {
          rhs.scale(lhs.constant);
          return rhs;
        }
        if (rhs.is_constant()) {
          lhs.scale(rhs.constant);
          return lhs;
        }
        [[fallthrough]];
      default:
        fail(fmt::format("cannot unify the non-affine expression {} (@{})",
                         print_expr(b.lhs), b.srcinfo.str()));
    }
  }

  int block_var(const Sym& s) {
    auto it = block_vars_.find(s);
    if (it != block_vars_.end()) return it->second;
    const bool bound = block_bound_.count(s) > 0;
    Type t = bound ? block_types_[s] : block_type(s);
    int v = new_var(bound ? VarKind::Bound : VarKind::Known, s.name(),
                    make_read(s, {}, SrcInfo(), t));
    block_vars_[s] = v;
    return v;
  }

  // A subterm kept whole (`n / 4`, `stride(x, 0)`, `Cfg.f`).
  int opaque_var(const Expr& e) {
    for (int v : opaque_)
      if (equal(vars_[v].expr, e)) return v;
    int v = new_var(mentions_bound(e) ? VarKind::Bound : VarKind::Known,
                    print_expr(e), e);
    opaque_.push_back(v);
    return v;
  }

  // ---- solving ------------------------------------------------------------

  // Every buffer parameter must be bound. A control or bool parameter the
  // body never uses may take any value; it gets Exo's choice (0, False),
  // and replace then proves the callee's preconditions with it.
  void check_all_used() {
    for (const FnArg& a : sub_->args)
      if (buffer_params_.count(a.name) &&
          !buffer_params_[a.name].solution.has_value())
        fail("Cannot perform unification due to an un-unused argument: " +
             a.name.name());
  }

  // Adds an equation; returns the failure reason, or "" when consistent.
  std::string add_to(LinearSystem& sys, const Equation& eq) const {
    Linear f = eq.form;
    for (const auto& row : sys.rows) {
      Rational c = f.at(row.pivot);
      if (!c.zero()) f.add(row.form, -c);
    }
    int pivot = -1;
    for (const auto& [v, c] : f.coef)
      if (is_unknown(v)) {
        pivot = v;
        break;
      }
    if (pivot < 0) {
      if (f.coef.empty() && f.constant.zero()) return "";
      bool bound = false;
      for (const auto& [v, c] : f.coef)
        bound = bound || vars_[v].kind == VarKind::Bound;
      if (f.coef.empty() || bound)
        return "Unification of various index expressions failed: " +
               eq.describe();
      sys.residuals.push_back(&eq);
      sys.residual_forms.push_back(f);
      return "";
    }
    f.scale(Rational(1) / f.at(pivot));
    for (auto& row : sys.rows) {
      Rational c = row.form.at(pivot);
      if (!c.zero()) row.form.add(f, -c);
    }
    sys.rows.push_back({pivot, std::move(f)});
    return "";
  }

  // The value of an unknown: a combination of known values, or the reason
  // there is none.
  std::optional<Linear> value_of(const LinearSystem& sys, int v,
                                 std::string& why) const {
    for (const auto& row : sys.rows) {
      if (row.pivot != v) continue;
      Linear value = row.form;
      value.coef.erase(v);
      value.scale(-1);
      for (const auto& [u, c] : value.coef) {
        if (is_unknown(u)) {
          why = fmt::format("{} is not determined by the block", vars_[v].name);
          return std::nullopt;
        }
        if (vars_[u].kind == VarKind::Bound) {
          why = fmt::format("{} would depend on '{}', which the block binds",
                            vars_[v].name, vars_[u].name);
          return std::nullopt;
        }
      }
      return value;
    }
    why = fmt::format("{} is not determined by the block", vars_[v].name);
    return std::nullopt;
  }

  // A linear form over known values whose unknowns are replaced by their
  // values.
  std::optional<Linear> substitute_values(const LinearSystem& sys, Linear l,
                                          std::string& why) const {
    Linear out;
    out.constant = l.constant;
    for (const auto& [v, c] : l.coef) {
      if (is_unknown(v)) {
        std::optional<Linear> value = value_of(sys, v, why);
        if (!value) return std::nullopt;
        out.add(*value, c);
      } else {
        out.add(Linear::of_var(v), c);
      }
    }
    return out;
  }

  // A solution in Exo's form, which users see in the printed call: the
  // terms `c * x` (`x` when c is 1) in the order of the variables, then the
  // constant, always (`4 * i + 0`, `n + -1`); a constant alone is itself.
  Expr to_expr(const Linear& l, const SrcInfo& src) const {
    Expr out;
    for (const auto& [v, c] : l.coef) {
      Expr atom = with_srcinfo(vars_[v].expr, src);
      Expr t = c.num == 1 ? atom
                          : control_binop(BinOpKind::Mul,
                                          control_int(c.num, src), atom, src);
      out = out ? control_binop(BinOpKind::Add, out, t, src) : t;
    }
    Expr k = control_int(l.constant.num, src);
    return out ? control_binop(BinOpKind::Add, out, k, src) : k;
  }

  static Expr with_srcinfo(const Expr& e, const SrcInfo& src) {
    if (e->kind != ExprKind::Read) return e;
    return make_read(e->as<Read>().name, {}, src, e->type);
  }

  static bool integral(const Linear& l) {
    if (l.constant.den != 1) return false;
    for (const auto& [v, c] : l.coef)
      if (c.den != 1) return false;
    return true;
  }

  // One way of windowing: which dimensions of each windowed parameter's
  // buffer are points.
  using Choice = std::vector<std::vector<bool>>;

  struct Attempt {
    std::string failure;
    UnificationResult result;
  };

  Attempt attempt(const LinearSystem& base, const std::vector<BufferParam*>& w,
                  const Choice& choice) {
    LinearSystem sys = base;
    std::vector<Equation> window_eqs;
    for (size_t k = 0; k < w.size(); k++) {
      const BufferParam& param = *w[k];
      for (const AccessPair& a : param.accesses) {
        size_t next = 0;
        for (size_t d = 0; d < a.bidx.size(); d++) {
          Linear f = Linear::of_var(param.offsets[d]);
          if (!choice[k][d]) f.add(a.pidx[next++], 1);
          f.add(a.bidx[d], -1);
          window_eqs.push_back({std::move(f), a.describe});
        }
      }
    }
    // A window as wide as a literal dimension of its buffer can only start
    // at 0 (any other offset leaves the buffer): that pins an offset the
    // accesses leave open, as a lane read through `rhs[lane]` does.
    for (size_t k = 0; k < w.size(); k++) {
      const BufferParam& param = *w[k];
      const Type& bt = block_type(*param.solution);
      const std::vector<Expr>& pshape = param.arg->type.shape();
      size_t next = 0;
      for (size_t d = 0; d < choice[k].size(); d++) {
        if (choice[k][d]) continue;
        const std::optional<int64_t> full = int_literal(bt.shape()[d]);
        const std::optional<int64_t> width = int_literal(pshape[next++]);
        if (!full || !width || *full != *width) continue;
        const std::string name = param.arg->name.name();
        window_eqs.push_back(
            {Linear::of_var(param.offsets[d]), [name] {
               return fmt::format("the window of '{}' fills its buffer", name);
             }});
      }
    }
    for (const Equation& eq : window_eqs) {
      std::string why = add_to(sys, eq);
      if (!why.empty()) return {why, {}};
    }
    const SrcInfo src = block_.front()->srcinfo;
    std::string why;
    auto value = [&](int v) -> std::optional<Expr> {
      std::optional<Linear> l = value_of(sys, v, why);
      if (!l) return std::nullopt;
      if (!integral(*l)) {
        why = fmt::format(
            "{} would not be an integer combination of the "
            "block's values",
            vars_[v].name);
        return std::nullopt;
      }
      return to_expr(*l, src);
    };
    auto failed = [&] {
      return Attempt{"Unification of various index expressions failed: " + why,
                     {}};
    };

    UnificationResult result;
    std::unordered_map<Sym, const std::vector<bool>*> choice_of;
    for (size_t k = 0; k < w.size(); k++)
      choice_of[w[k]->arg->name] = &choice[k];
    for (const FnArg& a : sub_->args) {
      Expr arg;
      if (auto it = control_params_.find(a.name); it != control_params_.end()) {
        if (a.type.is_stride() && !used_.count(a.name)) {
          arg = stride_from_preconditions(a.name, choice_of, src);
          if (!arg)
            fail("Cannot perform unification due to an un-unused argument: " +
                 a.name.name());
        } else if (!used_.count(a.name)) {
          arg = control_int(0, src);
        } else {
          std::optional<Expr> e = value(it->second);
          if (!e) return failed();
          arg = *e;
          // A stride parameter takes the stride it unified with as it is
          // (`stride(src, 0)`, not `stride(src, 0) + 0`), as Exo passes it.
          if (a.type.is_stride() && arg->kind == ExprKind::BinOp) {
            const auto& b = arg->as<BinOp>();
            if (b.op == BinOpKind::Add && b.lhs->kind == ExprKind::StrideExpr &&
                b.rhs->kind == ExprKind::Const && b.rhs->as<Const>().is_int() &&
                b.rhs->as<Const>().int_value() == 0)
              arg = b.lhs;
          }
        }
      } else if (bool_params_.count(a.name)) {
        arg = bool_params_[a.name]
                  ? bool_params_[a.name]
                  : make_const(false, src, Type(TypeKind::Bool));
      } else {
        const BufferParam& param = buffer_params_.at(a.name);
        const Type& bt = block_type(*param.solution);
        if (!param.windowed) {
          arg = make_read(*param.solution, {}, src, bt);
        } else {
          std::vector<WindowAccess> idx;
          std::vector<Expr> shape;
          size_t next = 0;
          const std::vector<bool>& points = *choice_of.at(a.name);
          for (size_t d = 0; d < points.size(); d++) {
            std::optional<Linear> lo = value_of(sys, param.offsets[d], why);
            if (!lo) return failed();
            if (points[d]) {
              std::optional<Expr> pt = value(param.offsets[d]);
              if (!pt) return failed();
              idx.push_back(WindowAccess::point(*pt));
              continue;
            }
            std::optional<Linear> extent =
                substitute_values(sys, sub_linear(a.type.shape()[next++]), why);
            if (!extent) return failed();
            Linear hi = *lo;
            hi.add(*extent, 1);
            if (!integral(*lo) || !integral(hi) || !integral(*extent)) {
              why = fmt::format("the window of '{}' would not be integral",
                                a.name.name());
              return failed();
            }
            idx.push_back(
                WindowAccess::interval(to_expr(*lo, src), to_expr(hi, src)));
            shape.push_back(to_expr(*extent, src));
          }
          arg = make_window_expr(
              *param.solution, std::move(idx), src,
              Type::tensor(bt.basetype(), std::move(shape), true));
        }
      }
      result.args.push_back(arg);
    }
    for (size_t k = 0; k < sys.residuals.size(); k++) {
      Linear f = sys.residual_forms[k];
      int64_t scale = 1;
      for (const auto& [v, c] : f.coef) scale = std::lcm(scale, c.den);
      scale = std::lcm(scale, f.constant.den);
      f.scale(scale);
      Linear lhs, rhs;
      for (const auto& [v, c] : f.coef)
        (c.num > 0 ? lhs : rhs).add(Linear::of_var(v), c.num > 0 ? c : -c);
      (f.constant.num > 0 ? lhs : rhs).constant =
          f.constant.num > 0 ? f.constant : -f.constant;
      result.side_conditions.push_back(
          {to_expr(lhs, src), to_expr(rhs, src),
           "Unification of various index expressions failed: " +
               sys.residuals[k]->describe() +
               " cannot be proven equal where the block is"});
    }
    return {"", std::move(result)};
  }

  // `stride(x, d)` of the argument passed for `x`, from a precondition
  // `stride(x, d) == s` (either way round).
  Expr stride_from_preconditions(
      const Sym& s,
      const std::unordered_map<Sym, const std::vector<bool>*>& choice_of,
      const SrcInfo& src) {
    for (const Expr& pred : sub_->preds) {
      if (pred->kind != ExprKind::BinOp) continue;
      const auto& b = pred->as<BinOp>();
      if (b.op != BinOpKind::Eq) continue;
      for (auto [one, other] : {std::pair{b.lhs, b.rhs}, {b.rhs, b.lhs}}) {
        if (one->kind != ExprKind::Read || one->as<Read>().name != s ||
            other->kind != ExprKind::StrideExpr)
          continue;
        const auto& st = other->as<StrideExpr>();
        auto it = buffer_params_.find(st.name);
        if (it == buffer_params_.end() || !it->second.solution) continue;
        int dim = st.dim;
        if (it->second.windowed) {
          const std::vector<bool>& points = *choice_of.at(st.name);
          int seen = 0;
          for (size_t d = 0; d < points.size(); d++)
            if (!points[d] && seen++ == st.dim) dim = static_cast<int>(d);
        }
        return make_stride_expr(*it->second.solution, dim, src);
      }
    }
    return nullptr;
  }

  UnificationResult solve() {
    LinearSystem base;
    for (const Equation& eq : equations_) {
      std::string why = add_to(base, eq);
      if (!why.empty()) fail(why);
    }
    std::vector<BufferParam*> windowed;
    for (const FnArg& a : sub_->args) {
      auto it = buffer_params_.find(a.name);
      if (it != buffer_params_.end() && it->second.windowed)
        windowed.push_back(&it->second);
    }
    // Every choice of point dimensions, leading dimensions first.
    std::vector<std::vector<std::vector<bool>>> options;
    size_t total = 1;
    for (BufferParam* p : windowed) {
      const size_t n = p->offsets.size();
      const size_t points = n - p->arg->type.shape().size();
      std::vector<std::vector<bool>> list;
      std::vector<bool> pick(n, false);
      std::fill(pick.begin(), pick.begin() + static_cast<long>(points), true);
      do list.push_back(pick);
      while (std::prev_permutation(pick.begin(), pick.end()));
      total *= list.size();
      if (total > 4096)
        fail(
            "Unification of various index expressions failed: too many "
            "ways to window the buffers");
      options.push_back(std::move(list));
    }
    std::vector<size_t> at(windowed.size(), 0);
    std::optional<Attempt> first_failure, with_conditions;
    for (size_t n = 0; n < total; n++) {
      Choice choice;
      for (size_t k = 0; k < windowed.size(); k++)
        choice.push_back(options[k][at[k]]);
      Attempt a = attempt(base, windowed, choice);
      if (a.failure.empty() && a.result.side_conditions.empty())
        return std::move(a.result);
      if (a.failure.empty() && !with_conditions)
        with_conditions = std::move(a);
      else if (!a.failure.empty() && !first_failure)
        first_failure = std::move(a);
      for (size_t k = windowed.size(); k-- > 0;) {
        if (++at[k] < options[k].size()) break;
        at[k] = 0;
      }
    }
    if (with_conditions) return std::move(with_conditions->result);
    fail(first_failure->failure);
  }

  const Proc& sub_;
  const Block& block_;
  std::unordered_map<Sym, Type> scope_types_;
  std::vector<Var> vars_;
  std::vector<int> opaque_;
  std::unordered_map<Sym, int> control_params_;
  std::unordered_map<Sym, Expr> bool_params_;
  std::unordered_map<Sym, BufferParam> buffer_params_;
  std::unordered_set<Sym> used_;
  std::unordered_map<Sym, Sym> renaming_;
  std::unordered_set<Sym> block_bound_;
  std::unordered_map<Sym, Type> block_types_;
  std::unordered_map<Sym, int> block_vars_;
  std::vector<Equation> equations_;
};

}  // namespace

UnificationResult unify(const Proc& subproc, const Block& block,
                        const std::vector<SymbolInfo>& scope) {
  return Unifier(subproc, block, scope).run();
}

}  // namespace exo2::primitives
