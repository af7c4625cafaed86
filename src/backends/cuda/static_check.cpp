#include "static_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "commit_groups.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "mbarriers.hpp"

namespace exo2::cuda {

namespace {

std::optional<int64_t> int_literal(const Expr& e) {
  if (e->kind == ExprKind::Const && e->as<Const>().is_int())
    return e->as<Const>().int_value();
  return std::nullopt;
}

bool same_unit(const Unit& a, const Unit& b) {
  return a.threads == b.threads && a.align == b.align;
}

// What the check knows about a buffer visible in the task body.
struct BufferFacts {
  MemKind kind = MemKind::Host;
  MemoryPtr mem;
  Type type;
  bool host_scalar = false;  // a kernel parameter read by value
  Collective alloc;          // registers: where they were allocated
  bool is_local = false;     // allocated in the task body
  Sym root;                  // windows: the buffer they view
};

class StaticCheck : public IRVisitor {
 public:
  StaticCheck(const Kernel& k, const CollectiveMap& cm,
              std::vector<Diagnostic>& errors)
      : k_(k), cm_(cm), errors_(errors) {}

  void run() {
    for (const KernelParam& p : k_.params) {
      BufferFacts f;
      f.kind = p.kind == KernelParam::Kind::TensorMap ? MemKind::TensorMap
                                                      : mem_kind(p.mem);
      f.mem = p.mem;
      f.type = p.type;
      f.host_scalar = p.kind == KernelParam::Kind::HostScalar;
      f.root = p.sym;
      buffers_[p.sym] = f;
    }
    visit(*k_.body);
  }

 private:
  const Kernel& k_;
  const CollectiveMap& cm_;
  std::vector<Diagnostic>& errors_;
  std::map<Sym, BufferFacts> buffers_;
  const Collective* collective_ = nullptr;

  void error(const SrcInfo& at, std::string message) {
    errors_.push_back({at, std::move(message)});
  }

  std::string scope(const Collective& c) const {
    return c.describe(k_.config.threads) + c.origin_note();
  }

  const BufferFacts* facts(const Sym& s) const {
    auto it = buffers_.find(s);
    return it == buffers_.end() ? nullptr : &it->second;
  }

  // The collective that runs statement `s`, which its expressions read as.
  const Collective& enter(const StmtNode& s) {
    collective_ = &cm_.at(&s);
    return *collective_;
  }

  // ---- statements: each reads and writes as the collective that runs it
  void visit_assign(const Assign& s) override {
    access(s.name, s.idx, true, enter(s), s.srcinfo);
    IRVisitor::visit_assign(s);
  }
  void visit_write_config(const WriteConfig& s) override {
    error(s.srcinfo, "kernels cannot write configuration fields");
  }
  void visit_if(const If& s) override {
    enter(s);
    IRVisitor::visit_if(s);
  }
  void visit_for(const For& s) override {
    enter(s);
    IRVisitor::visit_for(s);
  }
  void visit_alloc(const Alloc& s) override {
    const Collective& c = enter(s);
    if (s.kind == StmtKind::Alloc) alloc(s, c);
  }
  void visit_window_stmt(const WindowStmt& w) override {
    enter(w);
    if (w.mem)
      error(w.srcinfo,
            "special windows (`@ CudaTensorMap(...)`) must be "
            "defined in host code, before the kernel");
    if (w.rhs->kind == ExprKind::WindowExpr) {
      const Sym base = w.rhs->as<WindowExpr>().name;
      if (const BufferFacts* f = facts(base)) {
        BufferFacts g = *f;
        g.type = w.rhs->type;
        buffers_[w.name] = g;
      }
      visit(w.rhs);
    }
  }
  void visit_call(const Call& s) override { call(s, enter(s)); }
  void visit_sync(const Sync& s) override { sync(s, enter(s)); }

  // ---- expressions: reads by the collective of their statement
  void visit_read(const Read& e) override {
    IRVisitor::visit_read(e);
    if (e.type.is_numeric())
      access(e.name, e.idx, false, *collective_, e.srcinfo);
  }
  void visit_extern_call(const ExternCall& e) override {
    error(e.srcinfo, fmt::format("extern functions ({}) are not "
                                 "supported in kernels yet",
                                 e.f->name()));
  }
  void visit_read_config(const ReadConfig& e) override {
    error(e.srcinfo, "kernels cannot read configuration fields");
  }

