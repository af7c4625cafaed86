#include "exo2/primitives/window_overwrite.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <utility>

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;
using cursors::Slot;
using cursors::Step;

// A conjunction of boolean control conditions; the empty cube is `True`.
using Cube = std::vector<Expr>;
using Cubes = std::vector<Cube>;

// Beyond this many cubes the analysis stops collecting (fewer facts: the
// load stays).
constexpr size_t kMaxCubes = 64;

const Type kBool(TypeKind::Bool);

Path child(Path p, Step step) {
  p.push_back(step);
  return p;
}

class ConfigReadFinder : public IRVisitor {
 public:
  bool found = false;

 protected:
  void visit_read_config(const ReadConfig&) override {
    found = true;
    stop();
  }
};

bool reads_config(const Expr& e) {
  ConfigReadFinder finder;
  finder.visit(e);
  return finder.found;
}

bool any_reads_config(const std::vector<Expr>& es) {
  for (const Expr& e : es)
    if (reads_config(e)) return true;
  return false;
}

Expr negation(const Expr& cond) {
  return make_binop(BinOpKind::Eq, cond,
                    make_const(false, cond->srcinfo, kBool), cond->srcinfo,
                    kBool);
}

Expr conjunction(const Cube& cube, const SrcInfo& src) {
  Expr out;
  for (const Expr& c : cube)
    out = out ? control_binop(BinOpKind::And, out, c, src) : c;
  return out ? out : make_const(true, src, kBool);
}

// Whether `e` is the iterator `iter`, or `iter + c`, `c + iter`, `iter - c`
// with `c` free of it: sets `value` to what `iter` equals when `e == elem`.
bool solve_for(const Expr& e, const Sym& iter, const Expr& elem, Expr& value) {
  auto is_iter = [&](const Expr& x) {
    return x->kind == ExprKind::Read && x->as<Read>().idx.empty() &&
           x->as<Read>().name == iter;
  };
  if (is_iter(e)) {
    value = elem;
    return true;
  }
  if (e->kind != ExprKind::BinOp) return false;
  const BinOp& b = e->as<BinOp>();
  const SrcInfo& src = e->srcinfo;
  if (b.op == BinOpKind::Add && is_iter(b.lhs) && !mentions(b.rhs, iter)) {
    value = control_binop(BinOpKind::Sub, elem, b.rhs, src);
    return true;
  }
  if (b.op == BinOpKind::Add && is_iter(b.rhs) && !mentions(b.lhs, iter)) {
    value = control_binop(BinOpKind::Sub, elem, b.lhs, src);
    return true;
  }
  if (b.op == BinOpKind::Sub && is_iter(b.lhs) && !mentions(b.rhs, iter)) {
    value = control_binop(BinOpKind::Add, elem, b.rhs, src);
    return true;
  }
  return false;
}

// The cube of elements written in some iteration `iter` in [lo, hi) when
// `cube` holds for that iteration: `iter` solved from an element equality
// and its range added; nothing when it cannot be solved.
std::optional<Cube> for_some_iteration(const Cube& cube, const Sym& iter,
                                       const Expr& lo, const Expr& hi,
                                       const std::vector<Sym>& elements) {
  const SrcInfo& src = hi->srcinfo;
  bool uses_iter = false;
  for (const Expr& c : cube) uses_iter = uses_iter || mentions(c, iter);
  if (!uses_iter) {
    Cube out = cube;
    out.push_back(control_binop(BinOpKind::Lt, lo, hi, src));
    return out;
  }
  for (size_t k = 0; k < cube.size(); k++) {
    const Expr& c = cube[k];
    if (c->kind != ExprKind::BinOp || c->as<BinOp>().op != BinOpKind::Eq)
      continue;
    const BinOp& eq = c->as<BinOp>();
    if (eq.lhs->kind != ExprKind::Read) continue;
    bool is_element = false;
    for (const Sym& e : elements)
      is_element = is_element || eq.lhs->as<Read>().name == e;
    Expr value;
    if (!is_element || !solve_for(eq.rhs, iter, eq.lhs, value)) continue;
    Cube out;
    const Substitution at{{iter, value}};
    for (size_t j = 0; j < cube.size(); j++)
      if (j != k) out.push_back(substitute(cube[j], at));
    out.push_back(control_binop(BinOpKind::Le, lo, value, src));
    out.push_back(control_binop(BinOpKind::Lt, value, hi, src));
    return out;
  }
  return std::nullopt;
}

