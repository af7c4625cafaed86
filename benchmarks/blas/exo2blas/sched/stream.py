"""`stream`: the level-1 automation. One innermost loop over contiguous
vectors becomes a vector loop of the machine's width ending as the machine
ends loops (a masked last iteration, or its last elements one by one),
`interleave` vectors side by side, every statement an
instruction of the machine's table. A reduction into a scalar gets
`interleave` vector accumulators, so that its fused multiply-adds do not
wait for each other."""

from __future__ import annotations

from exo2 import SchedulingError
from exo2.API_cursors import (
    AllocCursor,
    AssignCursor,
    ForCursor,
    InvalidCursorError,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
)
from exo2.API_scheduling import (
    FormattedExprStr,
    cut_loop,
    divide_dim,
    replace,
    rewrite_expr,
    set_memory,
    simplify,
    stage_mem,
    unroll_loop,
    user_op,
)
from exo2.stdlib.inspection import (
    get_bounding_block,
    get_loop,
    get_loop_carried_reductions,
    get_top_level_stmt,
    is_mod,
    lrn,
    nlr_stmts,
)
from exo2.stdlib.instruction_selection import replace_all_stmts
from exo2.stdlib.stdlib import (
    abs_rule,
    divide_loop_,
    fma_rule,
    interleave_loop,
    max_rule,
    parallelize_reduction,
    specialize_,
    vectorize,
)

from ..machines.instructions import block_copy, constant, nontemporal_store
from ..machines.reductions import lane_reductions

RULES = (fma_rule, abs_rule, max_rule)


def _constants(proc, loop):
    """The float literals in `loop` (set into vectors by instructions made
    for them)."""
    literals = [e.value() for e in lrn(proc, loop) if isinstance(e, LiteralCursor)]
    return sorted({value for value in literals if isinstance(value, float)})


def _vectorize(proc, loop, m, prec, tail, nontemporal=False):
    instructions = list(m.instructions(prec))
    if nontemporal:  # before the store: the first that matches is chosen
        instructions.insert(0, nontemporal_store(m.name, prec))
    for value in _constants(proc, proc.forward(loop)):
        instructions += constant(m.name, prec, value)
    return vectorize(
        proc, loop, m.lanes[prec], prec, m.memory, instructions, RULES,
        tail=tail, rc=True,
    )  # fmt: skip


def _accumulators(proc, loop, m, prec):
    """`loop` divided into blocks of `m.interleave` vectors (the rest is its
    tail loop), each scalar reduction given one vector accumulator per
    vector of a block, zeroed before and summed after the loop; returns
    `(proc, block_loop, tail_loop, lane_loops)`: the loop over blocks, the
    tail, and the loops that zero and sum the accumulators."""
    lanes = m.lanes[prec]
    proc, (blocks, inner, tail) = divide_loop_(
        proc, loop, lanes * m.interleave, tail="cut", rc=True
    )
    lane = inner.name()  # the accumulators' loops run over it
    for reduction in get_loop_carried_reductions(proc, blocks):
        proc = parallelize_reduction(proc, reduction, nth_loop=2)
        blocks = proc.forward(blocks)
        alloc = blocks.prev().prev()
        while not hasattr(alloc, "mem"):
            alloc = alloc.prev()
        proc = divide_dim(proc, alloc, 0, lanes)
        proc = set_memory(proc, alloc, m.memory)
    blocks, tail = proc.forward(blocks), proc.forward(tail)
    loops = [s for s in blocks.expand() if isinstance(s, ForCursor)]
    lane_loops = [s for s in loops if s.name() == lane and s not in (blocks, tail)]
    return proc, blocks, tail, lane_loops


