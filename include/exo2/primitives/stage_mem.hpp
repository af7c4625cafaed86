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
// The load nest is inserted when something inside the window is read (a
// read, a reduction, a window or scalar passed to a callee that reads or
// reduces it); the store nest when something inside is written. The
// innermost load/store statement is guarded by the conditions `0 <= idx`,
// `idx < extent` on x's indices that cannot be proven.
// Safety:
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
// [fix] Omitting the load is sound only when the block writes every
// element of the window before reading it: for a point window, when the
// first inside access is an assignment that always runs (no if around it in
// the block, every loop around it provably non-empty), as in Exo; for an
// interval window without inside reads, when one always-running assignment
// provably covers the window (each interval index is `iter + c` of its own
// loop, whose range covers the interval). Otherwise the load stays (Exo
// omits it whenever nothing is read, which loses data on partial writes).
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
