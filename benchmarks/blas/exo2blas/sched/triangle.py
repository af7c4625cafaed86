"""`triangle`: the level-2 automation for a loop over the rows of a
triangle (symv, syr, syr2, trmv, trsv), whose inner loops run over part of
a row, with bounds that depend on the row (`for j in seq(i, n)`), so rows
cannot be jammed as `rows` jams them. Each inner loop along contiguous
memory (a dot product with a row of A, or an update of it) is vectorized
in every row (an update with a masked last vector, a dot product with
whole vectors and then scalars); an inner loop down a column of A
(`A[j, i]`, which the Trans variants and half of symv read) keeps its
scalar loop."""

from __future__ import annotations

from exo2.API_cursors import (
    AssignCursor,
    ForCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    WindowExprCursor,
)
from exo2.API_scheduling import SchedulingError, shift_loop, user_op
from exo2.stdlib.inspection import get_symbols, lrn, nlr_stmts

from .level2 import vectorize_loop


def _accesses(proc, loop):
    """Every buffer access in `loop`: reads, and the targets of writes."""
    found = [e for e in lrn(proc, loop) if isinstance(e, ReadCursor | WindowExprCursor)]
    found += [
        s
        for s in nlr_stmts(proc, loop.body())
        if isinstance(s, AssignCursor | ReduceCursor)
    ]
    return found


def _reduces(proc, loop):
    """Whether `loop` sums into a scalar (a dot product)."""
    return any(
        isinstance(s, ReduceCursor) and len(s.idx()) == 0
        for s in nlr_stmts(proc, loop.body())
    )


def contiguous(proc, loop):
    """Whether every access in `loop` indexes by its iterator in the last
    dimension only, the one with unit stride (`A[i, j]` over j, not
    `A[j, i]`)."""
    name = loop.name()
    for access in _accesses(proc, loop):
        idx = access.idx()
        for index in idx[:-1]:
            if name in {str(v) for v in get_symbols(proc, index)}:
                return False
    return True


def outermost_loop(proc):
    """The one loop at the top of `proc`'s body (SchedulingError otherwise:
    a schedule naming no loop needs one)."""
    loops = [s for s in proc.body() if isinstance(s, ForCursor)]
    if len(loops) != 1:
        raise SchedulingError(
            f"{proc.name()} has {len(loops)} outermost loops; name the loop"
        )
    return loops[0]


@user_op
def triangle(proc, loop, m, prec):
    """Schedules `loop` (a cursor, its iterator's name, or None for the
    proc's one outermost loop), a loop over rows, for machine `m` in
    precision `prec`: every loop of its body that runs along a row
    (`contiguous`) is vectorized."""
    if loop is None:
        loop = outermost_loop(proc)
    elif isinstance(loop, str):
        loop = proc.find_loop(loop)
    inner = [
        s
        for s in nlr_stmts(proc, loop.body())
        if isinstance(s, ForCursor) and contiguous(proc, s)
    ]
    for row_loop in inner:
        row_loop = proc.forward(row_loop)
        if not (
            isinstance(row_loop.lo(), LiteralCursor) and row_loop.lo().value() == 0
        ):
            proc = shift_loop(proc, row_loop, 0)  # vectorize divides from 0
        # a dot product's row part may be empty (`seq(i + 1, n)`), with no
        # last vector to mask: whole vectors, then scalars
        tail = "cut" if _reduces(proc, row_loop) else "cut_and_predicate"
        proc, _ = vectorize_loop(proc, row_loop, m, prec, tail)
    return proc


def by_triangle(loop=None, **options):
    """The schedule `kernel(..., schedule=by_triangle())` names: `triangle`
    of `loop` with the variant's machine and precision."""

    def schedule(proc, v):
        return triangle(proc, loop, v.machine, v.prec, **options)

    return schedule
