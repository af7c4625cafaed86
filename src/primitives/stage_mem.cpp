#include "exo2/primitives/stage_mem.hpp"

#include <fmt/format.h>

#include <optional>
#include <unordered_set>
#include <vector>

#include "exo2/analysis/effects.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/core_ir/typecheck.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/strides.hpp"
#include "exo2/primitives/substitute.hpp"
#include "exo2/primitives/window_overwrite.hpp"

namespace exo2::primitives {
namespace {

using cursors::GapSide;
using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

Path child(Path p, Step step) {
  p.push_back(step);
  return p;
}

const std::string kInOrOut =
    "Buffer has accesses which are neither fully within nor disjoint from "
    "the window";

// One access of the staged buffer (or of a window of it made inside the
// block) found in the block.
struct Site {
  enum class Kind { Read, Assign, Reduce, Window, CallArg };
  Kind kind = Kind::Read;
  Path path;  // the expression, or the statement for Assign/Reduce
  // The elements touched, in x's coordinates, with the loops and ifs of the
  // block around it (window intervals become extra loops). Unset for uses
  // of windows made inside the block, which follow their window statement.
  std::optional<Access> access;
  bool reads = false, writes = false;
};

// What the callee of `call` does with its parameter `k`.
void callee_effects(const Stmt& call, int k, bool& reads, bool& writes) {
  const Call& c = call->as<Call>();
  const Sym& param = c.f->args.at(static_cast<size_t>(k)).name;
  for (const Access& a : effects_of(c.f->body)) {
    if (a.location.is_config() || a.location.buffer != param) continue;
    reads = reads || a.kind != AccessKind::Write;
    writes = writes || a.modifies();
  }
}

class SiteCollector : private StmtFunctor<void(const Path&)> {
 public:
  SiteCollector(Sym x, size_t rank, std::unordered_set<Sym> aliases)
      : x_(std::move(x)), rank_(rank), aliases_(std::move(aliases)) {}

  std::vector<Site> sites;

  void block(const Block& b, const Path& first) {
    for (int i = 0; i < static_cast<int>(b.size()); i++) {
      Path p = first;
      p.back().index = first.back().index + i;
      visit(b[static_cast<size_t>(i)], p);
    }
  }

 private:
  Sym x_;
  size_t rank_;
  std::unordered_set<Sym> aliases_;
  // Windows of the staged region made inside the block.
  std::unordered_set<Sym> staged_windows_;
  std::vector<LoopRange> loops_;
  std::vector<Guard> guards_;

  void refuse_alias(const Sym& name, const SrcInfo& src) {
    refuse(fmt::format("Cannot stage '{}': the block also accesses it "
                       "through '{}' at {}.",
                       x_.name(), name.name(), src.str()),
           {.srcinfo = src,
            .condition = "InOrOut(acc, W)",
            .hint = "inline_window the window, or stage '" + name.name() +
                    "' instead"});
  }

  Site make_site(Site::Kind kind, Path path, const std::vector<Expr>& idx,
                 const SrcInfo& src, const std::string& text) {
    Site s;
    s.kind = kind;
    s.path = std::move(path);
    Access a;
    a.kind = kind == Site::Kind::Assign   ? AccessKind::Write
             : kind == Site::Kind::Reduce ? AccessKind::Reduce
                                          : AccessKind::Read;
    a.location.buffer = x_;
    a.idx = idx;
    a.loops = loops_;
    a.guards = guards_;
    a.srcinfo = src;
    a.text = text;
    s.access = std::move(a);
    return s;
  }

  // A use of a window made inside the block from the staged region.
  void staged_window_use(Site::Kind kind, Path path, bool reads, bool writes) {
    Site s;
    s.kind = kind;
    s.path = std::move(path);
    s.reads = reads;
    s.writes = writes;
    sites.push_back(std::move(s));
  }

