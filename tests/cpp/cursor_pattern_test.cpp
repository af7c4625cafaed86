// The pattern search of pattern.hpp, on the test kernel.
#include "cursor_test_kernel.hpp"
#include "exo2/cursors/pattern.hpp"

namespace exo2::cursors::testing {
namespace {

StmtPattern assign_to(std::string name, ExprPattern rhs = {}) {
  StmtPattern p;
  p.kind = StmtPattern::Kind::Assign;
  p.name = std::move(name);
  p.exprs = {std::move(rhs)};
  return p;
}

ExprPattern literal(double v) {
  ExprPattern p;
  p.kind = ExprPattern::Kind::Const;
  p.value = v;
  return p;
}

class CursorPattern : public ::testing::Test {
 protected:
  TestKernel k;
  Proc p = k.proc();
  const Location root = Location::node({});
};

TEST_F(CursorPattern, StatementMatchesComeInPreOrder) {
  auto found = find_matches(p, root, std::vector{assign_to("x")}, std::nullopt);
  ASSERT_EQ(found.size(), 8u);
  EXPECT_EQ(found[0], Location::block(body(0), 1));
  EXPECT_EQ(found[1], Location::block(body(1, 0), 1));
  EXPECT_EQ(found[4], Location::block(body(2, 0), 1));
  EXPECT_EQ(found[5], Location::block(orelse(2, 0), 1));
  EXPECT_EQ(found[7], Location::block(body(4), 5));
}

TEST_F(CursorPattern, SequencesWithHolesMatchBlocks) {
  StmtPattern hole;
  auto found = find_matches(
      p, root, std::vector{assign_to("x", literal(1)), hole}, std::nullopt);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], Location::block(body(1, 0), 3));
  auto middle = find_matches(
      p, root,
      std::vector{assign_to("x", literal(0)), hole, assign_to("x", literal(6))},
      std::nullopt);
  ASSERT_EQ(middle.size(), 1u);
  EXPECT_EQ(middle[0], Location::block(body(0), 4));
}

TEST_F(CursorPattern, MatchNumberStopsTheSearch) {
  auto third = find_matches(p, root, std::vector{assign_to("x")}, 2);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0], Location::block(body(1, 1), 2));
  EXPECT_TRUE(find_matches(p, root, std::vector{assign_to("x")}, 8).empty());
}

TEST_F(CursorPattern, ExpressionsMatchBeforeTheirChildren) {
  ExprPattern read;
  read.kind = ExprPattern::Kind::Read;
  read.name = "n";
  auto found = find_matches(p, root, read, std::nullopt);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].path, with(body(1), {Slot::Hi, 0}));
  EXPECT_EQ(found[1].path,
            (Path{{Slot::Body, 2}, {Slot::Cond, 0}, {Slot::Lhs, 0}}));
}

TEST_F(CursorPattern, ScopesLimitTheSearch) {
  auto in_loop = find_matches(p, Location::node(body(1)),
                              std::vector{assign_to("x")}, std::nullopt);
  EXPECT_EQ(in_loop.size(), 3u);
  auto in_block = find_matches(p, Location::block(body(3), 5),
                               std::vector{assign_to("x")}, std::nullopt);
  EXPECT_EQ(in_block.size(), 2u);
  EXPECT_THROW(find_matches(p, root, std::vector{StmtPattern{}}, std::nullopt),
               PatternMatchError);
}

}  // namespace
}  // namespace exo2::cursors::testing
