"""`band`: the level-2 automation for a loop over the rows of a band
matrix (gbmv, sbmv, tbmv, tbsv in row-major band storage), whose inner
loops run over the band's diagonal offsets `d` with a guard that keeps
the row's column inside the matrix (`if i - kl + d >= 0 and i - kl + d <
n:`).

In the rows `first <= i < end` (solved from the guards, `_rows_inside`,
or named by `rows=(first, end)`) that guard holds for the whole band, so
the row loop is cut into a head (rows before `first`), a body of
constant band width and a tail (rows from `end`), under a `specialize`
on `first <= end` within the loop's bounds and a band of at least
`min_vectors` vectors (a short band is cut and clipped the same way but
stays scalar, `_scalar_rows`, except in gbmv, whose naive loop measured
faster; a band as wide as the matrix keeps the naive loop, except where
the rows past which it is empty are named, `empty_from`: gbmv's rows are
then cut where its band meets each edge and every band loop clipped,
`_wide`). The body's guards are dropped by `eliminate_dead_code`, which
proves them true there. Body rows that update y along a band of at most
a stride of `strides` are taken that stride apart where there are two
blocks of them or more (a wider stride only where the rows lie within a
core's L2); rows in order along a band of at most `SCALAR_UPDATE` update y
with scalars (`_interleave`). Otherwise a body whose only inner loop is
a band along a row (gbmv's NoTrans form, `A[i, d] * x[i - kl + d]`;
tbmv's NoTrans rows) or an update along it (tbmv's Trans rows) is a
dense row pass and goes to `rows` (four rows jammed); a substitution's
(tbsv: a row reads what the row before wrote) in blocks of four rows, as
`triangle` blocks trsv's (`_jam_substitution`); where exo2 refuses the
jam, and in sbmv (two loops a row), each unguarded band loop along a row
is vectorized in every body row, a dot product's last vector masked, an
update without one (`vectorize_update`), and an update that is a row's
only band loop, rows in order, with its vectors aligned (`_aligned`). In
a substitution the product through which a row depends on the row before
is cut off (`chain`, `_chain_apart`). Where a band may be shorter than a
vector (`min_vectors < 1`), a dot product's band of one vector is that
masked vector alone (`_one_vector`). A band loop that walked a diagonal
of the storage (`A[i - d, d]`) would have no unit stride in either loop:
the kernels' sources read rows instead (docs/blas-library.md), except
tbmv's `diagonals` helper for short Trans bands, which `diagonals`
(below) schedules. A band row must run forwards along the storage row
(`A[i, d]`, not `A[i, k - d]`): the lanes of a vector load ascend.

In the head and tail rows each guarded band loop is clipped to the
columns inside the matrix (`clip_loop_to_guard`) and vectorized, a loop
of varying length."""

from __future__ import annotations

from exo2.API_cursors import (
    AssignCursor,
    ForCursor,
    IfCursor,
    ReadCursor,
    ReduceCursor,
)
from exo2.API_scheduling import (
    FormattedExprStr,
    SchedulingError,
    cut_loop,
    delete_pass,
    divide_loop,
    eliminate_dead_code,
    reorder_loops,
    reorder_stmts,
    rewrite_expr,
    shift_loop,
    simplify,
    unroll_loop,
    user_op,
)
from exo2.stdlib.inspection import (
    expr_to_string,
    get_conjuncts,
    get_loop,
    get_loop_carried_reductions,
    get_symbols,
    is_contiguous_loop,
    lrn,
    nlr_stmts,
)
from exo2.stdlib.range_analysis import IndexRange, index_range_analysis
from exo2.stdlib.rc_wrappers import cut_loop_
from exo2.stdlib.stdlib import (
    attempt,
    clip_loop_to_guard,
    specialize_,
    unroll_and_jam,
    unroll_buffers,
)

from .by_variant import on_variant
from .level2 import from_zero, vectorize_loop, vectorize_update
from .row_blocks import jam_row_blocks, unroll_triangles
from .rows import rows as dense_rows
from .triangle import vectorize_row


def _guarded(loop):
    """Whether `loop`'s body is one `if` without `else` (a band guard)."""
    body = loop.body()
    return len(body) == 1 and isinstance(body[0], IfCursor) and not body[0].orelse()