  void visit_assign(const Stmt& s, const Path& path) override {
    const Assign& a = s->as<Assign>();
    cursors::for_each_expr_child(
        s, [&](Step step, const Expr& e) { expr(e, child(path, step)); });
    const bool reduce = s->kind == StmtKind::Reduce;
    const auto kind = reduce ? Site::Kind::Reduce : Site::Kind::Assign;
    if (a.name == x_) {
      Site site = make_site(kind, path, a.idx, s->srcinfo, print_stmt(s));
      site.reads = reduce;
      site.writes = true;
      sites.push_back(std::move(site));
    } else if (staged_windows_.count(a.name)) {
      staged_window_use(kind, path, reduce, true);
    } else if (aliases_.count(a.name)) {
      refuse_alias(a.name, s->srcinfo);
    }
  }

  void visit_for(const Stmt& s, const Path& path) override {
    const For& f = s->as<For>();
    loops_.push_back({f.iter, f.lo, f.hi});
    block(f.body, child(path, {Slot::Body, 0}));
    loops_.pop_back();
  }

  void visit_if(const Stmt& s, const Path& path) override {
    const If& f = s->as<If>();
    guards_.push_back({f.cond, true});
    block(f.body, child(path, {Slot::Body, 0}));
    guards_.back().holds = false;
    block(f.orelse, child(path, {Slot::Orelse, 0}));
    guards_.pop_back();
  }

  void visit_with(const Stmt& s, const Path& path) override {
    block(s->as<With>().body, child(path, {Slot::Body, 0}));
  }

  void visit_window_stmt(const Stmt& s, const Path& path) override {
    const WindowStmt& w = s->as<WindowStmt>();
    const size_t before = sites.size();
    expr(w.rhs, child(path, {Slot::Rhs, 0}));
    if (sites.size() > before) staged_windows_.insert(w.name);
  }

  void visit_stmt_default(const Stmt& s, const Path& path) override {
    cursors::for_each_expr_child(
        s, [&](Step step, const Expr& e) { expr(e, child(path, step)); });
  }

  void visit_call(const Stmt& s, const Path& path) override {
    const Call& c = s->as<Call>();
    for (int k = 0; k < static_cast<int>(c.args.size()); k++) {
      const Expr& arg = c.args[static_cast<size_t>(k)];
      const Path arg_path = child(path, {Slot::Arg, k});
      const Sym* name = nullptr;
      if (arg->kind == ExprKind::Read && arg->as<Read>().idx.empty())
        name = &arg->as<Read>().name;
      else if (arg->kind == ExprKind::WindowExpr)
        name = &arg->as<WindowExpr>().name;
      if (name == nullptr) {
        expr(arg, arg_path);
        continue;
      }
      bool reads = false, writes = false;
      callee_effects(s, k, reads, writes);
      const size_t before = sites.size();
      if (*name == x_ && arg->kind == ExprKind::Read && rank_ > 0)
        refuse(fmt::format("Cannot stage '{}': the block passes the whole "
                           "buffer to {} at {}.",
                           x_.name(), c.f->name, s->srcinfo.str()),
               {.srcinfo = s->srcinfo,
                .hint = "pass a window of it to the call instead"});
      if (*name == x_ && arg->kind == ExprKind::Read) {
        Site site =
            make_site(Site::Kind::CallArg, arg_path, {}, s->srcinfo, x_.name());
        sites.push_back(std::move(site));
      } else if (staged_windows_.count(*name)) {
        staged_window_use(Site::Kind::CallArg, arg_path, reads, writes);
      } else {
        expr(arg, arg_path);
      }
      for (size_t i = before; i < sites.size(); i++) {
        sites[i].reads = reads;
        sites[i].writes = writes;
      }
    }
  }

