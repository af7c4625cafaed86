#include "exo2/primitives/stage_mem.hpp"

#include <fmt/format.h>

#include <optional>
#include <unordered_set>
#include <vector>

#include "exo2/analysis/effects.hpp"
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

class SiteCollector {
 public:
  SiteCollector(Sym x, size_t rank, std::unordered_set<Sym> aliases)
      : x_(std::move(x)), rank_(rank), aliases_(std::move(aliases)) {}

  std::vector<Site> sites;

  void block(const Block& b, const Path& first) {
    for (int i = 0; i < static_cast<int>(b.size()); i++) {
      Path p = first;
      p.back().index = first.back().index + i;
      stmt(b[static_cast<size_t>(i)], p);
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

  void stmt(const Stmt& s, const Path& path) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce: {
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
        return;
      }
      case StmtKind::For: {
        const For& f = s->as<For>();
        loops_.push_back({f.iter, f.lo, f.hi});
        block(f.body, child(path, {Slot::Body, 0}));
        loops_.pop_back();
        return;
      }
      case StmtKind::If: {
        const If& f = s->as<If>();
        guards_.push_back({f.cond, true});
        block(f.body, child(path, {Slot::Body, 0}));
        guards_.back().holds = false;
        block(f.orelse, child(path, {Slot::Orelse, 0}));
        guards_.pop_back();
        return;
      }
      case StmtKind::With:
        block(s->as<With>().body, child(path, {Slot::Body, 0}));
        return;
      case StmtKind::Call:
        call(s, path);
        return;
      case StmtKind::WindowStmt: {
        const WindowStmt& w = s->as<WindowStmt>();
        const size_t before = sites.size();
        expr(w.rhs, child(path, {Slot::Rhs, 0}));
        if (sites.size() > before) staged_windows_.insert(w.name);
        return;
      }
      default:
        cursors::for_each_expr_child(
            s, [&](Step step, const Expr& e) { expr(e, child(path, step)); });
        return;
    }
  }

