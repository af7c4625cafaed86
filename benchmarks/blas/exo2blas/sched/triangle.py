"""`triangle`: the level-2 automation for a loop over the rows of a
triangle (symv, syr, syr2, trmv, trsv), whose inner loop runs along part
of a row, with bounds that depend on the row (`for j in seq(i, n)`), so
rows cannot be jammed whole as `rows` jams them.

- Every inner loop along contiguous memory (a dot product with a row of
  A, an update of a vector or of a row of A, or both: symv) is vectorized
  without a masked vector: an update alone as `vectorize_update` ends it
  (whole vectors, a narrower one, scalars), a loop with a dot product with
  whole vectors and then scalars; with `narrower=True` (symv's large
  matrices), a vector of the machine's narrower machine before the scalars
  (after them where they come first) in the loops with a dot product too.
  With `masked_updates=True` (syr, syr2: one row at a time) and mask
  registers (AVX-512), an update of a row ends with one masked vector
  where the row's end moves with the row, and starts with it where the
  start does: a lower row's whole vectors from column 0, then the masked
  one; an upper row's masked vector first, over the suffix of its lanes
  (`vectorize_loop`'s `head`), its whole vectors aligned to the row's end.
- With `r > 1` (4 by default), rows (ascending or descending) in blocks of
  `r`: each row's loop is cut into the small triangle next to the diagonal
  (scalar, fewer than `r` elements) and a panel of the columns that every
  row of the block visits; the panels are jammed into one pass (a vector of
  x or y loaded once for `r` rows, `r` independent fused multiply-adds) and
  vectorized. The statements of each row before its panel run for the whole
  block before the pass, those after it after the pass, so the rows'
  dependences within the block (trmv, trsv: in place) must lie on one side:
  `panel_first` puts the panel before the triangle (trsv NoTrans, whose
  triangles read the entries of x the block solves; its panels read only
  entries solved before) or after it (trsv Trans, whose triangles update the
  entries the block solves next); by default the parts keep their order in
  the row. The effect check refuses an order whose rows would read an entry
  before the block writes it. Where the rows all update one vector (symv's
  y[j], trmv's and trsv's Trans x[j]), its element is staged in a register
  across the rows: loaded and stored once per pass. Where a row also sums a
  dot product in the pass (symv), an element of A that it both updates y
  with and sums with is loaded into one register for both (unless the pass
  writes it between the two), and y's element stored before the dot
  products. The last `n % r` rows are vectorized one at a time; fewer than
  `r` rows in all keep the naive loop.
"""

from __future__ import annotations

from contextlib import suppress
from itertools import groupby

from exo2.API_cursors import (
    AssignCursor,
    ForCursor,
    InvalidCursor,
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
    user_op,
)
from exo2.stdlib.inspection import (
    expr_to_string,
    get_loop,
    get_loop_carried_reductions,
    is_contiguous_loop,
    is_literal,
    lrn,
    nlr_stmts,
)
from exo2.stdlib.range_analysis import index_range_analysis
from exo2.stdlib.stdlib import (
    interleave_outer_loop_with_inner_loop,
    specialize_,
    unroll_buffers,
)

from .by_variant import on_variant
from .level2 import from_zero, vectorize_loop, vectorize_update


def _panel_edge(row, lane, r, before):
    """Where the panel of `row` (a row's loop in the block of rows `lane` in
    [0, r)) begins (or ends, `before`): the columns that every row of the
    block visits, whether the rows ascend (`seq(i + 1, n)`) or descend
    (`seq(n - ii, n)`): the largest lower bound, or the smallest upper."""
    bound = index_range_analysis(row.hi() if before else row.lo(), {lane: (0, r - 1)})
    edge = bound.lo if before else bound.hi
    terms = [f"{c} * {v}" for v, c in bound.base.items()] + [str(edge)]
    return " + ".join(terms)