  void expr(const Expr& e, const Path& path) {
    if (e->kind == ExprKind::Read) {
      const Read& r = e->as<Read>();
      if (r.name == x_) {
        Site site =
            make_site(Site::Kind::Read, path, r.idx, e->srcinfo, print_expr(e));
        site.reads = true;
        sites.push_back(std::move(site));
      } else if (staged_windows_.count(r.name)) {
        staged_window_use(Site::Kind::Read, path, true, false);
      } else if (aliases_.count(r.name)) {
        refuse_alias(r.name, e->srcinfo);
      }
      return;
    }
    if (e->kind == ExprKind::WindowExpr) {
      const WindowExpr& w = e->as<WindowExpr>();
      if (w.name == x_) {
        // Every element of the window is one instance: intervals become
        // loops over fresh iterators.
        std::vector<Expr> idx;
        const size_t outer = loops_.size();
        for (const WindowAccess& a : w.idx) {
          if (!a.is_interval) {
            idx.push_back(a.lo);
            continue;
          }
          Sym t("t");
          loops_.push_back({t, a.lo, a.hi});
          idx.push_back(iterator_read(t, e->srcinfo));
        }
        Site site =
            make_site(Site::Kind::Window, path, idx, e->srcinfo, print_expr(e));
        loops_.resize(outer);
        site.reads = true;
        sites.push_back(std::move(site));
      } else if (staged_windows_.count(w.name)) {
        staged_window_use(Site::Kind::Window, path, true, false);
      } else if (aliases_.count(w.name)) {
        refuse_alias(w.name, e->srcinfo);
      }
      return;
    }
    cursors::for_each_expr_child(
        e, [&](Step step, const Expr& sub) { expr(sub, child(path, step)); });
  }
};

// `i - lo` for each interval entry of the window (points dropped).
std::vector<Expr> staged_indices(const std::vector<Expr>& idx,
                                 const std::vector<WindowAccess>& window) {
  std::vector<Expr> out;
  for (size_t d = 0; d < window.size(); d++)
    if (window[d].is_interval)
      out.push_back(
          control_binop(BinOpKind::Sub, idx[d], window[d].lo, idx[d]->srcinfo));
  return out;
}

// One stage_mem() call: the block, the window, and what each step learns
// for the next (the staged buffer, the sites inside the window, the edits).
class StageMem {
 public:
  StageMem(const Proc& proc, const Location& block, const Expr& window,
           const std::string& new_name, bool accum)
      : proc_(proc),
        block_(checked_block(block)),
        window_(window),
        new_name_(new_name),
        accum_(accum),
        list_(cursors::enclosing_list(proc, block.path)),
        lo_(block.lo()),
        stmts_(list_.begin() + lo_, list_.begin() + block.hi),
        at_(block.path),
        src_(stmts_.front()->srcinfo),
        edits_(proc) {}

  cursors::EditResult run() {
    resolve_window();
    require_window_unchanged();
    describe_staging_buffer();
    collect_inside_sites();
    decide_load();
    rewrite_inside_expressions();
    rewrite_inside_writes();
    const CopyNest copy = copy_nest();
    insert_store(copy);
    insert_load(copy);
    insert_alloc();
    require_staged_in_bounds();
    return edits_.result();
  }

 private:
  // The block must be a block before anything else is read from it.
  static const Location& checked_block(const Location& block) {
    if (block.kind != cursors::LocationKind::Block)
      throw ArgumentError("stage_mem: expected a block");
    return block;
  }

  // The staged buffer x, its declaration in scope, and the window entries
  // typechecked at the block (a point read stages a single element).
  void resolve_window() {
    if (window_->kind == ExprKind::Read) {
      x_ = window_->as<Read>().name;
      for (const Expr& i : window_->as<Read>().idx)
        entries_.push_back(WindowAccess::point(i));
    } else if (window_->kind == ExprKind::WindowExpr) {
      x_ = window_->as<WindowExpr>().name;
      entries_ = window_->as<WindowExpr>().idx;
    } else {
      throw ArgumentError("stage_mem: expected a window of a buffer");
    }
    scope_ = variables_in_scope(proc_, block_.path);
    for (const SymbolInfo& v : scope_)
      if (v.sym == x_) info_ = &v;
    if (info_ == nullptr)
      throw ArgumentError("stage_mem: the buffer is not in scope");
    if (!info_->type.is_numeric())
      refuse(fmt::format("Cannot stage '{}': it is not a data buffer, but has "
                         "type {}.",
                         x_.name(), info_->type.str()),
             {.srcinfo = info_->srcinfo});
    if (entries_.size() != shape().size())
      refuse(fmt::format("expected windowing of '{}' to have {} indices, but "
                         "only got {}",
                         x_.name(), shape().size(), entries_.size()),
             {.srcinfo = window_->srcinfo});
    for (WindowAccess& e : entries_) {
      if (!e.is_interval ? !e.lo : (!e.lo || !e.hi))
        throw ArgumentError("stage_mem: incomplete window entry");
      e.lo =
          typecheck_in_scope(proc_, block_.path, e.lo, ExprCategory::Control);
      if (e.is_interval)
        e.hi =
            typecheck_in_scope(proc_, block_.path, e.hi, ExprCategory::Control);
    }
  }

