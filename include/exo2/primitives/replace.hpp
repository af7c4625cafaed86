// replace (primitives.md §8): instruction selection.
//
// Rewrite: the first `len(subproc.body)` statements of the block become
// `subproc(args)`, with the arguments found by unification
// (unification.hpp); **[fix]** statements of the block past those stay.
// Refusals: a block shorter than the body (`Not enough statements to
// match`); no unification (UnificationError); the replaced statements
// declare a buffer that later statements use.
// Safety, at the call site (the context of the block's first statement):
// - the side conditions of the unification (`8 == n` for a loop bound)
//   hold (UnificationError `Unification of various index expressions
//   failed: ...` otherwise);
// - every `size` argument is positive (`The expression <e> is not
//   guaranteed to be greater than 0.`), every window argument lies inside
//   its buffer (`The buffer x is accessed out-of-bounds`);
// - **[fix]** every precondition of `subproc` holds with the arguments
//   substituted, `stride(x, d)` meaning the stride of the buffer passed
//   (dense tensors have known strides) (`Could not verify assertion <p> in
//   <f> at <loc>...`);
// - NoAlias: no buffer is passed to two data parameters;
// - ReadsUnchanged: the statements write no config field an argument reads
//   (the call evaluates the arguments once, before them).
// The call computes what the statements did (unification matched them), so
// nothing else needs proving.
// Forwarding: cursors into the replaced statements die (`node no longer
// exists`); everything else survives; the block cursor names the call and
// the statements it kept.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `block` is a block location; `subproc` a typed procedure.
cursors::EditResult replace(const Proc& proc, const cursors::Location& block,
                            const Proc& subproc);

}  // namespace exo2::primitives