// Loops, branches and with blocks combine what their bodies write; any
// other statement is a leaf whose accesses are the staged ones at its path.
class OverwriteWalker : private StmtFunctor<void(const Path&, Cubes&, bool)> {
 public:
  OverwriteWalker(QueryContext& ctx, const std::vector<StagedAccess>& accesses,
                  std::vector<Sym> elements)
      : ctx_(ctx), elements_(std::move(elements)) {
    for (const StagedAccess& a : accesses) {
      // The statement an access belongs to: its path up to the last
      // statement step.
      size_t end = a.path.size();
      while (end > 0 && !cursors::is_statement_slot(a.path[end - 1].slot))
        end--;
      by_stmt_[Path(a.path.begin(), a.path.begin() + end)].push_back(&a);
    }
  }

  // False once a read may come before the write of its element.
  bool reads_written = true;

  // Walks `b` (first statement at `first`) adding to `written` what it
  // writes; with `check`, also checks its reads.
  void block(const Block& b, const Path& first, Cubes& written, bool check) {
    for (size_t i = 0; i < b.size(); i++) {
      Path p = first;
      p.back().index = first.back().index + static_cast<int>(i);
      visit(b[i], p, written, check);
    }
  }

  // Whether every element of `window` inside the buffer (of extents
  // `shape`) lies in a cube of `written`, in the context just before the
  // block.
  bool covers(const std::vector<WindowAccess>& window,
              const std::vector<Expr>& shape, const Cubes& written,
              const SrcInfo& src) {
    Cube inside;
    for (size_t d = 0; d < window.size(); d++) {
      const Expr e = element(d, src);
      const WindowAccess& w = window[d];
      if (reads_config(w.lo) || reads_config(w.hi)) return false;
      if (d < shape.size() && !reads_config(shape[d])) {
        inside.push_back(
            control_binop(BinOpKind::Le, control_int(0, src), e, src));
        inside.push_back(control_binop(BinOpKind::Lt, e, shape[d], src));
      }
      if (!w.is_interval) {
        inside.push_back(control_binop(BinOpKind::Eq, e, w.lo, src));
      } else {
        inside.push_back(control_binop(BinOpKind::Le, w.lo, e, src));
        inside.push_back(control_binop(BinOpKind::Lt, e, w.hi, src));
      }
    }
    std::vector<Expr> idx;
    for (size_t d = 0; d < window.size(); d++) idx.push_back(element(d, src));
    const Expr some = any_cube_at(written, idx, src);
    if (!some) return false;
    const Expr goal = control_binop(
        BinOpKind::Or, negation(conjunction(inside, src)), some, src);
    return prove_holds(ctx_, goal).proven();
  }

 private:
  QueryContext& ctx_;
  std::vector<Sym> elements_;
  std::map<Path, std::vector<const StagedAccess*>> by_stmt_;
  // Loops entered below the block's start (the leading loops of an access).
  size_t depth_ = 0;

  Expr element(size_t d, const SrcInfo& src) const {
    return iterator_read(elements_[d], src);
  }

  // `some cube of written holds at idx` as one condition; null when there
  // is no cube.
  Expr any_cube_at(const Cubes& written, const std::vector<Expr>& idx,
                   const SrcInfo& src) const {
    Substitution at;
    for (size_t d = 0; d < idx.size() && d < elements_.size(); d++)
      at[elements_[d]] = idx[d];
    Expr any;
    for (const Cube& cube : written) {
      const Expr c = substitute(conjunction(cube, src), at);
      any = any ? control_binop(BinOpKind::Or, any, c, src) : c;
    }
    return any;
  }

  static void add(Cubes& written, Cube cube) {
    if (written.size() < kMaxCubes) written.push_back(std::move(cube));
  }

  // Whether every element `a` touches was written before.
  bool written_before(const StagedAccess& a, const Cubes& written) {
    if (!a.access || any_reads_config(a.access->idx)) return false;
    const SrcInfo& src = a.access->srcinfo;
    const Expr some = any_cube_at(written, a.access->idx, src);
    if (!some) return false;
    // The intervals of a window expression: loops after the block's.
    const std::vector<LoopRange>& loops = a.access->loops;
    size_t entered = 0;
    bool proven = true;
    for (size_t k = depth_; k < loops.size(); k++) {
      if (reads_config(loops[k].lo) || reads_config(loops[k].hi)) {
        proven = false;
        break;
      }
      ctx_.enter_loop(loops[k].iter, loops[k].lo, loops[k].hi);
      entered++;
    }
    if (proven) proven = prove_holds(ctx_, some).proven();
    for (; entered > 0; entered--) ctx_.leave();
    return proven;
  }

