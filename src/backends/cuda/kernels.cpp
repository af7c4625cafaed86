#include "kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "exo2/analysis/written_buffers.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2::cuda {

CheckError parallel_check_error(std::vector<Diagnostic> diagnostics) {
  return CheckError("Errors occurred during parallel checking:",
                    std::move(diagnostics));
}

namespace {

// Symbols read or written in a block that it does not bind, in first-use
// order.
class FreeVariables : public IRVisitor {
 public:
  std::vector<Sym> order;
  std::set<Sym> written;

 protected:
  void visit_read(const Read& e) override {
    use(e.name);
    IRVisitor::visit_read(e);
  }
  void visit_window_expr(const WindowExpr& e) override {
    use(e.name);
    IRVisitor::visit_window_expr(e);
  }
  void visit_stride_expr(const StrideExpr& e) override { use(e.name); }
  void visit_assign(const Assign& s) override {
    use(s.name, true);
    IRVisitor::visit_assign(s);
  }
  void visit_for(const For& s) override {
    bound_.insert(s.iter);
    IRVisitor::visit_for(s);
  }
  void visit_alloc(const Alloc& s) override {
    if (s.kind == StmtKind::Free) return;
    IRVisitor::visit_alloc(s);
    bound_.insert(s.name);
  }
  void visit_window_stmt(const WindowStmt& s) override {
    IRVisitor::visit_window_stmt(s);
    bound_.insert(s.name);
  }
  void visit_call(const Call& c) override {
    const std::vector<Sym> callee_writes = written_buffers(c.f->body);
    for (size_t k = 0; k < c.args.size(); ++k) {
      visit(c.args[k]);
      const bool w = std::find(callee_writes.begin(), callee_writes.end(),
                               c.f->args[k].name) != callee_writes.end();
      if (w) mark_written(c.args[k]);
    }
    visit(c.barriers);
  }

 private:
  std::set<Sym> bound_, seen_;

  void use(const Sym& s, bool write = false) {
    if (bound_.count(s)) return;
    if (seen_.insert(s).second) order.push_back(s);
    if (write) written.insert(s);
  }

  void mark_written(const Expr& arg) {
    if (arg->kind == ExprKind::Read) use(arg->as<Read>().name, true);
    if (arg->kind == ExprKind::WindowExpr)
      use(arg->as<WindowExpr>().name, true);
  }
};

// What the host code knows about a variable where a kernel is launched.
struct HostVar {
  Type type;
  MemoryPtr mem;
  bool is_window = false;
  Sym window_base;  // for windows: the root buffer
  Stmt window_def;  // for window statements: the statement
  int order = 0;    // declaration order, for the kernel's parameter order
};

class KernelFinder : public StmtFunctor<void()> {
 public:
  KernelFinder(const Proc& p, std::string prefix)
      : proc_(p), prefix_(std::move(prefix)) {}

  std::vector<Kernel> run() {
    for (const FnArg& a : proc_->args)
      declare(a.name, HostVar{a.type, a.mem, a.type.is_window(), a.name, {}});
    facts_ = proc_->preds;
    block(proc_->body);
    if (!errors_.empty()) throw parallel_check_error(std::move(errors_));
    return std::move(kernels_);
  }

 private:
  const Proc& proc_;
  std::string prefix_;
  std::map<Sym, HostVar> vars_;
  std::vector<Expr> facts_;
  std::vector<Kernel> kernels_;
  std::vector<Diagnostic> errors_;

  void error(const SrcInfo& at, std::string message) {
    errors_.push_back({at, std::move(message)});
  }

  void declare(const Sym& s, HostVar v) {
    v.order = static_cast<int>(vars_.size());
    vars_[s] = std::move(v);
  }

  void block(const Block& b) {
    for (const Stmt& s : b) visit(s);
  }

