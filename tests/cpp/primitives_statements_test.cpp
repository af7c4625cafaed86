// The expression and statement primitives (primitives.md §9–§10): each
// applied once with its printed result, refused where its safety condition
// fails (with the message of the spec), and forwarding cursors taken before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/commute_expr.hpp"
#include "exo2/primitives/delete_pass.hpp"
#include "exo2/primitives/fold_into_reduce.hpp"
#include "exo2/primitives/inline_assign.hpp"
#include "exo2/primitives/insert_pass.hpp"
#include "exo2/primitives/left_reassociate_expr.hpp"
#include "exo2/primitives/lift_reduce_constant.hpp"
#include "exo2/primitives/make_instr.hpp"
#include "exo2/primitives/merge_writes.hpp"
#include "exo2/primitives/parallelize_loop.hpp"
#include "exo2/primitives/rename.hpp"
#include "exo2/primitives/reorder_stmts.hpp"
#include "exo2/primitives/rewrite_expr.hpp"
#include "exo2/primitives/split_write.hpp"
#include "typed_ir_builders.hpp"

namespace exo2::primitives {
namespace {

using namespace test_ir;
using cursors::GapSide;
using cursors::Location;
using cursors::Path;
using cursors::Slot;
using cursors::Step;

// `f(n: size, x: f32[n], y: f32[n])` with body `body`.
struct Kernel {
  Sym n{"n"}, x{"x"}, y{"y"}, a{"a"}, i{"i"};
  Proc make(Block body) const {
    return proc(
        "f", {arg(n, kSize), arg(x, tensor({sz(n)})), arg(y, tensor({sz(n)}))},
        std::move(body));
  }
  Expr xi() const { return data(x, {v(i)}); }
  Expr yi() const { return data(y, {v(i)}); }
  Expr sa() const { return data(a, {}); }
  Stmt scalar() const { return alloc(a, kF32); }
};

Path top(int k) { return {Step{Slot::Body, k}}; }
Path with(Path p, Step s) {
  p.push_back(s);
  return p;
}
Location node(Path p) { return Location::node(std::move(p)); }
Location block(Path first, int size) {
  int hi = first.back().index + size;
  return Location::block(std::move(first), hi);
}

// The lines of the printed procedure after the `def` line, each ending in
// a newline.
std::string body_of(const Proc& p) {
  std::string s = print_proc(p);
  return s.substr(s.find('\n') + 1) + "\n";
}

// The message of the SchedulingError `f` throws.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const SchedulingError& e) {
    return e.what();
  }
  return "(no error)";
}

// ---- rename / make_instr ----------------------------------------------------

TEST(Rename, ChangesOnlyTheNameAndForwardsEverything) {
  Kernel k;
  Proc p = k.make(
      {loop(k.i, lit(0), sz(k.n), {assign(k.x, {v(k.i)}, real(1.0), 3)})});
  cursors::EditResult r = rename(p, "g");
  EXPECT_EQ(r.proc->name, "g");
  EXPECT_EQ(r.proc->body, p->body);
  Location b = block(top(0), 1);
  EXPECT_EQ(r.forwarding(b), b);
}

TEST(MakeInstr, SetsTheTemplates) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 3)});
  cursors::EditResult r = make_instr(p, "{x_data}[0] = 1;", "#include <x.h>");
  ASSERT_TRUE(r.proc->is_instr());
  EXPECT_EQ(r.proc->instr->c_instr, "{x_data}[0] = 1;");
  EXPECT_EQ(r.proc->instr->c_global, "#include <x.h>");
  EXPECT_EQ(r.forwarding(node(top(0))), node(top(0)));
}

// ---- insert_pass / delete_pass ----------------------------------------------

TEST(InsertPass, InsertsAtTheGapAndKeepsCursors) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 3),
                   assign(k.y, {lit(0)}, real(2.0), 4)});
  cursors::EditResult r =
      insert_pass(p, Location::gap(top(1), GapSide::Before));
  EXPECT_EQ(body_of(r.proc), "    x[0] = 1.0\n    pass\n    y[0] = 2.0\n");
  EXPECT_EQ(r.forwarding(node(top(1))), node(top(2)));
}

TEST(DeletePass, DeletesPassesAndLoopsOfOnlyPass) {
  Kernel k;
  Sym j("j");
  Proc p = k.make({make_pass(at(2)),
                   loop(k.i, lit(0), sz(k.n),
                        {loop(j, lit(0), sz(k.n), {make_pass(at(5))})}),
                   assign(k.x, {lit(0)}, real(1.0), 6),
                   cond(lt(lit(0), sz(k.n)), {make_pass(at(8))})});
  cursors::EditResult r = delete_pass(p);
  EXPECT_EQ(body_of(r.proc), "    x[0] = 1.0\n    if 0 < n:\n        pass\n");
  EXPECT_EQ(r.forwarding(node(top(2))), node(top(0)));
  EXPECT_THROW(r.forwarding(node(top(1))), cursors::InvalidCursorError);
}

