// autolift_alloc (primitives.md §11, legacy): lift_alloc that can keep one
// buffer per iteration of the lifted loops.
//
// Rewrite: the allocation moves before its `n_lifts`-th enclosing loop or
// if. With `keep_dims`, each lifted loop `for i in seq(lo, hi)` whose
// iterator the buffer's values depend on (value_dependencies.hpp) adds a
// dimension, before the existing ones (`row`) or after them (`col`): for a
// literal `lo >= 0` (Exo's legacy rule) of extent `hi`, or `hi + 1` when
// `hi` is not a literal, indexed by `i`; otherwise of extent `hi - lo`,
// indexed by `i - lo`; of extent `size` if given. A buffer passed whole to
// a call becomes a window with those points.
// Safety: none needed: the buffer was fresh in every iteration, so no value
// flows between iterations through it, and separate copies per iteration
// mean the same. Refused: `specified lift level 3 is higher than the number
// of loop 2`; a lifted-past loop iterator in the shape (as lift_alloc);
// `Lift size cannot be less than for-loop bound <hi>` when `size < hi` is
// possible; the lifted-past code writes a config field that the new
// extents (evaluated before it) or indices (at every access) read; [fix]
// new dimensions when the code reads a stride of `x` (directly or through a
// window passed on), whose value they would change (`Cannot lift x with new
// dimensions: its strides are read ...`).
// Forwarding: none (legacy).
#pragma once

#include <optional>
#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `mode` is "row" or "col".
Proc autolift_alloc(const Proc& proc, const cursors::Location& alloc,
                    int n_lifts, const std::string& mode,
                    std::optional<int64_t> size, bool keep_dims);

}  // namespace exo2::primitives
