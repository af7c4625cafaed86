#include "exo2/analysis/config_writes.hpp"

#include "exo2/cursors/navigation.hpp"

namespace exo2 {

namespace {

void collect_config_writes(const Block& block, std::set<ConfigField>& out,
                           std::set<const ProcNode*>& visited) {
  for (const Stmt& s : block) {
    switch (s->kind) {
      case StmtKind::WriteConfig: {
        const auto& w = s->as<WriteConfig>();
        out.emplace(w.config.get(), w.field);
        break;
      }
      case StmtKind::If:
        collect_config_writes(s->as<If>().body, out, visited);
        collect_config_writes(s->as<If>().orelse, out, visited);
        break;
      case StmtKind::For:
        collect_config_writes(s->as<For>().body, out, visited);
        break;
      case StmtKind::With:
        collect_config_writes(s->as<With>().body, out, visited);
        break;
      case StmtKind::Call: {
        const Proc& f = s->as<Call>().f;
        if (f && visited.insert(f.get()).second)
          collect_config_writes(f->body, out, visited);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

std::set<ConfigField> config_writes(const Block& block) {
  std::set<ConfigField> out;
  std::set<const ProcNode*> visited;
  collect_config_writes(block, out, visited);
  return out;
}

bool reads_any(const Expr& e, const std::set<ConfigField>& fields) {
  if (fields.empty()) return false;
  if (e->kind == ExprKind::ReadConfig) {
    const auto& r = e->as<ReadConfig>();
    if (fields.count({r.config.get(), r.field})) return true;
  }
  bool found = false;
  cursors::for_each_expr_child(e, [&](const auto&, const Expr& child) {
    found = found || reads_any(child, fields);
  });
  return found;
}

}  // namespace exo2
