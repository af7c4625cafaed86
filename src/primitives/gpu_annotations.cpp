#include "exo2/primitives/gpu_annotations.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/new_expressions.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

namespace {

// The statement a gap's scope is taken from: its anchor.
const cursors::Path& gap_anchor(const cursors::Location& gap) {
  if (gap.kind != cursors::LocationKind::Gap)
    throw ArgumentError("expected a gap");
  return gap.path;
}

// A barrier element `bar[i, j]` typed in the scope before `at`, with its
// indices proven inside the barrier's extents.
Expr typed_barrier(const Proc& proc, const cursors::Path& at,
                   const Expr& untyped, bool after) {
  if (!untyped || untyped->kind != ExprKind::Read)
    refuse("expected one element of a barrier buffer, such as 'full[k]'");
  const auto& r = untyped->as<Read>();
  const SymbolInfo* buffer = nullptr;
  const std::vector<SymbolInfo> vars = variables_in_scope(proc, at);
  for (const SymbolInfo& v : vars)
    if (v.sym == r.name) buffer = &v;
  // A gap after the anchor also sees the anchor's own declaration.
  Stmt anchor = cursors::resolve_stmt(proc, at);
  Type type;
  if (buffer) type = buffer->type;
  if (after && anchor->kind == StmtKind::Alloc &&
      anchor->as<Alloc>().name == r.name)
    type = anchor->as<Alloc>().type;
  if (type.is_unknown())
    refuse(fmt::format("{} is not a barrier in scope here", r.name.name()));
  if (type.basetype().kind() != TypeKind::Barrier)
    refuse(
        fmt::format("expected '{}' to be a barrier buffer, but it has type "
                    "{}",
                    r.name.name(), type.str()));
  if (r.idx.size() != type.shape().size())
    refuse(fmt::format("expected {} indices for barrier '{}', got {}",
                       type.shape().size(), r.name.name(), r.idx.size()));
  std::vector<Expr> idx;
  for (const Expr& i : r.idx) idx.push_back(typecheck_in_scope(proc, at, i, ExprCategory::Control));
  Expr typed = make_read(r.name, idx, untyped->srcinfo, type.basetype());
  QueryContext ctx(proc, to_stmt_path(at));
  for (size_t d = 0; d < idx.size(); ++d) {
    const Expr& extent = type.shape()[d];
    const SrcInfo& src = anchor->srcinfo;
    const std::string element = print_expr(typed);
    require_proven(
        prove_compare(ctx, idx[d], BinOpKind::Ge, 0),
        fmt::format("{} may be out of bounds (index {} negative)", element, d),
        {.srcinfo = src, .formula = print_expr(idx[d]) + " >= 0"});
    require_proven(
        prove_compare(ctx, control_binop(BinOpKind::Sub, extent, idx[d], src),
                      BinOpKind::Gt, 0),
        fmt::format("{} may be out of bounds (index {} not below {})", element,
                    d, print_expr(extent)),
        {.srcinfo = src,
         .formula = print_expr(idx[d]) + " < " + print_expr(extent)});
  }
  return typed;
}

std::vector<Expr> typed_barriers(const Proc& proc, const cursors::Location& gap,
                                 const std::vector<Expr>& targets) {
  std::vector<Expr> out;
  const bool after = gap.kind == cursors::LocationKind::Gap &&
                     gap.side == cursors::GapSide::After;
  for (const Expr& t : targets)
    out.push_back(typed_barrier(proc, gap.path, t, after));
  return out;
}

SrcInfo source_of(const Proc& proc, const cursors::Path& path) {
  return cursors::resolve_stmt(proc, path)->srcinfo;
}

}  // namespace

cursors::EditResult set_loop_mode(const Proc& proc,
                                  const cursors::Location& loop,
                                  LoopModePtr mode) {
  if (!mode) throw ArgumentError("set_loop_mode: expected a mode");
  const For& f = stmt_of_kind(proc, loop, StmtKind::For)->as<For>();
  return cursors::replace_stmt_attributes(
      proc, loop, make_for(f.iter, f.lo, f.hi, f.body, mode, f.srcinfo));
}

cursors::EditResult wrap_with(const Proc& proc, const cursors::Location& block,
                              WithContextPtr ctx) {
  if (!ctx) throw ArgumentError("wrap_with: expected a context");
  const Block& list = cursors::enclosing_list(proc, block.path);
  const int lo = block.path.back().index;
  const int hi = block.kind == cursors::LocationKind::Block ? block.hi : lo + 1;
  for (int i = lo; i < hi; ++i) {
    const Stmt& s = list[i];
    Sym declared;
    if (s->kind == StmtKind::Alloc) declared = s->as<Alloc>().name;
    if (s->kind == StmtKind::WindowStmt) declared = s->as<WindowStmt>().name;
    if (!declared.valid()) continue;
    for (size_t j = hi; j < list.size(); ++j)
      if (mentions(Block{list[j]}, declared))
        refuse(fmt::format("cannot wrap the declaration of {} at {} in a "
                           "`with` block: the statement at {} uses it after "
                           "the block",
                           declared.name(), s->srcinfo.str(),
                           list[j]->srcinfo.str()),
               {.srcinfo = s->srcinfo});
  }
  const SrcInfo src = list[lo]->srcinfo;
  return cursors::wrap(
      proc, block, [&](Block b) { return make_with(ctx, std::move(b), src); });
}

