// Resolving and navigating locations (navigation.hpp).
#include "cursor_test_kernel.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::cursors::testing {
namespace {

class CursorNavigation : public ::testing::Test {
 protected:
  TestKernel k;
  Proc p = k.proc();
};

TEST_F(CursorNavigation, ResolvesStatementsExpressionsAndParameters) {
  EXPECT_EQ(label(p, body(1, 2)), 3);
  EXPECT_EQ(label(p, orelse(2, 0)), 5);
  EXPECT_EQ(resolve(p, {}).kind, NodeRef::Kind::Proc);
  NodeRef hi = resolve(p, with(body(1), {Slot::Hi, 0}));
  ASSERT_EQ(hi.kind, NodeRef::Kind::Expr);
  EXPECT_EQ(hi.expr->as<Read>().name, k.n);
  NodeRef i = resolve(p, with(body(1, 0), {Slot::Idx, 0}));
  EXPECT_EQ(i.expr->as<Read>().name, k.i);
  NodeRef param = resolve(p, {{Slot::Param, 1}});
  ASSERT_EQ(param.kind, NodeRef::Kind::Param);
  EXPECT_EQ(param.param->name, k.x);
  NodeRef dim = resolve(p, {{Slot::Param, 1}, {Slot::Shape, 0}});
  EXPECT_EQ(dim.expr->as<Read>().name, k.n);
  NodeRef lhs = resolve(p, {{Slot::Body, 2}, {Slot::Cond, 0}, {Slot::Lhs, 0}});
  EXPECT_EQ(lhs.expr->as<Read>().name, k.n);
}

TEST_F(CursorNavigation, RejectsPathsThatLeadNowhere) {
  EXPECT_THROW(resolve(p, body(5)), PathError);
  EXPECT_THROW(resolve(p, body(0, 0)), PathError);
  EXPECT_THROW(resolve(p, orelse(1, 0)), PathError);
  EXPECT_THROW(resolve(p, with(body(0), {Slot::Cond, 0})), PathError);
  EXPECT_THROW(resolve(p, {{Slot::Param, 2}}), PathError);
  EXPECT_FALSE(is_valid(p, Location::block(body(1, 1), 4)));
  EXPECT_TRUE(is_valid(p, Location::block(body(1, 1), 3)));
  EXPECT_FALSE(is_valid(
      p, Location::gap(with(body(1), {Slot::Hi, 0}), GapSide::Before)));
}

TEST_F(CursorNavigation, ParentsAreEnclosingNodes) {
  EXPECT_EQ(parent(Location::node(body(1, 2)))->path, body(1));
  EXPECT_EQ(parent(Location::node(body(1)))->path, Path{});
  EXPECT_FALSE(parent(Location::node({})).has_value());
  EXPECT_EQ(parent(Location::block(orelse(2, 0), 1))->path, body(2));
  EXPECT_EQ(parent(Location::gap(body(1, 0), GapSide::After))->path, body(1));
  EXPECT_EQ(parent(Location::node({{Slot::Param, 0}}))->path, Path{});
}

TEST_F(CursorNavigation, SiblingsStopAtTheEdgesOfTheirList) {
  EXPECT_EQ(sibling(p, Location::node(body(1, 0)), 2)->path, body(1, 2));
  EXPECT_FALSE(sibling(p, Location::node(body(1, 0)), 3).has_value());
  EXPECT_FALSE(sibling(p, Location::node(body(1, 0)), -1).has_value());
  EXPECT_EQ(sibling(p, Location::node(body(4)), -4)->path, body(0));
}

TEST_F(CursorNavigation, ChildBlocksCoverWholeLists) {
  EXPECT_EQ(*child_block(p, body(1), Slot::Body),
            Location::block(body(1, 0), 3));
  EXPECT_EQ(*child_block(p, {}, Slot::Body), Location::block(body(0), 5));
  EXPECT_EQ(*child_block(p, body(2), Slot::Orelse),
            Location::block(orelse(2, 0), 1));
  EXPECT_THROW(child_block(p, body(0), Slot::Body), PathError);
}

TEST_F(CursorNavigation, ExpandGrowsToTheEdgesAndNoFurther) {
  const Location one = as_block(Location::node(body(1, 1)));
  EXPECT_EQ(one, Location::block(body(1, 1), 2));
  EXPECT_EQ(expand(p, one, 1, 0), Location::block(body(1, 0), 2));
  EXPECT_EQ(expand(p, one, 0, 5), Location::block(body(1, 1), 3));
  EXPECT_EQ(expand(p, one, std::nullopt, std::nullopt),
            Location::block(body(1, 0), 3));
}

TEST_F(CursorNavigation, GapsOfBlocksAnchorAtTheirEnds) {
  const Location block = Location::block(body(1), 4);
  EXPECT_EQ(gap_before(block), Location::gap(body(1), GapSide::Before));
  EXPECT_EQ(gap_after(block), Location::gap(body(3), GapSide::After));
  EXPECT_EQ(gap_after(Location::node(body(1, 2))),
            Location::gap(body(1, 2), GapSide::After));
}

TEST_F(CursorNavigation, AncestryIsPathPrefix) {
  EXPECT_TRUE(is_ancestor_of(body(1), Location::node(body(1, 2))));
  EXPECT_TRUE(is_ancestor_of(body(1), Location::node(body(1))));
  EXPECT_TRUE(is_ancestor_of(body(1), Location::block(body(1, 0), 2)));
  EXPECT_FALSE(is_ancestor_of(body(1), Location::node(body(2))));
  EXPECT_FALSE(is_ancestor_of(body(1, 0), Location::node(body(1))));
}

TEST_F(CursorNavigation, ExpressionChildrenComeInPreOrder) {
  std::vector<Slot> slots;
  for_each_expr_child(resolve_stmt(p, body(1, 0)),
                      [&](Step s, const Expr&) { slots.push_back(s.slot); });
  EXPECT_EQ(slots, (std::vector<Slot>{Slot::Idx, Slot::Rhs}));
}

}  // namespace
}  // namespace exo2::cursors::testing
