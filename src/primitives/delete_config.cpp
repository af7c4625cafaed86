#include "exo2/primitives/delete_config.hpp"

#include <fmt/format.h>

#include "exo2/core_ir/printer.hpp"
#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

ConfigEditResult delete_config(const Proc& proc,
                               const cursors::Location& stmt) {
  // A declaration modifies nothing, yet deleting it would leave its uses
  // unbound.
  const Stmt s = cursors::resolve_stmt(proc, stmt.path);
  if (s->kind == StmtKind::Alloc)
    refuse(fmt::format("Cannot delete the statement at {} with delete_config: "
                       "it is the allocation of {}, not a configuration write",
                       s->srcinfo.str(), s->as<Alloc>().name.name()),
           {.srcinfo = s->srcinfo, .hint = "use delete_buffer"});
  if (s->kind == StmtKind::WindowStmt)
    refuse(fmt::format("Cannot delete the statement at {} with delete_config: "
                       "it is the window statement {}, not a configuration "
                       "write",
                       s->srcinfo.str(), print_stmt(s)),
           {.srcinfo = s->srcinfo, .hint = "use inline_window"});
  std::vector<Location> visible = require_config_invisible(proc, stmt.path, 1);
  return {cursors::remove(proc, stmt), std::move(visible)};
}

}  // namespace exo2::primitives