cursors::EditResult unwrap_with(const Proc& proc,
                                const cursors::Location& with) {
  const Stmt s = stmt_of_kind(proc, with, StmtKind::With);
  // Moving the body out, then deleting the empty `with`, keeps the cursors
  // inside the body.
  const Block& body = s->as<With>().body;
  cursors::Path first = with.path;
  first.push_back({cursors::Slot::Body, 0});
  cursors::EditResult moved = cursors::move(
      proc, cursors::Location::block(first, body.size()),
      cursors::Location::gap(with.path, cursors::GapSide::Before));
  // The `with` moved down by the body's length.
  cursors::Path now = with.path;
  now.back().index += static_cast<int>(body.size());
  cursors::EditResult removed =
      cursors::remove(moved.proc, cursors::Location::node(now));
  return {removed.proc, moved.forwarding.then(removed.forwarding)};
}

cursors::EditResult insert_fence(const Proc& proc, const cursors::Location& gap,
                                 SyncTimelinePtr pre, SyncTimelinePtr post) {
  const SrcInfo src = source_of(proc, gap_anchor(gap));
  return cursors::insert(
      proc, gap,
      {make_sync(SyncKind::Fence, std::move(pre), std::move(post), {}, src)});
}

cursors::EditResult insert_arrive(const Proc& proc,
                                  const cursors::Location& gap,
                                  SyncTimelinePtr pre,
                                  const std::vector<Expr>& targets) {
  if (targets.empty()) refuse("an Arrive needs at least one barrier element");
  const SrcInfo src = source_of(proc, gap_anchor(gap));
  return cursors::insert(proc, gap,
                         {make_sync(SyncKind::Arrive, std::move(pre), nullptr,
                                    typed_barriers(proc, gap, targets), src)});
}

cursors::EditResult insert_await(const Proc& proc, const cursors::Location& gap,
                                 const Expr& target, SyncTimelinePtr post) {
  const SrcInfo src = source_of(proc, gap_anchor(gap));
  return cursors::insert(proc, gap,
                         {make_sync(SyncKind::Await, nullptr, std::move(post),
                                    typed_barriers(proc, gap, {target}), src)});
}

cursors::EditResult delete_sync(const Proc& proc,
                                const cursors::Location& sync) {
  stmt_of_kind(proc, sync, StmtKind::Sync);
  return cursors::remove(proc, sync);
}

cursors::EditResult set_trailing_barrier(const Proc& proc,
                                         const cursors::Location& call,
                                         const std::vector<Expr>& targets) {
  const Stmt s = stmt_of_kind(proc, call, StmtKind::Call);
  const Call& c = s->as<Call>();
  if (!c.f->is_instr())
    refuse(fmt::format("only instructions can signal barriers, but {} is not "
                       "an instruction",
                       c.f->name),
           {.srcinfo = s->srcinfo});
  std::vector<Expr> typed;
  for (const Expr& t : targets)
    typed.push_back(typed_barrier(proc, call.path, t, false));
  return cursors::replace_stmt_attributes(
      proc, call, make_call(c.f, c.args, s->srcinfo, std::move(typed)));
}

cursors::EditResult alloc_barrier(const Proc& proc,
                                  const cursors::Location& gap,
                                  const std::string& name,
                                  const std::vector<Expr>& shape,
                                  MemoryPtr mem) {
  if (!mem) throw ArgumentError("alloc_barrier: expected a memory");
  const cursors::Path& at = gap_anchor(gap);
  const SrcInfo src = source_of(proc, at);
  std::vector<Expr> extents;
  QueryContext ctx(proc, to_stmt_path(at));
  for (const Expr& e : shape) {
    Expr t = typecheck_in_scope(proc, at, e, ExprCategory::Control);
    require_proven(prove_compare(ctx, t, BinOpKind::Gt, 0),
                   fmt::format("the extent {} of barrier {} may not be "
                               "positive",
                               print_expr(t), name),
                   {.srcinfo = src, .formula = print_expr(t) + " > 0"});
    extents.push_back(t);
  }
  Type type = extents.empty()
                  ? Type(TypeKind::Barrier)
                  : Type::tensor(Type(TypeKind::Barrier), extents, false);
  return cursors::insert(proc, gap,
                         {make_alloc(Sym(name), type, std::move(mem), src)});
}

cursors::EditResult set_dim_annotation(const Proc& proc,
                                       const cursors::Location& alloc, int dim,
                                       DimAnnotationPtr annotation) {
  const Declaration d = declaration_at(proc, alloc);
  if (d.param >= 0)
    refuse("dimension annotations are only allowed on allocations",
           {.srcinfo = d.srcinfo});
  const auto& shape = d.type.shape();
  if (dim < 0 || dim >= static_cast<int>(shape.size()))
    refuse(fmt::format("{} has {} dimensions; there is no dimension {}",
                       d.name.name(), shape.size(), dim),
           {.srcinfo = d.srcinfo});
  auto annotations = d.type.dim_annotations();
  annotations.resize(shape.size());
  annotations[dim] = std::move(annotation);
  bool any = false;
  for (const auto& a : annotations) any |= a != nullptr;
  if (!any) annotations.clear();
  Type type = Type::tensor(d.type.basetype(), shape, d.type.is_window(),
                           std::move(annotations));
  return {redeclare(proc, d, type, d.mem), cursors::Forwarding()};
}

}  // namespace exo2::primitives