def _row_panels(proc, loop, r, panel_first=None):
    """Rows in blocks of `r`, each row's loop cut at the block, its panel
    put first or last (`panel_first`), and the panels jammed, its shared
    update staged and its loads shared (`_share_loads`; module docstring).
    Returns `(proc, panel, rest)`: the jammed loop and the loop over the
    last `n % r` rows."""
    name = loop.name()
    row = _row_of(proc, loop)
    proc = divide_loop(proc, loop, r, [f"{name}o", f"{name}i"], tail="cut")
    proc = simplify(proc)
    blocks = proc.forward(loop)
    row = proc.forward(row)
    before = isinstance(row.lo(), LiteralCursor)  # seq(0, i): the panel first
    proc = cut_loop(proc, row, _panel_edge(row, f"{name}i", r, before))
    proc = simplify(proc)
    row = proc.forward(row)  # the first part
    panel = row if before else row.next()
    if panel_first is not None and panel_first != before:
        proc = reorder_stmts(proc, row.expand(0, 1))
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


def _row_of(proc, loop):
    """The loop along a row in the body of the row loop `loop`."""
    body = loop.body()
    return next(
        s for s in body if isinstance(s, ForCursor) and is_contiguous_loop(proc, s)
    )


def _jam_rows(proc, loop, r, panel_first):
    """`_row_panels` with each panel where `panel_first` puts it; None: as
    in the row or, where the effect check refuses that order (trsv: a row
    would read an entry before the block writes it), on the other side."""
    if panel_first is not None:
        return _row_panels(proc, loop, r, panel_first)
    try:
        return _row_panels(proc, loop, r, None)
    except SchedulingError:  # the side the row's order does not put it on
        before = isinstance(_row_of(proc, loop).lo(), LiteralCursor)
        return _row_panels(proc, loop, r, not before)


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


def vectorize_row(
    proc, loop, m, prec, scalars_first=False, narrower=False, masked_updates=False
):
    """Vectorizes `loop`, an inner loop along a row: a dot product with
    whole vectors, then scalars (its row part may be empty, `seq(i + 1,
    n)`, with no last vector to mask); an update as `vectorize_update` ends
    it, with no masked store (the next row's load would wait for it). With
    `scalars_first`, the scalars come first, whole vectors after them. With
    `narrower`, a vector of the machine's `narrower` machine (where it has
    one) takes up to half of what were scalars, between them and the whole
    vectors. With `masked_updates` on a machine with mask registers, an
    update has one masked vector at the end of the row that moves with it
    (module docstring) instead of a narrower vector and scalars."""
    loop = proc.forward(loop)
    narrow = m.narrower if narrower else None
    if masked_updates and m.masking and not get_loop_carried_reductions(proc, loop):
        # the end that does not move with the row (upper: n) keeps the
        # whole vectors aligned; the other ends with the masked vector
        tail = "cut_and_predicate" if is_literal(proc, loop.lo(), 0) else "head"
        proc = from_zero(proc, loop)
        return vectorize_loop(proc, loop, m, prec, tail)[0]
    if scalars_first:
        lo, hi = expr_to_string(loop.lo()), expr_to_string(loop.hi())
        part = f"({hi} - ({lo})) % {m.lanes[prec]}"
        proc = cut_loop(proc, loop, f"{lo} + {part}")
        scalars = proc.forward(loop)
        loop = scalars.next()
        if narrow is not None:
            proc = cut_loop(proc, scalars, f"{lo} + {part} % {narrow.lanes[prec]}")
            head = proc.forward(scalars).next()
            proc = from_zero(proc, head)
            proc = vectorize_loop(proc, head, narrow, prec, "perfect")[0]
        proc = from_zero(proc, loop)
        return vectorize_loop(proc, loop, m, prec, "perfect")[0]
    proc = from_zero(proc, loop)
    if not get_loop_carried_reductions(proc, loop):
        return vectorize_update(proc, loop, m, prec)[0]
    proc, vector_loop = vectorize_loop(proc, loop, m, prec, "cut")
    if narrow is None:
        return proc
    rest = proc.forward(vector_loop).next()
    while not isinstance(rest, ForCursor):
        if isinstance(rest, InvalidCursor):  # whole vectors only
            return proc
        rest = rest.next()
    proc = from_zero(proc, rest)
    return vectorize_loop(proc, rest, narrow, prec, "cut")[0]


