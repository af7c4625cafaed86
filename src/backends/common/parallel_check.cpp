// Race freedom of `par` loops (ParallelSafe of docs/reference/primitives.md):
// two different iterations of a parallel loop must never touch the same element
// when one of them writes it. [fix] Every `par` loop is checked, nested ones
// too.
//
// For each loop the body's accesses to buffers that live outside the body
// are collected as regions of the underlying buffer (accesses through
// window statements are translated to the windowed buffer; a call touches
// the whole window it is passed, and writes it when the callee writes that
// parameter). Each (write, access) pair is instantiated for two iterations
// i1 != i2 with independent copies of the inner loop iterators, and Z3 must
// show that the regions cannot intersect. Config writes inside a parallel
// body, callees included, are races.
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "exo2/analysis/config_state.hpp"
#include "exo2/analysis/written_buffers.hpp"
#include "exo2/analysis/z3_encoding.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {

// One dimension of an accessed region: [lo, hi), or the point lo.
struct Extent {
  Expr lo;
  Expr hi;  // null for a point
};

struct Access {
  Sym buffer;
  bool write = false;
  // Empty with `whole` set: the access may touch any element.
  std::vector<Extent> region;
  bool whole = false;
  // Loops inside the parallel body enclosing the access, outermost first.
  std::vector<const For*> loops;
  // Conditions that hold at the access (second: false for an else branch).
  std::vector<std::pair<Expr, bool>> guards;
};

// A window statement's view of its buffer: per dimension of the buffer, a
// point or an interval whose lo shifts the window's own indices.
struct Alias {
  Sym buffer;
  std::vector<WindowAccess> idx;
};

Expr add(const Expr& a, const Expr& b) {
  return make_binop(BinOpKind::Add, a, b, a->srcinfo, Type(TypeKind::Index));
}

class AccessCollector : public IRVisitor {
 public:
  std::vector<Access> accesses;
  bool writes_config = false;

  explicit AccessCollector(std::unordered_map<Sym, Alias> aliases)
      : aliases_(std::move(aliases)) {}

 private:
  std::unordered_map<Sym, Alias> aliases_;
  std::unordered_set<Sym> locals_;  // allocated inside the body
  std::vector<const For*> loops_;
  std::vector<std::pair<Expr, bool>> guards_;

  // The region of the underlying buffer of `name` selected by `idx` (in the
  // coordinates of `name`).
  void record(const Sym& name, std::vector<Extent> region, bool write,
              bool whole) {
    Sym buffer = name;
    auto it = aliases_.find(name);
    if (it != aliases_.end()) {
      buffer = it->second.buffer;
      std::vector<Extent> base;
      size_t k = 0;
      for (const WindowAccess& w : it->second.idx) {
        if (!w.is_interval) {
          base.push_back({w.lo, nullptr});
        } else if (whole || k >= region.size()) {
          base.push_back({w.lo, w.hi});
        } else {
          const Extent& e = region[k++];
          base.push_back({add(w.lo, e.lo), e.hi ? add(w.lo, e.hi) : nullptr});
        }
      }
      region = std::move(base);
      whole = false;
    }
    if (locals_.count(buffer)) return;
    accesses.push_back(
        {buffer, write, std::move(region), whole, loops_, guards_});
  }

  void call_arg(const Expr& a, bool write) {
    // A config field passed to a scalar parameter the callee writes.
    if (a->kind == ExprKind::ReadConfig && write) writes_config = true;
    if (a->kind == ExprKind::WindowExpr) {
      const auto& w = a->as<WindowExpr>();
      std::vector<Extent> region;
      for (const WindowAccess& x : w.idx)
        region.push_back({x.lo, x.is_interval ? x.hi : nullptr});
      // Through `record`, a window of a window lands on the buffer.
      record(w.name, std::move(region), write, false);
    } else if (a->kind == ExprKind::Read && a->type.is_numeric()) {
      const auto& r = a->as<Read>();
      std::vector<Extent> region;
      for (const Expr& i : r.idx) region.push_back({i, nullptr});
      record(r.name, std::move(region), write, r.idx.empty());
    }
  }

