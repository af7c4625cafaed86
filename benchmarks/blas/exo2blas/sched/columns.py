"""`columns`: the level-2 automation for a loop whose iterations are
contiguous in memory while its inner loop is not: gemv's Trans form,
`acc += A[j, i] * x[j]` summed over j for each i, where a row `A[j, :]`
is contiguous along i. The lanes run along i: a block of `r` vectors of
outputs keeps its sums in registers while the inner loop walks down the
rows (`r` contiguous loads and fused multiply-adds per row, x[j]
broadcast), and the block is stored once. Each output is still summed in
the order of the naive loop, one product at a time."""

from __future__ import annotations

from exo2.API_cursors import AllocCursor
from exo2.API_scheduling import (
    divide_dim,
    set_memory,
    simplify,
    unroll_loop,
    user_op,
)
from exo2.stdlib.stdlib import interleave_outer_loop_with_inner_loop

from .level2 import inner_loop, vectorize_loop


def _block(proc, loop, m, prec, vectors):
    """Blocks of `vectors` vectors of `loop`'s iterations: the temporaries
    of an iteration become a vector lane each, in registers, and the inner
    loop moves outside the lanes (fission, then reorder). Returns the proc
    and the loop over the iterations left."""
    lanes = m.lanes[prec]
    inner = inner_loop(proc, loop)
    proc = interleave_outer_loop_with_inner_loop(
        proc, loop, inner, vectors * lanes, unroll=(False, False, False)
    )
    blocks = proc.forward(loop)
    for alloc in [s for s in blocks.body() if isinstance(s, AllocCursor)]:
        proc = divide_dim(proc, alloc, 0, lanes)
        proc = set_memory(proc, alloc, m.memory)
    for stmt in list(proc.forward(blocks).body()):
        if isinstance(stmt, AllocCursor):
            continue
        stmt = proc.forward(stmt)
        lane_loop = stmt if stmt.name() == f"{loop.name()}i" else stmt.body()[0]
        proc, vectors_loop = vectorize_loop(proc, lane_loop, m, prec, "perfect")
        proc = unroll_loop(proc, vectors_loop)
    return simplify(proc), proc.forward(blocks).next()


@user_op
def columns(proc, loop, m, prec, r=4):
    """Schedules `loop` (a cursor or its iterator's name), contiguous in
    memory, whose body holds one inner loop that is not, for machine `m` in
    precision `prec`: blocks of `r` vectors of iterations, then blocks of one vector; the last iterations,
    fewer than a vector, stay as they are."""
    if isinstance(loop, str):
        loop = proc.find_loop(loop)
    proc, rest = _block(proc, loop, m, prec, r)
    proc, _ = _block(proc, rest, m, prec, 1)
    return proc


def by_columns(loop="i", **options):
    """The schedule `kernel(..., schedule=by_columns())` names: `columns`
    of `loop` with the variant's machine and precision."""

    def schedule(proc, v):
        return columns(proc, loop, v.machine, v.prec, **options)

    return schedule
