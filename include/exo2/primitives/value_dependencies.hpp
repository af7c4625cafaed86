// What the values stored in a buffer depend on: the variables, buffers and
// config fields whose values can flow into a write of the buffer, directly
// (its index and right-hand side) or through the conditions and loop bounds
// that decide whether the write runs, and transitively through the writes of
// those. A loop iterator counts only through such flows: being the iterator
// of an enclosing loop is not a dependency by itself.
//
// autolift_alloc(keep_dims=True) keeps a dimension exactly for the lifted
// loops whose iterator the buffer depends on (Exo's legacy rule).
#pragma once

#include "exo2/core_ir/proc.hpp"

namespace exo2::primitives {

// Whether the values written to `buffer` in `block` depend on `var`.
bool values_depend_on(const Block& block, const Sym& buffer, const Sym& var);

}  // namespace exo2::primitives