def _band_loops(proc, scope):
    """The loops over the band in the body of the row loop `scope`."""
    return [s for s in nlr_stmts(proc, scope.body()) if isinstance(s, ForCursor)]


def _is(expr, text):
    """Whether the bound `expr` is the expression `text` (as `_text` writes
    it: `n - k`, `kl`, `0`)."""
    form = _form(expr)
    return form is not None and _text(form) == text


def _form(e):
    """The index expression `e` as an `IndexRange` of one value, affine in
    the names it reads (None for another form)."""
    r = index_range_analysis(e, {})
    r = IndexRange.create_int(r, r) if isinstance(r, int) else r
    return None if r.base is None else r


def _text(form):
    """An affine form as an expression, its positive terms first: `n - k`."""
    base = dict(sorted(form.base.items(), key=lambda term: term[1] < 0))
    return IndexRange(base, form.lo, form.hi).get_bounds()[0]


def _rows_inside(proc, loop):
    """`(first, end)`: the rows of `loop` (iterator `i`) in which every
    comparison of every band guard (`i + d >= r` or `i + d < r`, the band
    loop's iterator `d` with coefficient 1, `i` with 1 or -1) holds for
    every `d` of its band loop: where it holds at the band's first `d`
    (`>=`) or its last (`<`). A side no comparison bounds is the loop's."""
    i, sides = loop.name(), ([], [])
    for band_loop in [s for s in _band_loops(proc, loop) if _guarded(s)]:
        d, lo, hi = band_loop.name(), _form(band_loop.lo()), _form(band_loop.hi())
        for c in get_conjuncts(proc, band_loop.body()[0].cond()):
            op, lhs, rhs = c.op(), _form(c.lhs()), _form(c.rhs())
            diff = None if None in (lhs, rhs, lo, hi) else lhs - rhs
            sign = diff and diff.get_stride_of(i)
            solvable = op in (">=", "<") and sign in (1, -1)
            if not solvable or diff.get_stride_of(d) != 1:
                raise SchedulingError(f"band: name the rows; cannot solve {op} for {i}")
            # diff = sign * i + d + rest; at the worst d: sign * i + rest op 0
            worst = lo if op == ">=" else hi - 1
            rest = diff - IndexRange({i: sign, d: 1}, 0, 0) + worst
            lower = (op == ">=") == (sign == 1)  # i >= -rest, or i < rest + 1
            sides[0 if lower else 1].append(-rest if sign == 1 else rest + 1)
    rows = []
    for found, bound in zip(sides, (loop.lo(), loop.hi()), strict=True):
        texts = {_text(f) for f in found} or {_text(_form(bound))}
        if len(texts) != 1:
            raise SchedulingError(f"band: name the rows; the guards give {texts}")
        rows.append(texts.pop())
    return tuple(rows)


def _chain_apart(proc, loop, chain):
    """`(proc, rest, cut)`: in a substitution (tbsv), the iteration of the
    band loop `loop` that is on the chain from row to row, its `chain`
    iteration ("first" or "last"), cut off: a dot product's (the entry the
    row before just wrote) added after `rest`, the loop over the other
    entries; an update's (the entry the next row reads first) made before
    it. The row's other products then wait for nothing, the next row waits
    for one update, and `rest`'s vectors do not span the entry in flight (a
    vector load that spans a store in flight waits for it, even masked
    off). `cut` is False, `rest` is `loop`, without `chain` or where the
    band may be empty."""
    loop = proc.forward(loop)
    if chain is None:
        return proc, loop, False
    lo, hi = expr_to_string(loop.lo()), expr_to_string(loop.hi())
    at = f"{hi} - 1" if chain == "last" else f"{lo} + 1"
    try:
        proc, (before, after) = cut_loop_(proc, loop, at, rc=True)
    except SchedulingError:
        return proc, loop, False  # a band that may be empty
    dot = bool(get_loop_carried_reductions(proc, proc.forward(before)))
    rest = before if chain == "last" else after
    if (chain == "first") == dot:  # the chain's iteration goes to the other end
        proc = reorder_stmts(proc, proc.forward(before).as_block().expand(0, 1))
    return proc, proc.forward(rest), True