  void call(const Stmt& s, const Path& path) {
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

}  // namespace

cursors::EditResult stage_mem(const Proc& proc, const Location& block,
                              const Expr& window, const std::string& new_name,
                              bool accum) {
  if (block.kind != cursors::LocationKind::Block)
    throw ArgumentError("stage_mem: expected a block");
  const Block& list = cursors::enclosing_list(proc, block.path);
  const int lo = block.lo();
  const Block stmts(list.begin() + lo, list.begin() + block.hi);
  const cursors::Path& at = block.path;
  const SrcInfo& src = stmts.front()->srcinfo;

  // ---- The window and the staged buffer.
  Sym x;
  std::vector<WindowAccess> entries;
  if (window->kind == ExprKind::Read) {
    x = window->as<Read>().name;
    for (const Expr& i : window->as<Read>().idx)
      entries.push_back(WindowAccess::point(i));
  } else if (window->kind == ExprKind::WindowExpr) {
    x = window->as<WindowExpr>().name;
    entries = window->as<WindowExpr>().idx;
  } else {
    throw ArgumentError("stage_mem: expected a window of a buffer");
  }
  const std::vector<SymbolInfo> scope = variables_in_scope(proc, block.path);
  const SymbolInfo* info = nullptr;
  for (const SymbolInfo& v : scope)
    if (v.sym == x) info = &v;
  if (info == nullptr)
    throw ArgumentError("stage_mem: the buffer is not in scope");
  if (!info->type.is_numeric())
    refuse(fmt::format("Cannot stage '{}': it is not a data buffer, but has "
                       "type {}.",
                       x.name(), info->type.str()),
           {.srcinfo = info->srcinfo});
  const std::vector<Expr>& shape = info->type.shape();
  if (entries.size() != shape.size())
    refuse(fmt::format("expected windowing of '{}' to have {} indices, but "
                       "only got {}",
                       x.name(), shape.size(), entries.size()),
           {.srcinfo = window->srcinfo});
  for (WindowAccess& e : entries) {
    if (!e.is_interval ? !e.lo : (!e.lo || !e.hi))
      throw ArgumentError("stage_mem: incomplete window entry");
    e.lo = typecheck_in_scope(proc, block.path, e.lo, ExprCategory::Control);
    if (e.is_interval)
      e.hi = typecheck_in_scope(proc, block.path, e.hi, ExprCategory::Control);
  }

  // The store nest evaluates the window again, after the block.
  std::vector<Expr> bounds;
  for (const WindowAccess& e : entries)
    bounds.insert(bounds.end(), {e.lo, e.hi});
  const SafetyResult unchanged =
      prove_config_reads_unchanged(bounds, stmts, "the staged window reads");
  require_proven(unchanged,
                 fmt::format("Cannot stage '{}': {}, and the window is "
                             "evaluated before and after the block.",
                             x.name(), unchanged.detail),
                 {.srcinfo = window->srcinfo, .condition = "ReadsUnchanged"});

  QueryContext ctx(proc, at);
  // The memory of the buffer a window views.
  MemoryPtr mem = info->mem;
  Sym root = x;
  if (auto view = ctx.windows().find(x); view != ctx.windows().end()) {
    root = view->second.buffer;
    for (const SymbolInfo& v : scope)
      if (v.sym == root) mem = v.mem;
  }
  if (!mem) mem = default_memory();
  std::unordered_set<Sym> aliases;
  if (root != x) aliases.insert(root);
  for (const auto& [name, view] : ctx.windows())
    if (name != x && view.buffer == root) aliases.insert(name);

  const Type base = info->type.basetype();
  std::vector<Expr> new_shape;
  for (const WindowAccess& e : entries)
    if (e.is_interval)
      new_shape.push_back(control_binop(BinOpKind::Sub, e.hi, e.lo, src));
  const Sym staged(new_name);
  const Type new_type =
      new_shape.empty() ? base : Type::tensor(base, new_shape, false);

  // ---- Safety: the window stays put, ReduceOnly, InOrOut.
  if (accum)
    require_proven(
        prove_reduce_only(ctx, stmts, x),
        fmt::format("The buffer {} is accessed in a way other than simply "
                    "reducing into it",
                    x.name()),
        {.srcinfo = src, .condition = "ReduceOnly(x, S)"});

  SiteCollector collector(x, shape.size(), aliases);
  collector.block(stmts, block.path);
  std::vector<Site> inside;
  for (Site& s : collector.sites) {
    if (s.kind == Site::Kind::Window) {
      const auto& w = cursors::resolve_expr(proc, s.path)->as<WindowExpr>();
      for (size_t d = 0; d < entries.size(); d++)
        if (w.idx[d].is_interval && !entries[d].is_interval)
          refuse(fmt::format("Existing WindowExpr {} has a windowed "
                             "dimension which is not windowed in the new "
                             "staged window.",
                             print_expr(cursors::resolve_expr(proc, s.path))),
                 {.srcinfo = w.srcinfo});
    }
    if (!s.access) {
      inside.push_back(std::move(s));
      continue;
    }
    // The access is placed with the config values of the block's start.
    std::vector<Expr> control = s.access->idx;
    for (const LoopRange& l : s.access->loops)
      control.insert(control.end(), {l.lo, l.hi});
    for (const Guard& g : s.access->guards) control.push_back(g.cond);
    const SafetyResult fixed = prove_config_reads_unchanged(
        control, stmts,
        fmt::format("the access {} at {} reads", s.access->text,
                    s.access->srcinfo.str()));
    require_proven(
        fixed, fmt::format("Cannot stage '{}': {}.", x.name(), fixed.detail),
        {.srcinfo = s.access->srcinfo, .condition = "ReadsUnchanged"});
    switch (place_in_window(ctx, *s.access, entries)) {
      case WindowPlacement::Inside:
        inside.push_back(std::move(s));
        break;
      case WindowPlacement::Outside:
        break;
      case WindowPlacement::Neither:
        refuse(kInOrOut,
               {.srcinfo = s.access->srcinfo,
                .condition = "InOrOut(acc, W)",
                .hint = fmt::format("{} is sometimes inside the window {} "
                                    "and sometimes outside it",
                                    s.access->text, print_expr(window))});
    }
  }
  bool reads = false, writes = false;
  for (const Site& s : inside) {
    reads = reads || s.reads;
    writes = writes || s.writes;
  }
  if (!reads && !writes)
    refuse(fmt::format("Cannot stage '{}' with the given window shape. "
                       "Wrong window shape, or '{}' not accessed in the "
                       "given scope?",
                       x.name(), x.name()),
           {.srcinfo = src});

  // The load is dead when the block writes every element of the window
  // before reading it (window_overwrite.hpp).
  bool load = true;
  if (!accum) {
    std::vector<StagedAccess> staged;
    for (const Site& s : inside)
      staged.push_back({s.path, s.kind == Site::Kind::Assign,
                        s.access ? &*s.access : nullptr, s.reads});
    load = !overwrites_window_before_reading(ctx, stmts, block.path, entries,
                                             shape, staged);
  }

  // ---- Rewrite the inside accesses (no statement moves).
  bind_known_strides(ctx, scope);
  EditSequence edits(proc);
  for (const Site& s : inside) {
    if (s.kind == Site::Kind::Assign || s.kind == Site::Kind::Reduce) continue;
    if (!s.access) continue;
    const Expr old = cursors::resolve_expr(edits.proc(), s.path);
    Expr replacement;
    if (s.kind == Site::Kind::Window) {
      const WindowExpr& w = old->as<WindowExpr>();
      std::vector<WindowAccess> idx;
      for (size_t d = 0; d < entries.size(); d++) {
        if (!entries[d].is_interval) continue;
        const Expr& off = entries[d].lo;
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
      for (int k : observed_window_strides(proc, s.path)) {
        const int d = interval_position(w.idx, k);
        const int staged_d = interval_position(idx, k);
        const Expr before =
            make_stride_expr(x, d, old->srcinfo, Type(TypeKind::Stride));
        if (!same_stride(ctx, before,
                         dense_stride(new_shape, static_cast<size_t>(staged_d),
                                      old->srcinfo)))
          refuse(fmt::format("Cannot stage '{}': the window {} at {} passes "
                             "on stride({}, {}), which the staging buffer "
                             "would change",
                             x.name(), print_expr(old), old->srcinfo.str(),
                             x.name(), d),
                 {.srcinfo = old->srcinfo,
                  .hint = "the callee or later code reads this stride "
                          "(stride(), or a precondition such as `assert "
                          "stride(a, 0) == 1`)"});
      }
      replacement = make_window_expr(staged, idx, old->srcinfo, old->type);
    } else {
      std::vector<Expr> idx = old->as<Read>().idx;
      replacement = make_read(staged, staged_indices(idx, entries),
                              old->srcinfo, old->type);
    }
    edits.apply(cursors::replace_expr(edits.proc(), Location::node(s.path),
                                      replacement));
  }
  for (const Site& s : inside) {
    if (s.kind != Site::Kind::Assign && s.kind != Site::Kind::Reduce) continue;
    // A write through a staged window statement (`row[j] = ...` after
    // `row = x[i, 2:6]`) follows its window, already rewritten above.
    if (!s.access) continue;
    const Stmt cur = cursors::resolve_stmt(edits.proc(), s.path);
    const Assign& a = cur->as<Assign>();
    std::vector<Expr> idx = staged_indices(a.idx, entries);
    Stmt replacement =
        s.kind == Site::Kind::Assign
            ? make_assign(staged, a.type, std::move(idx), a.rhs, cur->srcinfo)
            : make_reduce(staged, a.type, std::move(idx), a.rhs, cur->srcinfo);
    edits.apply(cursors::replace_stmt_attributes(
        edits.proc(), Location::node(s.path), replacement));
  }

  // ---- Load and store nests.
  std::vector<Sym> iters;
  for (size_t k = 0; k < new_shape.size(); k++)
    iters.push_back(Sym(fmt::format("i{}", k)));
  std::vector<Expr> new_idx, x_idx;
  {
    size_t k = 0;
    for (const WindowAccess& e : entries) {
      if (!e.is_interval) {
        x_idx.push_back(e.lo);
        continue;
      }
      Expr i = iterator_read(iters[k++], src);
      new_idx.push_back(i);
      x_idx.push_back(control_binop(BinOpKind::Add, i, e.lo, src));
    }
  }
  // `if 0 <= idx and idx < extent ...:` around `s`, for the conditions that
  // cannot be proven inside the nest.
  auto guarded = [&](const Stmt& s) -> Stmt {
    QueryContext gctx(proc, at);
    for (size_t k = 0; k < iters.size(); k++)
      gctx.enter_loop(iters[k], control_int(0, src), new_shape[k]);
    Expr cond;
    auto add = [&](Expr c) {
      if (decide(gctx, c) == Truth::AlwaysTrue) return;
      cond = cond ? control_binop(BinOpKind::And, cond, c, src) : c;
    };
    for (size_t d = 0; d < x_idx.size(); d++) {
      add(control_binop(BinOpKind::Le, control_int(0, src), x_idx[d], src));
      add(control_binop(BinOpKind::Lt, x_idx[d], shape[d], src));
    }
    return cond ? make_if(cond, {s}, {}, src) : s;
  };
  auto nest = [&](Stmt inner) {
    for (size_t k = iters.size(); k-- > 0;)
      inner = make_for(iters[k], control_int(0, src), new_shape[k], {inner},
                       LoopMode::seq(), src);
    return inner;
  };
  const Location last =
      Location::node(child(Path(block.path.begin(), block.path.end() - 1),
                           {block.path.back().slot, block.hi - 1}));
  int store_count = 0, load_count = 0;
  if (writes) {
    Expr value = make_read(staged, new_idx, src, base);
    Stmt store = accum ? make_reduce(x, base, x_idx, value, src)
                       : make_assign(x, base, x_idx, value, src);
    edits.apply(cursors::insert(edits.proc(),
                                Location::gap(last.path, GapSide::After),
                                {nest(guarded(store))}));
    store_count = 1;
  }
  if (load) {
    Stmt fill = accum
                    ? make_assign(staged, base, new_idx,
                                  make_const(0.0, src, base), src)
                    : guarded(make_assign(staged, base, new_idx,
                                          make_read(x, x_idx, src, base), src));
    edits.apply(cursors::insert(edits.proc(),
                                Location::gap(block.path, GapSide::Before),
                                {nest(fill)}));
    load_count = 1;
  }
  edits.apply(cursors::insert(edits.proc(),
                              Location::gap(block.path, GapSide::Before),
                              {make_alloc(staged, new_type, mem, src)}));

  // ---- InBounds(new) over the load nest, the block and the store nest.
  if (!new_shape.empty()) {
    const Block& now = cursors::enclosing_list(edits.proc(), block.path);
    const auto from = now.begin() + lo + 1;
    const Block staged_code(from,
                            from + load_count + (block.hi - lo) + store_count);
    QueryContext after(edits.proc(), at);
    require_proven(
        prove_in_bounds(after, staged_code, staged, new_shape),
        fmt::format("The buffer {} is accessed out-of-bounds", staged.name()),
        {.srcinfo = src, .condition = "InBounds(" + staged.name() + ")"});
  }
  return edits.result();
}

}  // namespace exo2::primitives