  void leaf(const Path& path, Cubes& written, bool check) {
    auto it = by_stmt_.find(path);
    if (it == by_stmt_.end()) return;
    // A statement reads before it writes.
    if (check)
      for (const StagedAccess* a : it->second)
        if (a->reads && reads_written && !written_before(*a, written))
          reads_written = false;
    for (const StagedAccess* a : it->second) {
      if (!a->assigns || !a->access || any_reads_config(a->access->idx))
        continue;
      Cube cube;
      for (size_t d = 0; d < a->access->idx.size(); d++)
        cube.push_back(control_binop(BinOpKind::Eq,
                                     element(d, a->access->srcinfo),
                                     a->access->idx[d], a->access->srcinfo));
      add(written, std::move(cube));
    }
  }

  void loop(const For& f, const Path& path, Cubes& written, bool check) {
    const bool stable = !reads_config(f.lo) && !reads_config(f.hi);
    if (stable)
      ctx_.enter_loop(f.iter, f.lo, f.hi);
    else
      ctx_.enter_branch(make_const(true, f.srcinfo, kBool), true);
    depth_++;
    const Path body = child(path, {Slot::Body, 0});
    // What one iteration writes does not depend on what was written before.
    Cubes iteration;
    block(f.body, body, iteration, false);
    if (check) {
      Cubes entry = written;
      if (stable)
        for (const Cube& c : iteration)
          if (auto earlier = for_some_iteration(
                  c, f.iter, f.lo, iterator_read(f.iter, f.srcinfo), elements_))
            add(entry, std::move(*earlier));
      block(f.body, body, entry, true);
    }
    depth_--;
    ctx_.leave();
    if (!stable) return;
    for (const Cube& c : iteration)
      if (auto any = for_some_iteration(c, f.iter, f.lo, f.hi, elements_))
        add(written, std::move(*any));
  }

  void branches(const If& s, const Path& path, Cubes& written, bool check) {
    const bool stable = !reads_config(s.cond);
    const size_t before = written.size();
    auto branch = [&](const Block& b, Slot slot, bool holds) {
      Cubes out = written;
      ctx_.enter_branch(stable ? s.cond : make_const(true, s.srcinfo, kBool),
                        holds);
      block(b, child(path, {slot, 0}), out, check);
      ctx_.leave();
      return Cubes(out.begin() + static_cast<long>(before), out.end());
    };
    const Cubes then_added = branch(s.body, Slot::Body, true);
    const Cubes else_added =
        s.orelse.empty() ? Cubes() : branch(s.orelse, Slot::Orelse, false);
    if (!stable) {
      for (const Cube& a : then_added)
        for (const Cube& b : else_added) {
          Cube both = a;
          both.insert(both.end(), b.begin(), b.end());
          add(written, std::move(both));
        }
      return;
    }
    for (Cube c : then_added) {
      c.push_back(s.cond);
      add(written, std::move(c));
    }
    for (Cube c : else_added) {
      c.push_back(negation(s.cond));
      add(written, std::move(c));
    }
  }

  void visit_for(const Stmt& s, const Path& path, Cubes& written,
                 bool check) override {
    loop(s->as<For>(), path, written, check);
  }
  void visit_if(const Stmt& s, const Path& path, Cubes& written,
                bool check) override {
    branches(s->as<If>(), path, written, check);
  }
  void visit_with(const Stmt& s, const Path& path, Cubes& written,
                  bool check) override {
    block(s->as<With>().body, child(path, {Slot::Body, 0}), written, check);
  }
  void visit_stmt_default(const Stmt&, const Path& path, Cubes& written,
                          bool check) override {
    leaf(path, written, check);
  }
};

}  // namespace

bool overwrites_window_before_reading(
    QueryContext& ctx, const Block& block, const cursors::Path& first,
    const std::vector<WindowAccess>& window, const std::vector<Expr>& shape,
    const std::vector<StagedAccess>& accesses) {
  std::vector<Sym> elements;
  for (size_t d = 0; d < window.size(); d++)
    elements.push_back(Sym(fmt::format("e{}", d)));
  OverwriteWalker walker(ctx, accesses, elements);
  Cubes written;
  walker.block(block, first, written, true);
  return walker.reads_written &&
         walker.covers(window, shape, written, block.front()->srcinfo);
}

}  // namespace exo2::primitives