def _aligned(proc, loop, lanes):
    """`(proc, rest)`: the update `loop` (of y or x along a row's band) cut
    where the entry it updates reaches a multiple of `lanes` (its index in
    the array), the elements before left scalar and `rest` the loop from
    there: the vectors of consecutive rows, whose bands are one element
    apart, then cover the same entries, and a row's vector load is
    forwarded from the row before's vector store. Unaligned, it spans two
    of them and waits until they leave the core (the upper Trans stbsv with
    k = 64, n = 1024 on the AMD EPYC Zen 4 machine, in C: 9.4 us unaligned,
    6.4 us aligned; tbmv and gbmv Trans gain too). Not after a dot
    product along the same row (sbmv): the row's sum leaves the stores
    time to leave, and the scalars cost more (ssbmv_u, k = 64, n = 1024:
    12.0 us unaligned, 13.4 us aligned). `loop` itself where its band may
    be shorter than `lanes - 1` elements."""
    loop = proc.forward(loop)
    name = loop.name()
    writes = [
        s
        for s in nlr_stmts(proc, loop.body())
        if isinstance(s, (AssignCursor, ReduceCursor))
        and list(s.idx())
        and name in {str(v) for v in get_symbols(proc, s.idx()[-1])}
    ]
    if len(writes) != 1:
        return proc, loop
    lo = expr_to_string(loop.lo())
    first = expr_to_string(writes[0].idx()[-1], {name: lo})
    at = f"{lo} + ({lanes} - ({first}) % {lanes}) % {lanes}"
    try:
        proc, (_, rest) = cut_loop_(proc, loop, at, rc=True)
    except SchedulingError:
        return proc, loop
    return proc, proc.forward(rest)


def _edge_rows(proc, rows_loop, m, prec, chain=None):
    """Vectorizes for machine `m` (None: leaves scalar) the contiguous band
    loops of `rows_loop`, rows whose band crosses the matrix's edge, each
    clipped to the columns inside it (`clip_loop_to_guard`), its product on
    the chain apart (`_chain_apart`); one that cannot be clipped stays
    guarded and scalar."""
    parts = [proc.forward(rows_loop)]
    if chain is not None:
        # the first and the last row alone, where the band may be empty
        # (tbsv's first row has no row before it, its Trans variants' last
        # row no row after it): the other rows' bands are not
        for at in ("{lo} + 1", "{hi} - 1"):
            rest = proc.forward(parts[-1])
            lo, hi = expr_to_string(rest.lo()), expr_to_string(rest.hi())
            try:
                proc, pair = cut_loop_(proc, rest, at.format(lo=lo, hi=hi), rc=True)
            except SchedulingError:
                continue
            parts = parts[:-1] + list(pair)
    band_loops = [s for part in parts for s in _band_loops(proc, proc.forward(part))]
    for band_loop in band_loops:
        band_loop = proc.forward(band_loop)
        if not (_guarded(band_loop) and is_contiguous_loop(proc, band_loop)):
            continue
        try:
            proc, (clipped,) = clip_loop_to_guard(proc, band_loop, rc=True)
        except SchedulingError:
            continue
        proc, clipped, peeled = _chain_apart(proc, clipped, chain)
        if m is not None and (peeled or chain is None):  # not an empty band
            proc = vectorize_row(proc, clipped, m, prec)
    return proc


def _shortest(m, prec, min_vectors):
    """The elements in `min_vectors` vectors, at least one (a band of at
    least one element has a last vector to mask; tbmv's empty one, k = 0,
    does not)."""
    return max(1, int(min_vectors * m.lanes[prec]))


def _specialized(proc, loop, conds, exprs, shortest):
    """`(proc, inside)`: `specialize` of `loop` on `conds` (with the holes
    `exprs`) and each contiguous guarded band loop at least `shortest`
    elements long; `inside` the `if`, its `else` the loop as it was."""
    conds, exprs = list(conds), list(exprs)
    for band_loop in _band_loops(proc, loop):
        if _guarded(band_loop) and is_contiguous_loop(proc, band_loop):
            conds.append(f"{shortest} <= _ - _")
            exprs += [band_loop.hi(), band_loop.lo()]
    cond = FormattedExprStr(" and ".join(conds), *exprs)
    proc, (inside,) = specialize_(proc, loop, cond, rc=True)
    return proc, inside


