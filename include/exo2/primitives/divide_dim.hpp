// divide_dim (primitives.md §5): splits one dimension of an allocated
// buffer in two.
//
// Rewrite: dimension `d` of extent `n` becomes the two dimensions
// `n / q, q` (`n / q` evaluated when `n` is a literal), and each index `i`
// of it in the rest of the block becomes `i / q, i % q`; `stride(x, e)`
// keeps its value as `stride(x, e)` before the divided dimension and
// `stride(x, e + 1)` from it on (checked, buffer_accesses.hpp).
// Safety: Divisible(n, q) before the allocation (`cannot perfectly divide
// 'n' by q`); then the new indices address the same elements of the dense
// buffer, in bounds exactly when the old ones were. Refused: `x` passed
// whole to a call (`Cannot divide x because buffer is passed as an
// argument`) and windows of `x` (`Cannot divide x because the buffer is
// windowed later on`).
// Forwarding: everything stays; cursors to rewritten reads name the new
// reads.
#pragma once

#include <cstdint>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `dim` is a dimension of the tensor allocated at `alloc` and `quotient`
// positive (std::invalid_argument otherwise).
cursors::EditResult divide_dim(const Proc& proc, const cursors::Location& alloc,
                               int dim, int64_t quotient);

}  // namespace exo2::primitives
