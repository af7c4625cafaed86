"""`triangle`: the level-2 automation for a loop over the rows of a
triangle (symv, syr, syr2, trmv, trsv), whose inner loops run over part of
a row, with bounds that depend on the row (`for j in seq(i, n)`), so rows
cannot be jammed as `rows` jams them.

- An inner loop along contiguous memory (a dot product with a row of A, or
  an update of x or of a row of A) is vectorized in every row: an update
  ending as the machine ends vector loops (whole vectors then scalars
  where the row part may be empty), a dot product with whole vectors and
  then scalars.
- An inner loop down a column of A (`A[j, i]`: half of symv) is blocked
  as `columns` blocks gemv's Trans form when the rows ascend: rows in
  blocks of `r` vectors, the column loop cut at the block (`cut_loop`)
  into a rectangular panel, which is jammed across the block with its
  sums in registers (`accumulate_in_registers`), and a small triangle next
  to the diagonal, left scalar. Descending rows (whose lanes would need
  reversed loads) keep the scalar loop. (The Trans variants of trmv and
  trsv read A along its rows: their sources update x by each row.)"""

from __future__ import annotations

from exo2.API_cursors import (
    AllocCursor,
    AssignCursor,
    ForCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    WindowExprCursor,
)
from exo2.API_scheduling import (
    SchedulingError,
    cut_loop,
    divide_loop,
    shift_loop,
    simplify,
    user_op,
)
from exo2.stdlib.inspection import get_symbols, lrn, nlr_stmts
from exo2.stdlib.stdlib import (
    accumulate_in_registers,
    interleave_outer_loop_with_inner_loop,
)

from .level2 import OPS, reduces, vectorize_loop


def _accesses(proc, loop):
    """Every buffer access in `loop`: reads, and the targets of writes."""
    found = [e for e in lrn(proc, loop) if isinstance(e, ReadCursor | WindowExprCursor)]
    found += [
        s
        for s in nlr_stmts(proc, loop.body())
        if isinstance(s, AssignCursor | ReduceCursor)
    ]
    return found


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


def _down_a_column(proc, inner, row):
    """Whether `inner` reads a column of A at the row `row` ascends along:
    `A[j, i]`, with the iterator `j` of `inner` first and `i` itself last."""
    name = inner.name()
    return any(
        len(a.idx()) == 2
        and name in {str(v) for v in get_symbols(proc, a.idx()[0])}
        and isinstance(a.idx()[1], ReadCursor)
        and a.idx()[1].name() == row
        for a in _accesses(proc, inner)
    )


def _column_panels(proc, loop, m, prec, r):
    """Rows in blocks of `r` vectors; in each, the loop down a column cut
    at the block into a panel of whole rows of the block and the triangle
    next to the diagonal; the panel jammed across the block, its sums in
    registers. Returns `(proc, blocks, rest)`, the loops over the blocks
    and over the rows left."""
    width = r * m.lanes[prec]
    name = loop.name()
    column = next(
        s
        for s in loop.body()
        if isinstance(s, ForCursor) and _down_a_column(proc, s, name)
    )
    proc = divide_loop(proc, loop, width, [f"{name}o", f"{name}i"], tail="cut")
    proc = simplify(proc)
    blocks = proc.forward(loop)
    column = proc.forward(column)
    before = isinstance(column.lo(), LiteralCursor)  # seq(0, i): the panel first
    at = f"{width} * {blocks.name()}" + ("" if before else f" + {width}")
    proc = cut_loop(proc, column, at)
    proc = simplify(proc)
    lanes = proc.forward(blocks).body()[0]
    column = proc.forward(column)  # the first part
    panel = column if before else column.next()
    proc = interleave_outer_loop_with_inner_loop(
        proc, lanes, panel, width, unroll=(False, False, False)
    )
    sums = next(s for s in proc.forward(blocks).body() if isinstance(s, AllocCursor))
    proc = accumulate_in_registers(
        proc, proc.forward(panel), f"{sums.name()}[0:{width}]", m.lanes[prec],
        prec, m.memory, m.instructions(prec, OPS), name="sums",
    )  # fmt: skip
    blocks = proc.forward(blocks)
    return proc, blocks, blocks.next()


@user_op
def triangle(proc, loop, m, prec, r=4):
    """Schedules `loop` (a cursor, its iterator's name, or None for the
    proc's one outermost loop), a loop over rows, for machine `m` in
    precision `prec`: a loop down a column of the ascending rows in panels
    of `r` vectors of rows (`_column_panels`), then every loop that runs
    along a row (`contiguous`) vectorized."""
    if loop is None:
        loop = outermost_loop(proc)
    elif isinstance(loop, str):
        loop = proc.find_loop(loop)
    scopes, lanes = [loop], None
    if any(
        isinstance(s, ForCursor) and _down_a_column(proc, s, loop.name())
        for s in loop.body()
    ):
        proc, blocks, rest = _column_panels(proc, loop, m, prec, r)
        scopes, lanes = [blocks, rest], f"{loop.name()}i"
    inner = [
        s
        for scope in scopes
        for s in nlr_stmts(proc, proc.forward(scope).body())
        if isinstance(s, ForCursor) and s.name() != lanes and contiguous(proc, s)
    ]
    for row_loop in inner:
        row_loop = proc.forward(row_loop)
        if not (
            isinstance(row_loop.lo(), LiteralCursor) and row_loop.lo().value() == 0
        ):
            proc = shift_loop(proc, row_loop, 0)  # vectorize divides from 0
        # a dot product's row part may be empty (`seq(i + 1, n)`), with no
        # last vector to mask: whole vectors, then scalars; so may an
        # update's (the backward rows of upper Trans trmv, `seq(n - ii, n)`),
        # where the masked form is then refused
        tail = "cut" if reduces(proc, row_loop) else m.tail
        try:
            proc, _ = vectorize_loop(proc, row_loop, m, prec, tail)
        except SchedulingError:
            proc, _ = vectorize_loop(proc, row_loop, m, prec, "cut")
    return proc


def by_triangle(loop=None, **options):
    """The schedule `kernel(..., schedule=by_triangle())` names: `triangle`
    of `loop` with the variant's machine and precision."""

    def schedule(proc, v):
        return triangle(proc, loop, v.machine, v.prec, **options)

    return schedule