@user_op
def stream(proc, loop, m, prec, tail=None, nontemporal=False, short=None):
    """Vectorizes `loop` (a cursor or its iterator's name) for machine `m`
    in precision `prec` ("f32"/"f64"): fused multiply-adds, absolute values
    and maxima staged by `fma_rule`, `abs_rule` and `max_rule`, the
    machine's `tail` (default `m.tail`; an update on a machine with a
    narrower one ends by default with a vector of that one and scalars,
    no masked store), and the machine's `interleave` vector iterations
    side by side.
    A reduction into a scalar over `loop` accumulates in `interleave`
    vectors, summed after the loop. Fewer elements than a vector run one
    by one (`_short_path`) in a reduction, and in an update where the
    machine would mask its last vector (fewer than a narrower vector where
    it ends with one; with `short="vector"`, fewer than one of the
    machine's own). `nontemporal` makes an update's whole vectors'
    stores non-temporal (`nontemporal_store`: for data larger than the
    caches)."""
    if short not in (None, "vector"):
        raise SchedulingError(f"short is 'vector' or None, not {short!r}")
    loop = get_loop(proc, loop)
    if not get_loop_carried_reductions(proc, loop):
        narrower = m.narrower if tail is None else None
        tail = tail or m.tail
        if narrower:
            # whole vectors, one of the narrower machine, scalars: a masked
            # store spans a whole vector, and the next load of those
            # elements (the next call's, on the same vector) waits until it
            # leaves the core (sscal of 16 to 100 elements, called again and
            # again: 8.1 ns masked, OpenBLAS 5.4 ns; AVX-512 on Zen 4)
            tail = "cut"
        # fewer than a narrower vector (scopy of one element: 3.3 ns, 2.7 ns
        # so), or than a masked one (~40 cycles): one by one, without the
        # loops' bounds
        if narrower or tail == "cut_and_predicate":
            shortest = m if short == "vector" else narrower or m
            proc, loop = _short_path(proc, loop, shortest.lanes[prec])
        proc, (vector_loop,) = _vectorize(proc, loop, m, prec, tail, nontemporal)
        if narrower:
            rest = proc.forward(vector_loop).next()
            proc, _ = _vectorize(proc, rest, narrower, prec, "cut")
        return interleave_loop(
            proc, vector_loop, m.interleave, par_reduce=True, memory=m.memory
        )
    proc, loop = _short_path(proc, loop, m.lanes[prec])
    proc, blocks, tail_loop, lane_loops = _accumulators(proc, loop, m, prec)
    for lane_loop in lane_loops:
        proc, _ = _vectorize(proc, lane_loop, m, prec, "perfect")
    proc, (vectors,) = _vectorize(proc, blocks.body()[0], m, prec, "perfect")
    proc = interleave_loop(proc, vectors)
    # the rest, fewer than `interleave` vectors: whole vectors, then (on a
    # machine with a narrower one) a narrower vector, then scalars (a
    # masked last vector needs `N <= lanes` proven through `n % block`,
    # which the checker does not derive)
    proc, (rest_vectors,) = _vectorize(proc, tail_loop, m, prec, "cut")
    if m.narrower is not None:
        scalars = _next_loop(proc.forward(rest_vectors))
        proc = _narrower_vector(proc, scalars, m.narrower, prec)
    return _in_registers(proc, proc.forward(blocks))


def _next_loop(stmt):
    """The first loop after `stmt` in its block."""
    stmt = stmt.next()
    while not isinstance(stmt, ForCursor):
        stmt = stmt.next()
    return stmt


def _narrower_vector(proc, loop, narrower, prec):
    """The last elements of a reduction (`loop`, fewer than one of the
    machine's vectors): one vector of `narrower`'s where there are that
    many, then the rest one by one (`if` fewer: one by one, as before).
    One by one, each sum waits for the one before: sdot of 24, 40 and 63
    elements took 6.9, 7.2 and 11.2 ns with 8 to 15 of them scalar, 4.4,
    4.7 and 8.0 ns so (AVX-512 on Zen 4). The `if` keeps the narrower
    vector's zeroing and horizontal sum away from the sizes that leave it
    empty (a multiple of the vector: within 0.6 ns of before)."""
    width = narrower.lanes[prec]
    loop = proc.forward(loop)
    cond = FormattedExprStr(f"_ < {width}", loop.hi())
    proc, (branch,) = specialize_(proc, loop, cond, rc=True)
    proc = cut_loop(proc, proc.forward(branch).orelse()[0], width)
    head = proc.forward(branch).orelse()[0]
    proc, (vector,) = _vectorize(proc, head, narrower, prec, "perfect")
    return simplify(unroll_loop(proc, vector))  # one vector


