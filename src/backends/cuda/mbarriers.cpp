#include "mbarriers.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::cuda {

namespace {

class Collect : public IRVisitor {
 public:
  Collect(const CollectiveMap& cm, std::vector<Diagnostic>& errors)
      : IRVisitor(Visits::StatementsOnly), cm_(cm), errors_(errors) {}

  std::map<Sym, MBarrier> out;
  // Arrivals per buffer and per element loop: the innermost seq loop whose
  // iterator the element index uses (null: a fixed element, e.g. a peeled
  // first iteration). Sites in one element loop arrive on the same
  // elements, so their arrivals add up; different element loops cover
  // different elements and must give each the same count.
  std::map<Sym, std::map<const For*, int>> arrivals;
  std::map<Sym, SrcInfo> first_site;

 private:
  const CollectiveMap& cm_;
  std::vector<Diagnostic>& errors_;

  void visit_alloc(const Alloc& a) override {
    if (a.kind == StmtKind::Alloc) alloc(a);
  }
  void visit_for(const For& f) override {
    loops_.push_back(&f);
    IRVisitor::visit_for(f);
    loops_.pop_back();
  }
  void visit_sync(const Sync& y) override {
    if (y.sync != SyncKind::Arrive) return;
    const Collective& c = cm_.at(&y);
    const int n = c.threads == 1 ? 1 : c.threads / 32;
    for (const Expr& b : y.barriers) arrive(b, n, y.srcinfo);
  }
  void visit_call(const Call& c) override {
    for (const Expr& b : c.barriers) arrive(b, 1, c.srcinfo);
  }

  void arrive(const Expr& b, int n, const SrcInfo& at) {
    const Sym& g = b->as<Read>().name;
    if (!out.count(g)) return;
    const For* element_loop = nullptr;
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if (loop_kind(**it) != LoopKind::Threads &&
          primitives::mentions(b->as<Read>().idx.front(), (*it)->iter)) {
        element_loop = *it;
        break;
      }
    arrivals[g][element_loop] += n;
    first_site.emplace(g, at);
  }

  std::vector<const For*> loops_;

  void alloc(const Alloc& a) {
    if (mem_kind(a.mem) != MemKind::MBarrier) return;
    MBarrier m;
    m.alloc = &a;
    m.prearrive = mem_param(a.mem, "prearrive");
    const auto& shape = a.type.shape();
    if (shape.size() != 1) {
      errors_.push_back(
          {a.srcinfo, fmt::format("mbarrier buffers have one dimension in "
                                  "this version; {} has {}",
                                  a.name.name(), shape.size())});
      return;
    }
    m.extent = shape[0];
    const auto& annotations = a.type.dim_annotations();
    auto facts = annotations.empty() ? std::nullopt : dim_facts(annotations[0]);
    if (facts && facts->is_ring) {
      m.depth = facts->depth;
    } else if (shape[0]->kind == ExprKind::Const) {
      m.depth = static_cast<int>(shape[0]->as<Const>().int_value());
    } else {
      errors_.push_back(
          {a.srcinfo,
           fmt::format("{} needs a ring dimension (`{} @ ring(D)`) or a "
                       "literal extent: mbarriers live in shared memory",
                       a.name.name(), "extent")});
      return;
    }
    if (m.prearrive != 0 && m.prearrive != m.depth)
      errors_.push_back(
          {a.srcinfo, fmt::format("CUDA_MBARRIER(prearrive={}) needs a "
                                  "ring of depth {}, not {}",
                                  m.prearrive, m.prearrive, m.depth)});
    out[a.name] = m;
  }
};

}  // namespace

std::map<Sym, MBarrier> mbarriers_of(const Kernel& k, const CollectiveMap& cm,
                                     std::vector<Diagnostic>& errors) {
  Collect c(cm, errors);
  c.visit(*k.body);
  for (auto& [sym, m] : c.out) {
    const auto& counts = c.arrivals[sym];
    if (counts.empty()) {
      errors.push_back(
          {m.alloc->srcinfo,
           fmt::format("nothing arrives on the mbarrier {}", sym.name())});
      continue;
    }
    m.arrivals = counts.begin()->second;
    for (const auto& [loop, n] : counts)
      if (n != m.arrivals)
        errors.push_back(
            {c.first_site.at(sym),
             fmt::format("the elements of mbarrier {} receive {} arrivals in "
                         "one place and {} in another; every element needs "
                         "the same count",
                         sym.name(), m.arrivals, n)});
  }
  return std::move(c.out);
}

}  // namespace exo2::cuda
