#include "exo2/primitives/buffer_accesses.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <stdexcept>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/child_blocks.hpp"
#include "exo2/primitives/edit_sequence.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/strides.hpp"

namespace exo2::primitives {
namespace {

using cursors::Path;
using cursors::Slot;
using cursors::Step;

Path child(Path p, Step step) {
  p.push_back(step);
  return p;
}

// One access of the buffer, found in the original procedure. Accesses never
// nest (indices are control expressions), so the paths stay valid while
// the accesses are replaced one by one.
struct Site {
  enum class Kind { Point, Window, Stride, Whole, Write };
  Kind kind;
  Path path;
  bool call_argument = false;
};

class SiteCollector {
 public:
  SiteCollector(const Sym& buffer, std::vector<Site>& out)
      : buffer_(buffer), out_(out) {}

  void stmt(const Stmt& s, const Path& path) {
    if (s->kind == StmtKind::Call) {
      const auto& args = s->as<Call>().args;
      for (int k = 0; k < static_cast<int>(args.size()); k++) {
        const Expr& a = args[static_cast<size_t>(k)];
        const Path p = child(path, Step{Slot::Arg, k});
        if (a->kind == ExprKind::Read && a->as<Read>().name == buffer_ &&
            a->as<Read>().idx.empty()) {
          out_.push_back({Site::Kind::Whole, p, true});
        } else if ((a->kind == ExprKind::Read &&
                    a->as<Read>().name == buffer_) ||
                   (a->kind == ExprKind::WindowExpr &&
                    a->as<WindowExpr>().name == buffer_)) {
          out_.push_back({a->kind == ExprKind::Read ? Site::Kind::Point
                                                    : Site::Kind::Window,
                          p, true});
        } else {
          expr(a, p);
        }
      }
      return;
    }
    cursors::for_each_expr_child(
        s, [&](Step step, const Expr& e) { expr(e, child(path, step)); });
    if ((s->kind == StmtKind::Assign || s->kind == StmtKind::Reduce) &&
        s->as<Assign>().name == buffer_)
      out_.push_back({Site::Kind::Write, path});
    for (const ChildBlock& body : child_blocks(s))
      for (int i = 0; i < static_cast<int>(body.block.size()); i++)
        stmt(body.block[static_cast<size_t>(i)],
             child(path, Step{body.slot, i}));
  }

 private:
  void expr(const Expr& e, const Path& path) {
    if (e->kind == ExprKind::Read && e->as<Read>().name == buffer_) {
      out_.push_back({Site::Kind::Point, path});
      return;
    }
    if (e->kind == ExprKind::WindowExpr &&
        e->as<WindowExpr>().name == buffer_) {
      out_.push_back({Site::Kind::Window, path});
      return;
    }
    if (e->kind == ExprKind::StrideExpr &&
        e->as<StrideExpr>().name == buffer_) {
      out_.push_back({Site::Kind::Stride, path});
      return;
    }
    cursors::for_each_expr_child(
        e, [&](Step step, const Expr& sub) { expr(sub, child(path, step)); });
  }

  const Sym& buffer_;
  std::vector<Site>& out_;
};

Stmt alloc_at(const Proc& proc, const cursors::Location& alloc) {
  return stmt_of_kind(proc, alloc, StmtKind::Alloc);
}

// The statement holding the expression or statement at `path`.
Path statement_of(Path path) {
  while (!path.empty() && !cursors::is_statement_slot(path.back().slot))
    path.pop_back();
  return path;
}

// The accesses of `buffer` in the statements after its allocation.
std::vector<Site> collect_sites(const Proc& proc,
                                const cursors::Location& alloc,
                                const Sym& buffer) {
  std::vector<Site> sites;
  SiteCollector collect(buffer, sites);
  const Block& list = cursors::enclosing_list(proc, alloc.path);
  for (int i = alloc.path.back().index + 1; i < static_cast<int>(list.size());
       i++) {
    Path path = alloc.path;
    path.back().index = i;
    collect.stmt(list[static_cast<size_t>(i)], path);
  }
  return sites;
}

}  // namespace

Block rest_of_block(const Proc& proc, const cursors::Location& alloc) {
  const Block& list = cursors::enclosing_list(proc, alloc.path);
  return Block(list.begin() + alloc.path.back().index + 1, list.end());
}

namespace {

// Refuses unless dimension `d` of the old shape and `new_d` of the new one
// have the same dense stride.
class StrideKeeper {
 public:
  StrideKeeper(const Proc& proc, const cursors::Location& alloc,
               const BufferAccessRewrite& rewrite)
      : proc_(proc),
        alloc_(alloc),
        old_shape_(alloc_at(proc, alloc)->as<Alloc>().type.shape()),
        rewrite_(rewrite) {}

  void require_kept(const Sym& x, int d, int new_d, const SrcInfo& where,
                    bool through_window) {
    bool kept = d >= 0 && new_d >= 0 &&
                static_cast<size_t>(d) < old_shape_.size() &&
                static_cast<size_t>(new_d) < rewrite_.new_shape.size();
    if (kept) {
      if (!ctx_) ctx_.emplace(proc_, alloc_.path);
      kept = same_stride(
          *ctx_, dense_stride(old_shape_, static_cast<size_t>(d), where),
          dense_stride(rewrite_.new_shape, static_cast<size_t>(new_d), where));
    }
    if (kept) return;
    const std::string stride = fmt::format("stride({}, {})", x.name(), d);
    refuse(through_window
               ? fmt::format("Cannot {} {} because the value of {}, which the "
                             "window at {} passes on, would change",
                             rewrite_.action, x.name(), stride, where.str())
               : fmt::format("Cannot {} {} because the value of {} at {} "
                             "would change",
                             rewrite_.action, x.name(), stride, where.str()),
           {.srcinfo = where,
            .hint = "the code reads this stride (stride(), a precondition, "
                    "or a callee that reads its parameter's stride)"});
  }

