// The call graph of a library: every procedure reachable from the public
// ones, and the check that it has no cycle.
#include <functional>
#include <unordered_set>

#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"

namespace exo2 {

namespace {
void collect_callees(const Block& body, std::vector<Proc>& out) {
  for (const Stmt& s : body) {
    switch (s->kind) {
      case StmtKind::Call:
        out.push_back(s->as<Call>().f);
        break;
      case StmtKind::If:
        collect_callees(s->as<If>().body, out);
        collect_callees(s->as<If>().orelse, out);
        break;
      case StmtKind::For:
        collect_callees(s->as<For>().body, out);
        break;
      case StmtKind::With:
        collect_callees(s->as<With>().body, out);
        break;
      default:
        break;
    }
  }
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
