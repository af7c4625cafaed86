"""`skinny`: the level-2 automation for a matrix with a short dimension,
at most `max_vecs` vectors long. The short dimension is specialized by its
number of vectors (`specialize` on `(L - 1 + e) / L`: one copy of the
vectorized loop nest per count, with its vector loops unrolled, the last
vector masked), so that a vector used by every row lives in registers:

- the short dimension along the rows (gemv NoTrans with few columns, `acc
  += A[i, j] * x[j]`; ger with few columns, `A[i, j] += alpha * x[i] *
  y[j]`): each row is one vectorized pass, and the loads of the vector all
  rows share (x, or y) are hoisted out of the loop over rows: loaded once,
  kept in registers. On a machine with mask registers (AVX-512) gemv's
  rows go in blocks of `r` (`rows`: one pass per block, the rows' products
  and horizontal sums independent), then the rows left over one by one;
- the short dimension along the outputs of a loop down a column (gemv's
  Trans form with few outputs, `acc += A[j, i] * x[j]` over the many rows
  j): every vector of outputs keeps its sums in registers and the passes
  down the rows are fused into one (`fuse`): A is read once, row after
  row, and the sums never leave the registers, where `columns` loads and
  stores them in a stack buffer for every few rows. Each output still sums
  its products in the naive order.

The C layer calls the skinny kernels for the short shapes only
(`threshold`: `max_vecs` vectors of the precision)."""

from __future__ import annotations

from functools import partial

from exo2.API_cursors import (
    AllocCursor,
    CallCursor,
    ForCursor,
)
from exo2.API_scheduling import (
    SchedulingError,
    expand_dim,
    fission,
    fuse,
    lift_alloc,
    reorder_loops,
    reorder_stmts,
    replace,
    rewrite_expr,
    simplify,
    unroll_buffer,
    unroll_loop,
    user_op,
)
from exo2.stdlib.inspection import (
    get_loop,
    get_loop_carried_reductions,
    get_only_inner_loop,
    get_symbols,
    is_contiguous_loop,
    nlr_stmts,
)
from exo2.stdlib.stdlib import (
    hoist_stmt,
    inline_instr,
    move_to_top,
    specialize_,
)

from .by_variant import on_variant
from .level2 import vectorize_loop, vectorize_update
from .rows import rows as dense_rows

MAX_VECS = 10  # the vector and a few temporaries fit AVX2's 16 registers


def threshold(m, prec, max_vecs=MAX_VECS):
    """The longest short dimension the skinny kernels take: `max_vecs`
    vectors of `prec` on machine `m`."""
    return max_vecs * m.lanes[prec]


def _bound_name(proc, loop):
    hi = proc.forward(loop).hi()
    names = {str(v) for v in get_symbols(proc, hi)}
    if len(names) != 1:
        raise SchedulingError(
            f"skinny: the loop over {proc.forward(loop).name()} must run to a size"
        )
    return names.pop()


def _specialize(proc, block, count, counts, leaf):
    """`block` specialized by `count` (an expression: the number of vectors
    of the short dimension, or its length) over `counts`: one copy per
    count, `if ... elif ... else` (the last count the else branch; one
    count, `block` itself), the copy for each `k` then scheduled by
    `leaf(proc, stmts, k)`, `stmts` its statements."""
    if len(counts) == 1:
        stmts = [block] if isinstance(block, ForCursor) else list(block)
        return leaf(proc, stmts, counts[0])
    conds = [f"{count} == {k}" for k in counts[:-1]]
    proc, (branch,) = specialize_(proc, block, conds, rc=True)
    for k in counts[:-1]:
        proc = leaf(proc, list(proc.forward(branch).body()), k)
        orelse = proc.forward(branch).orelse()
        branch = orelse[0]  # the next count's `if` (unused after the last)
    return leaf(proc, list(orelse), counts[-1])


