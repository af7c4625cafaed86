"""`rows`: the level-2 automation for a loop over rows whose inner loop
runs along a contiguous row of the matrix: a dot product per row (gemv's
NoTrans form, `acc += A[i, j] * x[j]`) or an update of the row (ger's
`A[i, j] += alpha * x[i] * y[j]`). `r` rows are unrolled and jammed into
one pass along the row, so each vector of the shared operand (x, or y) is
loaded once for `r` rows and the rows' fused multiply-adds are independent
(`r` of them in flight hide the FMA latency); the pass is vectorized, a
dot product's sum kept in one vector accumulator per row and summed
horizontally after the pass. A dot product's pass ends with a masked
vector; an update's as the machine ends vector loops (`Machine.tail`)."""

from __future__ import annotations

from exo2.API_scheduling import user_op
from exo2.stdlib.stdlib import unroll_and_jam, unroll_buffers

from .level2 import inner_loop, reduces, vectorize_loop


@user_op
def rows(proc, loop, m, prec, r=4):
    """Schedules `loop` (a cursor or its iterator's name), whose body holds
    one inner loop along a contiguous row, for machine `m` in precision
    `prec`: blocks of `r` iterations jammed around the inner loop (their
    scalar temporaries become `r` scalars), the jammed loop vectorized; the
    last `loop % r` rows are vectorized one at a time."""
    if isinstance(loop, str):
        loop = proc.find_loop(loop)
    inner_loop(proc, loop)  # one inner loop, or an error that says so
    passes = [loop]
    if r > 1:
        proc = unroll_and_jam(proc, loop, r)
        blocks = proc.forward(loop)
        proc = unroll_buffers(proc, blocks.body())
        passes = [blocks.next(), blocks]  # the last `loop % r` rows first: the
        # proc is smaller before the jammed pass is vectorized
    for rows_loop in passes:
        inner = inner_loop(proc, rows_loop)
        # a dot product ends with a masked vector (its scalar tail would
        # wait on the sum), an update as the machine ends loops
        tail = "cut_and_predicate" if reduces(proc, inner) else m.tail
        proc, _ = vectorize_loop(proc, inner, m, prec, tail)
    return proc


def by_rows(loop="i", **options):
    """The schedule `kernel(..., schedule=by_rows())` names: `rows` of
    `loop` with the variant's machine and precision."""

    def schedule(proc, v):
        return rows(proc, loop, v.machine, v.prec, **options)

    return schedule