def _cut_rows(proc, loop, cuts):
    """`(proc, parts)`: the row loop `loop` cut at each of `cuts` (in
    order) that is not already one of its bounds."""
    parts, rest = [], proc.forward(loop)
    for cut in cuts:
        if _is(rest.lo(), cut):
            continue
        if _is(rest.hi(), cut):
            break
        proc = cut_loop(proc, rest, cut)
        parts.append(proc.forward(rest))
        rest = proc.forward(rest).next()
    return proc, [proc.forward(p) for p in parts] + [proc.forward(rest)]


def _wide(proc, loop, m, prec, first, end, empty_from, min_vectors):
    """Vectorizes the naive row loop `loop` where the band is wider than
    the matrix (`end <= first`: no row holds its whole band): the rows cut
    at `end` and `first`, the band loops of each part clipped at the
    matrix's edges (`_edge_rows`). Other cases keep the naive loop."""
    lo, hi = loop.lo(), loop.hi()
    conds = [f"_ <= {end}", f"{end} <= {first}", f"{first} <= _"]
    exprs = [lo, hi]
    if empty_from is not None:
        conds, exprs = conds + [f"_ <= {empty_from}"], exprs + [hi]
    shortest = _shortest(m, prec, min_vectors)
    proc, inside = _specialized(proc, loop, conds, exprs, shortest)
    proc, parts = _cut_rows(proc, inside.body()[0], [end, first])
    for part in parts:
        proc = _edge_rows(proc, part, m, prec)
    return proc


def _vector_loops(proc, rows_loop):
    """The unguarded band loops along a row in `rows_loop`'s body."""
    loops = _band_loops(proc, proc.forward(rows_loop))
    return [s for s in loops if not _guarded(s) and is_contiguous_loop(proc, s)]


# Rows in order that update y along a band of at most this many elements
# update it with scalars (`_interleave`): a vector load spanning the row
# before's vector store waits until that store retires, which costs more
# than this many scalar products. Rows in order, AVX-512 on Zen 4, vector /
# scalar updates: dsbmv with k = 7 (8 elements), n = 32: 231 / 151 ns;
# sgbmv Trans with kl = ku = 4 (9), n = 32: 228 / 158 ns; ssbmv with k = 15
# (16), n = 32: 270 / 419 ns (docs/blas-library.md).
SCALAR_UPDATE = 12


# Rows of a band longer than the first of `strides` are taken a wider
# stride apart only where the rows' stored bands hold at most this many
# bytes: they then lie in a core's L2 (1 MiB on the AMD EPYC Zen 4 and Zen
# 5 machines), and past it rows far apart defeat the prefetcher. Upper
# dsbmv with k = 64, in order / 128 apart, AVX-512 on Zen 5: n = 1024
# (0.5 MiB) 13.5 / 11.8 us; n = 4096 (2 MiB) 54.7 / 71.0 us.
L2_BYTES = 1 << 20


