#include "exo2/analysis/config_liveness.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "exo2/analysis/config_state.hpp"
#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "statement_steps.hpp"

namespace exo2 {
namespace {

// The first read of a field in an expression.
class FirstRead : public IRVisitor {
 public:
  explicit FirstRead(const Location& field) : field_(field) {}
  const ExprNode* found = nullptr;

 protected:
  void visit_read_config(const ReadConfig& r) override {
    if (r.config->same_as(*field_.config) && r.field == field_.field) {
      found = &r;
      stop();
    }
  }

 private:
  const Location& field_;
};

// The first read of `field` in `e`, if any.
const ExprNode* find_read(const Expr& e, const Location& field) {
  FirstRead r(field);
  r.visit(e);
  return r.found;
}

// What running some code does to the value a field holds before it.
struct Outcome {
  bool read = false;  // the value may be read
  SrcInfo read_at;
  bool overwrites = false;  // the value is certainly replaced
};

// One override per statement kind: what running the statement does to the
// field's value (`in_proc` is false inside callees).
class FieldScanner final : public StmtFunctor<Outcome(bool)> {
 public:
  FieldScanner(const Proc& p, const Location& field,
               std::vector<const StmtNode*> skipped)
      : proc_(p), field_(field), skipped_(std::move(skipped)) {}

  // Statements [lo, hi) of `b`; `in_proc` is false inside callees.
  Outcome range(const Block& b, size_t lo, size_t hi, bool in_proc) {
    for (size_t k = lo; k < hi; ++k) {
      Outcome o = visit(b[k], in_proc);
      if (o.read || o.overwrites) return o;
    }
    return {};
  }
  Outcome block(const Block& b, bool in_proc) {
    return range(b, 0, b.size(), in_proc);
  }

 private:
  // Records in `out` the first read of the field in `e`, if it has none.
  void read(Outcome& out, const Expr& e) {
    if (out.read) return;
    if (const ExprNode* r = find_read(e, field_)) {
      out.read = true;
      out.read_at = r->srcinfo;
    }
  }

  Outcome visit_assign(const Stmt& s, bool) override {
    Outcome out;
    for (const Expr& i : s->as<Assign>().idx) read(out, i);
    read(out, s->as<Assign>().rhs);
    return out;
  }
  Outcome visit_write_config(const Stmt& s, bool) override {
    const auto& w = s->as<WriteConfig>();
    Outcome out;
    read(out, w.rhs);
    out.overwrites = !out.read && w.config->same_as(*field_.config) &&
                     w.field == field_.field && !is_skipped(s);
    return out;
  }
  Outcome visit_window_stmt(const Stmt& s, bool) override {
    Outcome out;
    read(out, s->as<WindowStmt>().rhs);
    return out;
  }
  Outcome visit_alloc(const Stmt& s, bool) override {
    Outcome out;
    for (const Expr& d : s->as<Alloc>().type.shape()) read(out, d);
    return out;
  }
  Outcome visit_pass(const Stmt&, bool) override { return {}; }
  Outcome visit_sync(const Stmt&, bool) override { return {}; }
  Outcome visit_if(const Stmt& s, bool in_proc) override {
    const auto& i = s->as<If>();
    Outcome out;
    read(out, i.cond);
    if (out.read) return out;
    Outcome body = block(i.body, in_proc);
    if (body.read) return body;
    Outcome orelse = block(i.orelse, in_proc);
    if (orelse.read) return orelse;
    out.overwrites = body.overwrites && orelse.overwrites;
    return out;
  }
  Outcome visit_for(const Stmt& s, bool in_proc) override {
    const auto& f = s->as<For>();
    Outcome out;
    read(out, f.lo);
    read(out, f.hi);
    if (out.read) return out;
    Outcome body = block(f.body, in_proc);
    if (body.read) return body;
    out.overwrites = body.overwrites && runs_at_least_once(f, in_proc);
    return out;
  }
  Outcome visit_with(const Stmt& s, bool in_proc) override {
    return block(s->as<With>().body, in_proc);
  }
  Outcome visit_call(const Stmt& s, bool) override {
    Outcome out;
    for (const Expr& a : s->as<Call>().args) read(out, a);
    // The preconditions are checked at the call.
    for (const Expr& pred : s->as<Call>().f->preds) read(out, pred);
    if (out.read) return out;
    return block(s->as<Call>().f->body, false);
  }

