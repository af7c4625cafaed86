#include "exo2/core_ir/symbol_table.hpp"

namespace exo2 {

namespace {
void collect(const Block& block, std::vector<SymbolInfo>& out) {
  for (const Stmt& s : block) {
    switch (s->kind) {
      case StmtKind::Alloc: {
        const auto& a = s->as<Alloc>();
        out.push_back(
            {SymbolInfo::Kind::Allocation, a.name, a.type, a.mem, a.srcinfo});
        break;
      }
      case StmtKind::WindowStmt: {
        const auto& w = s->as<WindowStmt>();
        out.push_back(
            {SymbolInfo::Kind::Window, w.name, w.rhs->type, w.mem, w.srcinfo});
        break;
      }
      case StmtKind::For: {
        const auto& f = s->as<For>();
        out.push_back({SymbolInfo::Kind::LoopIterator, f.iter,
                       Type(TypeKind::Index), nullptr, f.srcinfo});
        collect(f.body, out);
        break;
      }
      case StmtKind::If:
        collect(s->as<If>().body, out);
        collect(s->as<If>().orelse, out);
        break;
      case StmtKind::With:
        collect(s->as<With>().body, out);
        break;
      default:
        break;
    }
  }
}
}  // namespace

std::vector<SymbolInfo> symbol_table(const Proc& p) {
  std::vector<SymbolInfo> out;
  for (const auto& a : p->args)
    out.push_back(
        {SymbolInfo::Kind::Argument, a.name, a.type, a.mem, a.srcinfo});
  collect(p->body, out);
  return out;
}

const Sym* declared_name(const Stmt& s) {
  if (s->kind == StmtKind::Alloc) return &s->as<Alloc>().name;
  if (s->kind == StmtKind::WindowStmt) return &s->as<WindowStmt>().name;
  return nullptr;
}

const char* symbol_kind_name(SymbolInfo::Kind kind) {
  switch (kind) {
    case SymbolInfo::Kind::Argument:
      return "argument";
    case SymbolInfo::Kind::Allocation:
      return "allocation";
    case SymbolInfo::Kind::LoopIterator:
      return "loop iterator";
    case SymbolInfo::Kind::Window:
      return "window";
  }
  return "?";
}

}  // namespace exo2
