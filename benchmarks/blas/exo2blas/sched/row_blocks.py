"""Rows in blocks of `r`, jammed along the columns every row of a block
visits: what `triangle` (trmv, trsv, symv, syr, syr2) and `band` (tbsv) do
with rows whose inner loop runs along part of a row, with bounds that move
with the row. Each row's loop is cut into a panel (the columns every row
of the block visits) and one or two small triangles of fewer than `r`
columns beside it; the panels are jammed into one pass (a vector of x or
y loaded once for `r` rows, `r` independent fused multiply-adds). Where
the rows all update one element (symv's y[j], trmv's and trsv's Trans
x[j]), it is staged in a register across the rows: loaded and stored once
per pass; where a row also sums a dot product in the pass (symv), an
element of A that it both updates y with and sums with is loaded into one
register for both, and y's element stored before the dot products. The
small triangles are unrolled."""

from __future__ import annotations

from contextlib import suppress
from itertools import groupby

from exo2.API_cursors import (
    AssignCursor,
    ForCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
)
from exo2.API_scheduling import (
    SchedulingError,
    bind_expr,
    cut_loop,
    divide_loop,
    merge_writes,
    reorder_stmts,
    simplify,
    stage_mem,
    unroll_loop,
)
from exo2.stdlib.inspection import expr_to_string, get_symbols, lrn
from exo2.stdlib.range_analysis import index_range_analysis
from exo2.stdlib.stdlib import interleave_outer_loop_with_inner_loop, unroll_buffers

from .level2 import from_zero


def jam_row_blocks(proc, loop, row, r, reverse=False):
    """The rows of `loop` in blocks of `r`: the loop along a row in its
    body, `row`, cut where the columns every row of the block visits begin
    and end (`_panel_edge`; a bound that does not move with the row is
    not cut), its parts (the small triangles and the panel) in reverse
    order with `reverse`, and the panels jammed into one pass, a shared
    update staged and its loads shared (module docstring). The effect
    check refuses an order whose rows would read an entry before the block
    writes it. Returns `(proc, panel, rest)`: the jammed loop and the loop
    over the last `n % r` rows."""
    name = loop.name()
    lane = f"{name}i"
    proc = divide_loop(proc, loop, r, [f"{name}o", lane], tail="cut")
    proc = simplify(proc)
    blocks = proc.forward(loop)
    panel, head, tail = proc.forward(row), None, None  # the triangles beside it
    for before in (False, True):  # where the panel begins, then where it ends
        if lane in get_symbols(proc, panel.hi() if before else panel.lo()):
            proc = simplify(cut_loop(proc, panel, _panel_edge(panel, lane, r, before)))
            first = proc.forward(panel)  # the part before the cut
            if before:
                panel, tail = first, first.next()
            else:
                head, panel = first, first.next()
    if reverse:
        proc = reverse_stmts(proc, [s for s in (head, panel, tail) if s is not None])
    lanes = proc.forward(blocks).body()[0]
    proc = interleave_outer_loop_with_inner_loop(proc, lanes, panel, r)
    proc = unroll_buffers(proc, proc.forward(blocks).body())
    panel = proc.forward(panel)
    if element := _shared_update(proc, panel):
        name = f"{element.split('[')[0]}j"
        proc = _stage_updates(proc, panel, element, name)
        # a pass that writes the element between its uses: a load per use
        with suppress(SchedulingError):
            proc = _share_loads(proc, panel, name)
    return proc, proc.forward(panel), proc.forward(blocks).next()


def reverse_stmts(proc, stmts):
    """The consecutive statements `stmts` in reverse order, each moved down
    past those after it."""
    for moves, stmt in enumerate(reversed(stmts[:-1]), start=1):
        for _ in range(moves):
            proc = reorder_stmts(proc, proc.forward(stmt).expand(0, 1))
    return proc


def _panel_edge(row, lane, r, before):
    """Where the panel of `row` (a row's loop in the block of rows `lane` in
    [0, r)) begins (or ends, `before`): the columns that every row of the
    block visits, whether the rows ascend (`seq(i + 1, n)`) or descend
    (`seq(n - ii, n)`): the largest lower bound, or the smallest upper."""
    bound = index_range_analysis(row.hi() if before else row.lo(), {lane: (0, r - 1)})
    edge = bound.lo if before else bound.hi
    terms = [f"{c} * {v}" for v, c in bound.base.items()] + [str(edge)]
    return " + ".join(terms)