// ---- reorder_stmts
// ------------------------------------------------------------

TEST(ReorderStmts, SwapsIndependentStatements) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 3),
                   assign(k.y, {lit(0)}, real(2.0), 4)});
  cursors::EditResult r = reorder_stmts(p, block(top(0), 2));
  EXPECT_EQ(body_of(r.proc), "    y[0] = 2.0\n    x[0] = 1.0\n");
  EXPECT_EQ(r.forwarding(node(top(0))), node(top(1)));
  EXPECT_EQ(r.forwarding(node(top(1))), node(top(0)));
}

TEST(ReorderStmts, RefusesDependentStatements) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 3, 4),
                   assign(k.y, {lit(0)}, data(k.x, {lit(0)}), 4, 4)});
  EXPECT_EQ(refusal([&] { reorder_stmts(p, block(top(0), 2)); }),
            "Statements at k.py:3:4 and k.py:4:4 do not commute.");
}

// ---- commute_expr / left_reassociate_expr -----------------------------------

TEST(CommuteExpr, SwapsOperandsPositionally) {
  Kernel k;
  Proc p = k.make({loop(k.i, lit(0), sz(k.n),
                        {assign(k.x, {v(k.i)}, fmul(k.xi(), k.yi()), 3)})});
  Path rhs = with(with(top(0), {Slot::Body, 0}), {Slot::Rhs, 0});
  cursors::EditResult r = commute_expr(p, {node(rhs)});
  EXPECT_EQ(body_of(r.proc),
            "    for i in seq(0, n):\n        x[i] = y[i] * x[i]\n");
  Location lhs = r.forwarding(node(with(rhs, {Slot::Lhs, 0})));
  EXPECT_EQ(print_expr(cursors::resolve_expr(r.proc, lhs.path)), "y[i]");
  EXPECT_THROW(commute_expr(p, {node(with(top(0), {Slot::Hi, 0}))}),
               ArgumentError);
}

TEST(LeftReassociateExpr, RegroupsToTheLeft) {
  Kernel k;
  Proc p = k.make({assign(
      k.x, {lit(0)},
      fadd(data(k.x, {lit(0)}), fadd(data(k.y, {lit(0)}), real(1.0))), 3)});
  Path rhs = with(top(0), {Slot::Rhs, 0});
  cursors::EditResult r = left_reassociate_expr(p, node(rhs));
  EXPECT_EQ(body_of(r.proc), "    x[0] = x[0] + y[0] + 1.0\n");
  EXPECT_EQ(print_expr(cursors::resolve_expr(
                r.proc, r.forwarding(node(with(rhs, {Slot::Rhs, 0}))).path)),
            "1.0");
  Proc bad = k.make({assign(
      k.x, {lit(0)},
      fadd(data(k.x, {lit(0)}), fmul(data(k.y, {lit(0)}), real(1.0))), 3)});
  EXPECT_THROW(left_reassociate_expr(bad, node(rhs)), ArgumentError);
}

// ---- rewrite_expr
// -------------------------------------------------------------

TEST(RewriteExpr, ReplacesByAnEquivalentExpression) {
  Kernel k;
  Proc p = k.make(
      {loop(k.i, lit(0), sz(k.n), {assign(k.x, {v(k.i)}, real(1.0), 3)})});
  Path idx = with(with(top(0), {Slot::Body, 0}), {Slot::Idx, 0});
  cursors::EditResult r =
      rewrite_expr(p, node(idx), sub(add(v(k.i), lit(1)), lit(1)));
  EXPECT_EQ(body_of(r.proc),
            "    for i in seq(0, n):\n        x[i + 1 - 1] = 1.0\n");
  EXPECT_EQ(refusal([&] { rewrite_expr(p, node(idx), add(v(k.i), lit(1))); }),
            "Expressions are not equivalent:\ni\nvs.\ni + 1");
}

// ---- merge_writes / split_write / fold_into_reduce --------------------------

TEST(MergeWrites, AssignThenReduceBecomesOneAssign) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 3),
                   reduce(k.x, {sub(lit(1), lit(1))}, data(k.y, {lit(0)}), 4)});
  cursors::EditResult r = merge_writes(p, block(top(0), 2));
  EXPECT_EQ(body_of(r.proc), "    x[0] = 1.0 + y[0]\n");
}

TEST(MergeWrites, AssignThenAssignKeepsTheSecond) {
  Kernel k;
  Proc p = k.make({reduce(k.x, {lit(0)}, real(1.0), 3),
                   assign(k.x, {lit(0)}, data(k.y, {lit(0)}), 4)});
  cursors::EditResult r = merge_writes(p, block(top(0), 2));
  EXPECT_EQ(body_of(r.proc), "    x[0] = y[0]\n");
  EXPECT_EQ(r.forwarding(node(top(1))), node(top(0)));
}

