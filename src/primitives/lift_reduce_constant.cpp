#include "exo2/primitives/lift_reduce_constant.hpp"

#include <fmt/format.h>

#include <vector>

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/data_locations.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;
using cursors::Slot;
using cursors::Step;

constexpr const char* kPrefix = "cannot lift constant because ";

bool is_zero(const Expr& e) {
  if (e->kind != ExprKind::Const) return false;
  const Const& c = e->as<Const>();
  return (c.is_int() && c.int_value() == 0) ||
         (c.is_float() && std::get<double>(c.value) == 0.0);
}

double literal_value(const Const& c) {
  return c.is_int() ? static_cast<double>(c.int_value())
                    : std::get<double>(c.value);
}

// The reductions into the assigned buffer found in a loop body, and
// whether every write to it there is one of the form `x[idx] += c * e`.
struct ScaledReductions {
  std::vector<Path> paths;
  bool all_scaled = true;
};

class ReductionFinder
    : private StmtFunctor<void(const Path&, ScaledReductions&)> {
 public:
  ReductionFinder(const Proc& proc, const Assign& init)
      : proc_(proc), init_(init) {}

  // The reductions of `list`, the `slot` list of the statement at `owner`.
  void find(const Block& list, const Path& owner, Slot slot,
            ScaledReductions& out) {
    for (int i = 0; i < static_cast<int>(list.size()); i++) {
      Path path = owner;
      path.push_back(Step{slot, i});
      visit(list[static_cast<size_t>(i)], path, out);
    }
  }

 private:
  void visit_assign(const Stmt& s, const Path& path,
                    ScaledReductions& out) override {
    if (s->as<Assign>().name != init_.name) return;
    if (s->kind == StmtKind::Assign) {
      out.all_scaled = false;
      return;
    }
    if (!is_scaled_reduction_of_init(s, path)) out.all_scaled = false;
    out.paths.push_back(path);
  }
  void visit_if(const Stmt& s, const Path& path,
                ScaledReductions& out) override {
    find(s->as<If>().body, path, Slot::Body, out);
    find(s->as<If>().orelse, path, Slot::Orelse, out);
  }
  void visit_for(const Stmt& s, const Path& path,
                 ScaledReductions& out) override {
    find(s->as<For>().body, path, Slot::Body, out);
  }
  void visit_pass(const Stmt&, const Path&, ScaledReductions&) override {}
  void visit_alloc(const Stmt&, const Path&, ScaledReductions&) override {}
  // Window statements, config writes, calls, with blocks and syncs.
  void visit_stmt_default(const Stmt& s, const Path&,
                          ScaledReductions&) override {
    throw UnsupportedStatementError("unsupported stmt type in loop body: " +
                                    print_stmt(s));
  }

  // `x[idx'] += c * e` with `idx'` equal to the initialised element's
  // indices where the reduction runs, and `c` a literal or a read.
  bool is_scaled_reduction_of_init(const Stmt& s, const Path& path) {
    const Reduce& r = s->as<Reduce>();
    if (r.idx.size() != init_.idx.size()) return false;
    QueryContext ctx(proc_, path);
    for (size_t k = 0; k < r.idx.size(); k++)
      if (!prove_equivalent(ctx, init_.idx[k], r.idx[k]).proven()) return false;
    if (r.rhs->kind != ExprKind::BinOp ||
        r.rhs->as<BinOp>().op != BinOpKind::Mul)
      return false;
    ExprKind c = r.rhs->as<BinOp>().lhs->kind;
    return c == ExprKind::Const || c == ExprKind::Read;
  }

  const Proc& proc_;
  const Assign& init_;
};

Expr scale_of(const Proc& proc, const Path& reduction) {
  return cursors::resolve_stmt(proc, reduction)
      ->as<Reduce>()
      .rhs->as<BinOp>()
      .lhs;
}

bool same_scale(const Proc& proc, const Expr& c1, const Path& at2,
                const Expr& c2) {
  if (c1->kind == ExprKind::Const && c2->kind == ExprKind::Const)
    return literal_value(c1->as<Const>()) == literal_value(c2->as<Const>());
  if (c1->kind != ExprKind::Read || c2->kind != ExprKind::Read) return false;
  const Read& r1 = c1->as<Read>();
  const Read& r2 = c2->as<Read>();
  if (r1.name != r2.name || r1.idx.size() != r2.idx.size()) return false;
  QueryContext ctx(proc, at2);
  for (size_t k = 0; k < r1.idx.size(); k++)
    if (!prove_equivalent(ctx, r1.idx[k], r2.idx[k]).proven()) return false;
  return true;
}