 private:
  const Proc& proc_;
  const cursors::Location& alloc_;
  std::vector<Expr> old_shape_;
  const BufferAccessRewrite& rewrite_;
  std::optional<QueryContext> ctx_;
};

}  // namespace

cursors::EditResult rewrite_buffer_accesses(
    const Proc& proc, const cursors::Location& alloc,
    const BufferAccessRewrite& rewrite) {
  const Sym buffer = alloc_at(proc, alloc)->as<Alloc>().name;
  const std::vector<Site> sites = collect_sites(proc, alloc, buffer);
  StrideKeeper strides(proc, alloc, rewrite);

  EditSequence edits(proc);
  for (const Site& site : sites) {
    const cursors::Location at = cursors::Location::node(site.path);
    if (site.kind == Site::Kind::Write) {
      const Stmt s = cursors::resolve_stmt(edits.proc(), site.path);
      const auto& w = s->as<Assign>();
      PointAccess to = rewrite.point(w.idx, {s->srcinfo, false});
      Stmt replaced = s->kind == StmtKind::Assign
                          ? make_assign(to.name, w.type, std::move(to.idx),
                                        w.rhs, s->srcinfo)
                          : make_reduce(to.name, w.type, std::move(to.idx),
                                        w.rhs, s->srcinfo);
      edits.apply(cursors::replace_stmt_attributes(edits.proc(), at, replaced));
      continue;
    }
    const Expr e = cursors::resolve_expr(edits.proc(), site.path);
    const AccessSite where{e->srcinfo, site.call_argument};
    Expr replaced;
    switch (site.kind) {
      case Site::Kind::Point: {
        PointAccess to = rewrite.point(e->as<Read>().idx, where);
        replaced = make_read(to.name, std::move(to.idx), e->srcinfo, e->type);
        break;
      }
      case Site::Kind::Window: {
        const std::vector<WindowAccess>& idx = e->as<WindowExpr>().idx;
        WindowedAccess to = rewrite.window(idx, where);
        for (int k : observed_window_strides(proc, site.path))
          strides.require_kept(buffer, interval_position(idx, k),
                               interval_position(to.idx, k), e->srcinfo, true);
        replaced =
            make_window_expr(to.name, std::move(to.idx), e->srcinfo, e->type);
        break;
      }
      case Site::Kind::Stride: {
        const int d = e->as<StrideExpr>().dim;
        const int new_d = rewrite.stride(d, where);
        strides.require_kept(buffer, d, new_d, e->srcinfo, false);
        replaced = make_stride_expr(buffer, new_d, e->srcinfo, e->type);
        break;
      }
      case Site::Kind::Whole:
        rewrite.whole_buffer(where);
        throw std::logic_error(
            "rewrite_buffer_accesses: whole_buffer must refuse");
      case Site::Kind::Write:
        break;
    }
    edits.apply(cursors::replace_expr(edits.proc(), at, replaced));
  }
  return edits.result();
}

void require_same_at_every_access(const Proc& proc,
                                  const cursors::Location& alloc, const Expr& e,
                                  const char* what) {
  const Sym buffer = alloc_at(proc, alloc)->as<Alloc>().name;
  const SafetyResult r = prove_config_reads_unchanged(
      {e}, rest_of_block(proc, alloc), fmt::format("the {} reads", what));
  require_proven(r,
                 fmt::format("Cannot use {} as the {} of every access of {}: "
                             "{}, between the accesses.",
                             print_expr(e), what, buffer.name(), r.detail),
                 {.srcinfo = e->srcinfo, .condition = "ReadsUnchanged"});
}

void require_in_bounds(const Proc& proc, const cursors::Location& alloc,
                       const std::vector<Expr>& shape) {
  const Sym buffer = alloc_at(proc, alloc)->as<Alloc>().name;
  const std::string message =
      fmt::format("The buffer {} is accessed out-of-bounds", buffer.name());
  {
    QueryContext ctx(proc, alloc.path);
    const SafetyResult r =
        prove_in_bounds(ctx, rest_of_block(proc, alloc), buffer, shape);
    require_proven(r, message,
                   {.srcinfo = r.first ? r.first->srcinfo : SrcInfo(),
                    .condition = fmt::format("InBounds({})", buffer.name())});
  }
  // Windows bound no access by themselves, yet must lie inside the buffer.
  const std::vector<Site> sites = collect_sites(proc, alloc, buffer);
  for (const Site& site : sites) {
    if (site.kind != Site::Kind::Window) continue;
    const Expr w = cursors::resolve_expr(proc, site.path);
    QueryContext ctx(proc, statement_of(site.path));
    require_proven(prove_window_in_bounds(ctx, w->as<WindowExpr>(), shape),
                   message,
                   {.srcinfo = w->srcinfo,
                    .condition = fmt::format("InBounds({})", buffer.name())});
  }
}

Expr control_expr_before(const Proc& proc, const cursors::Location& alloc,
                         const Expr& untyped) {
  return typecheck_in_scope(proc, alloc.path, untyped, ExprCategory::Control);
}

Stmt with_shape(const Stmt& alloc, const std::vector<Expr>& shape) {
  const auto& a = alloc->as<Alloc>();
  const Type type = shape.empty()
                        ? a.type.basetype()
                        : Type::tensor(a.type.basetype(), shape, false);
  return make_alloc(a.name, type, a.mem, alloc->srcinfo);
}

}  // namespace exo2::primitives