def _short_path(proc, loop, lanes):
    """`if n < lanes:` a copy of `loop` (over `n` elements) left scalar,
    `else:` `loop`, returned for the vector schedule: fewer elements than a
    vector cost less one by one than a reduction's accumulators and
    horizontal sums, or than an update's masked vector (its mask, masked
    loads and stores: srot of one element 9.7 ns masked, 6.5 ns scalar, on
    Zen 4)."""
    if not isinstance(loop.hi(), ReadCursor):  # a bound that is no variable
        return proc, loop
    cond = f"{loop.hi().name()} < {lanes}"
    proc, (branch,) = specialize_(proc, loop, cond, rc=True)
    return proc, proc.forward(branch).orelse()[0]


def _written(proc, block):
    """The names of the buffers that the statements in `block` write."""
    stmts = nlr_stmts(proc, block)
    return {s.name() for s in stmts if isinstance(s, AssignCursor | ReduceCursor)}


def _in_registers(proc, stmt):
    """Each scalar argument that the block of the proc's body around
    `stmt` writes (`result`, which a reduction sums into; the index of
    iamax's scan) staged in a local variable (`result_reg`) across that
    block, in both paths: a register, where through memory each `+=` waits
    for the store of the one before; the result is stored once, at the
    end."""
    block = get_top_level_stmt(proc, stmt).expand()
    args = {str(a.name()) for a in proc.args() if not a.is_tensor()}
    for target in sorted(_written(proc, block) & args):
        proc = stage_mem(proc, proc.forward(block), target, f"{target}_reg")
    return proc


