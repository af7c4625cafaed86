#include "exo2/primitives/unroll_loop.hpp"

#include <fmt/format.h>

#include "exo2/primitives/control_exprs.hpp"
#include "exo2/primitives/location_paths.hpp"
#include "exo2/primitives/refusal.hpp"
#include "exo2/primitives/substitute.hpp"

namespace exo2::primitives {

cursors::EditResult unroll_loop(const Proc& proc,
                                const cursors::Location& loop_loc) {
  const Stmt loop_stmt = stmt_of_kind(proc, loop_loc, StmtKind::For);
  const For& loop = loop_stmt->as<For>();
  const std::optional<int64_t> lo = int_literal(loop.lo);
  const std::optional<int64_t> hi = int_literal(loop.hi);
  if (!lo || !hi)
    refuse(fmt::format("expected loop '{}' to have constant bounds",
                       loop.iter.name()),
           {.srcinfo = loop.srcinfo});

  Block copies;
  for (int64_t v = *lo; v < *hi; v++)
    for (const Stmt& s :
         fresh_copy(loop.body, {{loop.iter, control_int(v, loop.srcinfo)}}))
      copies.push_back(s);
  return cursors::replace(proc, loop_loc, std::move(copies));
}

}  // namespace exo2::primitives