def _interleave(proc, body, strides, prec):
    """`(proc, row_loops, short)`: where the band is at most `stride`
    long (the first of `strides`) and there are at least two blocks of
    `stride` rows, the body rows `body` (from 0) taken `stride` apart (`i =
    stride * io + ii`, `io` inner) and the remainder after them in order;
    each wider stride of `strides` does the same for the bands longer than
    the stride before it, where the rows' bands hold at most `L2_BYTES`
    (elements of `prec`); a band longer than the last keeps its rows in
    order. Each row adds into the entries of y the next rows add into too;
    a vector load that spans a store in flight is not forwarded, it waits
    for the store to retire: rows `stride` apart touch disjoint entries.
    exo2 reorders the rows only where they commute (their writes are
    reductions). `row_loops`: the loops of rows whose updates are
    vectorized, the longest band's rows last; `short`: the short band's
    rows that run in order (the remainder, and every row where there are
    fewer than two blocks) where the band is at most
    `SCALAR_UPDATE` long, whose updates the caller leaves scalar: in
    order, a vector update waits for the row before's, and a few scalar
    products cost less."""
    proc, row_loops, short, rows = from_zero(proc, body), [], [], body
    for tier, stride in enumerate(strides):
        proc, narrow, rows = _band_at_most(proc, rows, stride)
        conds, exprs = [f"{2 * stride} <= _ - _"], [narrow.hi(), narrow.lo()]
        if tier:  # and the rows' bands within L2_BYTES (f32: 32 bits)
            band_loop = _vector_loops(proc, narrow)[0]
            conds.append(f"(_ - _) * (_ - _) <= {L2_BYTES * 8 // int(prec[1:])}")
            exprs += [narrow.hi(), narrow.lo(), band_loop.hi(), band_loop.lo()]
        # the body's band loops are unguarded: no condition on their length
        proc, blocked = _specialized(proc, narrow, conds, exprs, 1)
        narrow, few = blocked.body()[0], blocked.orelse()[0]
        name = narrow.name()
        proc = divide_loop(proc, narrow, stride, [f"{name}o", f"{name}i"], tail="cut")
        rest = proc.forward(narrow).next()
        proc = reorder_loops(proc, proc.forward(narrow))
        row_loops += [narrow, rest, few] if tier else [narrow]  # tier: vectors
        for ordered in () if tier else (rest, few):
            proc, scalar, vector = _band_at_most(proc, ordered, SCALAR_UPDATE)
            short.append(scalar)
            row_loops.append(vector)
    row_loops.append(rows)  # last: the longest band's rows
    return proc, [proc.forward(r) for r in row_loops], [proc.forward(r) for r in short]


def _band_at_most(proc, rows, width):
    """`(proc, at_most, longer)`: the row loop `rows` specialized on its
    first band loop along a row being at most `width` long: the copy where
    it is, and the copy where it is longer."""
    band_loop = _vector_loops(proc, rows)[0]
    cond = FormattedExprStr(f"_ - _ <= {width}", band_loop.hi(), band_loop.lo())
    proc, (choice,) = specialize_(proc, rows, cond, rc=True)
    return proc, choice.body()[0], choice.orelse()[0]


def _one_vector(proc, vector_loop, width, lanes):
    """Where a dot product's band, `width` long, fits in one vector, its
    vectorized loops (`vector_loop` over whole vectors, then the masked
    last one) become the masked vector alone: a loop whose bounds are
    computed per row costs more than the row's few products. The `if` on
    the band's width goes where the rows decide it (a band of 16 or less
    in AVX-512's 16 lanes of f32; one of more than 16 in AVX2's 8)."""
    vector_loop = proc.forward(vector_loop)
    block = vector_loop.as_block().expand(0, 1)
    proc, (choice,) = specialize_(proc, block, f"{width} <= {lanes}", rc=True)
    empty, last = choice.body()[0], choice.body()[1]
    proc = rewrite_expr(proc, empty.hi(), "0")
    proc = eliminate_dead_code(proc, proc.forward(empty))
    proc = rewrite_expr(proc, proc.forward(last).lo(), "0")
    proc = rewrite_expr(proc, proc.forward(last).hi(), "1")
    proc = unroll_loop(proc, proc.forward(last))
    proc = attempt(eliminate_dead_code)(proc, proc.forward(choice))
    return simplify(proc)


def _cut_rows_at_edges(proc, loop, rows, shortest, empty_from=None):
    """`(proc, naive, body, edges, unguarded)`: the row loop `loop`, under
    a `specialize` (`_specialized`) on the rows `seq(first, end)` lying
    inside its bounds (and before `empty_from`) and its band loops being
    at least `shortest` elements long (`naive`: the `else`, the loop as it
    was), cut into those rows (`body`) and the head and tail rows
    (`edges`), the guards of the body's band loops dropped where its rows
    make them true; `unguarded`: those of its band loops along a row."""
    first, end = rows
    conds, exprs = [f"{first} <= {end}"], []
    if not _is(loop.lo(), first):
        conds, exprs = [f"_ <= {first}", *conds], [loop.lo()]
    if not _is(loop.hi(), end):
        conds, exprs = conds + [f"{end} <= _"], exprs + [loop.hi()]
    if empty_from is not None:
        conds, exprs = conds + [f"_ <= {empty_from}"], exprs + [loop.hi()]
    proc, inside = _specialized(proc, loop, conds, exprs, shortest)
    naive, loop = inside.orelse()[0], inside.body()[0]
    proc, parts = _cut_rows(proc, loop, rows)
    body = next(p for p in parts if _is(p.lo(), first))
    edges = [p for p in parts if p != body]
    unguarded = []
    for band_loop in _band_loops(proc, body):
        band_loop = proc.forward(band_loop)
        if not _guarded(band_loop):
            continue
        try:
            proc = eliminate_dead_code(proc, band_loop.body()[0])  # the guard
        except SchedulingError:
            continue  # a guard the body's rows do not make true stays
        band_loop = proc.forward(band_loop)
        if not _guarded(band_loop) and is_contiguous_loop(proc, band_loop):
            unguarded.append(band_loop)
    edges = [proc.forward(e) for e in edges]
    return proc, proc.forward(naive), proc.forward(body), edges, unguarded