@user_op
def lanes(proc, loop, m, prec, buffers, last=()):
    """The level-1 automation of a specification already blocked by lanes
    (iamax): `loop` updates the `buffers`, each of a whole number of
    vectors (`width` elements, the first buffer's size), at `i % width`,
    after loops that set every element of them. Dividing the loop by that
    width makes each element of a buffer one lane; the buffers are staged
    into vector registers around the setting loops and the loop over blocks
    (set in registers, never loaded: a store into memory then a load back
    costs more than the loop at small n), and both are vectorized, the loop
    over lanes inside the loop over blocks (an interchange, no
    reassociation). The rest of a block is vectorized by whole vectors, its
    last few elements scalar. Loops after `loop` that reduce the lanes into
    a scalar (iamax's largest maximum and its first index) become one
    instruction each, which combines the vectors lane-wise, then the lanes
    of one vector. Each of the `last` buffers (one vector, set after `loop`
    by a loop over every lane and then one over the last elements of x,
    fewer than a vector) is set in a register, the last elements by masked
    instructions: scalar stores just before the vector loads of the
    reductions would stall their store-to-load forwarding."""
    loop = get_loop(proc, loop)
    width = proc.find_alloc_or_arg(buffers[0]).shape()[0].value()
    proc, (blocks, _, rest) = divide_loop_(proc, loop, width, tail="cut", rc=True)
    inits = [s for s in proc.body() if isinstance(s, ForCursor)]
    inits = inits[: inits.index(blocks)]
    copies = []  # out of the registers
    for buffer in buffers:
        staged = get_bounding_block(proc, [proc.forward(inits[0]), blocks])
        proc = stage_mem(proc, staged, f"{buffer}[0:{width}]", f"{buffer}_lanes")
        blocks = proc.forward(blocks)
        copies.append(blocks.next())
    proc = simplify(proc)
    for buffer in buffers:
        alloc = proc.find_alloc_or_arg(f"{buffer}_lanes")
        proc = divide_dim(proc, alloc, 0, m.lanes[prec])
        proc = set_memory(proc, alloc, m.memory)
    for setting in inits + copies:
        try:
            setting = proc.forward(setting)
        except InvalidCursorError:
            # already an instruction: `vectorize` replaces every statement
            # of the proc an instruction matches, and with one vector of
            # lanes the copies out of the registers are one vector each
            continue
        proc, _ = _vectorize(proc, setting, m, prec, "perfect")
    proc, (vectors,) = _vectorize(
        proc, proc.forward(blocks).body()[0], m, prec, "perfect"
    )
    proc = interleave_loop(proc, vectors)
    proc = _vectorize_rest(proc, rest, m, prec)
    for buffer in last:
        proc = _last_vector(proc, buffer, m, prec)
    # each loop that reduces whole vectors of lanes into a scalar (a block
    # of them, or one): the machine's instruction that reduces so
    vectors = sorted({1, width // m.lanes[prec]})
    table = [i for k in vectors for i in lane_reductions(m.name, prec, k)]
    return replace_all_stmts(proc, table)


def _last_vector(proc, buffer, m, prec):
    """`buffer` staged into a register around the two loops that set it,
    both vectorized, the second (fewer lanes than a vector) by masked
    instructions."""
    setting = proc.find_alloc_or_arg(buffer).next()
    width = m.lanes[prec]
    proc = stage_mem(
        proc, setting.expand(0, 1), f"{buffer}[0:{width}]", f"{buffer}_vector"
    )
    proc = simplify(proc)
    proc = set_memory(proc, proc.find_alloc_or_arg(f"{buffer}_vector"), m.memory)
    # the loop setting every lane (the copy out of the register is
    # vectorized with it), then the one setting the last few
    stmt = proc.find_alloc_or_arg(f"{buffer}_vector")
    for tail in ("perfect", "predicate"):
        stmt = _next_loop(stmt)
        proc, (vectors,) = _vectorize(proc, stmt, m, prec, tail)
        stmt = proc.forward(vectors)
    return proc


def _vectorize_rest(proc, rest, m, prec):
    """The rest of a block (`ii < n % width`, lanes `(ii + n / width *
    width) % width`), vectorized by whole vectors: each lane index is
    proven equal to `ii` (`rewrite_expr`), then the loop is cut into vectors
    and fewer than one vector of scalars."""
    for lane in [e for e in lrn(proc, rest.body()) if is_mod(proc, e)]:
        proc = rewrite_expr(proc, proc.forward(lane), rest.name())
    try:  # a scan of whole vectors only (iamax's first_max): no scalars
        proc, _ = _vectorize(proc, rest, m, prec, "perfect")
    except SchedulingError:
        proc, _ = _vectorize(proc, rest, m, prec, "cut")
    return proc


def scanned(loop="i"):
    """The schedule `kernel(..., schedule=scanned())` names, for a scan
    `loop` (iamax's kernels): `lanes` where the specification is blocked by
    lanes, its buffers the arrays that `loop` updates (at `i % lanes`), its
    `last` buffers the other arrays; where it has no array, each scalar
    argument it writes in a register (`_in_registers`)."""

    def schedule(proc, v):
        scan, m = proc.find_loop(loop), v.machine
        updated = _written(proc, scan.body())
        allocs = [a for a in proc.body() if isinstance(a, AllocCursor)]
        arrays = [a.name() for a in allocs if a.is_tensor()]
        if buffers := [a for a in arrays if a in updated]:
            last = tuple(a for a in arrays if a not in updated)
            return lanes(proc, loop, m, v.prec, buffers, last)
        return _in_registers(proc, scan)

    return schedule


def streamed(loop="i", prec=None, nontemporal_case=None, block_case=None, **options):
    """The schedule `kernel(..., schedule=streamed())` names: `stream` of
    `loop` with the variant's machine, in the variant's precision or, for
    kernels of explicit types (dsdot), in `prec`. The variants of
    the case `nontemporal_case` (a suffix: copy's "nontemporal") store
    past the caches (`nontemporal`); those of `block_case` (copy's
    "block") are `loop` replaced by the one instruction `block_copy` (the
    C library's memcpy), whose semantics it is."""

    def schedule(proc, v):
        if v.case == block_case:
            return simplify(replace(proc, proc.find_loop(loop), block_copy(v.prec)))
        nontemporal = v.case == nontemporal_case
        return stream(
            proc, loop, v.machine, prec or v.prec, nontemporal=nontemporal, **options
        )

    return schedule
