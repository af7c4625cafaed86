"""`rows`: the level-2 automation for a loop over rows whose inner loop
runs along a contiguous row of the matrix: a dot product per row (gemv's
NoTrans form, `acc += A[i, j] * x[j]`) or an update of the row (ger's
`A[i, j] += alpha * x[i] * y[j]`). `r` rows are unrolled and jammed into
one pass along the row, so each vector of the shared operand (x, or y) is
loaded once for `r` rows and the rows' fused multiply-adds are independent
(`r` of them in flight hide the FMA latency); the pass is vectorized, a
dot product's sum kept in one vector accumulator per row and summed
horizontally after the pass. A dot product's pass ends with a masked
vector; an update's without one (`vectorize_update`: whole vectors, a
narrower one, scalars). An update's pass loads every row's vector before
it stores any (`_loads_first`)."""

from __future__ import annotations

from exo2.API_cursors import AllocCursor, CallCursor, InvalidCursor, ReduceCursor
from exo2.API_scheduling import replace, user_op
from exo2.stdlib.inspection import (
    get_loop,
    get_loop_carried_reductions,
    get_only_inner_loop,
)
from exo2.stdlib.stdlib import (
    inline_instr,
    interleave_loop,
    reorder_stmt_backwards,
    unroll_and_jam,
    unroll_buffers,
)

from ..machines.reductions import row_sums
from .by_variant import on_variant
from .level2 import vectorize_loop, vectorize_update


@user_op
def rows(proc, loop, m, prec, r=4, interleave=1):
    """Schedules `loop` (a cursor or its iterator's name), whose body holds
    one inner loop along a contiguous row, for machine `m` in precision
    `prec`: blocks of `r` iterations jammed around the inner loop (their
    scalar temporaries become `r` scalars), the jammed loop vectorized; the
    last `loop % r` rows are vectorized one at a time. An update's loop
    over whole vectors runs `interleave` of them side by side (r = 1: one
    row at a time, its loop's bounds and branch paid once for
    `interleave` vectors)."""
    loop = get_loop(proc, loop)
    get_only_inner_loop(proc, loop)  # one inner loop, or an error that says so
    passes = [loop]
    if r > 1:
        proc = unroll_and_jam(proc, loop, r)
        blocks = proc.forward(loop)
        proc = unroll_buffers(proc, blocks.body())
        passes = [blocks.next(), blocks]  # the last `loop % r` rows first: the
        # proc is smaller before the jammed pass is vectorized
    for rows_loop in passes:
        inner = get_only_inner_loop(proc, rows_loop)
        # a dot product ends with a masked vector (its scalar tail would
        # wait on the sum), an update without one
        if get_loop_carried_reductions(proc, inner):
            proc, _ = vectorize_loop(proc, inner, m, prec, "cut_and_predicate")
            if r == 4 and rows_loop is passes[-1]:
                proc = _sums_together(proc, rows_loop, m, prec)
        else:
            proc, vector_loops = vectorize_update(proc, inner, m, prec)
            for vector_loop, machine in vector_loops:
                proc = _loads_first(proc, vector_loop, machine, prec)
            whole, _ = vector_loops[0]
            proc = interleave_loop(proc, whole, interleave, memory=m.memory)
    return proc


def _sums_together(proc, loop, m, prec):
    """The four rows jammed in `loop` ended as one instruction
    (`row_sums`): their horizontal sums added in one tree and their
    updates of y (`y[i] += alpha * acc`) one vector. A block whose sums end
    otherwise (tbmv's, which sets y) keeps its `hsum`s."""
    body = list(proc.forward(loop).body())
    hsum = [isinstance(s, CallCursor) and "_hsum_" in s.subproc().name() for s in body]
    first = hsum.index(True)
    ends = body[first : first + 8]
    if len(ends) < 8 or not all(isinstance(s, ReduceCursor) for s in ends[4:]):
        return proc
    for call in ends[:4]:
        proc = inline_instr(proc, call)
    block = proc.forward(loop).body()[first].as_block().expand(0, 7)
    return replace(proc, block, row_sums(m.name, prec))


def _loads_first(proc, loop, m, prec):
    """Moves the register allocations of the body of the vector loop `loop`
    to its top (AVX-512's masked tail declares them row by row), then each
    load (and broadcast) in front of the arithmetic and stores before it:
    the jammed rows' vectors are all loaded before the first is stored. C
    cannot tell that the rows do not alias the shared operand, so a load
    after a store is issued again (y, once per row); and where the rows lie
    a multiple of 4 KiB apart (a power-of-two row length) a load of one row
    after the store into the row before waits for that store (the core
    compares addresses by their low 12 bits)."""
    loads = {i.name() for i in m.instructions(prec, ("load", "broadcast"))}

    def is_alloc(s):
        return isinstance(s, AllocCursor)

    def is_load(s):
        return isinstance(s, CallCursor) and s.subproc().name() in loads

    for kind in (is_alloc, is_load):
        for stmt in list(proc.forward(loop).body()):
            stmt = proc.forward(stmt)
            if not kind(stmt):
                continue
            while not isinstance(stmt.prev(), InvalidCursor) and not (
                kind(stmt.prev()) or is_alloc(stmt.prev())
            ):
                proc = reorder_stmt_backwards(proc, stmt)
                stmt = proc.forward(stmt)
    return proc


# by_rows(loop="i", **options): the schedule that runs `rows` with the
# variant's machine and precision (`kernel(..., schedule=by_rows(...))`).
by_rows = on_variant(rows, "i")