TEST(MergeWrites, RefusesDifferentElementsAndDependentValues) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)}, real(1.0), 3),
                   reduce(k.x, {lit(1)}, real(2.0), 4)});
  EXPECT_EQ(refusal([&] { merge_writes(p, block(top(0), 2)); }),
            "expected the left hand side's indices to be the same.");
  Proc q = k.make({assign(k.x, {lit(0)}, real(1.0), 3),
                   assign(k.x, {lit(0)}, data(k.x, {lit(1)}), 4)});
  EXPECT_EQ(refusal([&] { merge_writes(q, block(top(0), 2)); }),
            "expected the right hand side of the second statement to not "
            "depend on the left hand side of the first statement.");
}

TEST(SplitWrite, SplitsASumIntoTwoWrites) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)},
                          fadd(data(k.y, {lit(0)}), data(k.y, {lit(1)})), 3)});
  cursors::EditResult r = split_write(p, node(top(0)));
  EXPECT_EQ(body_of(r.proc), "    x[0] = y[0]\n    x[0] += y[1]\n");
  EXPECT_THROW(r.forwarding(node(top(0))), cursors::InvalidCursorError);
}

TEST(SplitWrite, RefusesASecondOperandReadingTheBuffer) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)},
                          fadd(data(k.y, {lit(0)}), data(k.x, {lit(0)})), 3)});
  EXPECT_EQ(refusal([&] { split_write(p, node(top(0))); }),
            "Expected the second operand of the addition to not read the "
            "buffer x.");
  Proc q = k.make({assign(k.x, {lit(0)}, data(k.y, {lit(0)}), 3)});
  EXPECT_EQ(refusal([&] { split_write(q, node(top(0))); }),
            "Expected the rhs of the statement to be an addition.");
}

TEST(FoldIntoReduce, FoldsASelfAddition) {
  Kernel k;
  Proc p = k.make({assign(k.x, {lit(0)},
                          fadd(data(k.x, {lit(0)}), data(k.y, {lit(0)})), 3)});
  cursors::EditResult r = fold_into_reduce(p, node(top(0)));
  EXPECT_EQ(body_of(r.proc), "    x[0] += y[0]\n");
  Proc q = k.make({assign(k.x, {lit(0)},
                          fadd(data(k.x, {lit(1)}), data(k.y, {lit(0)})), 3)});
  EXPECT_EQ(refusal([&] { fold_into_reduce(q, node(top(0))); }),
            "The lhs of the addition is not a read to the lhs of the "
            "assignment.");
  Proc m = k.make({assign(k.x, {lit(0)},
                          fmul(data(k.x, {lit(0)}), data(k.y, {lit(0)})), 3)});
  EXPECT_EQ(refusal([&] { fold_into_reduce(m, node(top(0))); }),
            "The rhs of the assignment must be an add.");
}

// ---- inline_assign
// ------------------------------------------------------------

TEST(InlineAssign, ForwardsTheValueToLaterReads) {
  Kernel k;
  Proc p = k.make({loop(k.i, lit(0), sz(k.n),
                        {k.scalar(), assign(k.a, {}, k.yi(), 4),
                         assign(k.x, {v(k.i)}, fmul(k.sa(), k.sa()), 5)})});
  Path body = with(top(0), {Slot::Body, 0});
  Path assign_path = body;
  assign_path.back().index = 1;
  Path use = body;
  use.back().index = 2;
  cursors::EditResult r = inline_assign(p, node(assign_path));
  EXPECT_EQ(body_of(r.proc),
            "    for i in seq(0, n):\n        a: f32 @ DRAM\n"
            "        x[i] = y[i] * y[i]\n");
  EXPECT_EQ(r.forwarding(node(use)), node(assign_path));
  EXPECT_THROW(r.forwarding(node(assign_path)), cursors::InvalidCursorError);
}

TEST(InlineAssign, AllowsAStatementThatReadsBeforeItWritesAnInput) {
  Kernel k;
  Proc p = k.make({k.scalar(), assign(k.a, {}, data(k.y, {lit(0)}), 3),
                   assign(k.y, {lit(0)}, fmul(k.sa(), k.sa()), 4)});
  cursors::EditResult r = inline_assign(p, node(top(1)));
  EXPECT_EQ(body_of(r.proc), "    a: f32 @ DRAM\n    y[0] = y[0] * y[0]\n");
}

