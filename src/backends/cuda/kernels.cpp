#include "kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "exo2/backends/codegen_passes.hpp"

namespace exo2::cuda {

CheckError parallel_check_error(std::vector<Diagnostic> diagnostics) {
  return CheckError("Errors occurred during parallel checking:",
                    std::move(diagnostics));
}

namespace {

// Symbols read or written in a block that it does not bind, in first-use
// order.
class FreeVariables {
 public:
  std::vector<Sym> order;
  std::set<Sym> written;

  void block(const Block& b) {
    for (const Stmt& s : b) stmt(s);
  }

 private:
  std::set<Sym> bound_, seen_;

  void use(const Sym& s, bool write = false) {
    if (bound_.count(s)) return;
    if (seen_.insert(s).second) order.push_back(s);
    if (write) written.insert(s);
  }

  void expr(const Expr& e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Read:
        use(e->as<Read>().name);
        for (const Expr& i : e->as<Read>().idx) expr(i);
        break;
      case ExprKind::WindowExpr:
        use(e->as<WindowExpr>().name);
        for (const WindowAccess& w : e->as<WindowExpr>().idx) {
          expr(w.lo);
          expr(w.hi);
        }
        break;
      case ExprKind::StrideExpr:
        use(e->as<StrideExpr>().name);
        break;
      case ExprKind::USub:
        expr(e->as<USub>().arg);
        break;
      case ExprKind::BinOp:
        expr(e->as<BinOp>().lhs);
        expr(e->as<BinOp>().rhs);
        break;
      case ExprKind::ExternCall:
        for (const Expr& a : e->as<ExternCall>().args) expr(a);
        break;
      default:
        break;
    }
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce: {
        const auto& a = s->as<Assign>();
        use(a.name, true);
        for (const Expr& i : a.idx) expr(i);
        expr(a.rhs);
        break;
      }
      case StmtKind::WriteConfig:
        expr(s->as<WriteConfig>().rhs);
        break;
      case StmtKind::If:
        expr(s->as<If>().cond);
        block(s->as<If>().body);
        block(s->as<If>().orelse);
        break;
      case StmtKind::For:
        expr(s->as<For>().lo);
        expr(s->as<For>().hi);
        bound_.insert(s->as<For>().iter);
        block(s->as<For>().body);
        break;
      case StmtKind::Alloc:
        for (const Expr& d : s->as<Alloc>().type.shape()) expr(d);
        bound_.insert(s->as<Alloc>().name);
        break;
      case StmtKind::Call: {
        const auto& c = s->as<Call>();
        const std::vector<Sym> callee_writes = written_buffers(c.f->body);
        for (size_t k = 0; k < c.args.size(); ++k) {
          expr(c.args[k]);
          const bool w = std::find(callee_writes.begin(), callee_writes.end(),
                                   c.f->args[k].name) != callee_writes.end();
          if (w) mark_written(c.args[k]);
        }
        for (const Expr& b : c.barriers) expr(b);
        break;
      }
      case StmtKind::WindowStmt:
        expr(s->as<WindowStmt>().rhs);
        bound_.insert(s->as<WindowStmt>().name);
        break;
      case StmtKind::With:
        block(s->as<With>().body);
        break;
      case StmtKind::Sync:
        for (const Expr& b : s->as<Sync>().barriers) expr(b);
        break;
      case StmtKind::Pass:
      case StmtKind::Free:
        break;
    }
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

class KernelFinder {
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
    for (const Stmt& s : b) stmt(s);
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Alloc: {
        const auto& a = s->as<Alloc>();
        declare(a.name, HostVar{a.type, a.mem, false, a.name, {}});
        break;
      }
      case StmtKind::WindowStmt: {
        const auto& w = s->as<WindowStmt>();
        if (w.rhs->kind == ExprKind::WindowExpr) {
          const Sym base = w.rhs->as<WindowExpr>().name;
          auto it = vars_.find(base);
          HostVar v{w.rhs->type, it != vars_.end() ? it->second.mem : nullptr,
                    true, it != vars_.end() ? it->second.window_base : base, s};
          declare(w.name, v);
        }
        break;
      }
      case StmtKind::For: {
        const auto& f = s->as<For>();
        const LoopKind k = loop_kind(f);
        if (k == LoopKind::Tasks || k == LoopKind::Threads)
          error(s->srcinfo, fmt::format("{} loops are only allowed inside a "
                                        "`with CudaDeviceFunction(...)` block",
                                        f.mode->name()));
        declare(f.iter,
                HostVar{Type(TypeKind::Index), nullptr, false, f.iter, {}});
        const Type idx(TypeKind::Index);
        Expr it = make_read(f.iter, {}, s->srcinfo, idx);
        facts_.push_back(
            make_binop(BinOpKind::And,
                       make_binop(BinOpKind::Le, f.lo, it, s->srcinfo,
                                  Type(TypeKind::Bool)),
                       make_binop(BinOpKind::Lt, it, f.hi, s->srcinfo,
                                  Type(TypeKind::Bool)),
                       s->srcinfo, Type(TypeKind::Bool)));
        block(f.body);
        facts_.pop_back();
        break;
      }
      case StmtKind::If: {
        const auto& i = s->as<If>();
        facts_.push_back(i.cond);
        block(i.body);
        facts_.pop_back();
        block(i.orelse);
        break;
      }
      case StmtKind::With: {
        const auto& w = s->as<With>();
        if (auto config = device_function(w)) {
          kernel(s, *config);
        } else {
          error(s->srcinfo,
                fmt::format("`with {}` is only allowed inside a kernel",
                            w.ctx->text()));
          block(w.body);
        }
        break;
      }
      case StmtKind::Sync:
        error(s->srcinfo,
              "synchronisation statements are only allowed inside a kernel");
        break;
      default:
        break;
    }
  }

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
    fv.block(w.body);
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

  static void collect_reads(const Expr& e, std::vector<Sym>& out) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Read:
        out.push_back(e->as<Read>().name);
        for (const Expr& i : e->as<Read>().idx) collect_reads(i, out);
        break;
      case ExprKind::USub:
        collect_reads(e->as<USub>().arg, out);
        break;
      case ExprKind::BinOp:
        collect_reads(e->as<BinOp>().lhs, out);
        collect_reads(e->as<BinOp>().rhs, out);
        break;
      default:
        break;
    }
  }
};

bool block_uses_cuda(const Block& b) {
  for (const Stmt& s : b) {
    switch (s->kind) {
      case StmtKind::With:
      case StmtKind::Sync:
        return true;
      case StmtKind::For: {
        const LoopKind k = loop_kind(s->as<For>());
        if (k == LoopKind::Tasks || k == LoopKind::Threads) return true;
        if (block_uses_cuda(s->as<For>().body)) return true;
        break;
      }
      case StmtKind::If:
        if (block_uses_cuda(s->as<If>().body) ||
            block_uses_cuda(s->as<If>().orelse))
          return true;
        break;
      default:
        break;
    }
  }
  return false;
}

}  // namespace

std::vector<Kernel> find_kernels(const Proc& p, const std::string& prefix) {
  return KernelFinder(p, prefix).run();
}

bool uses_cuda(const Proc& p) { return block_uses_cuda(p->body); }

}  // namespace exo2::cuda