def _scalar_rows(proc, loop, rows, chain):
    """The naive row loop `loop` (a band shorter than `min_vectors`
    vectors) cut into rows as the vectorized one is, the body's guards
    dropped and the edge rows' band loops clipped (`_edge_rows`), scalar,
    and with `chain` each row's product on the chain apart
    (`_chain_apart`) and the body's rows two a pass (`_rows_in_pairs`).
    A guard in the inner loop cost more than the few
    products it guarded (stbmv_unu, k = 4, n = 512, on the AMD EPYC Zen 4
    machine: 1.41 us naive, 0.65 us clipped), and upper tbsv's naive row
    added the entry the row before wrote first, every later product
    waiting for it. A band of two elements or more, or the naive loop
    stays."""
    proc, _, body, edges, unguarded = _cut_rows_at_edges(proc, loop, rows, 2)
    for band_loop in unguarded:
        proc, _, _ = _chain_apart(proc, band_loop, chain)
    if chain is not None:
        proc = _rows_in_pairs(proc, body)
    for edge in edges:
        proc = _edge_rows(proc, edge, None, None, chain)
    return simplify(proc)


def _rows_in_pairs(proc, loop):
    """The rows of `loop` two a pass, unrolled (no reordering: the rows
    run in their order). In a substitution the C compiler reloads the
    entry of x the row before stored, for the product on the chain, and
    the chain waits for the store to be forwarded; in a pass of two rows
    it keeps the first row's entry in a register for the second. stbsv_lnu
    with k = 4 and 1024 rows: 4.1 ns a row in one, 2.8 ns in pairs (MKL
    3.3 ns; AVX-512 on the AMD EPYC Zen 4 machine)."""
    proc = from_zero(proc, loop)
    loop = proc.forward(loop)
    name = loop.name()
    proc = divide_loop(proc, loop, 2, [f"{name}o", f"{name}i"], tail="cut")
    return unroll_loop(proc, proc.forward(loop).body()[0])


def _jam_substitution(proc, body, band_loop, m, prec, chain, r):
    """`(proc, rest_loops)`: the body rows `body` of a substitution (tbsv)
    in blocks of `r`, as `triangle` blocks trsv's rows (`jam_row_blocks`):
    the band loop `band_loop` runs over x's columns (`shift_loop`), each
    row's is cut at both ends of the columns every row of the block
    visits, the panels jammed into one pass (an update of x staged in a
    register, with its vectors aligned, `_aligned`; a dot product in `r`
    vector sums) and vectorized, the two small triangles unrolled.
    The triangle next to the block's rows (above them in an upper band)
    runs before the pass in an update, after it in a dot product: it
    writes, or reads, the entries of x the block solves. A pass of x loads
    and stores each vector once for `r` rows (stbsv upper Trans unit, k =
    64, n = 1024, AVX-512 on the AMD EPYC Zen 4 machine: 8.16 -> 7.19 us,
    MKL 6.4 us; by hand in C 4.9 us; docs/blas-library.md). `rest_loops`: the
    band loops of the last `n % r` rows, one at a time."""
    band_loop = proc.forward(band_loop)
    d = band_loop.name()
    dot = bool(get_loop_carried_reductions(proc, band_loop))
    # the column: the index of the vector (one index) the band loop walks
    column = next(
        e.idx()[0]
        for e in lrn(proc, band_loop.body())
        if isinstance(e, ReadCursor | ReduceCursor) and len(e.idx()) == 1
        and d in {str(v) for v in get_symbols(proc, e.idx()[0])}
    )  # fmt: skip
    first = expr_to_string(column, {d: expr_to_string(band_loop.lo())})
    proc = shift_loop(proc, band_loop, first)
    # the triangle next to the block (the low one in an upper band) goes
    # before the pass in an update, after it in a dot product
    reverse = dot == (chain == "first")  # low, panel, high -> high, panel, low
    proc, panel, rest = jam_row_blocks(proc, body, band_loop, r, reverse)
    if dot:
        proc = vectorize_row(from_zero(proc, panel), panel, m, prec, chain == "first")
    else:
        proc, panel = _aligned(proc, panel, m.lanes[prec])
        proc, _ = vectorize_update(from_zero(proc, panel), panel, m, prec)
    blocks = proc.forward(rest).prev()
    proc = unroll_triangles(proc, blocks, dot and chain == "first")
    return proc, _vector_loops(proc, proc.forward(rest))


