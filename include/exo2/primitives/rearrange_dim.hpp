// rearrange_dim (primitives.md §5): permutes the dimensions of an
// allocated buffer.
//
// Rewrite: `x : T[n0, ..., nk]` becomes `x : T[n_p0, ..., n_pk]` for the
// permutation `p`; every index list and window of `x` in the rest of the
// block is permuted the same way, and `stride(x, d)` becomes
// `stride(x, p.index(d))`.
// [fix] Its value must stay the same, and so must the strides a window
// statement of `x` passes on to code that reads them (buffer_accesses.hpp):
// `Cannot permute x because the value of stride(x, d) at <loc> would
// change` (Exo renames the dimension, changing the value).
// Safety: the rewrite keeps every element where the accesses find it, so
// no effect check is needed. Refused: `x` (or a window of it) passed to a
// call (`Cannot permute buffer 'x' because it is passed as a sub-procedure
// argument at <loc>`), and a window whose interval dimensions would change
// order (`Permuting the window expression at <loc> would change the
// meaning of the window; ...`).
// Forwarding: everything stays; cursors to rewritten reads name the new
// reads.
#pragma once

#include <vector>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `permutation` is a permutation of 0..rank-1 (std::invalid_argument
// otherwise).
cursors::EditResult rearrange_dim(const Proc& proc,
                                  const cursors::Location& alloc,
                                  const std::vector<int>& permutation);

}  // namespace exo2::primitives