  // ---- the accesses of statements: reads of their data expressions, the
  // element an assignment writes, the windows a call passes
  void visit_read(const Read& e) override {
    if (!e.type.is_numeric()) return;
    std::vector<Extent> region;
    for (const Expr& i : e.idx) region.push_back({i, nullptr});
    record(e.name, std::move(region), false, false);
  }
  void visit_assign(const Assign& a) override {
    IRVisitor::visit_assign(a);
    std::vector<Extent> region;
    for (const Expr& i : a.idx) region.push_back({i, nullptr});
    record(a.name, std::move(region), true, false);
  }
  void visit_write_config(const WriteConfig& w) override {
    writes_config = true;
    IRVisitor::visit_write_config(w);
  }
  void visit_alloc(const Alloc& a) override {
    if (a.kind == StmtKind::Alloc) locals_.insert(a.name);
  }
  void visit_window_stmt(const WindowStmt& w) override {
    if (w.rhs->kind != ExprKind::WindowExpr) return;
    const auto& rhs = w.rhs->as<WindowExpr>();
    if (locals_.count(rhs.name)) {
      locals_.insert(w.name);
      return;
    }
    auto it = aliases_.find(rhs.name);
    if (it == aliases_.end()) {
      aliases_[w.name] = {rhs.name, rhs.idx};
      return;
    }
    // Compose: the new window's intervals index the old window's.
    Alias composed{it->second.buffer, {}};
    size_t k = 0;
    for (const WindowAccess& outer : it->second.idx) {
      if (!outer.is_interval || k >= rhs.idx.size()) {
        composed.idx.push_back(outer);
        continue;
      }
      const WindowAccess& inner = rhs.idx[k++];
      if (inner.is_interval)
        composed.idx.push_back(WindowAccess::interval(add(outer.lo, inner.lo),
                                                      add(outer.lo, inner.hi)));
      else
        composed.idx.push_back(WindowAccess::point(add(outer.lo, inner.lo)));
    }
    aliases_[w.name] = std::move(composed);
  }
  void visit_call(const Call& c) override {
    writes_config = writes_config || !config_fields_written(c.f->body).empty();
    const std::vector<Sym> written = written_buffers(c.f->body);
    for (size_t k = 0; k < c.args.size(); ++k) {
      bool write = false;
      for (const Sym& w : written) write |= w == c.f->args[k].name;
      call_arg(c.args[k], write);
    }
  }
  void visit_if(const If& i) override {
    guards_.push_back({i.cond, true});
    visit(i.body);
    guards_.back().second = false;
    visit(i.orelse);
    guards_.pop_back();
  }
  void visit_for(const For& f) override {
    loops_.push_back(&f);
    IRVisitor::visit_for(f);
    loops_.pop_back();
  }
  // Synchronisation touches no data.
  void visit_sync(const Sync&) override {}
};

class ParallelChecker : public IRVisitor {
 public:
  explicit ParallelChecker(const Proc& p)
      : IRVisitor(Visits::StatementsOnly), proc_(p) {}

  void run() {
    written_fields_ = config_fields_written(proc_->body);
    for (const FnArg& a : proc_->args)
      if (a.type.kind() == TypeKind::Size) smt_.assume(smt_.var(a.name) >= 1);
    for (const Expr& pred : proc_->preds)
      if (holds_throughout(pred)) smt_.assume(pred);
    visit(proc_->body);
    if (!errors_.empty()) {
      std::string msg = "Errors occurred during precision checking:";
      for (const auto& e : errors_) msg += "\n" + e;
      throw CodegenError(CodegenError::Kind::Type, msg);
    }
  }

 private:
  const Proc& proc_;
  SmtEncoder smt_;
  std::vector<std::string> errors_;
  std::unordered_map<Sym, Alias> aliases_;
  // Config fields the procedure writes: a fact outside a parallel loop that
  // reads one may no longer hold when the loop runs (inside the loop, where
  // no field is written, the guards read the current values).
  std::vector<Location> written_fields_;

  bool holds_throughout(const Expr& fact) const {
    return SmtEncoder::is_encodable(fact) &&
           !reads_any_field(fact, written_fields_);
  }