  // The store nest evaluates the window again, after the block: the block
  // must not change the config values the window reads.
  void require_window_unchanged() const {
    std::vector<Expr> bounds;
    for (const WindowAccess& e : entries_)
      bounds.insert(bounds.end(), {e.lo, e.hi});
    const SafetyResult unchanged =
        prove_config_reads_unchanged(bounds, stmts_, "the staged window reads");
    require_proven(
        unchanged,
        fmt::format("Cannot stage '{}': {}, and the window is "
                    "evaluated before and after the block.",
                    x_.name(), unchanged.detail),
        {.srcinfo = window_->srcinfo, .condition = "ReadsUnchanged"});
  }

  // The staging buffer takes the memory of the buffer x views, and the
  // window's interval extents as its shape; other windows of that buffer
  // are aliases of x.
  void describe_staging_buffer() {
    ctx_.emplace(proc_, at_);
    mem_ = info_->mem;
    Sym root = x_;
    if (auto view = ctx().windows().find(x_); view != ctx().windows().end()) {
      root = view->second.buffer;
      for (const SymbolInfo& v : scope_)
        if (v.sym == root) mem_ = v.mem;
    }
    if (!mem_) mem_ = default_memory();
    if (root != x_) aliases_.insert(root);
    for (const auto& [name, view] : ctx().windows())
      if (name != x_ && view.buffer == root) aliases_.insert(name);

    base_ = info_->type.basetype();
    for (const WindowAccess& e : entries_)
      if (e.is_interval)
        new_shape_.push_back(control_binop(BinOpKind::Sub, e.hi, e.lo, src_));
    staged_ = Sym(new_name_);
    new_type_ =
        new_shape_.empty() ? base_ : Type::tensor(base_, new_shape_, false);
  }

  // Safety: ReduceOnly (accum), then every access of x in the block is
  // placed with fixed config values and is inside or outside the window
  // (InOrOut); the inside ones are kept, and some must exist.
  void collect_inside_sites() {
    if (accum_)
      require_proven(
          prove_reduce_only(ctx(), stmts_, x_),
          fmt::format("The buffer {} is accessed in a way other than simply "
                      "reducing into it",
                      x_.name()),
          {.srcinfo = src_, .condition = "ReduceOnly(x, S)"});

    SiteCollector collector(x_, shape().size(), aliases_);
    collector.block(stmts_, block_.path);
    for (Site& s : collector.sites) {
      if (s.kind == Site::Kind::Window) require_window_site_fits(s);
      if (!s.access) {
        inside_.push_back(std::move(s));
        continue;
      }
      require_access_config_unchanged(*s.access);
      switch (place_in_window(ctx(), *s.access, entries_)) {
        case WindowPlacement::Inside:
          inside_.push_back(std::move(s));
          break;
        case WindowPlacement::Outside:
          break;
        case WindowPlacement::Neither:
          refuse(kInOrOut,
                 {.srcinfo = s.access->srcinfo,
                  .condition = "InOrOut(acc, W)",
                  .hint = fmt::format("{} is sometimes inside the window {} "
                                      "and sometimes outside it",
                                      s.access->text, print_expr(window_))});
      }
    }
    for (const Site& s : inside_) {
      reads_ = reads_ || s.reads;
      writes_ = writes_ || s.writes;
    }
    if (!reads_ && !writes_)
      refuse(fmt::format("Cannot stage '{}' with the given window shape. "
                         "Wrong window shape, or '{}' not accessed in the "
                         "given scope?",
                         x_.name(), x_.name()),
             {.srcinfo = src_});
  }

