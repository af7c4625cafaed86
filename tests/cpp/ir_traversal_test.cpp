// The traversal bases (core_ir/ir_visitor.hpp, core_ir/ir_functor.hpp) and
// primitives/child_blocks.hpp: the examples of
// docs/internals/traversal.md, and the sharing a mutator promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/primitives/child_blocks.hpp"
#include "typed_ir_builders.hpp"

// --- the examples of docs/internals/traversal.md, as written there --------

// How many times `var` is read (as `var`, without indices).
class CountReads : public exo2::IRVisitor {
 public:
  explicit CountReads(exo2::Sym var) : var_(std::move(var)) {}
  int count = 0;

 protected:
  void visit_read(const exo2::Read& e) override {
    if (e.name == var_ && e.idx.empty()) count++;
    IRVisitor::visit_read(e);  // and the reads in its indices
  }

 private:
  exo2::Sym var_;
};

// Every read of `var` becomes `var + 1`; the rest of the tree is shared.
class AddOne : public exo2::IRMutator {
 public:
  explicit AddOne(exo2::Sym var) : var_(std::move(var)) {}

 protected:
  exo2::Expr mutate_read(const exo2::Expr& e) override {
    const auto& r = e->as<exo2::Read>();
    if (r.name != var_ || !r.idx.empty()) return IRMutator::mutate_read(e);
    return exo2::make_binop(exo2::BinOpKind::Add, e,
                            exo2::make_int(1, e->srcinfo, e->type), e->srcinfo,
                            e->type);
  }

 private:
  exo2::Sym var_;
};

// The value of an integer expression, given the values of its variables.
class Evaluate
    : public exo2::ExprFunctor<int64_t(const std::map<exo2::Sym, int64_t>&)> {
 protected:
  int64_t visit_const(const exo2::Expr& e,
                      const std::map<exo2::Sym, int64_t>&) override {
    return e->as<exo2::Const>().int_value();
  }
  int64_t visit_read(const exo2::Expr& e,
                     const std::map<exo2::Sym, int64_t>& values) override {
    return values.at(e->as<exo2::Read>().name);
  }
  int64_t visit_usub(const exo2::Expr& e,
                     const std::map<exo2::Sym, int64_t>& values) override {
    return -visit(e->as<exo2::USub>().arg, values);
  }
  int64_t visit_binop(const exo2::Expr& e,
                      const std::map<exo2::Sym, int64_t>& values) override {
    const auto& b = e->as<exo2::BinOp>();
    const int64_t l = visit(b.lhs, values), r = visit(b.rhs, values);
    if (b.op == exo2::BinOpKind::Add) return l + r;
    if (b.op == exo2::BinOpKind::Mul) return l * r;
    throw std::invalid_argument("Evaluate: only + and *");
  }
};

// How deep loops nest in a statement.
class LoopDepth : public exo2::StmtFunctor<int()> {
 protected:
  int visit_for(const exo2::Stmt& s) override {
    int deepest = 0;
    for (const exo2::Stmt& b : s->as<exo2::For>().body)
      deepest = std::max(deepest, visit(b));
    return 1 + deepest;
  }
  int visit_stmt_default(const exo2::Stmt&) override { return 0; }
};

// The height of an index expression; `+ - *` and reads only.
class Height : public exo2::ExprFunctor<int()> {
 protected:
  int visit_read(const exo2::Expr&) override { return 1; }
  int visit_const(const exo2::Expr&) override { return 1; }
  int visit_binop(const exo2::Expr& e) override {
    const auto& b = e->as<exo2::BinOp>();
    return 1 + std::max(visit(b.lhs), visit(b.rhs));
  }
  // Every other kind throws std::logic_error (the default).
};

// ---------------------------------------------------------------------------

