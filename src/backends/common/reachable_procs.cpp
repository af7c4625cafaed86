// The call graph of a library: every procedure reachable from the public
// ones, and the check that it has no cycle.
#include <functional>
#include <unordered_set>

#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {
class CalleeCollector : public IRVisitor {
 public:
  CalleeCollector() : IRVisitor(Visits::StatementsOnly) {}
  std::vector<Proc> callees;

 protected:
  void visit_call(const Call& c) override { callees.push_back(c.f); }
};

void collect_callees(const Block& body, std::vector<Proc>& out) {
  CalleeCollector c;
  c.visit(body);
  out.insert(out.end(), c.callees.begin(), c.callees.end());
}
}  // namespace

std::vector<Proc> reachable_procs(const std::vector<Proc>& procs) {
  std::vector<Proc> all;
  std::unordered_set<const ProcNode*> seen;
  std::unordered_set<const ProcNode*> on_path;
  std::function<void(const Proc&)> walk = [&](const Proc& p) {
    if (on_path.count(p.get()))
      throw CodegenError(CodegenError::Kind::Value,
                         "found call cycle involving " + p->name);
    if (!seen.insert(p.get()).second) return;
    all.push_back(p);
    if (p->is_instr()) return;
    on_path.insert(p.get());
    std::vector<Proc> callees;
    collect_callees(p->body, callees);
    for (const Proc& c : callees) walk(c);
    on_path.erase(p.get());
  };
  for (const Proc& p : procs) walk(p);
  return all;
}

}  // namespace exo2