@user_op
def band(
    proc, loop, m, prec, rows=None, r=4, min_vectors=1, empty_from=None, strides=(1,),
    chain=None,
):  # fmt: skip
    """Schedules `loop` (a cursor, its iterator's name, or None for the
    proc's one outermost loop), a loop over the rows of a band, for machine
    `m` in precision `prec`. `rows = (first, end)` (expressions in the
    proc's parameters; by default solved from the guards, `_rows_inside`)
    are the rows whose band lies inside the matrix:
    there every band loop along a contiguous row of the storage is
    unguarded and vectorized; `r` rows are jammed when the band loop is
    the row's only loop (`rows`). A band shorter than `min_vectors`
    vectors keeps the naive loop: one masked vector and a horizontal sum
    per row cost more than a few scalar products (in a substitution, whose
    next row loads the x[i] just stored, `min_vectors=2` pays; a fraction
    of a vector is a number of lanes). Rows from `empty_from` (gbmv's
    `n + kl`), if given, have no column inside the matrix: the loop is
    scheduled where it ends before them, and where `end <= first` (a band
    wider than the matrix) every row's band loops are clipped (`_wide`).
    With `strides` (ascending) from more than 1, body rows that update y
    along a band of at most a stride are taken that stride apart
    (`_interleave`): a wider stride only where the rows lie within a core's
    L2. In a substitution (tbsv), `chain` ("first" or "last") names the
    band loop's iteration through which each row depends on the one
    before: a dot product adds it last, an update makes it first
    (`_chain_apart`), and a band too short to vectorize is clipped and
    scalar, two rows a pass (`_scalar_rows`; other bands too, unless rows
    are cut at `empty_from`)."""
    if chain not in (None, "first", "last"):
        raise SchedulingError(f"chain is 'first', 'last' or None, not {chain!r}")
    loop = get_loop(proc, loop)
    rows = rows or _rows_inside(proc, loop)
    first, end = rows
    name = loop.name()
    if not any(_guarded(s) for s in _band_loops(proc, loop)):
        raise SchedulingError(f"the loop over {name} has no guarded band loop")
    shortest = _shortest(m, prec, min_vectors)
    proc, naive, body, edges, unguarded = _cut_rows_at_edges(
        proc, loop, rows, shortest, empty_from
    )
    if not unguarded:
        raise SchedulingError(
            f"no band loop along a row is unguarded in the rows "
            f"seq({first}, {end}) of the loop over {name}"
        )
    if empty_from is None:
        proc = _scalar_rows(proc, naive, rows, chain)
    proc = simplify(proc)
    body = proc.forward(body)
    for band_loop in unguarded:
        proc = from_zero(proc, band_loop)
    # the edge rows first: vectorizing checks the whole proc, smaller before
    # the body's rows are
    for edge in edges:
        proc = _edge_rows(proc, edge, m, prec, chain)
    jammed = interleaved = False
    # updates in consecutive rows, a row's only band loop (not sbmv's)
    in_order = unguarded if len(unguarded) == 1 else []
    updates = not all(get_loop_carried_reductions(proc, s) for s in unguarded)
    if strides[0] > 1 and updates:
        # rows that update y along the band
        try:
            proc, row_loops, short = _interleave(proc, body, strides, prec)
            unguarded = [s for rl in row_loops for s in _vector_loops(proc, rl)]
            short_loops = [s for rl in short for s in _vector_loops(proc, rl)]
            # the updates stay scalar
            unguarded += [
                s for s in short_loops if get_loop_carried_reductions(proc, s)
            ]
            in_order = in_order and _vector_loops(proc, row_loops[-1])
            interleaved = True
        except SchedulingError:
            pass  # rows that do not commute stay in order
    if not interleaved and len(_band_loops(proc, body)) == 1 and r > 1:
        # a dense row pass; not in a substitution (tbsv), whose row reads
        # what the row before wrote: exo2 refuses the jam
        proc, jammed = attempt(dense_rows)(
            from_zero(proc, body), body, m, prec, r=r, rs=True
        )
    if chain is not None and r > 1 and len(unguarded) == 1:
        # a substitution's rows in blocks (`_jam_substitution`)
        try:
            proc, unguarded = _jam_substitution(
                from_zero(proc, body), body, unguarded[0], m, prec, chain, r
            )
            in_order = unguarded
        except SchedulingError:
            pass  # rows one at a time
    if not jammed:
        for band_loop in unguarded:
            # a dot product ends with a masked vector (its scalar tail would
            # wait on the sum), an update without one (`vectorize_update`):
            # a masked store spans a whole vector, and the row's next load
            # of y (lower sbmv's y[i], just past its band) waited for it
            band_loop = proc.forward(band_loop)
            align = any(band_loop == proc.forward(s) for s in in_order)
            proc, band_loop, _ = _chain_apart(proc, band_loop, chain)
            if not get_loop_carried_reductions(proc, band_loop):
                if align:
                    proc, band_loop = _aligned(proc, band_loop, m.lanes[prec])
                proc = from_zero(proc, band_loop)
                proc, _ = vectorize_update(proc, band_loop, m, prec)
                continue
            if chain == "last":
                # scalars first: the vectors end before the chain product
                proc = vectorize_row(proc, band_loop, m, prec, scalars_first=True)
                continue
            proc = from_zero(proc, band_loop)
            width = expr_to_string(proc.forward(band_loop).hi())  # from 0
            proc, vector_loop = vectorize_loop(
                proc, band_loop, m, prec, "cut_and_predicate"
            )
            if min_vectors < 1:
                proc = _one_vector(proc, vector_loop, width, m.lanes[prec])
    if empty_from is not None:
        proc = _wide(proc, naive, m, prec, first, end, empty_from, min_vectors)
    return delete_pass(proc)  # the emptied parts of the clipped band loops


