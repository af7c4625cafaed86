#include "exo2/primitives/value_dependencies.hpp"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "exo2/core_ir/ir_visitor.hpp"

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

// Whether an expression reads one of `names`, or makes a window of one.
class ReadsAny : public IRVisitor {
 public:
  explicit ReadsAny(const std::set<Sym>& names) : names_(names) {}
  bool found = false;

 protected:
  void visit_read(const Read& r) override {
    if (names_.count(r.name)) return found_it();
    IRVisitor::visit_read(r);
  }
  void visit_window_expr(const WindowExpr& w) override {
    if (names_.count(w.name)) found_it();
  }

 private:
  void found_it() {
    found = true;
    stop();
  }
  const std::set<Sym>& names_;
};

bool expr_reads(const Expr& e, const std::set<Sym>& names) {
  ReadsAny reads(names);
  reads.visit(e);
  return reads.found;
}

// Whether a block writes (or reads) one of `names`; the windows made of
// them join `names` as they are met.
class TouchesAny : public IRVisitor {
 public:
  TouchesAny(std::set<Sym>& names, bool writes)
      : IRVisitor(Visits::StatementsOnly), names_(names), writes_(writes) {}
  bool found = false;

 protected:
  void visit_assign(const Assign& a) override {
    if (writes_ && names_.count(a.name)) return found_it();
    if (!writes_) {
      if (a.kind == StmtKind::Reduce && names_.count(a.name)) return found_it();
      if (expr_reads(a.rhs, names_)) return found_it();
    }
  }
  void visit_window_stmt(const WindowStmt& w) override {
    if (names_.count(w.rhs->as<WindowExpr>().name)) names_.insert(w.name);
  }
  void visit_if(const If& i) override {
    if (!writes_ && expr_reads(i.cond, names_)) return found_it();
    IRVisitor::visit_if(i);
  }
  void visit_call(const Call& c) override {
    for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); ++k) {
      const Expr& a = c.args[k];
      Sym passed;
      if (a->kind == ExprKind::Read && a->as<Read>().idx.empty())
        passed = a->as<Read>().name;
      else if (a->kind == ExprKind::WindowExpr)
        passed = a->as<WindowExpr>().name;
      if (passed.valid() && names_.count(passed) &&
          touches(c.f->body, c.f->args[k].name, writes_))
        return found_it();
      if (!writes_ && !passed.valid() && expr_reads(a, names_))
        return found_it();
    }
  }

 private:
  void found_it() {
    found = true;
    stop();
  }
  std::set<Sym>& names_;
  bool writes_;
};

bool touches(const Block& block, const Sym& p, bool writes) {
  std::set<Sym> names{p};
  TouchesAny touches(names, writes);
  touches.visit(block);
  return touches.found;
}

// The config fields an expression reads.
class ConfigReads : public IRVisitor {
 public:
  explicit ConfigReads(std::set<Key>& out) : out_(out) {}

 protected:
  void visit_read_config(const ReadConfig& r) override {
    out_.insert(key_of(r.config, r.field));
  }

 private:
  std::set<Key>& out_;
};

// The config fields the statements (and the callees) write, or those that
// their assigned values, indices, conditions, bounds and call arguments
// read.
class ConfigsOf : public IRVisitor {
 public:
  ConfigsOf(bool writes, std::set<Key>& out)
      : IRVisitor(Visits::StatementsOnly), writes_(writes), out_(out) {}

 protected:
  void visit_write_config(const WriteConfig& w) override {
    if (writes_)
      out_.insert(key_of(w.config, w.field));
    else
      reads(w.rhs);
  }
  void visit_assign(const Assign& a) override {
    if (writes_) return;
    for (const Expr& i : a.idx) reads(i);
    reads(a.rhs);
  }
  void visit_if(const If& i) override {
    if (!writes_) reads(i.cond);
    IRVisitor::visit_if(i);
  }
  void visit_for(const For& f) override {
    if (!writes_) {
      reads(f.lo);
      reads(f.hi);
    }
    IRVisitor::visit_for(f);
  }
  void visit_call(const Call& c) override {
    if (!writes_)
      for (const Expr& a : c.args) reads(a);
    visit(c.f->body);
  }

 private:
  void reads(const Expr& e) { ConfigReads(out_).visit(e); }
  bool writes_;
  std::set<Key>& out_;
};

void configs_of(const Block& block, bool writes, std::set<Key>& out) {
  ConfigsOf(writes, out).visit(block);
}

// The dependency graph of a block: for each written name, the names whose
// values may flow into it.
// Statements add edges from what they read to what they write; expressions
// report their reads to the write being visited (and, in a condition or a
// loop's bounds, to the context of the code under it).
class DependencyGraph : public IRVisitor {
 public:
  explicit DependencyGraph(const Block& block) { visit(block); }

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

  void visit_read(const Read& r) override {
    read(key_of(buffer(r.name)));
    IRVisitor::visit_read(r);
  }
  void visit_window_expr(const WindowExpr& w) override {
    read(key_of(buffer(w.name)));
    IRVisitor::visit_window_expr(w);
  }
  void visit_read_config(const ReadConfig& r) override {
    read(key_of(r.config, r.field));
  }

  // Reads `e` on behalf of the write to `k`.
  void expr_into(const Key& k, const Expr& e) {
    const Key* saved = lhs_;
    lhs_ = &k;
    visit(e);
    lhs_ = saved;
  }

  void visit_assign(const Assign& a) override {
    const Key k = key_of(buffer(a.name));
    write_to(k);
    for (const Expr& i : a.idx) expr_into(k, i);
    expr_into(k, a.rhs);
  }

  void visit_write_config(const WriteConfig& w) override {
    const Key k = key_of(w.config, w.field);
    write_to(k);
    expr_into(k, w.rhs);
  }

  void visit_window_stmt(const WindowStmt& w) override {
    const Sym viewed = buffer(w.rhs->as<WindowExpr>().name);
    alias_[w.name] = viewed;
    const Key k = key_of(viewed);
    deps_[k].insert(k);
    expr_into(k, w.rhs);
  }

  void visit_if(const If& i) override {
    const std::set<Key> saved = context_;
    control_ = true;
    visit(i.cond);
    control_ = false;
    visit(i.body);
    visit(i.orelse);
    context_ = saved;
  }

  void visit_for(const For& f) override {
    const std::set<Key> saved = context_;
    const Key iter = key_of(f.iter);
    deps_[iter].insert(iter);
    control_ = true;
    expr_into(iter, f.lo);
    expr_into(iter, f.hi);
    control_ = false;
    visit(f.body);
    context_ = saved;
  }

  // Allocations' extents and barriers give no value to anything.
  void visit_alloc(const Alloc&) override {}
  void visit_sync(const Sync&) override {}

  // Each buffer and config field the callee writes depends on everything
  // the callee may read.
  void visit_call(const Call& c) override {
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
