// delete_buffer (docs/primitives-buffers.md): deletes an unused allocation.
//
// Rewrite: removes `x : T`.
// Safety: DeadAfter(x, alloc): nothing after the allocation reads or writes
// `x` (`The variable x can potentially be used after the statement at <loc>
// executes.`).
// Forwarding: the allocation becomes invalid; everything else stays.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

cursors::EditResult delete_buffer(const Proc& proc,
                                  const cursors::Location& alloc);

}  // namespace exo2::primitives
