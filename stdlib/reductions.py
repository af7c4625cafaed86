"""Parallelizing reductions into per-lane accumulators (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from exo2.API_cursors import ReduceCursor
from exo2.libs.memories import DRAM
from exo2.stdlib.binding import parallelize_and_lift_alloc
from exo2.stdlib.higher_order import (
    attempt,
    make_pass,
)
from exo2.stdlib.inspection import (
    get_enclosing_loop,
    get_parents,
    get_symbols,
    is_loop,
    is_reduce,
    nlr_stmts,
)
from exo2.stdlib.loop_bounds import undo_divide_and_guard_loop
from exo2.stdlib.rc_wrappers import divide_loop_
from exo2.stdlib.scheduling import (
    SchedulingError,
    fission,
    reorder_loops,
    set_memory,
    simplify,
    unroll_loop,
    user_op,
)
from exo2.stdlib.staging import auto_stage_mem


@user_op
def parallelize_reduction(
    proc, reduce_stmt, factor=None, memory=DRAM, nth_loop=1, unroll=False
):
    """Turns the reduction `reduce_stmt` over its `nth_loop`-th enclosing
    loop into independent partial sums (one per iteration of that loop, or
    `factor` of them after dividing it), held in a buffer in `memory`,
    then combines them. `unroll` (a bool or a pair) unrolls the zeroing and
    the combining loop."""
    if isinstance(unroll, bool):
        unroll = (unroll, unroll)
    reduce_stmt = proc.forward(reduce_stmt)
    if not is_reduce(proc, reduce_stmt):
        raise TypeError(f"reduce_stmt must of type {ReduceCursor}")
    reduce_loop = get_enclosing_loop(proc, reduce_stmt, nth_loop)
    if reduce_loop.name() in set(get_symbols(proc, reduce_stmt.idx())):
        raise SchedulingError("Statement isn't a reduction over the specified loop.")

    if factor is not None:
        proc, (reduce_loop, _, _) = divide_loop_(
            proc, reduce_loop, factor, tail="guard", rc=True
        )
        proc = simplify(proc)

    # stage the reduction around the loop nest under the reduced-over loop
    proc = reorder_loops(proc, reduce_loop)
    proc = auto_stage_mem(proc, reduce_loop, reduce_stmt.name(), accum=True)
    proc = simplify(proc)
    reduce_loop = proc.forward(reduce_loop)
    alloc = reduce_loop.prev().prev()
    proc = set_memory(proc, alloc, memory)
    proc = parallelize_and_lift_alloc(proc, alloc)

    # the zero and store-back stages get loops of their own
    reduce_loop = proc.forward(reduce_loop)
    proc = fission(proc, reduce_loop.before())
    proc = fission(proc, reduce_loop.after())
    reduce_loop = proc.forward(reduce_loop)
    proc = reorder_loops(proc, reduce_loop.parent())

    reduce_loop = proc.forward(reduce_loop)
    if unroll[0]:
        proc = unroll_loop(proc, reduce_loop.prev())
    if unroll[1]:
        proc = unroll_loop(proc, reduce_loop.next())
    if factor is not None:
        proc = undo_divide_and_guard_loop(proc, reduce_loop)
    return proc


@user_op
def parallelize_all_reductions(proc, loop, factor=None, memory=DRAM, unroll=False):
    """`parallelize_reduction` of every reduction under `loop` that reduces
    over it (the others are left alone)."""
    loop = proc.forward(loop)

    def rewrite(proc, s):
        s = proc.forward(s)
        reduce_loop = proc.forward(loop)
        nth_loop = 0
        for parent in get_parents(proc, s):
            if is_loop(proc, parent):
                nth_loop += 1
            if parent == reduce_loop:
                break
        return parallelize_reduction(proc, s, factor, memory, nth_loop, unroll)

    def reductions(proc, block):
        return [s for s in nlr_stmts(proc, block) if isinstance(s, ReduceCursor)]

    return make_pass(attempt(rewrite), reductions)(proc, loop.body())
