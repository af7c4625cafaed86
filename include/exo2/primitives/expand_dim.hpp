// expand_dim (primitives.md §5): gives an allocated buffer a new leading
// dimension.
//
// Rewrite: `x : T[shape]` becomes `x : T[alloc_dim, shape]` and every
// access in the rest of the block gains `index` as its first index (a
// point for windows); `stride(x, d)` becomes `stride(x, d + 1)`, which has
// the same value in the dense buffer.
// Safety: the index means the same at every access: the rest of the block
// writes no config field it reads (require_same_at_every_access);
// Bound(alloc_dim > 0) before the allocation (`The expression <e>
// is not guaranteed to be greater than 0.`) and InBounds(x) of the
// rewritten rest of the block (`The buffer x is accessed out-of-bounds`).
// A scalar passed whole to a call is refused (`... support for passing
// windows to scalar arguments`), and so is a tensor passed whole (`Cannot
// expand x because buffer is passed as an argument`): the callee would see
// another shape.
// Forwarding: everything stays; cursors to rewritten reads name the new
// reads.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `alloc_dim` and `index` are untyped new expressions, typed before the
// allocation at `alloc`.
cursors::EditResult expand_dim(const Proc& proc, const cursors::Location& alloc,
                               const Expr& alloc_dim, const Expr& index);

}  // namespace exo2::primitives
