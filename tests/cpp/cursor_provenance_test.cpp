// Forwarding along a procedure's provenance chain (provenance.hpp).
#include "cursor_test_kernel.hpp"
#include "exo2/cursors/edits.hpp"
#include "exo2/cursors/provenance.hpp"

namespace exo2::cursors::testing {
namespace {

class CursorProvenance : public ::testing::Test {
 protected:
  TestKernel k;
  ProvenancePtr root = Provenance::root(k.proc());

  ProvenancePtr insert_at_top(const ProvenancePtr& parent) {
    EditResult r =
        insert(parent->proc(), Location::gap(body(0), GapSide::Before),
               {k.assign(10)});
    return Provenance::derived(r.proc, parent, r.forwarding);
  }
};

TEST_F(CursorProvenance, ForwardsAcrossEveryStepSinceTheOrigin) {
  ProvenancePtr two = insert_at_top(insert_at_top(root));
  EXPECT_EQ(two->forward(*root, Location::node(body(3))).path, body(5));
  EXPECT_EQ(two->forward(*two->parent(), Location::node(body(3))).path,
            body(4));
  EXPECT_EQ(two->forward(*two, Location::node(body(3))).path, body(3));
}

TEST_F(CursorProvenance, UnknownRootsAndMissingForwardingsAreErrors) {
  ProvenancePtr other = Provenance::root(k.proc());
  ProvenancePtr child = insert_at_top(root);
  EXPECT_FORWARD_FAILS([&](const Location& l) { child->forward(*other, l); },
                       Location::node(body(0)),
                       "cannot forward from unknown root");
  ProvenancePtr legacy =
      Provenance::derived(child->proc(), child, std::nullopt);
  EXPECT_THROW(legacy->forward(*root, Location::node(body(0))),
               ForwardingNotImplemented);
  EXPECT_EQ(legacy->forward(*legacy, Location::node(body(0))).path, body(0));
}

TEST_F(CursorProvenance, ReasonsOfFailedStepsSurvive) {
  EditResult r = remove(root->proc(), Location::node(body(0)));
  ProvenancePtr child = Provenance::derived(r.proc, root, r.forwarding);
  EXPECT_FORWARD_FAILS([&](const Location& l) { child->forward(*root, l); },
                       Location::node(body(0)), "node no longer exists");
}

}  // namespace
}  // namespace exo2::cursors::testing
