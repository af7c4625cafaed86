#include "collectives.hpp"

#include <fmt/format.h>

#include <numeric>

#include "exo2/core_ir/ir_functor.hpp"

namespace exo2::cuda {

namespace {

int gcd_align(int align, int x) {
  if (x == 0) return align;
  return std::gcd(align, x);
}

std::optional<int64_t> int_literal(const Expr& e) {
  if (e->kind == ExprKind::Const && e->as<Const>().is_int())
    return e->as<Const>().int_value();
  if (e->kind == ExprKind::USub) {
    auto v = int_literal(e->as<USub>().arg);
    if (v) return -*v;
  }
  return std::nullopt;
}

class Analysis : public StmtFunctor<void(const Collective&, bool)> {
 public:
  Analysis(const Kernel& k, std::vector<Diagnostic>& errors)
      : kernel_(k), errors_(errors) {}

  CollectiveMap run() {
    block(*kernel_.body, cta_collective(kernel_), false);
    return std::move(map_);
  }

 private:
  const Kernel& kernel_;
  std::vector<Diagnostic>& errors_;
  CollectiveMap map_;

  void error(const SrcInfo& at, std::string message) {
    errors_.push_back({at, std::move(message)});
  }

  // Every statement of `b` runs on collective `c`; `in_warps`: inside a
  // CudaWarps block.
  void block(const Block& b, const Collective& c, bool in_warps) {
    for (const Stmt& s : b) {
      map_[s.get()] = c;
      visit(s, c, in_warps);
    }
  }

  void visit_if(const Stmt& s, const Collective& c, bool in_warps) override {
    block(s->as<If>().body, c, in_warps);
    block(s->as<If>().orelse, c, in_warps);
  }
  void visit_for(const Stmt& s, const Collective& c, bool in_warps) override {
    const For& f = s->as<For>();
    switch (loop_kind(f)) {
      case LoopKind::Threads:
        block(f.body, cut(f, c), in_warps);
        return;
      case LoopKind::Tasks:
        error(s->srcinfo,
              "cuda_tasks loops must form the nest directly inside the "
              "CudaDeviceFunction; this one is inside the task body");
        break;
      case LoopKind::Par:
      case LoopKind::Other:
        error(s->srcinfo,
              fmt::format("{} loops are not allowed inside a kernel: use "
                          "cuda_threads to run iterations on different "
                          "threads",
                          f.mode->name()));
        break;
      default:
        break;
    }
    block(f.body, c, in_warps);
  }
  void visit_with(const Stmt& s, const Collective& c, bool in_warps) override {
    const With& w = s->as<With>();
    if (device_function(w)) {
      error(s->srcinfo, "a CudaDeviceFunction cannot be nested in a kernel");
      return;
    }
    auto range = warp_range(w);
    if (!range) {
      error(s->srcinfo,
            fmt::format("`with {}` is not a CUDA context", w.ctx->text()));
      block(w.body, c, in_warps);
      return;
    }
    if (in_warps) {
      error(s->srcinfo, "CudaWarps blocks cannot be nested");
    } else if (!c.cuts.empty()) {
      error(s->srcinfo, "CudaWarps is not allowed inside a cuda_threads loop");
    } else {
      block(w.body, narrow(w, *range, c), true);
      return;
    }
    block(w.body, c, true);
  }
  // Statements without a body run on the collective of their list.
  void visit_stmt_default(const Stmt&, const Collective&, bool) override {}

