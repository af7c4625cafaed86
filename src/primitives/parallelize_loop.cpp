#include "exo2/primitives/parallelize_loop.hpp"

#include "exo2/primitives/location_paths.hpp"

namespace exo2::primitives {

cursors::EditResult parallelize_loop(const Proc& proc,
                                     const cursors::Location& loop) {
  const For& f = stmt_of_kind(proc, loop, StmtKind::For)->as<For>();
  return cursors::replace_stmt_attributes(
      proc, loop,
      make_for(f.iter, f.lo, f.hi, f.body, LoopMode::par(), f.srcinfo));
}

}  // namespace exo2::primitives
