// Every edit against every kind of location: inside, before, after,
// containing and contained by the edited region, blocks and gaps at list
// edges, and compositions (edits.hpp, docs/cursors.md).
#include "cursor_test_kernel.hpp"
#include "exo2/cursors/edits.hpp"

namespace exo2::cursors::testing {
namespace {

class CursorEdits : public ::testing::Test {
 protected:
  TestKernel k;
  Proc p = k.proc();

  // The label of the statement `loc` names after the edit.
  double follow(const EditResult& r, const Path& path) {
    return label(r.proc, r.forwarding(Location::node(path)).path);
  }
  // The labels of the block `loc` names after the edit.
  std::vector<double> follow_block(const EditResult& r, const Location& loc) {
    const Location out = r.forwarding(loc);
    EXPECT_EQ(out.kind, LocationKind::Block);
    std::vector<double> labels;
    for (int i = out.lo(); i < out.hi; i++) {
      Path path = out.path;
      path.back().index = i;
      labels.push_back(label(r.proc, path));
    }
    return labels;
  }
};

using Labels = std::vector<double>;

// --- insert ------------------------------------------------------------

TEST_F(CursorEdits, InsertBuildsOnlyTheSpine) {
  EditResult r =
      insert(p, Location::gap(body(1, 1), GapSide::Before), {k.assign(10)});
  EXPECT_EQ(label(r.proc, body(1, 1)), 10);
  EXPECT_EQ(r.proc->body[0], p->body[0]);  // shared, not copied
  EXPECT_EQ(r.proc->body[2], p->body[2]);
  EXPECT_NE(r.proc->body[1], p->body[1]);
  EXPECT_EQ(resolve_stmt(r.proc, body(1, 0)), resolve_stmt(p, body(1, 0)));
}

TEST_F(CursorEdits, InsertShiftsStatementsAfterTheGap) {
  EditResult r = insert(p, Location::gap(body(1, 1), GapSide::Before),
                        {k.assign(10), k.assign(11)});
  EXPECT_EQ(follow(r, body(1, 0)), 1);
  EXPECT_EQ(follow(r, body(1, 1)), 2);
  EXPECT_EQ(r.forwarding(Location::node(body(1, 2))).path, body(1, 4));
  EXPECT_EQ(follow(r, body(3)), 6);  // another list
  const Path idx = with(body(1, 2), {Slot::Idx, 0});
  EXPECT_EQ(r.forwarding(Location::node(idx)).path,
            with(body(1, 4), {Slot::Idx, 0}));
}

TEST_F(CursorEdits, InsertGrowsOnlyBlocksStrictlyContainingTheGap) {
  EditResult r =
      insert(p, Location::gap(body(1, 1), GapSide::Before), {k.assign(10)});
  EXPECT_EQ(follow_block(r, Location::block(body(1, 0), 3)),
            (Labels{1, 10, 2, 3}));
  EXPECT_EQ(follow_block(r, Location::block(body(1, 0), 1)), (Labels{1}));
  EXPECT_EQ(follow_block(r, Location::block(body(1, 1), 3)), (Labels{2, 3}));
  EXPECT_EQ(follow_block(r, Location::block(body(0), 5)),
            (Labels{0, -1, -1, 6, 7}));
}

TEST_F(CursorEdits, InsertAtListEdges) {
  EditResult front =
      insert(p, Location::gap(body(0), GapSide::Before), {k.assign(10)});
  EXPECT_EQ(label(front.proc, body(0)), 10);
  EXPECT_EQ(follow(front, body(0)), 0);
  EXPECT_EQ(follow_block(front, Location::block(body(0), 1)), (Labels{0}));
  EditResult back =
      insert(p, Location::gap(body(4), GapSide::After), {k.assign(10)});
  EXPECT_EQ(label(back.proc, body(5)), 10);
  EXPECT_EQ(follow_block(back, Location::block(body(3), 5)), (Labels{6, 7}));
}

TEST_F(CursorEdits, GapsFollowTheirAnchor) {
  EditResult r =
      insert(p, Location::gap(body(1, 0), GapSide::After), {k.assign(10)});
  EXPECT_EQ(r.forwarding(Location::gap(body(1, 1), GapSide::Before)),
            Location::gap(body(1, 2), GapSide::Before));
  EXPECT_EQ(r.forwarding(Location::gap(body(1, 0), GapSide::After)),
            Location::gap(body(1, 0), GapSide::After));
}

// --- replace / remove --------------------------------------------------

TEST_F(CursorEdits, ReplaceKillsNodesInsideAndShiftsNodesAfter) {
  EditResult r = replace(p, Location::block(body(1, 0), 2), {k.assign(10)});
  EXPECT_EQ(label(r.proc, body(1, 0)), 10);
  EXPECT_EQ(follow(r, body(1, 2)), 3);
  EXPECT_EQ(r.forwarding(Location::node(body(1, 2))).path, body(1, 1));
  EXPECT_FORWARD_FAILS(r.forwarding, Location::node(body(1, 0)),
                       "node no longer exists");
  EXPECT_FORWARD_FAILS(r.forwarding,
                       Location::node(with(body(1, 1), {Slot::Rhs, 0})),
                       "node no longer exists");
  EXPECT_FORWARD_FAILS(r.forwarding, Location::gap(body(1, 1), GapSide::After),
                       "node no longer exists");
  EXPECT_EQ(follow(r, body(1)), -1);  // the owner survives
}

TEST_F(CursorEdits, ReplaceForwardsBlocksByOverlap) {
  EditResult r = replace(p, Location::block(body(1), 3), {k.assign(10)});
  // Equal: names the replacement.
  EXPECT_EQ(follow_block(r, Location::block(body(1), 3)), (Labels{10}));
  // Containing: changes length.
  EXPECT_EQ(follow_block(r, Location::block(body(0), 5)),
            (Labels{0, 10, 6, 7}));
  // Strictly inside, or overlapping one end: dies.
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(1), 2),
                       "block no longer exists");
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(2), 4),
                       "block no longer exists");
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(0), 2),
                       "block no longer exists");
  // Disjoint: shifts or stays.
  EXPECT_EQ(follow_block(r, Location::block(body(3), 5)), (Labels{6, 7}));
  EXPECT_EQ(follow_block(r, Location::block(body(0), 1)), (Labels{0}));
  // Inside a replaced statement: its owner is gone.
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(1, 0), 2),
                       "block no longer exists (parent deleted)");
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(orelse(2, 0), 1),
                       "block no longer exists (parent deleted)");
}

