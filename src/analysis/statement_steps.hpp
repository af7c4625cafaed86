// A statement path (cursors/location.hpp, statement steps only) as the
// analysis walks it down the procedure: the statements entered and which of
// their lists, then the statement's index in the last list.
#pragma once

#include <utility>
#include <vector>

#include "exo2/core_ir/diagnostics.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2 {

struct StatementSteps {
  // (index of the statement entered, list: 0 its body, 1 an if's else)
  std::vector<std::pair<int, int>> enclosing;
  int index = 0;  // the statement's index in its list
};

// ArgumentError for a path with a step that is not a statement step. The
// empty path reads as the first statement of the body.
inline StatementSteps statement_steps(const cursors::Path& path) {
  StatementSteps out;
  for (size_t k = 0; k < path.size(); k++) {
    if (!cursors::is_statement_slot(path[k].slot))
      throw ArgumentError("expected a statement path");
    if (k + 1 == path.size())
      out.index = path[k].index;
    else
      out.enclosing.push_back(
          {path[k].index, path[k + 1].slot == cursors::Slot::Orelse ? 1 : 0});
  }
  return out;
}

}  // namespace exo2
