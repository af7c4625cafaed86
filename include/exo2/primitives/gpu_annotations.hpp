// The GPU primitives (docs/cuda.md, "GPU primitives"). Loop modes, `with`
// blocks, sync statements, trailing barriers, barrier allocations and
// dimension annotations have no sequential meaning, so these rewrites keep
// what a procedure computes; their checks are typing and bounds of the new
// expressions. Whether the parallel execution is right is the parallel
// check's job (docs/cuda.md, "Checking a kernel").
#pragma once

#include <vector>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// `for i in seq(lo, hi)` → `for i in mode(lo, hi)` (any mode, `seq` back
// included). Forwarding: everything stays.
cursors::EditResult set_loop_mode(const Proc& proc,
                                  const cursors::Location& loop,
                                  LoopModePtr mode);

// Wraps a block in `with ctx:`. Refused when the block declares a name
// that code after it uses. Forwarding: as cursors::wrap.
cursors::EditResult wrap_with(const Proc& proc, const cursors::Location& block,
                              WithContextPtr ctx);
// Replaces `with ctx: body` by its body. Forwarding: cursors inside the body
// follow it; the `with` statement itself dies.
cursors::EditResult unwrap_with(const Proc& proc,
                                const cursors::Location& with);

// Inserts `Fence(pre, post)` at a gap.
cursors::EditResult insert_fence(const Proc& proc, const cursors::Location& gap,
                                 SyncTimelinePtr pre, SyncTimelinePtr post);
// Inserts `Arrive(pre) >> t1 >> t2 ...`; `targets` are untyped barrier
// elements (`empty[k + 3]`), typed in the scope of the gap and proven in
// bounds.
cursors::EditResult insert_arrive(const Proc& proc,
                                  const cursors::Location& gap,
                                  SyncTimelinePtr pre,
                                  const std::vector<Expr>& targets);
// Inserts `Await(target, post)`.
cursors::EditResult insert_await(const Proc& proc, const cursors::Location& gap,
                                 const Expr& target, SyncTimelinePtr post);
// Removes a sync statement.
cursors::EditResult delete_sync(const Proc& proc,
                                const cursors::Location& sync);
// `f(args)` → `f(args) >> t1 >> ...` (replacing any trailing barriers; an
// empty list removes them). `f` must be an instruction.
cursors::EditResult set_trailing_barrier(const Proc& proc,
                                         const cursors::Location& call,
                                         const std::vector<Expr>& targets);
// Inserts `name: barrier[shape] @ mem` at a gap; `shape` untyped extents,
// proven positive.
cursors::EditResult alloc_barrier(const Proc& proc,
                                  const cursors::Location& gap,
                                  const std::string& name,
                                  const std::vector<Expr>& shape,
                                  MemoryPtr mem);
// Sets (or with null, removes) the annotation of dimension `dim` of an
// allocation (`K / 64 @ ring(4)`, `2 @ cuda_warpgroup`). The extent, and so
// the sequential meaning and every bounds check, stays.
cursors::EditResult set_dim_annotation(const Proc& proc,
                                       const cursors::Location& alloc, int dim,
                                       DimAnnotationPtr annotation);

}  // namespace exo2::primitives