  // A window of x made in the block keeps its shape only if each of its
  // interval dimensions is an interval of the staged window.
  void require_window_site_fits(const Site& s) const {
    const auto& w = cursors::resolve_expr(proc_, s.path)->as<WindowExpr>();
    for (size_t d = 0; d < entries_.size(); d++)
      if (w.idx[d].is_interval && !entries_[d].is_interval)
        refuse(fmt::format("Existing WindowExpr {} has a windowed "
                           "dimension which is not windowed in the new "
                           "staged window.",
                           print_expr(cursors::resolve_expr(proc_, s.path))),
               {.srcinfo = w.srcinfo});
  }

  // The access is placed with the config values of the block's start, so
  // the block must not change the ones its indices, loops and guards read.
  void require_access_config_unchanged(const Access& access) const {
    std::vector<Expr> control = access.idx;
    for (const LoopRange& l : access.loops)
      control.insert(control.end(), {l.lo, l.hi});
    for (const Guard& g : access.guards) control.push_back(g.cond);
    const SafetyResult fixed = prove_config_reads_unchanged(
        control, stmts_,
        fmt::format("the access {} at {} reads", access.text,
                    access.srcinfo.str()));
    require_proven(
        fixed, fmt::format("Cannot stage '{}': {}.", x_.name(), fixed.detail),
        {.srcinfo = access.srcinfo, .condition = "ReadsUnchanged"});
  }

  // The load is dead when the block writes every element of the window
  // before reading it (window_overwrite.hpp); accum always zero-fills.
  void decide_load() {
    if (accum_) return;
    std::vector<StagedAccess> staged;
    for (const Site& s : inside_)
      staged.push_back({s.path, s.kind == Site::Kind::Assign,
                        s.access ? &*s.access : nullptr, s.reads});
    load_ = !overwrites_window_before_reading(ctx(), stmts_, block_.path,
                                              entries_, shape(), staged);
  }

  // Reads and windows of x inside the window now name the staging buffer,
  // shifted by the window's lower bounds (no statement moves).
  void rewrite_inside_expressions() {
    bind_known_strides(ctx(), scope_);
    for (const Site& s : inside_) {
      if (s.kind == Site::Kind::Assign || s.kind == Site::Kind::Reduce)
        continue;
      if (!s.access) continue;
      const Expr old = cursors::resolve_expr(edits_.proc(), s.path);
      Expr replacement;
      if (s.kind == Site::Kind::Window) {
        replacement = staged_window(s, old);
      } else {
        std::vector<Expr> idx = old->as<Read>().idx;
        replacement = make_read(staged_, staged_indices(idx, entries_),
                                old->srcinfo, old->type);
      }
      edits_.apply(cursors::replace_expr(edits_.proc(), Location::node(s.path),
                                         replacement));
    }
  }