  void alloc(const Alloc& a, const Collective& c) {
    BufferFacts f;
    f.kind = mem_kind(a.mem);
    f.mem = a.mem;
    f.type = a.type;
    f.alloc = c;
    f.is_local = true;
    f.root = a.name;
    buffers_[a.name] = f;
    const std::string mem = a.mem->name();
    switch (f.kind) {
      case MemKind::Host:
      case MemKind::Gmem:
        error(a.srcinfo,
              fmt::format("kernels cannot allocate {} buffers ({}): use "
                          "CUDA_SMEM for memory shared by the CTA, CUDA_RMEM "
                          "for registers",
                          mem, a.name.name()));
        return;
      case MemKind::Other:
        error(a.srcinfo, fmt::format("{} is not supported by this version "
                                     "of the CUDA backend",
                                     mem));
        return;
      default:
        break;
    }
    if (f.kind == MemKind::Fragment) {
      const Properties props = a.mem->properties();
      const int threads = static_cast<int>(props.get_int("unit_threads", 32));
      const int align = static_cast<int>(props.get_int("unit_align", 32));
      if (c.threads != threads || c.align % align != 0)
        error(a.srcinfo,
              fmt::format("{} buffers belong to {} threads: allocate {} "
                          "where {} threads run, not {}",
                          mem, threads, a.name.name(), threads, scope(c)));
      if (a.type.shape().size() < 2)
        error(a.srcinfo, fmt::format("{} buffers end with the two dimensions "
                                     "of one tile",
                                     mem));
    }
    if (const int swizzle = mem_param(a.mem, "swizzle")) {
      const auto& shape = a.type.shape();
      auto inner = shape.empty() ? std::nullopt : int_literal(shape.back());
      const int bytes = a.type.basetype().kind() == TypeKind::F32 ? 4 : 2;
      if (!inner || *inner * bytes != swizzle)
        error(a.srcinfo, fmt::format("the rows of {} must be {} bytes (its "
                                     "swizzle)",
                                     a.name.name(), swizzle));
    }
    const Type& t = a.type;
    const auto& annotations = t.dim_annotations();
    bool seen_plain = false, seen_ring = false;
    for (size_t d = 0; d < t.shape().size(); ++d) {
      auto facts = d < annotations.size() ? dim_facts(annotations[d])
                                          : std::optional<DimFacts>();
      if (facts && facts->unit) {
        if (seen_plain || seen_ring)
          error(a.srcinfo, fmt::format("the distributed dimensions of {} "
                                       "must come first",
                                       a.name.name()));
        if (f.kind != MemKind::Rmem)
          error(a.srcinfo,
                fmt::format("only register buffers can be distributed over "
                            "threads in this version, but {} is in {}",
                            a.name.name(), mem));
        continue;
      }
      if (facts && facts->is_ring) {
        if (seen_ring)
          error(a.srcinfo, fmt::format("{} has more than one ring dimension",
                                       a.name.name()));
        seen_ring = true;
        continue;
      }
      seen_plain = true;
      // Barriers have their own rules (mbarriers.hpp); commit groups have
      // no storage.
      if (is_barrier_memory(f.kind)) continue;
      if (!int_literal(t.shape()[d]))
        error(a.srcinfo,
              fmt::format("the extents of {} buffers must be integer "
                          "literals (dimension {} of {} is {}); fix the "
                          "sizes with partial_eval or use a ring dimension",
                          mem, d, a.name.name(), print_expr(t.shape()[d])));
    }
  }

  // A plain read or write of `name[idx]` by collective `c`.
  void access(const Sym& name, const std::vector<Expr>& idx, bool write,
              const Collective& c, const SrcInfo& at) {
    const BufferFacts* f = facts(name);
    if (!f) return;
    const std::string verb = write ? "writing" : "reading";
    switch (f->kind) {
      case MemKind::Host:
        if (write || !f->host_scalar)
          error(at, fmt::format("kernels cannot {} {}, which lives in host "
                                "memory ({})",
                                write ? "write" : "read", name.name(),
                                f->mem ? f->mem->name() : "DRAM"));
        return;
      case MemKind::Gmem:
      case MemKind::Smem:
        if (write && c.threads != 1)
          error(at, fmt::format("a plain statement {} {} must run on one "
                                "thread, but here it runs on {}: put it in "
                                "a cuda_threads loop over cuda_thread",
                                verb, name.name(), scope(c)));
        return;
      case MemKind::Rmem:
        registers(name, *f, idx, c, at, verb);
        return;
      case MemKind::Fragment:
        error(at, fmt::format("{} lives in {}, which only instructions can "
                              "access",
                              name.name(), f->mem->name()));
        return;
      case MemKind::TensorMap:
        error(at, fmt::format("{} is a tensor map: only TMA instructions "
                              "read it",
                              name.name()));
        return;
      default:
        error(at, fmt::format("{} is a barrier buffer ({}): only sync "
                              "statements can name it",
                              name.name(), f->mem->name()));
        return;
    }
  }

