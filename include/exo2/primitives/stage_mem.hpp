// stage_mem (primitives.md §5): stages a window of a buffer through a new
// buffer around a block.
//
// Rewrite: for a window `x[w0, ..., wk]` (entries: points `p` or intervals
// `lo:hi`, one per dimension of `x`, in the scope before the block):
//   new : T[hi - lo, ...] @ <memory of x>     (a scalar when all points)
//   <load nest>   for i0 in seq(0, hi0 - lo0): ... new[i0, ..] = x[i0 + lo0,
//   ..]
//                 (`0.0` instead of the read with accum=True)
//   <block>       accesses of x inside the window → new[i - lo, ...] (point
//                 dimensions dropped; windows of x → windows of new)
//   <store nest>  ... x[i0 + lo0, ..] = new[i0, ..]   (`+=` with accum=True)
// The load nest is inserted unless the block provably writes every element
// of the window before reading it, on every path (window_overwrite.hpp):
// then what it would copy is never read, and the store writes back only
// values the block wrote. The store nest is inserted when something inside
// is written. The innermost load/store statement is guarded by the
// conditions `0 <= idx`, `idx < extent` on x's indices that cannot be
// proven.
// Safety:
// - the block writes no config field the window reads (the load and the
//   store evaluate the window before and after it);
// - accum=True: ReduceOnly(x, block);
// - InOrOut: every access of x in the block is always inside the window
//   or always outside it (a window expression entirely inside or
//   outside); a window of x keeping a dimension the staging window fixes is
//   refused;
// - x is not accessed in the block through another name (a window
//   statement before the block, or the buffer a window x views), nor passed
//   whole to a call: those accesses would escape the staging;
// - InBounds(new) over the load nest, the block and the store nest;
// - ReadsUnchanged: the block writes no config field the window reads (the
//   load and store nests evaluate it before and after the block), nor one
//   that the indices, loops or ifs of an access of x read (the accesses are
//   placed in the window with the config values of the block's start).
// [fix] The load is left out only when the must-write analysis proves it
// dead (Exo leaves it out whenever nothing is read, which stores
// uninitialised values back when the block writes only part of the window,
// e.g. under an if or in a loop that may run no iteration).
// Forwarding: block statements keep their identity (and everything in them
// except the rewritten accesses' replaced expressions); the load nest is
// `first.prev()`, the allocation precedes it, the store nest is
// `last.next()`.
#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `window` is an untyped `Read` (points only; no indices for a scalar) or
// `WindowExpr` naming a buffer visible before `block`, as parsed from the
// window string.
cursors::EditResult stage_mem(const Proc& proc, const cursors::Location& block,
                              const Expr& window, const std::string& new_name,
                              bool accum);

}  // namespace exo2::primitives
