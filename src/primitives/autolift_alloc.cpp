#include "exo2/primitives/autolift_alloc.hpp"

#include <fmt/format.h>

#include <unordered_set>
#include <vector>

#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/lift_alloc.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/strides.hpp"
#include "exo2/primitives/substitute.hpp"
#include "exo2/primitives/value_dependencies.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;

// Rebuilds code with every access of `x` given the extra indices.
class AddIndices : public IRMutator {
 public:
  AddIndices(Sym x, std::vector<Expr> extra, bool row, const Stmt& alloc)
      : x_(std::move(x)), extra_(std::move(extra)), row_(row), alloc_(alloc) {}

 protected:
  // The allocation leaves its block; a block that held only the allocation
  // keeps a `pass`, as lift_alloc.
  Block mutate_block(const Block& b) override {
    Block out;
    for (const Stmt& s : b)
      if (s != alloc_) out.push_back(mutate(s));
    if (out.empty() && !b.empty()) out.push_back(make_pass(b.front()->srcinfo));
    return out;
  }

  Stmt mutate_assign(const Stmt& s) override {
    const Assign& a = s->as<Assign>();
    if (a.name != x_) return IRMutator::mutate_assign(s);
    Expr rhs = mutate(a.rhs);
    return s->kind == StmtKind::Assign
               ? make_assign(a.name, a.type, indices(a.idx), rhs, s->srcinfo)
               : make_reduce(a.name, a.type, indices(a.idx), rhs, s->srcinfo);
  }

  Stmt mutate_call(const Stmt& s) override {
    const Call& c = s->as<Call>();
    std::vector<Expr> args;
    for (size_t k = 0; k < c.args.size(); ++k)
      args.push_back(call_arg(c.args[k], c.f->args[k].type));
    return make_call(c.f, args, s->srcinfo, mutate(c.barriers));
  }

  Expr mutate_read(const Expr& e) override {
    const Read& r = e->as<Read>();
    if (r.name != x_) return IRMutator::mutate_read(e);
    return make_read(x_, indices(r.idx), e->srcinfo, e->type);
  }

  Expr mutate_window_expr(const Expr& e) override {
    const WindowExpr& w = e->as<WindowExpr>();
    if (w.name != x_) return IRMutator::mutate_window_expr(e);
    return make_window_expr(x_, combine(points(), w.idx), e->srcinfo, e->type);
  }

 private:
  Sym x_;
  std::vector<Expr> extra_;
  bool row_;
  Stmt alloc_;

  template <class T>
  std::vector<T> combine(const std::vector<T>& added,
                         const std::vector<T>& orig) {
    std::vector<T> out = row_ ? added : orig;
    const std::vector<T>& tail = row_ ? orig : added;
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
  }
  std::vector<Expr> indices(const std::vector<Expr>& idx) {
    return combine(extra_, idx);
  }
  std::vector<WindowAccess> points() {
    std::vector<WindowAccess> out;
    for (const Expr& e : extra_) out.push_back(WindowAccess::point(e));
    return out;
  }

  // `x` passed whole becomes a window of the lifted buffer, which only a
  // window parameter accepts (as expand_dim).
  Expr call_arg(const Expr& a, const Type& param) {
    const bool whole = a->kind == ExprKind::Read && a->as<Read>().name == x_ &&
                       a->as<Read>().idx.empty();
    if (whole && !extra_.empty() && !a->type.is_tensor())
      refuse(fmt::format(
                 "Cannot lift {0}: it is passed to a scalar parameter of a "
                 "call, and there is no support for passing windows to scalar "
                 "arguments: a scalar argument must be a variable name, which "
                 "an element {0}[...] of the lifted buffer is not; copy the "
                 "value into a scalar of its own around the call, or inline "
                 "the call first",
                 x_.name()),
             {.srcinfo = a->srcinfo});
    if (whole && !extra_.empty() && !param.is_window())
      refuse(fmt::format("Cannot expand {} because buffer is passed as an "
                         "argument",
                         x_.name()),
             {.srcinfo = a->srcinfo});
    if (whole && a->type.is_tensor() && !extra_.empty()) {
      std::vector<WindowAccess> whole;
      for (const Expr& n : a->type.shape())
        whole.push_back(WindowAccess::interval(control_int(0, a->srcinfo), n));
      Type t = Type::tensor(a->type.basetype(), a->type.shape(), true);
      return make_window_expr(x_, combine(points(), whole), a->srcinfo, t);
    }
    return whole ? a : mutate(a);
  }
};

}  // namespace