  void visit_alloc(const Stmt& s) override {
    if (s->kind != StmtKind::Alloc) return;
    const auto& a = s->as<Alloc>();
    declare(a.name, HostVar{a.type, a.mem, false, a.name, {}});
  }
  void visit_window_stmt(const Stmt& s) override {
    const auto& w = s->as<WindowStmt>();
    if (w.rhs->kind != ExprKind::WindowExpr) return;
    const Sym base = w.rhs->as<WindowExpr>().name;
    auto it = vars_.find(base);
    HostVar v{w.rhs->type, it != vars_.end() ? it->second.mem : nullptr, true,
              it != vars_.end() ? it->second.window_base : base, s};
    declare(w.name, v);
  }
  void visit_for(const Stmt& s) override {
    const auto& f = s->as<For>();
    const LoopKind k = loop_kind(f);
    if (k == LoopKind::Tasks || k == LoopKind::Threads)
      error(s->srcinfo, fmt::format("{} loops are only allowed inside a "
                                    "`with CudaDeviceFunction(...)` block",
                                    f.mode->name()));
    declare(f.iter, HostVar{Type(TypeKind::Index), nullptr, false, f.iter, {}});
    const Type idx(TypeKind::Index);
    Expr it = make_read(f.iter, {}, s->srcinfo, idx);
    facts_.push_back(make_binop(
        BinOpKind::And,
        make_binop(BinOpKind::Le, f.lo, it, s->srcinfo, Type(TypeKind::Bool)),
        make_binop(BinOpKind::Lt, it, f.hi, s->srcinfo, Type(TypeKind::Bool)),
        s->srcinfo, Type(TypeKind::Bool)));
    block(f.body);
    facts_.pop_back();
  }
  void visit_if(const Stmt& s) override {
    const auto& i = s->as<If>();
    facts_.push_back(i.cond);
    block(i.body);
    facts_.pop_back();
    block(i.orelse);
  }
  void visit_with(const Stmt& s) override {
    const auto& w = s->as<With>();
    if (auto config = device_function(w)) {
      kernel(s, *config);
    } else {
      error(s->srcinfo, fmt::format("`with {}` is only allowed inside a kernel",
                                    w.ctx->text()));
      block(w.body);
    }
  }
  void visit_sync(const Stmt& s) override {
    error(s->srcinfo,
          "synchronisation statements are only allowed inside a kernel");
  }
  // The rest of the host code declares nothing a kernel could use.
  void visit_stmt_default(const Stmt&) override {}