  // Registers belong to one thread: the statement runs on one thread, and
  // each cuda_threads loop between the allocation and the access is matched
  // by a distributed dimension indexed with its iterator.
  void registers(const Sym& name, const BufferFacts& f,
                 const std::vector<Expr>& idx, const Collective& c,
                 const SrcInfo& at, const std::string& verb) {
    if (c.threads != 1) {
      error(at, fmt::format("a plain statement {} the register buffer {} "
                            "must run on one thread, but here it runs on {}",
                            verb, name.name(), scope(c)));
      return;
    }
    const auto& outer = f.alloc.cuts;
    const bool prefix = outer.size() <= c.cuts.size() &&
                        std::equal(outer.begin(), outer.end(), c.cuts.begin(),
                                   [](const ThreadCut& a, const ThreadCut& b) {
                                     return a.loop == b.loop;
                                   });
    if (!prefix) {
      error(at, fmt::format("the register buffer {} is used outside the "
                            "cuda_threads loops it was allocated in",
                            name.name()));
      return;
    }
    const auto& annotations = f.type.dim_annotations();
    size_t distributed = 0;
    while (distributed < annotations.size()) {
      auto d = dim_facts(annotations[distributed]);
      if (!d || !d->unit) break;
      distributed++;
    }
    const size_t inner = c.cuts.size() - outer.size();
    if (distributed != inner) {
      error(at,
            fmt::format("the register buffer {} is allocated for {} but used "
                        "by one thread of it ({} cuda_threads loops deeper); "
                        "give it one distributed dimension per loop "
                        "(`{}: T[n @ cuda_thread, ...] @ CUDA_RMEM`) or "
                        "allocate it inside the loops",
                        name.name(), f.alloc.describe(k_.config.threads), inner,
                        name.name()));
      return;
    }
    for (size_t d = 0; d < distributed && d < idx.size(); ++d) {
      const ThreadCut& cut = c.cuts[outer.size() + d];
      const auto unit = dim_facts(annotations[d])->unit;
      const bool is_iter = idx[d]->kind == ExprKind::Read &&
                           idx[d]->as<Read>().idx.empty() &&
                           idx[d]->as<Read>().name == cut.loop->iter;
      if (!is_iter || !same_unit(*unit, cut.unit))
        error(at, fmt::format("distributed dimension {} of {} (over {}) must "
                              "be indexed by the iterator of the cuda_threads "
                              "loop over {} ({}), got {}",
                              d, name.name(), unit->name, unit->name,
                              cut.loop->iter.name(), print_expr(idx[d])));
    }
  }