  // The window `old` re-based on the staging buffer; refused when a stride
  // the callee or later code reads would change.
  Expr staged_window(const Site& s, const Expr& old) {
    const WindowExpr& w = old->as<WindowExpr>();
    std::vector<WindowAccess> idx;
    for (size_t d = 0; d < entries_.size(); d++) {
      if (!entries_[d].is_interval) continue;
      const Expr& off = entries_[d].lo;
      const WindowAccess& a = w.idx[d];
      auto shift = [&](const Expr& e) {
        return control_binop(BinOpKind::Sub, e, off, e->srcinfo);
      };
      idx.push_back(a.is_interval
                        ? WindowAccess::interval(shift(a.lo), shift(a.hi))
                        : WindowAccess::point(shift(a.lo)));
    }
    // The window now views the staging buffer: the strides that the
    // callee or later code reads must keep their values.
    for (int k : observed_window_strides(proc_, s.path)) {
      const int d = interval_position(w.idx, k);
      const int staged_d = interval_position(idx, k);
      const Expr before =
          make_stride_expr(x_, d, old->srcinfo, Type(TypeKind::Stride));
      if (!same_stride(ctx(), before,
                       dense_stride(new_shape_, static_cast<size_t>(staged_d),
                                    old->srcinfo)))
        refuse(fmt::format("Cannot stage '{}': the window {} at {} passes "
                           "on stride({}, {}), which the staging buffer "
                           "would change",
                           x_.name(), print_expr(old), old->srcinfo.str(),
                           x_.name(), d),
               {.srcinfo = old->srcinfo,
                .hint = "the callee or later code reads this stride "
                        "(stride(), or a precondition such as `assert "
                        "stride(a, 0) == 1`)"});
    }
    return make_window_expr(staged_, idx, old->srcinfo, old->type);
  }

  // Assignments and reductions into x inside the window now write the
  // staging buffer at the shifted indices.
  void rewrite_inside_writes() {
    for (const Site& s : inside_) {
      if (s.kind != Site::Kind::Assign && s.kind != Site::Kind::Reduce)
        continue;
      // A write through a staged window statement (`row[j] = ...` after
      // `row = x[i, 2:6]`) follows its window, already rewritten above.
      if (!s.access) continue;
      const Stmt cur = cursors::resolve_stmt(edits_.proc(), s.path);
      const Assign& a = cur->as<Assign>();
      std::vector<Expr> idx = staged_indices(a.idx, entries_);
      Stmt replacement = s.kind == Site::Kind::Assign
                             ? make_assign(staged_, a.type, std::move(idx),
                                           a.rhs, cur->srcinfo)
                             : make_reduce(staged_, a.type, std::move(idx),
                                           a.rhs, cur->srcinfo);
      edits_.apply(cursors::replace_stmt_attributes(
          edits_.proc(), Location::node(s.path), replacement));
    }
  }

  // The loop iterators over the staging buffer, with the indices of the
  // staging buffer and of x (window lower bound added) that they make.
  struct CopyNest {
    std::vector<Sym> iters;
    std::vector<Expr> new_idx, x_idx;
  };

  // The iterators and indices shared by the load and the store nests.
  CopyNest copy_nest() const {
    CopyNest n;
    for (size_t k = 0; k < new_shape_.size(); k++)
      n.iters.push_back(Sym(fmt::format("i{}", k)));
    size_t k = 0;
    for (const WindowAccess& e : entries_) {
      if (!e.is_interval) {
        n.x_idx.push_back(e.lo);
        continue;
      }
      Expr i = iterator_read(n.iters[k++], src_);
      n.new_idx.push_back(i);
      n.x_idx.push_back(control_binop(BinOpKind::Add, i, e.lo, src_));
    }
    return n;
  }

  // `if 0 <= idx and idx < extent ...:` around `s`, for the conditions
  // that cannot be proven inside the nest (x may be smaller than the
  // window).
  Stmt guarded(const CopyNest& n, const Stmt& s) const {
    QueryContext gctx(proc_, at_);
    for (size_t k = 0; k < n.iters.size(); k++)
      gctx.enter_loop(n.iters[k], control_int(0, src_), new_shape_[k]);
    Expr cond;
    auto add = [&](Expr c) {
      if (decide(gctx, c) == Truth::AlwaysTrue) return;
      cond = cond ? control_binop(BinOpKind::And, cond, c, src_) : c;
    };
    for (size_t d = 0; d < n.x_idx.size(); d++) {
      add(control_binop(BinOpKind::Le, control_int(0, src_), n.x_idx[d], src_));
      add(control_binop(BinOpKind::Lt, n.x_idx[d], shape()[d], src_));
    }
    return cond ? make_if(cond, {s}, {}, src_) : s;
  }

  // `inner` inside the loops over the staging buffer's shape.
  Stmt loops(const CopyNest& n, Stmt inner) const {
    for (size_t k = n.iters.size(); k-- > 0;)
      inner = make_for(n.iters[k], control_int(0, src_), new_shape_[k], {inner},
                       LoopMode::seq(), src_);
    return inner;
  }

