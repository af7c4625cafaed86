// bind_window (docs/cuda.md, "From a sequential kernel"): names a window of a
// whole buffer before a block and routes the block's uses of the buffer through
// it.
//
// Rewrite: inserts `y = x[0:n0, 0:n1, ...] @ mem` before the block, where
// the window covers every element of `x` (`mem` null: the window has no
// memory of its own), and renames every use of `x` inside the block to `y`:
// accesses, windows, strides, writes and `x` passed whole to a call. This is
// how a kernel gets a TMA tensor map of a global tensor
// (`A_tm = A[0:M, 0:K] @ CudaTensorMap(...)` in host code).
// Safety: `y` is `x` itself, so every use reads and writes the same elements
// at the same indices; the window's bounds are 0 and `x`'s extents, proven
// equal to what was given. Windows over part of a buffer are refused.
// Forwarding: as an insertion before the block; uses are renamed in place.
#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `window` is the untyped `x[lo:hi, ...]` (or `x`), in the scope of the
// block.
cursors::EditResult bind_window(const Proc& proc,
                                const cursors::Location& block,
                                const Expr& window, const std::string& name,
                                MemoryPtr mem);

}  // namespace exo2::primitives