  bool is_skipped(const Stmt& s) const {
    return std::find(skipped_.begin(), skipped_.end(), s.get()) !=
           skipped_.end();
  }

  // Literal bounds, or (for loops of the procedure itself) a proof from its
  // preconditions; enclosing loop ranges are not assumed, which only makes
  // the answer more cautious.
  bool runs_at_least_once(const For& f, bool in_proc) {
    if (f.lo->kind == ExprKind::Const && f.hi->kind == ExprKind::Const) {
      const auto& lo = f.lo->as<Const>();
      const auto& hi = f.hi->as<Const>();
      if (lo.is_int() && hi.is_int()) return hi.int_value() > lo.int_value();
    }
    if (!in_proc) return false;
    if (!ctx_) ctx_ = std::make_unique<QueryContext>(proc_);
    Expr extent = make_binop(BinOpKind::Sub, f.hi, f.lo, f.srcinfo,
                             Type(TypeKind::Index));
    return prove_compare(*ctx_, extent, BinOpKind::Gt, 0).proven();
  }

  const Proc& proc_;
  const Location& field_;
  std::vector<const StmtNode*> skipped_;
  std::unique_ptr<QueryContext> ctx_;
};

const Block& list_of(const Stmt& owner, int child) {
  if (owner->kind == StmtKind::If)
    return child == 0 ? owner->as<If>().body : owner->as<If>().orelse;
  if (owner->kind == StmtKind::For) return owner->as<For>().body;
  return owner->as<With>().body;
}

// The blocks from the procedure body down to the one holding `at`, with the
// position taken in each.
std::vector<std::pair<const Block*, size_t>> levels_of(
    const Proc& p, const cursors::Path& path) {
  const StatementSteps at = statement_steps(path);
  std::vector<std::pair<const Block*, size_t>> levels;
  const Block* block = &p->body;
  for (const auto& [index, child] : at.enclosing) {
    levels.emplace_back(block, static_cast<size_t>(index));
    block = &list_of(block->at(static_cast<size_t>(index)), child);
  }
  levels.emplace_back(block, static_cast<size_t>(at.index));
  return levels;
}

// The value `field` provably holds just before the statement at `at`, for
// a data field: the right-hand side of the last write of the field before
// it, in straight-line code (the search stops at the head of a loop body
// and at code that may write the field otherwise), when nothing between
// that write and `at` modifies what the right-hand side reads.
Expr data_value_held(const Proc& p, const cursors::Path& at,
                     const Location& field) {
  auto levels = levels_of(p, at);
  Block between;
  for (size_t level = levels.size(); level-- > 0;) {
    const auto& [b, index] = levels[level];
    for (size_t k = index; k-- > 0;) {
      const Stmt& s = (*b)[k];
      bool writes = false;
      for (const Location& f : config_fields_written(s))
        writes = writes || f.same_as(field);
      if (!writes) {
        between.insert(between.begin(), s);
        continue;
      }
      if (s->kind != StmtKind::WriteConfig) return nullptr;
      const Expr& value = s->as<WriteConfig>().rhs;
      const std::vector<Access> effects = effects_of(between);
      for (const Access& read : effects_of(
               make_write_config(field.config, field.field, value, s->srcinfo)))
        if (read.kind == AccessKind::Read)
          for (const Access& a : effects)
            if (a.modifies() && a.location.same_as(read.location))
              return nullptr;
      return value;
    }
    if (level == 0) break;
    const auto& [parent, parent_index] = levels[level - 1];
    if ((*parent)[parent_index]->kind == StmtKind::For) return nullptr;
  }
  return nullptr;
}

// Whether running the `count` statements at `first` leaves `field` with the
// value it held before them: proven in Z3 for control fields (config
// values tracked as in queries.hpp); for a data field, the statements are
// one write of a value the field provably holds already (its own value, or
// the value of an earlier write, data_value_held).
bool keeps_value(const Proc& p, const cursors::Path& first, size_t count,
                 const Location& field) {
  const Block& own = *levels_of(p, first).back().first;
  if (is_control_field(field)) {
    QueryContext ctx(p, first);
    SmtEncoder& enc = ctx.encoder();
    const z3::expr before = enc.config_field(*field.config, field.field);
    for (size_t k = 0; k < count; ++k)
      ctx.advance_over(own.at(statement_steps(first).index + k));
    const z3::expr after = enc.config_field(*field.config, field.field);
    return enc.prove(before == after).yes();
  }
  if (count != 1) return false;
  const Stmt& s = own.at(statement_steps(first).index);
  if (s->kind != StmtKind::WriteConfig) return false;
  // `Cfg.f = Cfg.f` stores the value the field holds.
  const Expr& rhs = s->as<WriteConfig>().rhs;
  if (rhs->kind == ExprKind::ReadConfig) {
    const auto& r = rhs->as<ReadConfig>();
    if (r.config->same_as(*field.config) && r.field == field.field) return true;
  }
  const Expr held = data_value_held(p, first, field);
  return held && equal(held, rhs);
}

}  // namespace

FieldAfter config_field_after(const Proc& p, const cursors::Path& first,
                              size_t count, const Location& field) {
  auto levels = levels_of(p, first);
  const Block& own = *levels.back().first;
  std::vector<const StmtNode*> skipped;
  for (size_t k = 0; k < count; ++k)
    skipped.push_back(own.at(statement_steps(first).index + k).get());
  FieldScanner scan(p, field, std::move(skipped));

  for (size_t level = levels.size(); level-- > 0;) {
    const auto& [b, index] = levels[level];
    const size_t start = level + 1 == levels.size() ? index + count : index + 1;
    Outcome o = scan.range(*b, start, b->size(), true);
    if (o.read) return {FieldAfter::Fate::Read, o.read_at};
    if (o.overwrites) return {FieldAfter::Fate::Overwritten, {}};
    if (level == 0) break;
    // Later iterations run the whole body again (perhaps none do, so an
    // overwrite there does not end the search).
    const auto& [parent_block, parent_index] = levels[level - 1];
    if ((*parent_block)[parent_index]->kind == StmtKind::For) {
      Outcome again = scan.block(*b, true);
      if (again.read) return {FieldAfter::Fate::Read, again.read_at};
    }
  }
  return {};
}

ConfigInvisibility check_config_invisible(const Proc& p,
                                          const cursors::Path& first,
                                          size_t count) {
  ConfigInvisibility result;
  const Block& own = *levels_of(p, first).back().first;
  const Block stmts(
      own.begin() + statement_steps(first).index,
      own.begin() + statement_steps(first).index + static_cast<long>(count));
  std::vector<Location> written;
  for (const Access& a : effects_of(stmts)) {
    if (!a.modifies()) continue;
    if (!a.location.is_config()) {
      result.data_write = a;
      return result;
    }
    bool known = false;
    for (const Location& w : written) known = known || w.same_as(a.location);
    if (!known) written.push_back(a.location);
  }
  for (const Location& field : written) {
    if (keeps_value(p, first, count, field)) continue;
    FieldAfter after = config_field_after(p, first, count, field);
    if (after.fate == FieldAfter::Fate::Read) {
      result.read_field = field;
      result.read_at = after.read_at;
      return result;
    }
    if (after.fate == FieldAfter::Fate::VisibleAtEnd)
      result.visible_fields.push_back(field);
  }
  return result;
}

std::string config_field_name(const Location& field) {
  return field.config->name() + "_" + field.field;
}

}  // namespace exo2