def _shared_update(proc, loop):
    """The one element (`"y[j]"`) that several statements of `loop`'s body
    update, or None."""
    targets = [
        f"{s.name()}[{expr_to_string(s.idx()[0])}]"
        for s in loop.body()
        if isinstance(s, ReduceCursor) and len(s.idx()) == 1
    ]
    repeated = {t for t in targets if targets.count(t) > 1}
    return repeated.pop() if len(repeated) == 1 else None


def _stage_updates(proc, loop, element, name):
    """Stages `element` (`"y[j]"`) in the scalar `name` across the body of
    `loop` and merges its updates into the load, one expression
    (`yj = y[j] + a0 * b0 + a1 * b1 + ...`, summed in the order of the
    statements): one vector load, a chain of fused multiply-adds and one
    store per vector of the pass. (Left as reductions `yj += a0 * b0`, the
    scalar would stop `vectorize`: `unfold_reduce` stages only elements of
    arrays.)"""
    proc = stage_mem(proc, proc.forward(loop).body(), element, name)
    body = proc.forward(loop).body()
    updates = [s for s in body if isinstance(s, ReduceCursor) and s.name() == name]
    for update in updates:
        # the update moves up past the other rows' statements to the load
        while not isinstance(proc.forward(update).prev(), AssignCursor):
            proc = reorder_stmts(proc, proc.forward(update).prev().expand(0, 1))
        proc = merge_writes(proc, proc.forward(update).prev().expand(0, 1))
    return proc


def _share_loads(proc, loop, name):
    """Binds each element that both the staged update `name` (`yj = y[j]
    + A[i, j] * xi + ...`) and another statement of `loop`'s body (a dot
    product, `acc += A[i, j] * x[j]`) read to a scalar, loaded once before
    them, and stores the staged element before the dot products. GCC 12,
    tuned generically, otherwise folds each vector load of A into both
    fused multiply-adds as a memory operand (10 loads per 8 FMAs in symv's
    pass): it keeps the loaded register once a store that may alias A (y's)
    lies between the two uses (symv 1.1 to 1.3 times faster at 64 to 512
    rows on the AMD EPYC Zen 4 machine, docs/blas-library.md)."""
    body = proc.forward(loop).body()
    staged = next(s for s in body if isinstance(s, AssignCursor) and s.name() == name)
    dots = [s for s in body if isinstance(s, ReduceCursor)]
    others = {expr_to_string(e) for s in dots for e in lrn(proc, s.rhs())}
    shared = {}  # each element once (its text: its buffer's name)
    for e in lrn(proc, staged.rhs()):
        if isinstance(e, ReadCursor) and e.type().is_numeric():
            if (text := expr_to_string(e)) in others:
                shared.setdefault(text, e.name())
    for k, (text, buffer) in enumerate(shared.items()):
        copies = [
            e
            for s in [staged, *dots]
            for e in lrn(proc, proc.forward(s).rhs())
            if isinstance(e, ReadCursor) and expr_to_string(e) == text
        ]
        proc = bind_expr(proc, copies, f"{buffer}j_{k}")
    store = proc.forward(loop).body()[-1]  # `y[j] = yj`, after the dot products
    while isinstance(proc.forward(store).prev(), ReduceCursor):
        proc = reorder_stmts(proc, proc.forward(store).prev().expand(0, 1))
    return proc


def unroll_triangles(proc, blocks, newest_first):
    """The small triangles of each block of rows (the loops of `blocks`'
    body along a row part of fewer than `r` elements, `seq(i - k, i)`)
    unrolled: straight-line code, where the C compiler kept loops of 0 to
    3 iterations whose bounds it did not reduce, on the chain of the
    block's substitution (trsv). With `newest_first` (rows that run
    backwards, whose triangle starts next to the diagonal), each row's
    sums into one scalar are reversed: the entry of x the row before just
    solved comes last, so the other products do not wait for it."""
    for loop in list(proc.forward(blocks).body()):
        if isinstance(loop, ForCursor):
            proc = from_zero(proc, loop)
    proc = simplify(proc)  # the extents to literals (an empty loop goes)
    for loop in list(proc.forward(blocks).body()):
        if isinstance(loop, ForCursor) and isinstance(loop.hi(), LiteralCursor):
            proc = unroll_loop(proc, proc.forward(loop))
    if newest_first:
        for run in _scalar_sums(proc, proc.forward(blocks)):
            proc = reverse_stmts(proc, run)
    return proc


def _scalar_sums(proc, loop):
    """The runs of consecutive sums into one scalar in `loop`'s body."""

    def scalar(stmt):
        is_sum = isinstance(stmt, ReduceCursor) and not list(stmt.idx())
        return stmt.name() if is_sum else None

    runs = [list(run) for name, run in groupby(loop.body(), scalar) if name]
    return [run for run in runs if len(run) > 1]