@user_op
def diagonals(proc, loop, m, prec, rows, r=4):
    """Schedules `loop` (as `band` names it), a loop over the entries of x
    that sums each one's band along a diagonal of the storage (tbmv's
    `diagonals`: `acc += A[j - d, d] * x[j - d]`, no unit stride in either
    loop): in the rows `rows = (first, end)`, whose band lies inside the
    matrix, the guards are dropped and `r` rows are jammed, their sums
    side by side (a row's sum is a chain of dependent products; jammed,
    `r` chains are in flight and the band loop's bounds and branch are paid
    once for `r` rows); the band loops of the edge rows, and of every row
    where the band is wider than the matrix, are clipped to it. Scalar: a
    vector over rows would gather A (`m` and `prec`, unused, keep
    `band`'s signature)."""
    loop = get_loop(proc, loop)
    # its band loops are along diagonals: no band's length is specialized on
    proc, naive, body, edges, _ = _cut_rows_at_edges(proc, loop, rows, 1)
    for edge in [*edges, naive]:
        for band_loop in _band_loops(proc, proc.forward(edge)):
            if _guarded(proc.forward(band_loop)):
                proc = attempt(clip_loop_to_guard)(proc, proc.forward(band_loop))
    if r > 1:
        proc = unroll_and_jam(from_zero(proc, body), body, r)
        proc = unroll_buffers(proc, proc.forward(body).body())
    return delete_pass(simplify(proc))


# by_band(loop=None, **options): the schedule that runs `band` with the
# variant's machine and precision (`kernel(..., schedule=by_band(...))`);
# by_diagonals the same for `diagonals`.
by_band = on_variant(band)
by_diagonals = on_variant(diagonals)
