#include "exo2/core_ir/symbol_table.hpp"

#include <set>

#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {
// The symbols the body binds, in pre-order.
class SymbolCollector : public IRVisitor {
 public:
  explicit SymbolCollector(std::vector<SymbolInfo>& out)
      : IRVisitor(Visits::StatementsOnly), out_(out) {}

 protected:
  void visit_alloc(const Alloc& a) override {
    if (a.kind == StmtKind::Alloc)
      out_.push_back(
          {SymbolInfo::Kind::Allocation, a.name, a.type, a.mem, a.srcinfo});
  }
  void visit_window_stmt(const WindowStmt& w) override {
    out_.push_back(
        {SymbolInfo::Kind::Window, w.name, w.rhs->type, w.mem, w.srcinfo});
  }
  void visit_for(const For& f) override {
    out_.push_back({SymbolInfo::Kind::LoopIterator, f.iter,
                    Type(TypeKind::Index), nullptr, f.srcinfo});
    visit(f.body);
  }

 private:
  std::vector<SymbolInfo>& out_;
};

// The extern calls of the data expressions (control expressions hold none,
// but a complete walk costs little more than deciding where to skip).
class ExternCollector : public IRVisitor {
 public:
  std::set<std::string> names;

 protected:
  void visit_extern_call(const ExternCall& e) override {
    names.insert(e.f->name());
    IRVisitor::visit_extern_call(e);
  }
};
}  // namespace

std::vector<std::string> extern_names(const Proc& p) {
  ExternCollector collector;
  collector.visit(p->body);
  return {collector.names.begin(), collector.names.end()};
}

std::vector<SymbolInfo> symbol_table(const Proc& p) {
  std::vector<SymbolInfo> out;
  for (const auto& a : p->args)
    out.push_back(
        {SymbolInfo::Kind::Argument, a.name, a.type, a.mem, a.srcinfo});
  SymbolCollector(out).visit(p->body);
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