  void kernel(const Stmt& s, const DeviceFunction& config) {
    const auto& w = s->as<With>();
    Kernel k;
    k.name = fmt::format("{}_k{}", prefix_, kernels_.size());
    k.with = s;
    k.config = config;
    k.facts = facts_;
    if (config.cluster != 1)
      error(s->srcinfo, "clusters (clusterDim > 1) are not supported yet");
    const Block* body = &w.body;
    std::set<Sym> task_iters;
    while (body->size() == 1 && (*body)[0]->kind == StmtKind::For &&
           loop_kind((*body)[0]->as<For>()) == LoopKind::Tasks) {
      const For& f = (*body)[0]->as<For>();
      for (const Expr& bound : {f.lo, f.hi}) {
        std::vector<Sym> used;
        collect_reads(bound, used);
        for (const Sym& u : used)
          if (task_iters.count(u))
            error(f.srcinfo,
                  fmt::format("the bounds of cuda_tasks loop {} use the "
                              "iterator {} of an enclosing cuda_tasks loop: "
                              "the task nest must be a cuboid",
                              f.iter.name(), u.name()));
      }
      task_iters.insert(f.iter);
      k.tasks.push_back(&f);
      body = &f.body;
    }
    if (k.tasks.empty()) {
      error(s->srcinfo,
            "the body of a CudaDeviceFunction must be a nest of cuda_tasks "
            "loops (`for t in cuda_tasks(lo, hi):`), and nothing else");
      return;
    }
    k.body = body;

    FreeVariables fv;
    fv.visit(w.body);
    std::vector<Sym> extents;  // control variables tensor maps need
    for (const Sym& sym : fv.order) {
      auto it = vars_.find(sym);
      if (it == vars_.end()) continue;  // a config or an unknown name
      const HostVar& v = it->second;
      KernelParam p;
      p.sym = sym;
      p.type = v.type;
      p.mem = v.mem;
      p.written = fv.written.count(sym) > 0;
      p.window_def = v.window_def;
      if (v.type.is_control()) {
        p.kind = KernelParam::Kind::Control;
      } else if (v.type.is_real_scalar()) {
        p.kind = KernelParam::Kind::HostScalar;
        if (mem_kind(v.mem) != MemKind::Host)
          error(s->srcinfo, fmt::format("kernel {} uses the scalar {} in {}; "
                                        "only scalars of host memory can be "
                                        "passed to kernels (by value)",
                                        k.name, sym.name(), v.mem->name()));
        else if (p.written)
          error(s->srcinfo,
                fmt::format("kernel {} writes the host scalar {}: kernels "
                            "receive host scalars by value, so they may only "
                            "read them",
                            k.name, sym.name()));
      } else if (v.type.is_numeric()) {
        p.kind =
            v.is_window ? KernelParam::Kind::Window : KernelParam::Kind::Tensor;
        const MemoryPtr special =
            v.window_def ? v.window_def->as<WindowStmt>().mem : nullptr;
        if (special && mem_kind(special) == MemKind::TensorMap) {
          p.kind = KernelParam::Kind::TensorMap;
          p.map = special;
          if (p.written)
            error(s->srcinfo, fmt::format("kernel {} writes through the "
                                          "tensor map {}; tensor maps are "
                                          "read by TMA loads only",
                                          k.name, sym.name()));
          // The launch encodes the map from the window's extents.
          for (const Expr& d : v.type.shape()) {
            std::vector<Sym> used;
            collect_reads(d, used);
            for (const Sym& u : used) extents.push_back(u);
          }
        }
        if (mem_kind(v.mem) != MemKind::Gmem)
          error(s->srcinfo,
                fmt::format("kernel {} uses the buffer {} of {}, which the "
                            "GPU cannot access: kernels take CUDA_GMEM "
                            "buffers (set_memory(p, \"{}\", CUDA_GMEM))",
                            k.name, sym.name(),
                            v.mem ? v.mem->name() : std::string("DRAM"),
                            sym.name()));
      } else {
        continue;  // barriers of the host: reported by the static check
      }
      k.params.push_back(std::move(p));
    }
    for (const Sym& e : extents) {
      bool present = false;
      for (const KernelParam& p : k.params) present |= p.sym == e;
      auto it = vars_.find(e);
      if (present || it == vars_.end() || !it->second.type.is_control())
        continue;
      KernelParam p;
      p.sym = e;
      p.type = it->second.type;
      k.params.push_back(std::move(p));
    }
    std::stable_sort(k.params.begin(), k.params.end(),
                     [&](const KernelParam& a, const KernelParam& b) {
                       return vars_.at(a.sym).order < vars_.at(b.sym).order;
                     });
    kernels_.push_back(std::move(k));
  }

  // The variables an expression reads, in order (with repetitions).
  static void collect_reads(const Expr& e, std::vector<Sym>& out) {
    class Reads : public IRVisitor {
     public:
      explicit Reads(std::vector<Sym>& out) : out_(out) {}

     protected:
      void visit_read(const Read& e) override {
        out_.push_back(e.name);
        IRVisitor::visit_read(e);
      }

     private:
      std::vector<Sym>& out_;
    } reads(out);
    reads.visit(e);
  }
};

// Whether a block launches a kernel or holds what only kernels may: the
// search of `uses_cuda`.
class UsesCuda : public IRVisitor {
 public:
  UsesCuda() : IRVisitor(Visits::StatementsOnly) {}
  bool found = false;

 protected:
  void visit_with(const With&) override { found_it(); }
  void visit_sync(const Sync&) override { found_it(); }
  void visit_for(const For& s) override {
    const LoopKind k = loop_kind(s);
    if (k == LoopKind::Tasks || k == LoopKind::Threads) return found_it();
    IRVisitor::visit_for(s);
  }

 private:
  void found_it() {
    found = true;
    stop();
  }
};

}  // namespace

std::vector<Kernel> find_kernels(const Proc& p, const std::string& prefix) {
  return KernelFinder(p, prefix).run();
}

bool uses_cuda(const Proc& p) {
  UsesCuda search;
  search.visit(p->body);
  return search.found;
}

}  // namespace exo2::cuda