FEWEST_ROWS = 4


@user_op
def triangle(
    proc, loop, m, prec, r=4, panel_first=None, narrower=False, masked_updates=False
):
    """Schedules `loop` (a cursor, its iterator's name, or None for the
    proc's one outermost loop), a loop over rows, for machine `m` in
    precision `prec`: with `r > 1`, blocks of `r` rows jammed along the
    columns outside the block (`_row_panels`), the panel before each row's
    triangle or after it as `panel_first` says (None: as in the row where
    the effect check accepts that, else on the other side, `_jam_rows`);
    every loop that runs along a row (`is_contiguous_loop`) vectorized,
    with a narrower vector before its scalars with `narrower`, an update
    with one masked vector with `masked_updates` (`vectorize_row`)."""
    loop = get_loop(proc, loop)
    # fewer rows than a block, or than FEWEST_ROWS, keep the naive loop: the
    # bounds of the vector loops cost more than their few products (ssyr_u
    # of one row took 14.9 ns blocked, 15.1 ns one row at a time, 12.9 ns
    # naive, on the AMD EPYC Zen 4 machine)
    lo, hi = expr_to_string(loop.lo()), expr_to_string(loop.hi())
    n = hi if is_literal(proc, loop.lo(), 0) else f"{hi} - ({lo})"  # the rows
    fewest = max(r, FEWEST_ROWS)
    proc, (many,) = specialize_(proc, loop, f"{fewest} <= {n}", rc=True)
    loop = rest = many.body()[0]
    if r > 1:
        proc, panel, rest = _jam_rows(proc, loop, r, panel_first)
        # a panel that starts next to the block (right of it) begins with
        # its scalars: its first elements are those the block's rows
        # just wrote one by one (trsv), and a vector load of them would
        # wait for those stores
        next_to_block = not is_literal(proc, panel.lo(), 0)
        proc = vectorize_row(
            proc, panel, m, prec, scalars_first=next_to_block, narrower=narrower
        )
        proc = _unroll_triangles(
            proc, proc.forward(rest).prev(), newest_first=next_to_block
        )
    parts = [(rest, masked_updates)]
    if masked_updates and m.masking:
        # rows shorter than a vector keep no masked vector: with a tight
        # leading dimension its span covers the next row, whose loads wait
        # for its store (ssyr of 8 rows, lower: 86 ns masked, 36 unmasked)
        proc, (wide,) = specialize_(proc, rest, f"{m.lanes[prec]} <= {n}", rc=True)
        parts = [(wide.body()[0], True), (wide.orelse()[0], False)]
    for part, masked in parts:
        for row in [
            s
            for s in nlr_stmts(proc, proc.forward(part).body())
            if isinstance(s, ForCursor) and is_contiguous_loop(proc, s)
        ]:  # the small triangles of the blocks stay scalar
            proc = vectorize_row(
                proc, row, m, prec, narrower=narrower, masked_updates=masked
            )
    return proc


def _unroll_triangles(proc, blocks, newest_first):
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
            for moves, stmt in enumerate(reversed(run[:-1]), start=1):
                for _ in range(moves):  # each one down past those after it
                    proc = reorder_stmts(proc, proc.forward(stmt).expand(0, 1))
    return proc


def _scalar_sums(proc, loop):
    """The runs of consecutive sums into one scalar in `loop`'s body."""

    def scalar(stmt):
        is_sum = isinstance(stmt, ReduceCursor) and not list(stmt.idx())
        return stmt.name() if is_sum else None

    runs = [list(run) for name, run in groupby(loop.body(), scalar) if name]
    return [run for run in runs if len(run) > 1]


# by_triangle(loop=None, **options): the schedule that runs `triangle` with the
# variant's machine and precision (`kernel(..., schedule=by_triangle(...))`).
by_triangle = on_variant(triangle)