namespace exo2 {
namespace {

using namespace test_ir;

// def f(n: size, x: f32[n]):
//     x[0] = 1.0
//     for i in seq(0, n):
//         x[i] = x[i] * 2.0
//     x[0] = 3.0
struct Kernel {
  Sym n{"n"}, x{"x"}, i{"i"};
  Proc proc() {
    return test_ir::proc(
        "f", {arg(n, kSize), arg(x, tensor({sz(n)}))},
        {assign(x, {lit(0)}, real(1.0), 2),
         loop(i, lit(0), sz(n),
              {assign(x, {v(i)}, fmul(data(x, {v(i)}), real(2.0)), 4)}),
         assign(x, {lit(0)}, real(3.0), 5)});
  }
};

TEST(IRTraversal, VisitorCountsTheReadsOfAVariableInEveryStatement) {
  Kernel k;
  CountReads count(k.i);
  count.visit(k.proc()->body);
  EXPECT_EQ(count.count, 2);
}

TEST(IRTraversal, MutatorRebuildsOnlyThePathsToWhatChanged) {
  Kernel k;
  const Proc p = k.proc();
  const Block out = AddOne(k.i).mutate(p->body);
  EXPECT_EQ(print_stmt(out[1]),
            "for i in seq(0, n):\n    x[i + 1] = x[i + 1] * 2.0");
  // The statements without a read of i are the same nodes.
  EXPECT_EQ(out[0], p->body[0]);
  EXPECT_EQ(out[2], p->body[2]);
  EXPECT_NE(out[1], p->body[1]);
  // The loop's bounds did not change: they are shared too.
  EXPECT_EQ(out[1]->as<For>().hi, p->body[1]->as<For>().hi);
}

TEST(IRTraversal, MutatorThatChangesNothingReturnsItsInput) {
  Kernel k;
  const Proc p = k.proc();
  const Block out = AddOne(Sym("unused")).mutate(p->body);
  ASSERT_EQ(out.size(), p->body.size());
  for (size_t s = 0; s < out.size(); s++) EXPECT_EQ(out[s], p->body[s]);
}

TEST(IRTraversal, ExprFunctorComputesAValuePerKind) {
  Sym n("n");
  Evaluate evaluate;
  EXPECT_EQ(evaluate.visit(add(mul(sz(n), lit(3)), neg(lit(2))), {{n, 5}}), 13);
}

TEST(IRTraversal, FunctorRefusesAKindItDoesNotHandle) {
  Kernel k;
  Evaluate evaluate;
  // A window is no integer: Evaluate does not override visit_window_expr.
  EXPECT_THROW(evaluate.visit(win(k.x, {pt(lit(0))}), {}), std::logic_error);
}

TEST(IRTraversal, StmtFunctorDefaultCoversTheKindsNotOverridden) {
  Kernel k;
  Sym j("j");
  const Proc p = k.proc();
  LoopDepth depth;
  EXPECT_EQ(depth.visit(p->body[0]), 0);
  EXPECT_EQ(depth.visit(p->body[1]), 1);
  EXPECT_EQ(depth.visit(loop(j, lit(0), lit(2), {p->body[1]})), 2);
}

TEST(IRTraversal, ChildBlocksGivesEachBodyWithTheSlotOfItsPathSteps) {
  Kernel k;
  const Proc p = k.proc();
  const Stmt branch = cond(lt(v(k.i), lit(1)), {p->body[0]});
  const auto in_if = primitives::child_blocks(branch);
  ASSERT_EQ(in_if.size(), 2u);
  EXPECT_EQ(in_if[0].slot, cursors::Slot::Body);
  EXPECT_EQ(&in_if[0].block, &branch->as<If>().body);
  // The else branch is listed even when empty.
  EXPECT_EQ(in_if[1].slot, cursors::Slot::Orelse);
  EXPECT_TRUE(in_if[1].block.empty());
  const auto in_loop = primitives::child_blocks(p->body[1]);
  ASSERT_EQ(in_loop.size(), 1u);
  EXPECT_EQ(&in_loop[0].block, &p->body[1]->as<For>().body);
  EXPECT_TRUE(primitives::child_blocks(p->body[0]).empty());
}

TEST(IRTraversal, ExprFunctorReturnsTheValueOfTheOverrideForTheKind) {
  Kernel k;
  EXPECT_EQ(Height().visit(add(v(k.i), mul(lit(2), sz(k.n)))), 3);
  EXPECT_EQ(Height().visit(lit(7)), 1);
}

TEST(IRTraversal, ExprFunctorWithoutAnOverrideForTheKindThrows) {
  Kernel k;
  try {
    Height().visit(neg(v(k.i)));
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& err) {
    EXPECT_EQ(std::string(err.what()), "ExprFunctor: no case for USub");
  }
}

// The text of a statement's kind, indented by the argument; other kinds go
// to visit_stmt_default.
class KindText : public StmtFunctor<std::string(int)> {
 protected:
  std::string visit_for(const Stmt& s, int indent) override {
    std::string text = std::string(indent, ' ') + "for";
    for (const Stmt& c : s->as<For>().body) text += "\n" + visit(c, indent + 2);
    return text;
  }
  std::string visit_assign(const Stmt& s, int indent) override {
    return std::string(indent, ' ') +
           (s->kind == StmtKind::Assign ? "assign" : "reduce");
  }
  std::string visit_stmt_default(const Stmt& s, int indent) override {
    return std::string(indent, ' ') + kind_name(s->kind);
  }
};

TEST(IRTraversal, StmtFunctorPassesItsArgumentsAndSharesAssignWithReduce) {
  Kernel k;
  const Stmt s = loop(k.i, lit(0), sz(k.n),
                      {assign(k.x, {v(k.i)}, real(1.0), 3),
                       reduce(k.x, {v(k.i)}, real(1.0), 4), make_pass(at(5))});
  EXPECT_EQ(KindText().visit(s, 0), "for\n  assign\n  reduce\n  Pass");
}

TEST(IRTraversal, ChildBlocksAreNumberedInPrintedOrder) {
  Kernel k;
  const Proc p = k.proc();
  const Stmt& loop_stmt = p->body[1];
  ASSERT_NE(child_block(loop_stmt, 0), nullptr);
  EXPECT_EQ(child_block(loop_stmt, 0), &loop_stmt->as<For>().body);
  EXPECT_EQ(child_block(loop_stmt, 1), nullptr);
  EXPECT_EQ(child_block(p->body[0], 0), nullptr);

  const Stmt branch = cond(lt(v(k.i), sz(k.n)), {p->body[0]}, {});
  EXPECT_EQ(child_block(branch, 0), &branch->as<If>().body);
  // The else branch is there even when empty.
  ASSERT_NE(child_block(branch, 1), nullptr);
  EXPECT_TRUE(child_block(branch, 1)->empty());
}

TEST(IRTraversal, WithChildBlockReplacesOneListAndKeepsTheRest) {
  Kernel k;
  const Proc p = k.proc();
  const Stmt branch = cond(lt(v(k.i), sz(k.n)), {p->body[0]}, {});
  const Stmt swapped = with_child_block(branch, 1, {p->body[2]});
  EXPECT_EQ(swapped->as<If>().cond, branch->as<If>().cond);
  EXPECT_EQ(swapped->as<If>().body, branch->as<If>().body);
  ASSERT_EQ(swapped->as<If>().orelse.size(), 1u);
  EXPECT_EQ(swapped->as<If>().orelse[0], p->body[2]);
  EXPECT_EQ(print_stmt(with_child_block(p->body[1], 0, {p->body[0]})),
            "for i in seq(0, n):\n    x[0] = 1.0");
  EXPECT_THROW(with_child_block(p->body[0], 0, {}), std::invalid_argument);
  EXPECT_THROW(with_child_block(p->body[1], 1, {}), std::invalid_argument);
}

}  // namespace
}  // namespace exo2