Proc autolift_alloc(const Proc& proc, const cursors::Location& alloc,
                    int n_lifts, const std::string& mode,
                    std::optional<int64_t> size, bool keep_dims) {
  if (mode != "row" && mode != "col")
    throw ArgumentError("autolift_alloc: mode must be row or col");
  const Stmt s = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const Alloc& a = s->as<Alloc>();
  // The enclosing loops and ifs, innermost first.
  std::vector<Path> scopes;
  for (Path p = alloc.path; p.size() > 1;) {
    p.pop_back();
    const StmtKind k = cursors::resolve_stmt(proc, p)->kind;
    if (k != StmtKind::For && k != StmtKind::If) break;
    scopes.push_back(p);
  }
  if (n_lifts > static_cast<int>(scopes.size()))
    refuse(fmt::format("specified lift level {} is higher than the number of "
                       "loop {}",
                       n_lifts, scopes.size()),
           {.srcinfo = s->srcinfo});
  const Path site = lift_alloc_target(proc, alloc, n_lifts);
  const Stmt site_stmt = cursors::resolve_stmt(proc, site);

  // The kept dimensions, outermost loop first: one per lifted loop whose
  // iterator the buffer's values depend on. A loop from a literal lo >= 0
  // is indexed by its iterator, with extent hi (hi + 1 unless hi is a
  // literal), as Exo's legacy rule; other loops by `i - lo`, extent
  // `hi - lo`.
  std::vector<Expr> extents, indices;
  for (int k = n_lifts; k-- > 0;) {
    const Stmt loop = cursors::resolve_stmt(proc, scopes[k]);
    if (!keep_dims || loop->kind != StmtKind::For) continue;
    const For& f = loop->as<For>();
    if (!values_depend_on(proc->body, a.name, f.iter)) continue;
    const std::optional<int64_t> lo = int_literal(f.lo);
    const bool from_iter = lo && *lo >= 0;
    Expr iter = iterator_read(f.iter, s->srcinfo);
    Expr extent = !from_iter
                      ? control_binop(BinOpKind::Sub, f.hi, f.lo, s->srcinfo)
                  : int_literal(f.hi)
                      ? f.hi
                      : control_binop(BinOpKind::Add, f.hi,
                                      control_int(1, s->srcinfo), s->srcinfo);
    if (size) {
      QueryContext ctx(proc, scopes[k]);
      Expr needed = from_iter
                        ? f.hi
                        : control_binop(BinOpKind::Sub, f.hi, f.lo, s->srcinfo);
      Expr slack = control_binop(BinOpKind::Sub, control_int(*size, s->srcinfo),
                                 needed, s->srcinfo);
      require_proven(prove_compare(ctx, slack, BinOpKind::Ge, 0),
                     fmt::format("Lift size cannot be less than for-loop "
                                 "bound {}",
                                 print_expr(f.hi)),
                     {.srcinfo = f.hi->srcinfo});
      extent = control_int(*size, s->srcinfo);
    }
    // The extent is evaluated where the allocation moves, outside every
    // lifted loop: it may not read their iterators (`seq(i, i + m)` gives
    // `i + m - i`).
    for (int outer = 0; outer < n_lifts; outer++) {
      const Stmt around = cursors::resolve_stmt(proc, scopes[outer]);
      if (around->kind != StmtKind::For) continue;
      const Sym& it = around->as<For>().iter;
      if (mentions(extent, it))
        refuse(fmt::format("Cannot lift {}: the extent {} of the dimension "
                           "kept for the loop over {} reads {}, which is not "
                           "defined where the allocation moves",
                           a.name.name(), print_expr(extent), f.iter.name(),
                           it.name()),
               {.srcinfo = loop->srcinfo,
                .hint = "give the extent with size=, or simplify the loop's "
                        "bounds first"});
    }
    extents.push_back(extent);
    indices.push_back(
        from_iter ? iter
                  : control_binop(BinOpKind::Sub, iter, f.lo, s->srcinfo));
  }

  // The new extents are evaluated before the lifted-past statement, the
  // new indices at every access: both must mean what the loop bounds meant.
  std::vector<Expr> new_exprs = extents;
  new_exprs.insert(new_exprs.end(), indices.begin(), indices.end());
  const SafetyResult unchanged = prove_config_reads_unchanged(
      new_exprs, {site_stmt}, "the bounds of the lifted-past loops read");
  require_proven(unchanged,
                 fmt::format("Cannot lift the allocation of {}: {}.",
                             a.name.name(), unchanged.detail),
                 {.srcinfo = s->srcinfo, .condition = "ReadsUnchanged"});

  const bool row = mode == "row";
  Type type = a.type;
  if (!extents.empty()) {
    // New dimensions move the old ones (row) or change their strides
    // (col): code that reads a stride of x would see another value.
    const Block& list = cursors::enclosing_list(proc, alloc.path);
    const Block scope(list.begin() + alloc.path.back().index + 1, list.end());
    if (!observed_strides(scope, a.name).empty())
      refuse(fmt::format("Cannot lift {} with new dimensions: its strides are "
                         "read (stride(), or by a callee through a window of "
                         "it), and would change",
                         a.name.name()),
             {.srcinfo = s->srcinfo, .hint = "use lift_alloc instead"});
    std::vector<Expr> shape = row ? extents : a.type.shape();
    const std::vector<Expr>& tail = row ? a.type.shape() : extents;
    shape.insert(shape.end(), tail.begin(), tail.end());
    type = Type::tensor(a.type.basetype(), shape, false);
  }
  AddIndices rewrite(a.name, indices, row, s);
  const Stmt lifted = make_alloc(a.name, type, a.mem, s->srcinfo);
  return cursors::replace(proc, cursors::Location::node(site),
                          {lifted, rewrite.mutate(site_stmt)})
      .proc;
}

}  // namespace exo2::primitives