TEST(InlineAssign, RefusesWhenTheValueOrBufferChangesOrStaysVisible) {
  Kernel k;
  Block written_after = {k.scalar(), assign(k.a, {}, data(k.y, {lit(0)}), 3),
                         assign(k.a, {}, real(2.0), 4)};
  EXPECT_EQ(
      refusal([&] { inline_assign(k.make(written_after), node(top(1))); }),
      "Cannot inline assign a = y[0] because the buffer is written "
      "afterwards.");
  Block input_changes = {k.scalar(), assign(k.a, {}, data(k.y, {lit(0)}), 3),
                         assign(k.y, {lit(0)}, real(2.0), 4),
                         assign(k.x, {lit(0)}, k.sa(), 5)};
  EXPECT_EQ(
      refusal([&] { inline_assign(k.make(input_changes), node(top(1))); }),
      "Cannot inline assign a = y[0] because a value it reads is "
      "written afterwards.");
  Block parameter = {assign(k.x, {lit(0)}, real(2.0), 3, 4)};
  EXPECT_EQ(refusal([&] { inline_assign(k.make(parameter), node(top(0))); }),
            "The variable x can potentially be used after the statement at "
            "k.py:3:4 executes.");
}

// ---- lift_reduce_constant
// -----------------------------------------------------

TEST(LiftReduceConstant, FactorsTheScaleOutOfTheLoop) {
  Kernel k;
  Proc p =
      k.make({k.scalar(), assign(k.a, {}, real(0.0), 3),
              loop(k.i, lit(0), sz(k.n),
                   {reduce(k.a, {}, fmul(data(k.y, {lit(0)}), k.xi()), 5)}, 4),
              assign(k.x, {lit(0)}, k.sa(), 6)});
  cursors::EditResult r = lift_reduce_constant(p, block(top(1), 2));
  EXPECT_EQ(body_of(r.proc),
            "    a: f32 @ DRAM\n    a = 0.0\n    for i in seq(0, n):\n"
            "        a += x[i]\n    a = y[0] * a\n    x[0] = a\n");
  EXPECT_EQ(r.forwarding(node(top(3))), node(top(4)));
}

TEST(LiftReduceConstant, RefusesUnsupportedStatementsInTheLoop) {
  Kernel k;
  Sym w("w");
  Block windowed = {
      k.scalar(), assign(k.a, {}, real(0.0), 3),
      loop(k.i, lit(0), sz(k.n),
           {make_window_stmt(w, win(k.x, {iv(lit(0), sz(k.n))}), at(5)),
            reduce(k.a, {}, fmul(real(2.0), k.xi()), 6)})};
  EXPECT_THROW(lift_reduce_constant(k.make(windowed), block(top(1), 2)),
               UnsupportedStatementError);
}

TEST(LiftReduceConstant, RefusesNonZeroStartsAndScaleWrittenInTheLoop) {
  Kernel k;
  Block nonzero = {k.scalar(), assign(k.a, {}, real(1.0), 3),
                   loop(k.i, lit(0), sz(k.n),
                        {reduce(k.a, {}, fmul(real(2.0), k.xi()), 5)})};
  EXPECT_EQ(
      refusal([&] { lift_reduce_constant(k.make(nonzero), block(top(1), 2)); }),
      "cannot lift constant because the buffer is not initialized to "
      "zero");
  Block scale_written = {
      k.scalar(), assign(k.a, {}, real(0.0), 3),
      loop(k.i, lit(0), sz(k.n),
           {reduce(k.a, {}, fmul(data(k.y, {lit(0)}), k.xi()), 5),
            assign(k.y, {lit(0)}, real(1.0), 6)})};
  EXPECT_EQ(refusal([&] {
              lift_reduce_constant(k.make(scale_written), block(top(1), 2));
            }),
            "cannot lift constant because it is a buffer that is written in "
            "the loop body");
  Block different = {k.scalar(), assign(k.a, {}, real(0.0), 3),
                     loop(k.i, lit(0), sz(k.n),
                          {reduce(k.a, {}, fmul(real(2.0), k.xi()), 5),
                           reduce(k.a, {}, fmul(real(3.0), k.yi()), 6)})};
  EXPECT_EQ(refusal([&] {
              lift_reduce_constant(k.make(different), block(top(1), 2));
            }),
            "cannot lift constant because the reduces to buffer a in the loop "
            "body have different constants");
}

// ---- parallelize_loop
// ---------------------------------------------------------

TEST(ParallelizeLoop, SetsTheParallelMode) {
  Kernel k;
  Proc p = k.make(
      {loop(k.i, lit(0), sz(k.n), {assign(k.x, {v(k.i)}, real(1.0), 3)})});
  cursors::EditResult r = parallelize_loop(p, node(top(0)));
  EXPECT_EQ(body_of(r.proc), "    for i in par(0, n):\n        x[i] = 1.0\n");
  Path inner = with(top(0), {Slot::Body, 0});
  EXPECT_EQ(r.forwarding(node(inner)), node(inner));
}

}  // namespace
}  // namespace exo2::primitives