def _rows_leaf(proc, rows_loops, k, vector_name, masked):
    """The copy for `k` vectors along each row (whole ones, and with
    `masked` a masked last one among them) of each loop of `rows_loops`
    (rows jammed in blocks, then the rows left over): the loads that do not
    depend on the row (the shared vector) hoisted out of the loop over
    rows, and the loops over vectors unrolled. The loads of the whole
    vectors are hoisted as one loop over them (each vector a register of
    its own), so the number of steps does not grow with `k`. An update's
    narrower vector and scalars after its whole vectors stay in the loop.
    Every loop's bounds are set before `simplify`, which would fold the
    copy's count into the bounds of a loop not yet set."""
    hoisted = []
    for rows_loop in rows_loops:
        stmts = nlr_stmts(proc, proc.forward(rows_loop).body())
        loops = [
            s for s in stmts if isinstance(s, ForCursor) and s.name() == vector_name
        ]
        proc = _constant_bounds(proc, loops, k)
        whole = loops[0]
        count = k - masked  # whole vectors
        row = rows_loop.name()
        for call in list(proc.forward(rows_loop).body()):
            if isinstance(call, CallCursor) and _invariant_load(proc, call, row):
                proc = _hoist_load(proc, call)
        for call in list(proc.forward(whole).body()) if count > 0 else []:
            if isinstance(call, CallCursor) and _invariant_load(proc, call, row):
                proc, loads, whole, buffers = _hoist_vector_load(
                    proc, whole, call, count
                )
                hoisted.append((loads, buffers))
        proc = unroll_loop(proc, proc.forward(whole))
    for loads, _ in hoisted:
        proc = unroll_loop(proc, proc.forward(loads))
    proc = simplify(proc)  # literal indices (`0 + 0`) for unroll_buffer
    for _, buffers in hoisted:
        for alloc in buffers:
            proc = unroll_buffer(proc, proc.forward(alloc), 0)
    return proc  # simplified with the other leaves, by `skinny`


def _short_rows(proc, loop, short):
    """`if short < 4:` a copy of `loop` left scalar (one copy per row
    length, `_rows_by_length`), `else:` `loop`, returned for the vector
    schedule: a row of fewer than 4 elements costs less one by one than a
    masked vector, even with four rows' sums ended together (`rows`),
    which from 4 costs less (sgemv NoTrans of 1024 rows, AVX-512 on the
    AMD EPYC Zen 4 machine: 2 elements 0.76 us one by one, 1.17 us in
    vectors; 3: 1.05, 1.17; 4: 1.32, 1.17; of 40 rows of 6 elements: 85,
    51 ns)."""
    proc, (branch,) = specialize_(proc, loop, f"{short} < 4", rc=True)
    scalar = proc.forward(branch).body()[0]
    proc = _rows_by_length(proc, scalar, short, range(1, 4))
    return proc, proc.forward(branch).orelse()[0]


def _rows_by_length(proc, loop, short, lengths):
    """`loop` (rows of `short` elements, one by one) specialized by each of
    `lengths` (`_specialize`: `if short == 1: ... else: if short == 2:
    ...`, the loop as it was in the last `else`), the row's loop unrolled
    in each copy: a loop of a few elements pays its bounds and branch in
    every row (sgemv NoTrans of 40 rows of 1 / 2 elements: 55-68 / 52-60
    ns, 28-31 / 37-39 ns unrolled; AVX-512 on Zen 4)."""

    def unrolled(proc, stmts, k):
        if k is None:  # the last `else`: the loop as it was
            return proc
        row = get_only_inner_loop(proc, stmts[0])
        proc = rewrite_expr(proc, row.hi(), str(k))
        return unroll_loop(proc, proc.forward(row))

    return _specialize(proc, loop, short, [*lengths, None], unrolled)


def _invariant_load(proc, call, row):
    """Whether `call` is a load whose operands do not depend on `row`."""
    if "_load" not in call.subproc().name():
        return False
    used = {str(v) for a in call.args() for v in get_symbols(proc, a)}
    return row not in used


