// The traversal bases (core_ir/ir_visitor.hpp): the example of
// docs/internals/traversal.md, and the sharing a mutator promises.
#include <gtest/gtest.h>

#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "typed_ir_builders.hpp"

// --- the example of docs/internals/traversal.md, as written there ---------

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

// --- the functors: a value per node, with extra arguments ------------------

// The value of an integer expression in which every read has the value
// `reads`; -1 for what it cannot evaluate (the example of
// docs/internals/traversal.md, "Functors").
class Evaluate : public ExprFunctor<int64_t, int64_t> {
 protected:
  int64_t visit_const(const Expr& e, int64_t) override {
    return e->as<Const>().int_value();
  }
  int64_t visit_read(const Expr&, int64_t reads) override { return reads; }
  int64_t visit_binop(const Expr& e, int64_t reads) override {
    const auto& b = e->as<BinOp>();
    const int64_t x = apply(b.lhs, reads), y = apply(b.rhs, reads);
    return b.op == BinOpKind::Add ? x + y : x * y;
  }
  int64_t otherwise(const Expr&, int64_t) override { return -1; }
};

TEST(IRTraversal, ExprFunctorReturnsAValueAndPassesItsArguments) {
  Sym i("i");
  Evaluate eval;
  EXPECT_EQ(eval.apply(add(mul(v(i), lit(3)), lit(4)), 5), 19);
  // USub is not overridden: it goes to `otherwise`.
  EXPECT_EQ(eval.apply(add(neg(v(i)), lit(4)), 5), 3);
}

// The names of the statements of a block, one level deep, with a prefix.
class StatementNames : public StmtFunctor<std::string, const char*> {
 protected:
  std::string visit_assign(const Stmt& s, const char* prefix) override {
    return std::string(prefix) +
           (s->kind == StmtKind::Reduce ? "reduce" : "assign");
  }
  std::string visit_for(const Stmt& s, const char* prefix) override {
    return std::string(prefix) + "for " + s->as<For>().iter.name();
  }
  std::string otherwise(const Stmt& s, const char* prefix) override {
    return std::string(prefix) + kind_name(s->kind);
  }
};

TEST(IRTraversal, StmtFunctorDispatchesOnKindAndDefaultsToOtherwise) {
  Kernel k;
  const Proc p = k.proc();
  StatementNames names;
  EXPECT_EQ(names.apply(p->body[0], "- "), "- assign");
  EXPECT_EQ(names.apply(p->body[1], "- "), "- for i");
  EXPECT_EQ(names.apply(make_pass(at(1)), "- "), "- Pass");
}

TEST(IRTraversal, ChildBlocksComeInPrintingOrder) {
  Kernel k;
  const Proc p = k.proc();
  const Stmt loop = p->body[1];
  const Stmt branch = make_if(truth(true), {p->body[0]}, {p->body[2]}, at(1));
  std::vector<const Block*> seen;
  auto note = [&](const Block& b) { seen.push_back(&b); };
  for_each_child_block(*loop, note);
  for_each_child_block(*branch, note);
  for_each_child_block(*p->body[0], note);  // an assignment holds none
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], &loop->as<For>().body);
  EXPECT_EQ(seen[1], &branch->as<If>().body);
  EXPECT_EQ(seen[2], &branch->as<If>().orelse);
}

}  // namespace
}  // namespace exo2