  // The store nest after the block, when the block writes x: the staged
  // values go back (reduced into x for accum).
  void insert_store(const CopyNest& n) {
    if (!writes_) return;
    const Location last =
        Location::node(child(Path(block_.path.begin(), block_.path.end() - 1),
                             {block_.path.back().slot, block_.hi - 1}));
    Expr value = make_read(staged_, n.new_idx, src_, base_);
    Stmt store = accum_ ? make_reduce(x_, base_, n.x_idx, value, src_)
                        : make_assign(x_, base_, n.x_idx, value, src_);
    edits_.apply(cursors::insert(edits_.proc(),
                                 Location::gap(last.path, GapSide::After),
                                 {loops(n, guarded(n, store))}));
    store_count_ = 1;
  }

  // The load nest before the block, unless decide_load found it dead: a
  // copy of the window, or a zero-fill for accum.
  void insert_load(const CopyNest& n) {
    if (!load_) return;
    Stmt fill =
        accum_ ? make_assign(staged_, base_, n.new_idx,
                             make_const(0.0, src_, base_), src_)
               : guarded(
                     n, make_assign(staged_, base_, n.new_idx,
                                    make_read(x_, n.x_idx, src_, base_), src_));
    edits_.apply(cursors::insert(edits_.proc(),
                                 Location::gap(block_.path, GapSide::Before),
                                 {loops(n, fill)}));
    load_count_ = 1;
  }

  // The staging buffer's alloc, first of all.
  void insert_alloc() {
    edits_.apply(cursors::insert(edits_.proc(),
                                 Location::gap(block_.path, GapSide::Before),
                                 {make_alloc(staged_, new_type_, mem_, src_)}));
  }

  // InBounds(new) over the load nest, the block and the store nest: the
  // rewritten accesses stay inside the staging buffer.
  void require_staged_in_bounds() {
    if (new_shape_.empty()) return;
    const Block& now = cursors::enclosing_list(edits_.proc(), block_.path);
    const auto from = now.begin() + lo_ + 1;
    const Block staged_code(
        from, from + load_count_ + (block_.hi - lo_) + store_count_);
    QueryContext after(edits_.proc(), at_);
    require_proven(
        prove_in_bounds(after, staged_code, staged_, new_shape_),
        fmt::format("The buffer {} is accessed out-of-bounds", staged_.name()),
        {.srcinfo = src_, .condition = "InBounds(" + staged_.name() + ")"});
  }

  QueryContext& ctx() { return *ctx_; }
  const std::vector<Expr>& shape() const { return info_->type.shape(); }

  // The call's arguments and the block.
  const Proc& proc_;
  const Location& block_;
  const Expr& window_;
  const std::string& new_name_;
  const bool accum_;
  const Block& list_;
  const int lo_;
  const Block stmts_;
  const cursors::Path& at_;
  const SrcInfo& src_;

  // The staged buffer x and the window (resolve_window).
  Sym x_;
  std::vector<WindowAccess> entries_;
  std::vector<SymbolInfo> scope_;
  const SymbolInfo* info_ = nullptr;

  // The staging buffer (describe_staging_buffer).
  std::optional<QueryContext> ctx_;
  MemoryPtr mem_;
  std::unordered_set<Sym> aliases_;
  Type base_;
  std::vector<Expr> new_shape_;
  Sym staged_;
  Type new_type_;

  // The accesses inside the window and what the nests must do.
  std::vector<Site> inside_;
  bool reads_ = false, writes_ = false;
  bool load_ = true;
  int load_count_ = 0, store_count_ = 0;

  EditSequence edits_;
};

}  // namespace

cursors::EditResult stage_mem(const Proc& proc, const Location& block,
                              const Expr& window, const std::string& new_name,
                              bool accum) {
  return StageMem(proc, block, window, new_name, accum).run();
}

}  // namespace exo2::primitives