def _hoist_load(proc, call):
    """The load instruction `call` moved out of the loop around it:
    inlined (a loop of lane copies), hoisted (`hoist_stmt`), and replaced
    by the instruction again. (`hoist_stmt` refuses the call itself: the
    fission check does not see that a call writes the same value in every
    iteration.)"""
    proc, (stmt, instr) = inline_instr(proc, call, rc=True)
    proc = hoist_stmt(proc, stmt)
    return replace(proc, proc.forward(stmt), instr)


def _hoist_vector_load(proc, whole, call, count):
    """The load `call` in the body of `whole`, the loop over `count` whole
    vectors, moved out of the loop over rows around `whole` as a loop of
    its own over the vectors: its destination given one vector per
    iteration of `whole` (`expand_dim`) and lifted out, the load inlined,
    split off `whole` (`fission`), hoisted (`hoist_stmt`) and replaced by the
    instruction again. Returns `(proc, loads, rest, buffers)`: the new
    loop, the loop over vectors left in the loop over rows, and the
    allocations of the expanded destinations."""
    used = {str(v) for a in proc.forward(call).args() for v in get_symbols(proc, a)}
    body = proc.forward(whole).body()
    buffers = [s for s in body if isinstance(s, AllocCursor) and s.name() in used]
    for alloc in buffers:
        proc = expand_dim(proc, alloc, count, proc.forward(whole).name())
        proc = lift_alloc(proc, proc.forward(alloc))
    proc, (stmt, instr) = inline_instr(proc, call, rc=True)
    proc = move_to_top(proc, stmt)
    proc = fission(proc, proc.forward(stmt).after())
    loads = proc.forward(stmt).parent()
    rest = loads.next()
    proc = hoist_stmt(proc, loads)
    proc = replace(proc, proc.forward(stmt), instr)
    return proc, proc.forward(loads), proc.forward(rest), buffers


def _columns_leaf(proc, stmts, k):
    """The copy for `k` vectors of outputs: one pass down the rows that
    adds into all `k` accumulators. The loop over the whole vectors is
    split in three (zero the accumulators, the pass, the stores), its
    accumulator given one register per vector, and the pass moved inside
    the loop down the rows; the masked last vector's pass is fused into it
    and the loops over vectors unrolled: a constant number of steps,
    whatever `k`."""
    proc = _constant_bounds(proc, stmts, k)
    if k > 1:
        proc = _passes_inside_rows(proc, proc.forward(stmts[0]), k - 1)
    return proc  # simplified with the other leaves, by `skinny`


def _constant_bounds(proc, loops, k):
    """`loops`, over the vectors of a leaf with `k` of them (the whole
    vectors, `seq(0, (L - 1 + e) / L - 1)`, then the masked last one; or
    only whole ones, `seq(0, e / L)`), with the leaf's constants as
    bounds, the masked one unrolled (its one iteration)."""
    whole, *masked = loops
    proc = rewrite_expr(proc, proc.forward(whole).hi(), str(k - len(masked)))
    for last in masked:
        proc = rewrite_expr(proc, proc.forward(last).lo(), str(k - 1))
        proc = rewrite_expr(proc, proc.forward(last).hi(), str(k))
        proc = unroll_loop(proc, proc.forward(last))
    return proc


