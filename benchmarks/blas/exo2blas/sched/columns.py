"""`columns`: the level-2 automation for a loop whose iterations are
contiguous in memory while its inner loop is not: gemv's Trans form,
`acc += A[j, i] * x[j]` summed over j for each i, where a row `A[j, :]`
is contiguous along i. The outputs go in blocks of `vectors` vectors whose
sums live in a buffer on the stack (in L1); a pass down the rows updates
the buffer from one row after the other, `r` rows jammed (one load and
store of a vector of sums serves `r` rows), and the block ends with
`y += alpha * sums`. A is read along its rows, a block's width of each, as
the hardware prefetchers stream it best: a block of 16 KiB of sums (512
vectors on AVX2, in L1 beside the rows' lines) reads 4 pages of each row,
where one page of it had the prefetchers start again on every page, 0.6 to
0.8 of the baselines' speed on a matrix beyond the last cache; keeping a
block's sums in registers instead reads A down its columns, a few cache
lines per row, which at large sizes runs at a fraction of the bandwidth.
The last `loop % block` outputs are one more block, narrower. Each output
still sums its products in the order of the naive loop, one product at a
time."""

from __future__ import annotations

from exo2.API_cursors import ForCursor
from exo2.API_scheduling import (
    divide_loop,
    expand_dim,
    fission,
    lift_alloc,
    reorder_loops,
    set_memory,
    user_op,
)
from exo2.libs.memories import DRAM_STACK
from exo2.stdlib.inspection import get_loop, get_only_inner_loop, nlr_stmts
from exo2.stdlib.stdlib import interleave_outer_loop_with_inner_loop

from .by_variant import on_variant
from .level2 import vectorize_loop

SUMS_BYTES = 16 * 1024  # a block's sums: in L1 with the lines of the rows
ELEMENT_BYTES = {"f32": 4, "f64": 8}


def _block(proc, loop, width, r, m, prec, tail):
    """Schedules `loop`, at most `width` iterations of the original one, as
    a block: its scalar sum becomes a buffer of `width` elements on the
    stack, zeroed, updated by the pass down the rows (the inner loop moved
    outside the outputs, `r` of its rows jammed), and added into the
    outputs; every loop over the outputs vectorized, ending with `tail`."""
    loop = proc.forward(loop)
    name, acc = loop.name(), loop.body()[0]
    proc = expand_dim(proc, acc, str(width), loop.name())
    proc = lift_alloc(proc, acc)
    proc = set_memory(proc, acc, DRAM_STACK)
    rows = get_only_inner_loop(proc, loop)
    proc = fission(proc, rows.before())
    proc = fission(proc, proc.forward(rows).after())
    proc = reorder_loops(proc, proc.forward(rows).parent())
    rows = proc.forward(rows)
    proc = interleave_outer_loop_with_inner_loop(
        proc, rows, rows.body()[0], r, unroll=(False, True, False)
    )
    # the loops over the outputs, after the buffer: zeroing, the jammed
    # pass, the pass over the last rows, the update of the outputs
    while lanes_loops := [
        s
        for s in nlr_stmts(proc, proc.forward(acc).expand(0, None))
        if isinstance(s, ForCursor) and s.name() == name
    ]:
        proc, _ = vectorize_loop(proc, lanes_loops[0], m, prec, tail)
    return proc


@user_op
def columns(proc, loop, m, prec, r=4, vectors=None):
    """Schedules `loop` (a cursor or its iterator's name), contiguous in
    memory, whose body is a scalar sum, one inner loop that is not
    contiguous, and the use of the sum, for machine `m` in precision
    `prec`: blocks of `vectors` vectors of iterations with their sums in a
    stack buffer, `r` iterations of the inner loop jammed; the last `loop %
    block` iterations a narrower block. `vectors` defaults to a block of
    `SUMS_BYTES` of sums."""
    loop = get_loop(proc, loop)
    get_only_inner_loop(proc, loop)  # one inner loop, or an error that says so
    width = vectors * m.lanes[prec] if vectors else SUMS_BYTES // ELEMENT_BYTES[prec]
    name = loop.name()
    proc = divide_loop(proc, loop, width, (f"{name}o", f"{name}i"), tail="cut")
    blocks = proc.forward(loop)
    proc = _block(proc, blocks.body()[0], width, r, m, prec, "perfect")
    # the narrower block ends with scalars: `vectorize` finds no masked
    # instructions for a tail inside the loop over the rows
    return _block(proc, proc.forward(blocks).next(), width, r, m, prec, "cut")


# by_columns(loop="i", **options): the schedule that runs `columns` with the
# variant's machine and precision (`kernel(..., schedule=by_columns(...))`).
by_columns = on_variant(columns, "i")