TEST_F(CursorEdits, RemovingAWholeBodyLeavesPass) {
  EditResult r = remove(p, Location::block(body(1, 0), 3));
  const Stmt only = resolve_stmt(r.proc, body(1, 0));
  EXPECT_EQ(only->kind, StmtKind::Pass);
  EXPECT_EQ(r.proc->body[1]->as<For>().body.size(), 1u);
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(1, 0), 3),
                       "block no longer exists");
  EXPECT_EQ(follow(r, body(2)), -1);
  EXPECT_EQ(follow(r, orelse(2, 0)), 5);
}

TEST_F(CursorEdits, RemoveOneStatementGivenAsNode) {
  EditResult r = remove(p, Location::node(body(0)));
  EXPECT_EQ(r.proc->body.size(), 4u);
  EXPECT_EQ(follow(r, body(1, 1)), 2);
  EXPECT_EQ(r.forwarding(Location::node(body(1, 1))).path, body(0, 1));
  EXPECT_EQ(follow_block(r, Location::block(body(1, 0), 2)), (Labels{1, 2}));
  EXPECT_EQ(r.forwarding(Location::gap(body(4), GapSide::After)),
            Location::gap(body(3), GapSide::After));
}

// --- wrap --------------------------------------------------------------

Stmt wrap_in_loop(TestKernel& k, Block b) { return k.loop(std::move(b)); }

TEST_F(CursorEdits, WrapMovesCursorsIntoTheWrapper) {
  EditResult r = wrap(p, Location::block(body(1), 3),
                      [&](Block b) { return wrap_in_loop(k, std::move(b)); });
  EXPECT_EQ(r.proc->body.size(), 4u);
  EXPECT_EQ(r.forwarding(Location::node(body(1))).path, body(1, 0));
  EXPECT_EQ(r.forwarding(Location::node(body(1, 2))).path,
            (Path{{Slot::Body, 1}, {Slot::Body, 0}, {Slot::Body, 2}}));
  EXPECT_EQ(follow(r, body(1, 2)), 3);
  EXPECT_EQ(follow(r, orelse(2, 0)), 5);
  EXPECT_EQ(follow(r, body(3)), 6);
  EXPECT_EQ(r.forwarding(Location::node(body(3))).path, body(2));
  EXPECT_EQ(follow(r, body(0)), 0);
}

TEST_F(CursorEdits, WrapForwardsBlocksByOverlap) {
  EditResult r = wrap(p, Location::block(body(3), 5),
                      [&](Block b) { return wrap_in_loop(k, std::move(b)); });
  // The wrapped block itself and blocks inside it move into the wrapper.
  EXPECT_EQ(follow_block(r, Location::block(body(3), 5)), (Labels{6, 7}));
  EXPECT_EQ(r.forwarding(Location::block(body(4), 5)),
            Location::block(body(3, 1), 2));
  // A covering block shrinks to contain the wrapper.
  EXPECT_EQ(r.forwarding(Location::block(body(0), 5)),
            Location::block(body(0), 4));
  // Partial overlap dies; disjoint stays.
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(2), 4),
                       "block no longer exists");
  EXPECT_EQ(r.forwarding(Location::block(body(0), 3)),
            Location::block(body(0), 3));
  // A block nested in a wrapped statement follows its owner.
  EditResult r2 = wrap(p, Location::block(body(1), 2),
                       [&](Block b) { return wrap_in_loop(k, std::move(b)); });
  EXPECT_EQ(follow_block(r2, Location::block(body(1, 1), 3)), (Labels{2, 3}));
}

