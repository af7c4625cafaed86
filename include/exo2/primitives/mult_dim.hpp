// mult_dim (primitives.md §5): merges two dimensions of an allocated
// buffer into one.
//
// Rewrite: with `c` the (literal) extent of dimension `lo`, dimension `hi`
// gets extent `c * n_hi` (evaluated when both are literals), dimension
// `lo` disappears, and each access `x[..., i_hi, ..., i_lo, ...]` in the
// rest of the block becomes `x[..., c * i_hi + i_lo, ...]`.
// Safety: `0 <= i_lo < c` makes the map from old to new indices one to one
// and in bounds exactly when the old indices were, so no effect check is
// needed. Refused: a non-literal `lo` extent (`Cannot multiply with
// non-literal second dimension: n`), `x` passed whole to a call (`Cannot
// multiply x because buffer is passed as an argument`), windows of `x`
// (`Cannot multiply x because the buffer is windowed later on`), and
// `stride(x, d)` of a dimension not before both or after both merged ones
// (its value would change; every stride read must keep its value,
// buffer_accesses.hpp).
// Forwarding: everything stays; cursors to rewritten reads name the new
// reads.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `hi` and `lo` are distinct dimensions of the tensor allocated at `alloc`
// (std::invalid_argument otherwise).
cursors::EditResult mult_dim(const Proc& proc, const cursors::Location& alloc,
                             int hi, int lo);

}  // namespace exo2::primitives
