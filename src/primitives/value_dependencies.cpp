#include "exo2/primitives/value_dependencies.hpp"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "exo2/core_ir/stmt.hpp"

namespace exo2::primitives {
namespace {

// A variable, buffer or config field, named for the dependency graph.
using Key = std::string;

Key key_of(const Sym& s) { return "#" + std::to_string(s.id()); }
Key key_of(const ConfigPtr& c, const std::string& field) {
  return "@" + std::to_string(reinterpret_cast<uintptr_t>(c.get())) + "." +
         field;
}

// Whether a callee's body writes (or reads) its parameter `p`, directly or
// through a window of it or a nested call.
bool touches(const Block& block, const Sym& p, bool writes);

bool expr_reads(const Expr& e, const std::set<Sym>& names) {
  switch (e->kind) {
    case ExprKind::Read: {
      const Read& r = e->as<Read>();
      if (names.count(r.name)) return true;
      for (const Expr& i : r.idx)
        if (expr_reads(i, names)) return true;
      return false;
    }
    case ExprKind::WindowExpr:
      return names.count(e->as<WindowExpr>().name) > 0;
    case ExprKind::USub:
      return expr_reads(e->as<USub>().arg, names);
    case ExprKind::BinOp:
      return expr_reads(e->as<BinOp>().lhs, names) ||
             expr_reads(e->as<BinOp>().rhs, names);
    case ExprKind::ExternCall:
      for (const Expr& a : e->as<ExternCall>().args)
        if (expr_reads(a, names)) return true;
      return false;
    default:
      return false;
  }
}

bool block_touches(const Block& block, std::set<Sym>& names, bool writes) {
  for (const Stmt& s : block) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce: {
        const Assign& a = s->as<Assign>();
        if (writes && names.count(a.name)) return true;
        if (!writes) {
          if (s->kind == StmtKind::Reduce && names.count(a.name)) return true;
          if (expr_reads(a.rhs, names)) return true;
        }
        break;
      }
      case StmtKind::WindowStmt: {
        const WindowStmt& w = s->as<WindowStmt>();
        if (names.count(w.rhs->as<WindowExpr>().name)) names.insert(w.name);
        break;
      }
      case StmtKind::If: {
        const If& f = s->as<If>();
        if (!writes && expr_reads(f.cond, names)) return true;
        if (block_touches(f.body, names, writes) ||
            block_touches(f.orelse, names, writes))
          return true;
        break;
      }
      case StmtKind::For:
        if (block_touches(s->as<For>().body, names, writes)) return true;
        break;
      case StmtKind::With:
        if (block_touches(s->as<With>().body, names, writes)) return true;
        break;
      case StmtKind::Call: {
        const Call& c = s->as<Call>();
        for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); ++k) {
          const Expr& a = c.args[k];
          Sym passed;
          if (a->kind == ExprKind::Read && a->as<Read>().idx.empty())
            passed = a->as<Read>().name;
          else if (a->kind == ExprKind::WindowExpr)
            passed = a->as<WindowExpr>().name;
          if (passed.valid() && names.count(passed) &&
              touches(c.f->body, c.f->args[k].name, writes))
            return true;
          if (!writes && !passed.valid() && expr_reads(a, names)) return true;
        }
        break;
      }
      default:
        break;
    }
  }
  return false;
}

bool touches(const Block& block, const Sym& p, bool writes) {
  std::set<Sym> names{p};
  return block_touches(block, names, writes);
}

// The config fields a callee reads or writes.
void configs_of(const Block& block, bool writes, std::set<Key>& out);

void configs_of_expr(const Expr& e, std::set<Key>& out) {
  switch (e->kind) {
    case ExprKind::ReadConfig:
      out.insert(key_of(e->as<ReadConfig>().config, e->as<ReadConfig>().field));
      break;
    case ExprKind::Read:
      for (const Expr& i : e->as<Read>().idx) configs_of_expr(i, out);
      break;
    case ExprKind::USub:
      configs_of_expr(e->as<USub>().arg, out);
      break;
    case ExprKind::BinOp:
      configs_of_expr(e->as<BinOp>().lhs, out);
      configs_of_expr(e->as<BinOp>().rhs, out);
      break;
    case ExprKind::ExternCall:
      for (const Expr& a : e->as<ExternCall>().args) configs_of_expr(a, out);
      break;
    case ExprKind::WindowExpr:
      for (const WindowAccess& w : e->as<WindowExpr>().idx) {
        configs_of_expr(w.lo, out);
        if (w.hi) configs_of_expr(w.hi, out);
      }
      break;
    default:
      break;
  }
}

void configs_of(const Block& block, bool writes, std::set<Key>& out) {
  for (const Stmt& s : block) {
    switch (s->kind) {
      case StmtKind::WriteConfig: {
        const WriteConfig& w = s->as<WriteConfig>();
        if (writes)
          out.insert(key_of(w.config, w.field));
        else
          configs_of_expr(w.rhs, out);
        break;
      }
      case StmtKind::Assign:
      case StmtKind::Reduce:
        if (!writes) {
          for (const Expr& i : s->as<Assign>().idx) configs_of_expr(i, out);
          configs_of_expr(s->as<Assign>().rhs, out);
        }
        break;
      case StmtKind::If:
        if (!writes) configs_of_expr(s->as<If>().cond, out);
        configs_of(s->as<If>().body, writes, out);
        configs_of(s->as<If>().orelse, writes, out);
        break;
      case StmtKind::For:
        if (!writes) {
          configs_of_expr(s->as<For>().lo, out);
          configs_of_expr(s->as<For>().hi, out);
        }
        configs_of(s->as<For>().body, writes, out);
        break;
      case StmtKind::With:
        configs_of(s->as<With>().body, writes, out);
        break;
      case StmtKind::Call: {
        const Call& c = s->as<Call>();
        if (!writes)
          for (const Expr& a : c.args) configs_of_expr(a, out);
        configs_of(c.f->body, writes, out);
        break;
      }
      default:
        break;
    }
  }
}