TEST_F(CursorEdits, WrapInAnElseBranch) {
  EditResult r = wrap(
      p, Location::node(body(0)),
      [&](Block b) {
        return make_if(k.read(k.n), {make_pass({})}, std::move(b), {});
      },
      Slot::Orelse);
  EXPECT_EQ(r.forwarding(Location::node(body(0))).path, orelse(0, 0));
  EXPECT_EQ(follow(r, body(0)), 0);
}

// --- move --------------------------------------------------------------

TEST_F(CursorEdits, MoveForwardLaterInTheSameList) {
  // x[0] = 0.0 goes after x[0] = 6.0.
  EditResult r =
      move(p, Location::node(body(0)), Location::gap(body(3), GapSide::After));
  EXPECT_EQ(label(r.proc, body(2)), 6);
  EXPECT_EQ(label(r.proc, body(3)), 0);
  EXPECT_EQ(r.forwarding(Location::node(body(0))).path, body(3));
  EXPECT_EQ(follow(r, body(3)), 6);
  EXPECT_EQ(follow(r, body(4)), 7);
  EXPECT_EQ(follow(r, body(1, 1)), 2);
  EXPECT_EQ(r.forwarding(Location::gap(body(0), GapSide::Before)),
            Location::gap(body(3), GapSide::Before));
}

TEST_F(CursorEdits, MoveIntoAnEarlierNestedList) {
  // x[0] = 6.0, x[0] = 7.0 go to the start of the loop body.
  EditResult r = move(p, Location::block(body(3), 5),
                      Location::gap(body(1, 0), GapSide::Before));
  EXPECT_EQ(r.proc->body.size(), 3u);
  EXPECT_EQ(label(r.proc, body(1, 0)), 6);
  EXPECT_EQ(label(r.proc, body(1, 1)), 7);
  EXPECT_EQ(follow(r, body(3)), 6);
  EXPECT_EQ(follow(r, body(1, 0)), 1);
  EXPECT_EQ(r.forwarding(Location::node(body(1, 0))).path, body(1, 2));
  EXPECT_EQ(follow_block(r, Location::block(body(3), 5)), (Labels{6, 7}));
  // A block starting at the gap keeps its statements.
  EXPECT_EQ(follow_block(r, Location::block(body(1, 0), 3)), (Labels{1, 2, 3}));
}

TEST_F(CursorEdits, MoveOutOfANestedListIntoALaterOne) {
  EditResult r = move(p, Location::block(body(1, 0), 2),
                      Location::gap(body(4), GapSide::After));
  EXPECT_EQ(label(r.proc, body(1, 0)), 3);
  EXPECT_EQ(label(r.proc, body(5)), 1);
  EXPECT_EQ(label(r.proc, body(6)), 2);
  EXPECT_EQ(r.forwarding(Location::node(body(1, 1))).path, body(6));
  EXPECT_EQ(r.forwarding(Location::node(with(body(1, 1), {Slot::Idx, 0}))).path,
            with(body(6), {Slot::Idx, 0}));
  EXPECT_EQ(follow(r, body(1, 2)), 3);
  EXPECT_EQ(follow_block(r, Location::block(body(1, 2), 3)), (Labels{3}));
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(1, 0), 3),
                       "move cannot forward block because exactly one "
                       "endpoint intersects with moved block");
  // A block strictly containing the gap grows.
  EXPECT_EQ(follow_block(r, Location::block(body(3), 5)), (Labels{6, 7}));
  EXPECT_EQ(follow_block(r, Location::block(body(2), 5)), (Labels{-1, 6, 7}));
}

TEST_F(CursorEdits, MoveLeavesPassInAnEmptiedList) {
  EditResult r = move(p, Location::node(orelse(2, 0)),
                      Location::gap(body(0), GapSide::Before));
  EXPECT_EQ(label(r.proc, body(0)), 5);
  EXPECT_EQ(resolve_stmt(r.proc, orelse(3, 0))->kind, StmtKind::Pass);
  EXPECT_EQ(follow(r, body(2, 0)), 4);
}