  void call(const Call& call, const Collective& c) {
    if (!call.f->is_instr()) {
      error(call.srcinfo,
            fmt::format("kernels can only call instructions; inline {} first "
                        "(inline(p, \"{}(_)\"))",
                        call.f->name, call.f->name));
      return;
    }
    const InstrFacts info = instr_facts(*call.f);
    if (c.threads != info.unit.threads || c.align % info.unit.align != 0)
      error(call.srcinfo,
            fmt::format("{} must be executed by {}, but here it is executed "
                        "by {}",
                        call.f->name, unit_phrase(info.unit), scope(c)));
    for (size_t k = 0; k < call.args.size() && k < call.f->args.size(); ++k) {
      const Expr& a = call.args[k];
      const MemoryPtr& want = call.f->args[k].mem;
      Sym buf;
      if (a->kind == ExprKind::WindowExpr) buf = a->as<WindowExpr>().name;
      if (a->kind == ExprKind::Read && a->type.is_numeric())
        buf = a->as<Read>().name;
      if (buf.valid()) {
        const BufferFacts* f = facts_of_arg(buf);
        if (f && f->kind == MemKind::TensorMap) {
          // A tensor map stands for its global tensor, for TMA only.
          if (info.timeline != "tma_load")
            error(a->srcinfo, fmt::format("{} passes the tensor map {}, but "
                                          "only TMA instructions read tensor "
                                          "maps",
                                          call.f->name, buf.name()));
        } else if (f && want && f->mem && !f->mem->is_subclass_of(*want))
          error(a->srcinfo,
                fmt::format("{} expects argument {} in {}, but {} is in {}",
                            call.f->name, call.f->args[k].name.name(),
                            want->name(), buf.name(), f->mem->name()));
        if (f && f->kind == MemKind::Rmem && c.threads != 1 &&
            mem_kind(want) == MemKind::Rmem)
          error(a->srcinfo,
                fmt::format("{} passes the register buffer {} but runs on {}",
                            call.f->name, buf.name(), scope(c)));
      } else {
        visit(a);
      }
      if (a->kind == ExprKind::WindowExpr) {
        visit(a);
        const BufferFacts* f = facts(a->as<WindowExpr>().name);
        if (f && f->kind == MemKind::Fragment) whole_tile(a, *f);
      }
    }
    if (!call.barriers.empty() && info.trailing_barrier_memories.empty())
      error(call.srcinfo, fmt::format("{} cannot signal barriers: it is not an "
                                      "asynchronous instruction",
                                      call.f->name));
    if (call.barriers.empty() && info.trailing_barrier_required)
      error(call.srcinfo,
            fmt::format("{} must signal a barrier when it completes: write "
                        "`{}(...) >> bar[i]`",
                        call.f->name, call.f->name));
    for (const Expr& b : call.barriers) {
      const BufferFacts* f = facts(b->as<Read>().name);
      if (!f) continue;
      const std::string mem = f->mem->name();
      bool allowed = false;
      for (const std::string& m : info.trailing_barrier_memories)
        allowed |= mem.rfind(m, 0) == 0;
      if (!allowed)
        error(b->srcinfo, fmt::format("{} cannot signal {}, a barrier of {}",
                                      call.f->name, print_expr(b), mem));
    }
  }

  const BufferFacts* facts_of_arg(const Sym& s) const { return facts(s); }

  // A window of a fragment buffer is one whole tile: the last two
  // dimensions from 0 to their extents.
  void whole_tile(const Expr& a, const BufferFacts& f) {
    const auto& idx = a->as<WindowExpr>().idx;
    const auto& shape = f.type.shape();
    for (size_t d = idx.size() >= 2 ? idx.size() - 2 : 0; d < idx.size(); ++d) {
      const bool whole = idx[d].is_interval && int_literal(idx[d].lo) &&
                         *int_literal(idx[d].lo) == 0 && d < shape.size() &&
                         int_literal(idx[d].hi) && int_literal(shape[d]) &&
                         *int_literal(idx[d].hi) == *int_literal(shape[d]);
      if (!whole)
        error(a->srcinfo,
              fmt::format("{} passes part of a tile of {}: "
                          "fragments are passed whole "
                          "(`x[i, j, :, :]`)",
                          print_expr(a), a->as<WindowExpr>().name.name()));
    }
  }

  static std::string unit_phrase(const Unit& u) {
    if (u.threads == 1) return "one thread";
    if (u.threads == 32) return "a warp";
    if (u.threads == 128 && u.align == 128) return "a warpgroup";
    return u.name;
  }

  void sync(const Sync& y, const Collective& c) {
    for (const Expr& b : y.barriers)
      for (const Expr& i : b->as<Read>().idx) visit(i);
    if (y.sync == SyncKind::Fence) {
      if (c.threads != 1 && (c.threads % 32 != 0 || c.align % 32 != 0))
        error(y.srcinfo, fmt::format("a Fence must be executed by one "
                                     "thread or by whole warps, but here "
                                     "it runs on {}",
                                     scope(c)));
      const Timeline pre = timeline_of(y.pre), post = timeline_of(y.post);
      if (pre != Timeline::InOrder && pre != Timeline::CpAsync &&
          pre != Timeline::Wgmma && pre != Timeline::Temporal)
        error(y.srcinfo, fmt::format("{} cannot be the first timeline of a "
                                     "Fence (what must be finished)",
                                     y.pre ? y.pre->name() : "?"));
      if (post != Timeline::InOrder && post != Timeline::AsyncProxy &&
          post != Timeline::WgmmaOperands && post != Timeline::Temporal)
        error(y.srcinfo, fmt::format("{} cannot be the second timeline of a "
                                     "Fence (what may follow)",
                                     y.post ? y.post->name() : "?"));
      return;
    }
    for (const Expr& b : y.barriers) {
      const BufferFacts* f = facts(b->as<Read>().name);
      if (!f) {
        error(b->srcinfo, fmt::format("{} must be a barrier allocated in the "
                                      "kernel",
                                      print_expr(b)));
        continue;
      }
      barrier_use(y, *f, c);
    }
  }