// The variables a loop binds: its iterator and the iterators, allocations
// and windows inside it, in program order.
class BoundInside : public IRVisitor {
 public:
  std::vector<Sym>& out;
  explicit BoundInside(std::vector<Sym>& o)
      : IRVisitor(Visits::StatementsOnly), out(o) {}

 protected:
  void visit_for(const For& s) override {
    out.push_back(s.iter);
    visit(s.body);
  }
  void visit_alloc(const Alloc& s) override {
    if (s.kind == StmtKind::Alloc) out.push_back(s.name);
  }
  void visit_window_stmt(const WindowStmt& s) override {
    out.push_back(s.name);
  }
};

}  // namespace

cursors::EditResult lift_reduce_constant(const Proc& proc,
                                         const cursors::Location& block) {
  if (block.kind != cursors::LocationKind::Block || block.hi - block.lo() != 2)
    throw ArgumentError("lift_reduce_constant: expected a block of size 2");
  Path first = block.path;
  Path second = block.path;
  second.back().index++;
  Stmt s1 = cursors::resolve_stmt(proc, first);
  Stmt s2 = cursors::resolve_stmt(proc, second);
  if (s1->kind != StmtKind::Assign || !is_zero(s1->as<Assign>().rhs))
    refuse(std::string(kPrefix) + "the buffer is not initialized to zero",
           {.srcinfo = s1->srcinfo});
  if (s2->kind != StmtKind::For)
    refuse(std::string(kPrefix) + "the second statement is not a loop",
           {.srcinfo = s2->srcinfo});
  const Assign& init = s1->as<Assign>();
  const For& loop = s2->as<For>();

  QueryContext ctx(proc, second);
  const Location x = location_written(s1, ctx.windows());
  const std::vector<Access> effects = effects_of(loop.body, ctx.windows());
  for (const Access& a : effects)
    if (a.kind == AccessKind::Read && a.location.same_as(x))
      refuse(std::string(kPrefix) + "the buffer is read in the loop body",
             {.srcinfo = a.srcinfo});

  ScaledReductions found;
  ReductionFinder(proc, init).find(loop.body, second, Slot::Body, found);
  // Writes through windows of `x` are invisible to the syntactic search.
  size_t writes_to_x = 0;
  for (const Access& a : effects)
    if (a.modifies() && a.location.same_as(x)) writes_to_x++;
  if (!found.all_scaled || writes_to_x != found.paths.size())
    refuse(std::string(kPrefix) +
               "there are other operations on the same buffer that may "
               "interfere",
           {.srcinfo = s2->srcinfo});
  if (found.paths.empty())
    refuse(std::string(kPrefix) +
               "did not find a reduce in the loop body of the form `buffer "
               "+= c * expr`",
           {.srcinfo = s2->srcinfo});

  const Expr c = scale_of(proc, found.paths.front());
  for (size_t k = 1; k < found.paths.size(); k++)
    if (!same_scale(proc, c, found.paths[k], scale_of(proc, found.paths[k])))
      refuse(fmt::format("{}the reduces to buffer {} in the loop body have "
                         "different constants",
                         kPrefix, init.name.name()),
             {.srcinfo = cursors::resolve_stmt(proc, found.paths[k])->srcinfo});
  if (c->kind == ExprKind::Read) {
    std::vector<Sym> inner;
    BoundInside(inner).visit(s2);
    for (const Sym& v : inner)
      if (mentions(c, v))
        refuse(fmt::format("{} depends on the variable {} which is defined "
                           "within the loop",
                           print_expr(c), v.name()),
               {.srcinfo = c->srcinfo});
    const std::vector<Location> c_reads = locations_read(c, ctx.windows());
    for (const Access& a : effects)
      if (a.modifies() && contains(c_reads, a.location))
        refuse(std::string(kPrefix) +
                   "it is a buffer that is written in the loop body",
               {.srcinfo = a.srcinfo});
  }

  // Replacing right-hand sides moves no statement, so the paths stay valid.
  EditSequence edits(proc);
  for (const Path& reduction : found.paths) {
    Path rhs = reduction;
    rhs.push_back(Step{Slot::Rhs, 0});
    Expr e = cursors::resolve_expr(edits.proc(), rhs)->as<BinOp>().rhs;
    edits.apply(
        cursors::replace_expr(edits.proc(), cursors::Location::node(rhs), e));
  }
  Expr old_value = make_read(init.name, init.idx, s1->srcinfo, init.type);
  Stmt scale = make_assign(
      init.name, init.type, init.idx,
      make_binop(BinOpKind::Mul, c, old_value, s1->srcinfo, init.type),
      s1->srcinfo);
  edits.apply(cursors::insert(
      edits.proc(), cursors::gap_after(cursors::Location::node(second)),
      {scale}));
  return edits.result();
}

}  // namespace exo2::primitives