def _passes_inside_rows(proc, whole, count):
    """`whole`, the loop over `count` whole vectors of outputs (each:
    its accumulator, zeroed, a pass down the rows, the stores), followed by
    the masked last vector's statements, as: the accumulators zeroed, one
    pass down the rows for all, the stores."""
    acc = whole.body()[0]
    proc = expand_dim(proc, acc, count, whole.name())
    proc = lift_alloc(proc, proc.forward(acc))
    whole = proc.forward(whole)
    proc = fission(proc, whole.body()[0].after())  # after the zeroing
    passes = proc.forward(whole).next()
    proc = fission(proc, proc.forward(passes).body()[0].after())
    passes = proc.forward(passes)
    stores = passes.next()
    proc = reorder_loops(proc, passes)
    passes = proc.forward(stores).prev()  # now the loop down the rows
    # the last vector: its accumulator and zeroing above the pass and the
    # stores, its pass next to the pass, then fused into it
    last_acc = proc.forward(stores).next()
    for stmt in (last_acc, last_acc.next()):
        for _ in range(2):
            proc = reorder_stmts(proc, proc.forward(stmt).expand(1, 0))
    last_pass = proc.forward(stores).next()
    proc = reorder_stmts(proc, proc.forward(last_pass).expand(1, 0))
    proc = fuse(proc, proc.forward(passes), proc.forward(last_pass))
    zeros = proc.forward(passes).prev().prev().prev()
    for loop in (zeros, proc.forward(passes).body()[0], stores):
        proc = unroll_loop(proc, proc.forward(loop))
    return unroll_buffer(proc, proc.forward(acc), 0)


@user_op
def skinny(proc, loop, m, prec, max_vecs=MAX_VECS, r=4):
    """Schedules `loop` (a cursor or its iterator's name), a loop over rows
    whose body holds one inner loop, for machine `m` in precision `prec`,
    for a short dimension of at most `max_vecs` vectors (asserted): the
    inner loop's when it runs along a contiguous row (each row one
    vectorized pass, the vector all rows read loaded once into registers;
    a dot product's rows in blocks of `r` on AVX-512),
    else `loop`'s, the outputs (all their sums in registers in one pass of
    the inner loop down the rows)."""
    loop = get_loop(proc, loop)
    inner = get_only_inner_loop(proc, loop)
    along_rows = is_contiguous_loop(proc, inner)
    short = _bound_name(proc, inner if along_rows else loop)
    proc = proc.add_assertion(f"{short} <= {threshold(m, prec, max_vecs)}")
    loop = proc.find_loop(loop.name())  # a new proc: cursors do not forward
    lanes = m.lanes[prec]
    # the number of vectors, the last one masked
    count, counts = f"({lanes - 1} + {short}) / {lanes}", range(1, max_vecs + 1)
    if along_rows:
        inner = get_only_inner_loop(proc, loop)
        # a dot product ends with a masked vector, an update without one
        # (`vectorize_update`): `k` vectors from 1, or whole ones from 0
        masked = bool(get_loop_carried_reductions(proc, inner))
        block = loop
        if masked:
            proc, loop = _short_rows(proc, loop, short)
            # rows jammed (AVX2 on the Intel Xeon VM: 1.1 to 1.25 times
            # faster within the L2, 1.03 to 1.13 times slower beyond it)
            r = r if m.masking else 1
            proc = dense_rows(proc, loop, m, prec, r)  # rows jammed, vectorized
            block = proc.forward(loop).as_block().expand(0, min(r - 1, 1))
            vector_loop = next(s for s in block[0].body() if isinstance(s, ForCursor))
        else:
            proc, ((vector_loop, _), *_) = vectorize_update(proc, inner, m, prec)
            count, counts = f"{short} / {lanes}", range(0, max_vecs + 1)
        vector_name = proc.forward(vector_loop).name()
        leaf = partial(_rows_leaf, vector_name=vector_name, masked=masked)
    else:
        proc, whole = vectorize_loop(proc, loop, m, prec, "cut_and_predicate")
        block = whole.as_block().expand(0, 1)
        leaf = _columns_leaf
    return simplify(_specialize(proc, block, count, list(counts), leaf))


# by_skinny(loop="i", **options): the schedule that runs `skinny` with the
# variant's machine and precision (`kernel(..., schedule=by_skinny(...))`).
by_skinny = on_variant(skinny, "i")