// The dependency graph of a block: for each written name, the names whose
// values may flow into it.
class DependencyGraph {
 public:
  explicit DependencyGraph(const Block& block) { stmts(block); }

  // The transitive dependencies of `k`.
  std::set<Key> closure(const Key& k) const {
    std::set<Key> done;
    std::vector<Key> todo{k};
    while (!todo.empty()) {
      Key next = todo.back();
      todo.pop_back();
      if (!done.insert(next).second) continue;
      if (auto it = deps_.find(next); it != deps_.end())
        for (const Key& d : it->second) todo.push_back(d);
    }
    return done;
  }

 private:
  std::map<Key, std::set<Key>> deps_;
  std::map<Sym, Sym> alias_;  // window names to the buffer they view
  std::set<Key> context_;     // names deciding whether the code runs
  const Key* lhs_ = nullptr;  // the name being written, if any
  bool control_ = false;      // reads decide whether code runs

  Sym buffer(const Sym& s) const {
    auto it = alias_.find(s);
    return it == alias_.end() ? s : it->second;
  }

  void write_to(const Key& k) {
    deps_[k].insert(k);
    deps_[k].insert(context_.begin(), context_.end());
  }

  void read(const Key& k) {
    if (lhs_) deps_[*lhs_].insert(k);
    if (control_) context_.insert(k);
  }

  void expr(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Read:
        read(key_of(buffer(e->as<Read>().name)));
        for (const Expr& i : e->as<Read>().idx) expr(i);
        break;
      case ExprKind::WindowExpr:
        read(key_of(buffer(e->as<WindowExpr>().name)));
        for (const WindowAccess& w : e->as<WindowExpr>().idx) {
          expr(w.lo);
          if (w.hi) expr(w.hi);
        }
        break;
      case ExprKind::ReadConfig:
        read(key_of(e->as<ReadConfig>().config, e->as<ReadConfig>().field));
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

  // Reads `e` on behalf of the write to `k`.
  void expr_into(const Key& k, const Expr& e) {
    const Key* saved = lhs_;
    lhs_ = &k;
    expr(e);
    lhs_ = saved;
  }

  void stmts(const Block& block) {
    for (const Stmt& s : block) stmt(s);
  }

  void stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::Assign:
      case StmtKind::Reduce: {
        const Assign& a = s->as<Assign>();
        const Key k = key_of(buffer(a.name));
        write_to(k);
        for (const Expr& i : a.idx) expr_into(k, i);
        expr_into(k, a.rhs);
        break;
      }
      case StmtKind::WriteConfig: {
        const WriteConfig& w = s->as<WriteConfig>();
        const Key k = key_of(w.config, w.field);
        write_to(k);
        expr_into(k, w.rhs);
        break;
      }
      case StmtKind::WindowStmt: {
        const WindowStmt& w = s->as<WindowStmt>();
        const Sym viewed = buffer(w.rhs->as<WindowExpr>().name);
        alias_[w.name] = viewed;
        const Key k = key_of(viewed);
        deps_[k].insert(k);
        expr_into(k, w.rhs);
        break;
      }
      case StmtKind::If: {
        const std::set<Key> saved = context_;
        control_ = true;
        expr(s->as<If>().cond);
        control_ = false;
        stmts(s->as<If>().body);
        stmts(s->as<If>().orelse);
        context_ = saved;
        break;
      }
      case StmtKind::For: {
        const For& f = s->as<For>();
        const std::set<Key> saved = context_;
        const Key iter = key_of(f.iter);
        deps_[iter].insert(iter);
        control_ = true;
        expr_into(iter, f.lo);
        expr_into(iter, f.hi);
        control_ = false;
        stmts(f.body);
        context_ = saved;
        break;
      }
      case StmtKind::With:
        stmts(s->as<With>().body);
        break;
      case StmtKind::Call:
        call(s->as<Call>());
        break;
      default:
        break;
    }
  }

  // Each buffer and config field the callee writes depends on everything
  // the callee may read.
  void call(const Call& c) {
    std::set<Key> read_configs, written_configs;
    configs_of(c.f->body, false, read_configs);
    configs_of(c.f->body, true, written_configs);
    auto reads_into = [&](const Key& k) {
      for (size_t i = 0; i < c.args.size() && i < c.f->args.size(); ++i) {
        const FnArg& param = c.f->args[i];
        if (!param.type.is_numeric() ||
            touches(c.f->body, param.name, /*writes=*/false))
          expr_into(k, c.args[i]);
      }
      for (const Key& cfg : read_configs) deps_[k].insert(cfg);
    };
    for (size_t i = 0; i < c.args.size() && i < c.f->args.size(); ++i) {
      const FnArg& param = c.f->args[i];
      const Expr& a = c.args[i];
      if (!param.type.is_numeric() ||
          !touches(c.f->body, param.name, /*writes=*/true))
        continue;
      const Sym name = a->kind == ExprKind::WindowExpr
                           ? a->as<WindowExpr>().name
                           : a->as<Read>().name;
      const Key k = key_of(buffer(name));
      write_to(k);
      reads_into(k);
    }
    for (const Key& cfg : written_configs) {
      write_to(cfg);
      reads_into(cfg);
    }
  }
};

}  // namespace

bool values_depend_on(const Block& block, const Sym& buffer, const Sym& var) {
  return DependencyGraph(block).closure(key_of(buffer)).count(key_of(var)) > 0;
}

}  // namespace exo2::primitives
