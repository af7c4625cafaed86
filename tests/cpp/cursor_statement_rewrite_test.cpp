// A statement rewritten apart (statement_rewrite.hpp) gives the procedure
// and the forwarding that the same edits give on the real procedure, for
// every location of the test kernel, with one spine rebuild.
#include "cursor_test_kernel.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/edits.hpp"
#include "exo2/cursors/statement_rewrite.hpp"

namespace exo2::cursors::testing {
namespace {

// Every node, block and gap of `proc`'s body.
void collect_expr(const Expr& e, Path& path, std::vector<Location>& out) {
  out.push_back(Location::node(path));
  for_each_expr_child(e, [&](Step step, const Expr& child) {
    path.push_back(step);
    collect_expr(child, path, out);
    path.pop_back();
  });
}

void collect_list(const Block& list, Path& owner, Slot slot,
                  std::vector<Location>& out);

void collect_stmt(const Stmt& s, Path& path, std::vector<Location>& out) {
  out.push_back(Location::node(path));
  out.push_back(Location::gap(path, GapSide::Before));
  out.push_back(Location::gap(path, GapSide::After));
  for_each_expr_child(s, [&](Step step, const Expr& child) {
    path.push_back(step);
    collect_expr(child, path, out);
    path.pop_back();
  });
  if (s->kind == StmtKind::For)
    collect_list(s->as<For>().body, path, Slot::Body, out);
  if (s->kind == StmtKind::If) {
    collect_list(s->as<If>().body, path, Slot::Body, out);
    collect_list(s->as<If>().orelse, path, Slot::Orelse, out);
  }
}

void collect_list(const Block& list, Path& owner, Slot slot,
                  std::vector<Location>& out) {
  const int size = static_cast<int>(list.size());
  for (int lo = 0; lo < size; lo++)
    for (int hi = lo + 1; hi <= size; hi++) {
      Path first = owner;
      first.push_back(Step{slot, lo});
      out.push_back(Location::block(first, hi));
    }
  for (int i = 0; i < size; i++) {
    owner.push_back(Step{slot, i});
    collect_stmt(list[i], owner, out);
    owner.pop_back();
  }
}

std::vector<Location> all_locations(const Proc& proc) {
  std::vector<Location> out;
  Path root;
  collect_list(proc->body, root, Slot::Body, out);
  return out;
}

std::string forwarded(const Forwarding& f, const Location& loc) {
  try {
    return to_string(f(loc));
  } catch (const InvalidCursorError& e) {
    return std::string("invalid: ") + e.what();
  }
}

// The loop `[(Body,1)]` of the test kernel gets new bounds, its first two
// statements are wrapped in an if, reads of i become i + 1, and statements
// are inserted before and after it: first on the real procedure, then apart.
TEST(StatementRewrite, ForwardsEveryLocationAsTheSameEditsOnTheProcedure) {
  TestKernel k;
  const Proc p = k.proc();
  const Path loop = body(1);
  const Stmt new_loop =
      k.loop({k.assign(1, k.read(k.i)), k.assign(2, k.read(k.i)),
              k.assign(3, k.read(k.i))});
  const Expr cond = make_binop(BinOpKind::Lt, k.read(k.i), make_int(2), {},
                               Type(TypeKind::Bool));
  auto wrap_in_if = [&](Block b) {
    return make_if(cond, std::move(b), {}, {});
  };
  auto body_of = [](Path p) {
    p.push_back(Step{Slot::Body, 0});
    return p;
  };
  auto plus_one = [&](const Expr& read) {
    return make_binop(BinOpKind::Add, read, make_int(1), {}, read->type);
  };
  auto replace_i = [&](const Proc& proc, const Path& at) {
    const Stmt s = resolve_stmt(proc, at);
    struct Replacer : public IRMutator {
      const Sym* var;
      std::function<Expr(const Expr&)> make;
      Expr mutate_read(const Expr& e) override {
        if (e->as<Read>().name == *var && e->as<Read>().idx.empty())
          return make(e);
        return IRMutator::mutate_read(e);
      }
    } replacer;
    replacer.var = &k.i;
    replacer.make = plus_one;
    return replace_leaves(proc, Location::node(at), replacer.mutate(s));
  };

  // On the procedure.
  EditResult real{p, {}};
  auto apply = [&](EditResult e) {
    real = {e.proc, real.forwarding.then(e.forwarding)};
  };
  apply(replace_stmt_attributes(p, Location::node(loop), new_loop));
  apply(wrap(real.proc, Location::block(body_of(loop), 2), wrap_in_if));
  apply(replace_i(real.proc, loop));
  apply(insert(real.proc, Location::gap(loop, GapSide::After), {k.assign(8)}));
  apply(insert(real.proc, Location::gap(loop, GapSide::Before), {k.assign(9)}));
  // replace_leaves adds no forwarding step.
  EXPECT_EQ(real.forwarding.step_count(), 4u);

  // Apart.
  StatementRewrite rewrite(p, Location::node(loop));
  const Path local = rewrite.stmt();
  rewrite.apply(
      replace_stmt_attributes(rewrite.proc(), Location::node(local), new_loop));
  rewrite.apply(
      wrap(rewrite.proc(), Location::block(body_of(local), 2), wrap_in_if));
  rewrite.apply(replace_i(rewrite.proc(), local));
  rewrite.apply(insert(rewrite.proc(), Location::gap(local, GapSide::After),
                       {k.assign(8)}));
  rewrite.apply(insert(rewrite.proc(), Location::gap(local, GapSide::Before),
                       {k.assign(9)}));
  const EditResult apart = rewrite.result();
  EXPECT_EQ(apart.forwarding.step_count(), 1u);

  EXPECT_EQ(print_proc(apart.proc), print_proc(real.proc));
  // Statements outside the loop are shared, not copied.
  EXPECT_EQ(apart.proc->body[0], p->body[0]);
  EXPECT_EQ(apart.proc->body.back(), p->body.back());
  for (const Location& loc : all_locations(p))
    EXPECT_EQ(forwarded(apart.forwarding, loc), forwarded(real.forwarding, loc))
        << "forwarding " << to_string(loc);
}

}  // namespace
}  // namespace exo2::cursors::testing
