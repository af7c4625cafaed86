#include "exo2/primitives/simplify.hpp"

#include <algorithm>

#include "exo2/analysis/simplify.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::primitives {

using cursors::Location;
using cursors::Path;

namespace {

// Moves locations with the statements simplify kept: a node or a gap
// follows its statement, a block spans what the statements of its range
// became (with the statements of inlined branches among them). A location
// whose statements were all deleted no longer exists.
class KeptStatementForwarding : public cursors::ForwardingStep {
 public:
  KeptStatementForwarding(Proc after, KeptStatements kept)
      : after_(std::move(after)), kept_(std::move(kept)) {}

  Location forward(const Location& loc) const override {
    const auto statement_steps = std::find_if(
        loc.path.begin(), loc.path.end(), [](const cursors::Step& s) {
          return !cursors::is_statement_slot(s.slot);
        });
    if (statement_steps == loc.path.begin())
      return checked(loc);  // proc, params
    const Path stmt_path(loc.path.begin(), statement_steps);
    switch (loc.kind) {
      case cursors::LocationKind::Node: {
        Path path = moved(stmt_path);
        path.insert(path.end(), statement_steps, loc.path.end());
        return checked(Location::node(std::move(path)));
      }
      case cursors::LocationKind::Gap:
        return checked(Location::gap(moved(stmt_path), loc.side));
      case cursors::LocationKind::Block:
        return block(loc);
    }
    return checked(loc);
  }

 private:
  const Path& moved(const Path& stmt_path) const {
    const auto it = kept_.find(stmt_path);
    if (it == kept_.end())
      throw cursors::InvalidCursorError("node no longer exists");
    return it->second;
  }

  // The statements kept from the block's range and from inside them, at the
  // outermost level they reach: the new block runs from the first to the
  // last of them.
  Location block(const Location& loc) const {
    std::vector<Path> outermost;
    Path first = loc.path;
    for (int i = loc.lo(); i < loc.hi; ++i) {
      first.back().index = i;
      for (auto it = kept_.lower_bound(first);
           it != kept_.end() && cursors::starts_with(it->first, first); ++it) {
        if (!outermost.empty() && it->second.size() > outermost[0].size())
          continue;
        if (!outermost.empty() && it->second.size() < outermost[0].size())
          outermost.clear();
        outermost.push_back(it->second);
      }
    }
    if (outermost.empty())
      throw cursors::InvalidCursorError("node no longer exists");
    const auto [lo, hi] = std::minmax_element(
        outermost.begin(), outermost.end(),
        [](const Path& a, const Path& b) { return a.back() < b.back(); });
    return checked(Location::block(*lo, hi->back().index + 1));
  }

  Location checked(const Location& loc) const {
    if (!cursors::is_valid(after_, loc))
      throw cursors::InvalidCursorError("node no longer exists");
    return loc;
  }

  Proc after_;
  KeptStatements kept_;
};

}  // namespace

cursors::EditResult simplify(const Proc& proc) {
  KeptStatements kept;
  Proc result = exo2::simplify(proc, {}, &kept);
  return {result, cursors::Forwarding(std::make_shared<KeptStatementForwarding>(
                      result, std::move(kept)))};
}

}  // namespace exo2::primitives
