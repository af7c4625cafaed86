#include "exo2/primitives/delete_buffer.hpp"

#include <fmt/format.h>

#include "exo2/cursors/navigation.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

cursors::EditResult delete_buffer(const Proc& proc,
                                  const cursors::Location& alloc) {
  const Stmt s = stmt_of_kind(proc, alloc, StmtKind::Alloc);
  const Sym& x = s->as<Alloc>().name;
  const std::string message = fmt::format(
      "The variable {} can potentially be used after the statement at {} "
      "executes.",
      x.name(), s->srcinfo.str());
  const SchedulingReport report{.srcinfo = s->srcinfo,
                                .condition = "DeadAfter(x, s)"};
  require_proven(prove_dead_after(proc, alloc.path, x), message, report);
  // A window or stride of `x` is no access, but would dangle.
  const Block& list = cursors::enclosing_list(proc, alloc.path);
  const Block rest(list.begin() + alloc.path.back().index + 1, list.end());
  if (mentions(rest, x)) refuse(message, report);
  return cursors::remove(proc, alloc);
}

}  // namespace exo2::primitives