  Collective cut(const For& f, const Collective& parent) {
    const Unit u = loop_unit(f);
    auto lo = int_literal(f.lo), hi = int_literal(f.hi);
    Collective child = parent;
    child.threads = u.threads;
    child.origin = f.srcinfo;
    child.from_loop = true;
    if (!lo || !hi) {
      error(f.srcinfo, fmt::format("the bounds of cuda_threads loop {} must "
                                   "be integer literals",
                                   f.iter.name()));
      child.cuts.push_back({&f, u, 0, 1, parent.threads});
      return child;
    }
    if (*lo < 0 || *hi <= *lo)
      error(f.srcinfo,
            fmt::format("cuda_threads loop {} has the empty or negative range "
                        "[{}, {})",
                        f.iter.name(), *lo, *hi));
    if (*hi * u.threads > parent.threads)
      error(f.srcinfo,
            fmt::format("cuda_threads loop {} needs {} pieces of {} ({} "
                        "threads), but it runs on {}",
                        f.iter.name(), *hi, u.name, *hi * u.threads,
                        parent.describe(kernel_.config.threads)));
    if (!parent.cuts.empty() && parent.threads % u.threads != 0)
      error(f.srcinfo,
            fmt::format("cuda_threads loop {} cuts pieces of {} threads into "
                        "pieces of {} ({} threads), which does not divide "
                        "them",
                        f.iter.name(), parent.threads, u.name, u.threads));
    if (parent.align % u.align != 0)
      error(f.srcinfo,
            fmt::format("cuda_threads loop {} cuts {} into pieces of {}, but "
                        "a {} must start at a multiple of {} threads",
                        f.iter.name(), parent.describe(kernel_.config.threads),
                        u.name, u.name, u.align));
    child.cuts.push_back(
        {&f, u, static_cast<int>(*lo), static_cast<int>(*hi), parent.threads});
    child.align = gcd_align(parent.align, u.threads);
    return child;
  }

  Collective narrow(const With& w, const WarpRange& r, const Collective& c) {
    int first = 0, warps = kernel_.config.threads / 32;
    if (!r.role.empty()) {
      bool found = false;
      for (const Role& role : kernel_.config.roles)
        if (role.name == r.role) {
          first = role.first_warp;
          warps = role.warps;
          found = true;
        }
      if (!found)
        error(w.srcinfo, fmt::format("CudaWarps names the role '{}', which "
                                     "the CudaDeviceFunction does not define",
                                     r.role));
    }
    const int lo = r.lo < 0 ? 0 : r.lo;
    const int hi = r.hi < 0 ? warps : r.hi;
    if (hi > warps || lo >= hi)
      error(w.srcinfo,
            fmt::format("CudaWarps({}, {}) does not fit in the {} warps of {}",
                        lo, hi, warps,
                        r.role.empty() ? "the CTA" : "role " + r.role));
    Collective out = c;
    out.base = 32 * (first + lo);
    out.threads = 32 * (hi - lo);
    out.align = out.base == 0 ? 1024 : gcd_align(1024, out.base);
    out.warps = &w;
    out.origin = w.srcinfo;
    out.from_loop = false;
    return out;
  }
};

}  // namespace

Collective cta_collective(const Kernel& k) {
  Collective c;
  c.threads = k.config.threads;
  c.origin = k.with->srcinfo;
  return c;
}

std::string Collective::describe(int cta_threads) const {
  if (threads == 1) return "one thread";
  if (threads == cta_threads && cuts.empty() && base == 0)
    return "the whole CTA";
  if (threads == 32 && align % 32 == 0) return "one warp";
  if (threads == 128 && align % 128 == 0) return "one warpgroup";
  if (threads % 32 == 0 && align % 32 == 0 && cuts.empty())
    return fmt::format("warps {}-{}", base / 32, (base + threads) / 32 - 1);
  return fmt::format("{} threads", threads);
}

std::string Collective::origin_note() const {
  if (!origin.filename || (cuts.empty() && !warps)) return "";
  return fmt::format(" ({} at {})",
                     from_loop ? "cuda_threads loop" : "CudaWarps",
                     origin.str());
}

CollectiveMap analyze_collectives(const Kernel& k,
                                  std::vector<Diagnostic>& errors) {
  return Analysis(k, errors).run();
}

}  // namespace exo2::cuda
