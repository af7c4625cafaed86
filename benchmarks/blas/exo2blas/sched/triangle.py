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
  `r`, jammed by `jam_row_blocks` (row_blocks.py: each row's loop cut into
  the small triangle next to the diagonal and the panel every row of the
  block visits, the panels jammed into one pass and vectorized, a vector
  all the rows update staged, the small triangles unrolled). The
  statements of each row before its panel run for the whole block before
  the pass, those after it after the pass, so the rows' dependences within
  the block (trmv, trsv: in place) must lie on one side: `panel_first`
  puts the panel before the triangle (trsv NoTrans, whose triangles read
  the entries of x the block solves; its panels read only entries solved
  before) or after it (trsv Trans, whose triangles update the entries the
  block solves next); by default the parts keep their order in the row.
  The last `n % r` rows are vectorized one at a time; fewer than `r` rows
  in all keep the naive loop.
"""

from __future__ import annotations

from exo2.API_cursors import (
    ForCursor,
    InvalidCursor,
    LiteralCursor,
)
from exo2.API_scheduling import (
    SchedulingError,
    cut_loop,
    user_op,
)
from exo2.stdlib.inspection import (
    expr_to_string,
    get_loop,
    get_loop_carried_reductions,
    is_contiguous_loop,
    is_literal,
    nlr_stmts,
)
from exo2.stdlib.stdlib import specialize_

from .by_variant import on_variant
from .level2 import from_zero, vectorize_loop, vectorize_update
from .row_blocks import jam_row_blocks, unroll_triangles


def _row_of(proc, loop):
    """The loop along a row in the body of the row loop `loop`."""
    body = loop.body()
    return next(
        s for s in body if isinstance(s, ForCursor) and is_contiguous_loop(proc, s)
    )


def _jam_rows(proc, loop, r, panel_first):
    """`jam_row_blocks` with each panel before the row's triangle or after
    it, as `panel_first` says; None: as in the row or, where the effect
    check refuses that order (trsv: a row would read an entry before the
    block writes it), on the other side."""
    row = _row_of(proc, loop)
    if panel_first is not None:
        before = isinstance(row.lo(), LiteralCursor)  # seq(0, i): the panel first
        return jam_row_blocks(proc, loop, row, r, reverse=panel_first != before)
    try:
        return jam_row_blocks(proc, loop, row, r)
    except SchedulingError:  # the side the row's order does not put it on
        return jam_row_blocks(proc, loop, row, r, reverse=True)


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
    columns outside the block (`jam_row_blocks`), the panel before each row's
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
        proc = unroll_triangles(
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


# by_triangle(loop=None, **options): the schedule that runs `triangle` with the
# variant's machine and precision (`kernel(..., schedule=by_triangle(...))`).
by_triangle = on_variant(triangle)