TEST_F(CursorEdits, MoveKillsBlocksWithOneEndInside) {
  EditResult r = move(p, Location::block(body(1, 1), 3),
                      Location::gap(body(0), GapSide::Before));
  EXPECT_FORWARD_FAILS(r.forwarding, Location::block(body(1, 0), 2),
                       "move cannot forward block because exactly one "
                       "endpoint intersects with moved block");
  EXPECT_EQ(follow_block(r, Location::block(body(1, 1), 3)), (Labels{2, 3}));
  EXPECT_EQ(follow_block(r, Location::block(body(1, 2), 3)), (Labels{3}));
  // A block starting at the gap does not take in the moved statements.
  EXPECT_EQ(follow_block(r, Location::block(body(0), 5)),
            (Labels{0, -1, -1, 6, 7}));
}

TEST_F(CursorEdits, MoveToAGapAtTheBlockEdgeChangesNothing) {
  EditResult r = move(p, Location::block(body(3), 5),
                      Location::gap(body(2), GapSide::After));
  EXPECT_EQ(r.proc, p);
  EXPECT_TRUE(r.forwarding.is_identity());
  EXPECT_THROW(move(p, Location::node(body(1)),
                    Location::gap(body(1, 0), GapSide::After)),
               std::invalid_argument);
}

// --- expressions and attributes ----------------------------------------

TEST_F(CursorEdits, ReplaceExprKeepsTheSlotAndKillsItsChildren) {
  const Path cond = with(body(2), {Slot::Cond, 0});
  EditResult r = replace_expr(p, Location::node(cond), k.read(k.n));
  EXPECT_EQ(resolve_expr(r.proc, cond)->kind, ExprKind::Read);
  EXPECT_EQ(r.forwarding(Location::node(cond)).path, cond);
  EXPECT_FORWARD_FAILS(r.forwarding, Location::node(with(cond, {Slot::Lhs, 0})),
                       "node no longer exists");
  EXPECT_EQ(follow(r, body(2, 0)), 4);
  EXPECT_EQ(r.proc->body[1], p->body[1]);
}

TEST_F(CursorEdits, ReplaceExprInAParameterShape) {
  const Path dim = {{Slot::Param, 1}, {Slot::Shape, 0}};
  EditResult r = replace_expr(p, Location::node(dim), make_int(8));
  EXPECT_EQ(resolve_expr(r.proc, dim)->kind, ExprKind::Const);
  EXPECT_EQ(r.proc->body, p->body);
}

TEST_F(CursorEdits, ReplaceStmtAttributesKeepsBodiesAndExistingSlots) {
  const For& old = p->body[1]->as<For>();
  Stmt bounds = make_for(old.iter, make_int(1), old.hi, old.body, old.mode, {});
  EditResult r = replace_stmt_attributes(p, Location::node(body(1)), bounds);
  EXPECT_EQ(resolve_expr(r.proc, with(body(1), {Slot::Lo, 0}))->kind,
            ExprKind::Const);
  EXPECT_EQ(follow(r, body(1, 2)), 3);
  EXPECT_EQ(follow_block(r, Location::block(body(1, 0), 3)), (Labels{1, 2, 3}));
  const Path lo = with(body(1), {Slot::Lo, 0});
  EXPECT_EQ(r.forwarding(Location::node(lo)).path, lo);
  EXPECT_THROW(replace_stmt_attributes(p, Location::node(body(1)), k.assign(1)),
               std::invalid_argument);
  EXPECT_THROW(replace_stmt_attributes(p, Location::node(body(1)),
                                       k.loop({k.assign(1)})),
               std::invalid_argument);
}

// --- composition -------------------------------------------------------

TEST_F(CursorEdits, ForwardingsCompose) {
  // Insert at the top, wrap the loop, then delete x[0] = 2.0.
  EditResult a =
      insert(p, Location::gap(body(0), GapSide::Before), {k.assign(10)});
  EditResult b = wrap(a.proc, Location::node(body(2)),
                      [&](Block s) { return wrap_in_loop(k, std::move(s)); });
  const Location two = b.forwarding(a.forwarding(Location::node(body(1, 1))));
  EditResult c = remove(b.proc, two);
  const Forwarding all = a.forwarding.then(b.forwarding).then(c.forwarding);
  EXPECT_EQ(label(c.proc, all(Location::node(body(1, 2))).path), 3);
  EXPECT_EQ(all(Location::node(body(1, 2))).path,
            (Path{{Slot::Body, 2}, {Slot::Body, 0}, {Slot::Body, 1}}));
  EXPECT_FORWARD_FAILS(all, Location::node(body(1, 1)),
                       "node no longer exists");
  EXPECT_EQ(all(Location::block(body(1, 0), 3)),
            Location::block(
                Path{{Slot::Body, 2}, {Slot::Body, 0}, {Slot::Body, 0}}, 2));
  EXPECT_EQ(label(c.proc, all(Location::node(body(4))).path), 7);
  EXPECT_TRUE(Forwarding().is_identity());
}

}  // namespace
}  // namespace exo2::cursors::testing
