// unroll_buffer (primitives.md §5): replaces an allocated buffer by one
// buffer per index value of one dimension.
//
// Rewrite: `x : T[n0, ..., c, ...]` (dimension `dim` of literal extent
// `c`) becomes the allocations `x_k : T[n0, ...]` (the other dimensions;
// a scalar when none is left, same memory), one for each index value `k`
// the rest of the block uses, in increasing order; each access
// `x[..., k, ...]` becomes `x_k[...]`.
// Safety: every access names one fixed element of dimension `dim`, so
// splitting the buffer changes no value. Refused: a scalar (`Cannot
// unroll a scalar buffer`), a non-literal extent (`Expected a constant
// buffer dimension, got n at 0'th dimension.`), a non-literal index
// (`Expected a constant buffer access, got i at 0'th dimension. Try
// unrolling the loop. `), a window interval in `dim` (`Cannot unroll a
// buffer at a dimension used as a window.`), `x` passed whole to a call
// (`Cannot unroll x because buffer is passed as an argument`) and
// `stride(x, d)` (`Cannot unroll x because its stride is read at <loc>`);
// a window of `x` whose changed stride a callee or later code reads is
// refused (buffer_accesses.hpp).
// Forwarding: the allocation becomes invalid; everything else stays, and
// cursors to rewritten reads name the new reads.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `dim` is a dimension of the tensor allocated at `alloc`
// (std::invalid_argument otherwise).
cursors::EditResult unroll_buffer(const Proc& proc,
                                  const cursors::Location& alloc, int dim);

}  // namespace exo2::primitives
