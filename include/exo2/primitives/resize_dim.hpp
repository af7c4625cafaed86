// resize_dim (primitives.md §5): changes the extent of one dimension of an
// allocated buffer.
//
// Rewrite: `x : T[..., n, ...]` becomes `x : T[..., size, ...]` and every
// index `e` of that dimension in the rest of the block (reads, writes,
// points and both ends of window intervals) becomes `e - offset`.
// With `fold`, `size` is a positive literal, `offset` is ignored and every
// index becomes `e % size` (a circular buffer); a window interval `lo:hi`
// becomes `lo % size : lo % size + (hi - lo)`, so InBounds refuses an
// interval that would wrap around.
// Safety: the offset means the same at every access: the rest of the block
// writes no config field it reads (require_same_at_every_access);
// Bound(size > 0) before the allocation (`The expression <e> is not
// guaranteed to be greater than 0.`) and InBounds(x) of the rewritten rest
// of the block (`The buffer x is accessed out-of-bounds`). Folding also
// needs that no element's slot is overwritten while a read still needs its
// value: no write lands `size` or more away from an element (the other
// dimensions equal) between the write of that element and a read of it
// (`Buffer folding failed because r at <loc> reads the value w1 at <loc>
// wrote, but w2 at <loc>, which runs between them, writes 2 or more away
// from it.`; [fix] the read is named, and writes whose values no read needs
// are not refused); a folded buffer may not be passed to a call. `x` passed
// whole to a call
// (`Cannot resize x because buffer is passed as an argument`) and
// `stride(x, d)` whose value would change (a dimension before the resized
// one, unless the extent stays) is refused, and so is a window of `x` whose
// changed stride a callee or the code after a window statement reads
// (buffer_accesses.hpp).
// Forwarding: everything stays; cursors to rewritten reads name the new
// reads.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `alloc` is an allocation of a tensor with more than `dim` dimensions
// (std::invalid_argument otherwise); `size` and `offset` are untyped new
// expressions, typed before the allocation. With `fold`, `size` must be a
// positive integer literal.
cursors::EditResult resize_dim(const Proc& proc, const cursors::Location& alloc,
                               int dim, const Expr& size, const Expr& offset,
                               bool fold);

}  // namespace exo2::primitives