  void visit_window_stmt(const WindowStmt& w) override {
    if (w.rhs->kind == ExprKind::WindowExpr)
      aliases_[w.name] = {w.rhs->as<WindowExpr>().name,
                          w.rhs->as<WindowExpr>().idx};
  }
  void visit_if(const If& i) override {
    const bool encodable = holds_throughout(i.cond);
    smt_.push();
    if (encodable) smt_.assume(i.cond);
    visit(i.body);
    smt_.pop();
    smt_.push();
    if (encodable) smt_.assume(!smt_.encode(i.cond));
    visit(i.orelse);
    smt_.pop();
  }
  void visit_for(const For& f) override {
    if (f.mode && f.mode->is_parallel() && !race_free(f))
      errors_.push_back(f.srcinfo.str() +
                        ": parallel loop's body is not parallelizable "
                        "because of potential data races");
    smt_.push();
    assume_range(f);
    IRVisitor::visit_for(f);
    smt_.pop();
  }

  void assume_range(const For& f) {
    z3::expr i = smt_.var(f.iter);
    if (holds_throughout(f.lo)) smt_.assume(smt_.encode(f.lo) <= i);
    if (holds_throughout(f.hi)) smt_.assume(i < smt_.encode(f.hi));
  }

  // One access instantiated for one iteration: its facts and its region.
  struct Instance {
    std::vector<z3::expr> facts;
    std::vector<std::pair<z3::expr, z3::expr>> region;  // [lo, hi)
    bool encodable = true;
  };

  Instance instantiate(const For& loop, const Access& a, const z3::expr& iter,
                       int copy) {
    Instance out;
    smt_.push();
    smt_.bind(loop.iter, iter);
    auto encodable = [](const Expr& e) {
      return e && SmtEncoder::is_encodable(e);
    };
    for (const For* inner : a.loops) {
      // Bounds are encoded before the iterator is renamed: they may mention
      // enclosing iterators only.
      z3::expr j = smt_.fresh_int(inner->iter.name() + std::to_string(copy));
      if (encodable(inner->lo) && encodable(inner->hi))
        out.facts.push_back(smt_.encode(inner->lo) <= j &&
                            j < smt_.encode(inner->hi));
      smt_.bind(inner->iter, j);
    }
    for (const auto& [cond, positive] : a.guards) {
      if (!encodable(cond)) continue;
      z3::expr c = smt_.encode(cond);
      out.facts.push_back(positive ? c : !c);
    }
    for (const Extent& e : a.region) {
      if (!encodable(e.lo) || (e.hi && !encodable(e.hi))) {
        out.encodable = false;
        break;
      }
      z3::expr lo = smt_.encode(e.lo);
      out.region.push_back({lo, e.hi ? smt_.encode(e.hi) : lo + 1});
    }
    smt_.pop();
    return out;
  }

  bool race_free(const For& loop) {
    AccessCollector collector(aliases_);
    collector.visit(loop.body);
    if (collector.writes_config) return false;
    const auto& acc = collector.accesses;
    if (!SmtEncoder::is_encodable(loop.lo) ||
        !SmtEncoder::is_encodable(loop.hi))
      return false;
    z3::expr lo = smt_.encode(loop.lo), hi = smt_.encode(loop.hi);
    for (size_t w = 0; w < acc.size(); ++w) {
      if (!acc[w].write) continue;
      for (size_t k = 0; k < acc.size(); ++k) {
        if (acc[k].buffer != acc[w].buffer || (acc[k].write && k < w)) continue;
        if (acc[w].whole || acc[k].whole) return false;
        z3::expr i1 = smt_.fresh_int(loop.iter.name() + "1");
        z3::expr i2 = smt_.fresh_int(loop.iter.name() + "2");
        Instance a = instantiate(loop, acc[w], i1, 1);
        Instance b = instantiate(loop, acc[k], i2, 2);
        if (!a.encodable || !b.encodable) return false;
        z3::expr overlap =
            i1 != i2 && lo <= i1 && i1 < hi && lo <= i2 && i2 < hi;
        for (const auto& f : a.facts) overlap = overlap && f;
        for (const auto& f : b.facts) overlap = overlap && f;
        const size_t dims = std::min(a.region.size(), b.region.size());
        for (size_t d = 0; d < dims; ++d)
          overlap = overlap && a.region[d].first < b.region[d].second &&
                    b.region[d].first < a.region[d].second;
        if (!smt_.satisfiable(overlap).no()) return false;
      }
    }
    return true;
  }
};

}  // namespace

void check_parallel_loops(const Proc& p) { ParallelChecker(p).run(); }

}  // namespace exo2
