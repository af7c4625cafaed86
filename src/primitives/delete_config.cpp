#include "exo2/primitives/delete_config.hpp"

namespace exo2::primitives {

ConfigEditResult delete_config(const Proc& proc,
                               const cursors::Location& stmt) {
  std::vector<Location> visible = require_config_invisible(proc, stmt.path, 1);
  return {cursors::remove(proc, stmt), std::move(visible)};
}

}  // namespace exo2::primitives