  // Which barrier memories each sync statement can use, and how.
  void barrier_use(const Sync& y, const BufferFacts& f, const Collective& c) {
    const std::string what = y.sync == SyncKind::Arrive ? "Arrive" : "Await";
    switch (f.kind) {
      case MemKind::CpAsyncGroup: {
        if (c.threads != 1)
          error(y.srcinfo,
                fmt::format("cp.async commit groups belong to one thread, "
                            "but this {} runs on {}",
                            what, scope(c)));
        if (y.sync == SyncKind::Arrive &&
            timeline_of(y.pre) != Timeline::CpAsync)
          error(y.srcinfo,
                "an Arrive on a CUDA_CP_ASYNC_GROUP commits "
                "cp.async copies: write Arrive(cp_async)");
        return;
      }
      case MemKind::WgmmaGroup:
        if (c.threads != 128 || c.align % 128 != 0)
          error(y.srcinfo,
                fmt::format("wgmma commit groups belong to one warpgroup, "
                            "but this {} runs on {}",
                            what, scope(c)));
        if (y.sync == SyncKind::Arrive && timeline_of(y.pre) != Timeline::Wgmma)
          error(y.srcinfo,
                "an Arrive on a CUDA_WGMMA_GROUP commits wgmma "
                "operations: write Arrive(wgmma)");
        return;
      case MemKind::MBarrier:
        if (c.threads != 1 && (c.threads % 32 != 0 || c.align % 32 != 0))
          error(y.srcinfo, fmt::format("an {} on an mbarrier must run on "
                                       "one thread or whole warps, but "
                                       "here it runs on {}",
                                       what, scope(c)));
        return;
      default:
        error(y.srcinfo,
              fmt::format("{} needs a barrier buffer (CUDA_MBARRIER, "
                          "CUDA_CP_ASYNC_GROUP or CUDA_WGMMA_GROUP), but "
                          "this one is in {}",
                          what, f.mem ? f.mem->name() : "DRAM"));
    }
  }
};

// Tasks are independent: the task loops, read as `par` loops over a
// procedure made of the kernel alone, pass the C backend's race check.
void check_tasks_independent(const Proc& p, const Kernel& k,
                             std::vector<Diagnostic>& errors) {
  // The host windows the kernel uses, then the task nest with `par` loops.
  Block body;
  for (const KernelParam& param : k.params)
    if (param.window_def) body.push_back(param.window_def);
  std::function<Stmt(size_t)> nest = [&](size_t level) -> Stmt {
    const For& f = *k.tasks[level];
    Block inner = level + 1 < k.tasks.size() ? Block{nest(level + 1)} : f.body;
    return make_for(f.iter, f.lo, f.hi, std::move(inner), LoopMode::par(),
                    f.srcinfo);
  };
  body.push_back(nest(0));
  std::vector<FnArg> args = p->args;
  Proc kernel = make_proc(k.name, args, k.facts, std::move(body), std::nullopt,
                          k.with->srcinfo);
  try {
    check_parallel_loops(kernel);
  } catch (const CodegenError&) {
    errors.push_back(
        {k.tasks.front()->srcinfo,
         fmt::format("the tasks of kernel {} may not be independent: two "
                     "iterations of its cuda_tasks loops may touch the same "
                     "element of a buffer, one of them writing it (or Z3 "
                     "could not prove otherwise)",
                     k.name)});
  }
}

}  // namespace

std::vector<KernelAnalysis> analyze_kernels(const Proc& p,
                                            const std::string& prefix) {
  std::vector<KernelAnalysis> out;
  std::vector<Diagnostic> errors;
  for (Kernel& k : find_kernels(p, prefix)) {
    CollectiveMap cm = analyze_collectives(k, errors);
    StaticCheck(k, cm, errors).run();
    commit_group_depths(k, errors);
    mbarriers_of(k, cm, errors);
    check_tasks_independent(p, k, errors);
    out.push_back({std::move(k), std::move(cm)});
  }
  if (!errors.empty()) throw parallel_check_error(std::move(errors));
  return out;
}

}  // namespace exo2::cuda
