"""exo2.stdlib.halide_scheduling_ops: Halide-style scheduling (docs/halide-scheduling.md)
built from primitives and the range analysis of exo2.stdlib.range_analysis.

A Halide pipeline written as naive loop nests (one nest per stage, each
stage writing one buffer) is scheduled like in Halide: `tile`/`split` the
consumer, `compute_at` a producer inside a consumer loop (computing, per
iteration, exactly the region it reads, recomputing the overlap between
iterations), `store_at` its buffer there (shrunk to that region), inline it
fully, parallelise a loop. The `halide_*` functions address stages by buffer
name and loops by iterator name, as in Halide.

Assumptions (checked; a nest that does not meet them is refused with a
SchedulingError): buffer names are unique; each stage is a perfect loop nest
whose loops start at 0; each loop of the consumer indexes one dimension of
the producer, with a constant stride, and reads a contiguous region of it per
iteration.

Every step is a checked primitive except one: after `divide_with_recompute`
has made the producer's chunks overlap, `compute_at` fuses its loop with the
consumer's loop with `fuse(..., unsafe_disable_check=True)`. Fusion is
dependence-free by construction, which compute_at verifies first: the
producer's loop only writes the producer's buffer and is idempotent (proved
by divide_with_recompute), the consumer's loop writes nothing the producer's
loop reads or writes, and the values iteration `v` of the consumer reads lie
in the chunk iteration `v` of the producer computes (range analysis, with
the chunk's extent proved by `rewrite_expr`, or, where the producer's loop
computes more values than the consumer reads, the constant extent
`divide_with_recompute` gave each chunk, at least the extent needed).

Written against the public API only, like all of exo2.stdlib.
"""

from __future__ import annotations

from exo2 import SchedulingError
from exo2.API_cursors import (
    AllocCursor,
    AssignConfigCursor,
    AssignCursor,
    CallCursor,
    ForCursor,
    IfCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    WindowExprCursor,
    WindowStmtCursor,
)
from exo2.stdlib.inspection import (
    get_enclosing_loop,
    get_enclosing_loop_by_name,
    get_index_in_body,
    get_loop,
    get_parents,
    lrn,
    match_parent,
)
from exo2.stdlib.range_analysis import bounds_inference, constant_bound, infer_range
from exo2.stdlib.scheduling import (
    FormattedExprStr,
    cut_loop,
    delete_buffer,
    divide_loop,
    divide_with_recompute,
    fuse,
    inline_assign,
    parallelize_loop,
    reorder_loops,
    reorder_stmts,
    resize_dim,
    rewrite_expr,
    shift_loop,
    simplify,
    sink_alloc,
    user_op,
)

__all__ = [
    "compute_at",
    "store_at",
    "compute_and_store_at",
    "tile",
    "split",
    "halide_tile",
    "halide_split",
    "halide_compute_at",
    "halide_store_at",
    "halide_compute_and_store_at_same",
    "halide_compute_and_store_at",
    "halide_fully_inline",
    "halide_parallel",
]


# --------------------------------------------------------------------------- #
# Inspection helpers


def _variables(expr):
    """The names of the variables (unindexed reads) in an index expression."""
    return {
        node.name()
        for node in lrn(expr.proc(), expr)
        if isinstance(node, ReadCursor) and not len(node.idx())
    }


def _dims_indexed_by(loop, buffer, include):
    """The dimensions of `buffer` whose index uses `loop`'s iterator, over
    the reads ("R") and writes ("W") inside `loop`."""
    dims = set()
    for node in lrn(loop.proc(), loop):
        is_read = isinstance(node, ReadCursor) and "R" in include
        is_write = isinstance(node, (AssignCursor, ReduceCursor)) and "W" in include
        if (is_read or is_write) and node.name() == buffer:
            for d, idx in enumerate(node.idx()):
                if loop.name() in _variables(idx):
                    dims.add(d)
    return sorted(dims)


def _effects(stmt):
    """`(reads, writes, local)`: the names of the buffers `stmt` reads and
    writes (a buffer passed to a call counts as both) and allocates. Window
    statements and configuration writes are refused."""
    reads, writes, local = set(), set(), set()
    for node in lrn(stmt.proc(), stmt):
        if isinstance(node, (WindowStmtCursor, AssignConfigCursor)):
            raise SchedulingError(
                "compute_at does not support window statements or configuration "
                "writes in the loop nests it fuses"
            )
        if isinstance(node, AllocCursor):
            local.add(node.name())
        elif isinstance(node, (AssignCursor, ReduceCursor)):
            writes.add(node.name())
        elif isinstance(node, (ReadCursor, WindowExprCursor)):
            reads.add(node.name())
        elif isinstance(node, CallCursor):
            names = {arg.name() for arg in node.args() if hasattr(arg, "name")}
            reads |= names
            writes |= names
    return reads, writes, local


def _stmt(proc, stmt):
    """A statement of `proc`: a cursor forwarded, or found by pattern."""
    return proc.find(stmt) if isinstance(stmt, str) else proc.forward(stmt)


def _is_zero(expr):
    return constant_bound(expr, {}) == (0, 0)


def _assign_in(loop, buffer):
    """The first assignment to `buffer` inside `loop`."""
    for node in lrn(loop.proc(), loop):
        if isinstance(node, AssignCursor) and node.name() == buffer:
            return node
    raise SchedulingError(f"no assignment to {buffer} in the loop over {loop.name()}")


# --------------------------------------------------------------------------- #
# compute_at


def _producer_loop(proc, producer_assign, c_loop, dim):
    """The loop of the producer's nest over dimension `dim` of its buffer,
    moved (with reorder_loops) to be a sibling of `c_loop`."""
    producer = producer_assign.name()
    p_loop, c_anc = match_parent(producer_assign, c_loop)
    if c_anc != c_loop:
        raise SchedulingError(
            f"compute_at: the assignment to {producer} is inside the loop over "
            f"{c_loop.name()}"
        )
    dim_vars = _variables(producer_assign.idx()[dim])
    while not (isinstance(p_loop, ForCursor) and p_loop.name() in dim_vars):
        if not isinstance(p_loop, ForCursor) or len(p_loop.body()) != 1:
            raise SchedulingError(
                f"compute_at: expected a perfect loop nest computing {producer}, "
                f"with a loop over its dimension {dim}"
            )
        p_loop = p_loop.body()[0]
    # surface the loop to the level of the consumer's loop
    while p_loop.parent() != c_loop.parent():
        proc = reorder_loops(proc, p_loop.parent())
        p_loop, c_loop = proc.forward(p_loop), proc.forward(c_loop)
    return proc, p_loop


def _check_fusable(p_loop, c_loop, producer):
    """Raises unless only the producer's buffer flows from the producer's
    loop to the consumer's loop (the condition for fusing them once each
    iteration computes all it reads)."""
    p_reads, p_writes, p_local = _effects(p_loop)
    _, c_writes, _ = _effects(c_loop)
    # the producer's own temporaries may be written; a consumer's buffer of
    # the same name as one the producer uses counts as that buffer
    if p_writes - p_local != {producer}:
        others = ", ".join(sorted(p_writes - p_local - {producer}))
        raise SchedulingError(
            f"compute_at: the loop computing {producer} also writes {others}"
        )
    clobbered = c_writes & (p_reads | {producer})
    if clobbered:
        raise SchedulingError(
            f"compute_at: the consumer loop over {c_loop.name()} writes "
            f"{', '.join(sorted(clobbered))}, which the computation of {producer} uses"
        )


def _compute_at_level(proc, producer_assign, c_loop, with_prologue):
    producer_assign, c_loop = proc.forward(producer_assign), proc.forward(c_loop)
    producer = producer_assign.name()
    it = c_loop.name()
    dims = _dims_indexed_by(c_loop, producer, "R")
    if len(dims) != 1:
        what = "no dimension" if not dims else f"dimensions {dims}"
        raise SchedulingError(
            f"compute_at: the loop over {it} must index exactly one dimension of "
            f"{producer}; its reads index {what} with {it}"
        )
    (dim,) = dims
    reads = bounds_inference(c_loop, producer, dim, include=["R"])
    stride = reads.get_stride_of(it)
    # The region may also move with the loops around c_loop (a tile's
    # `4 * i`): that part is the same for the producer's chunk.
    outer = {v: c for v, c in (reads.base or {}).items() if v != it}
    if reads.base is None or not stride or stride <= 0 or reads.get_size() is None:
        raise SchedulingError(
            f"compute_at: cannot bound the region of {producer} (dimension {dim}) "
            f"one iteration of {it} reads: {reads}"
        )
    if not _is_zero(c_loop.lo()):
        raise SchedulingError(f"compute_at: the loop over {it} must start at 0")

    proc, p_loop = _producer_loop(proc, producer_assign, c_loop, dim)
    c_loop = proc.forward(c_loop)
    producer_assign = proc.forward(producer_assign)
    if not _is_zero(p_loop.lo()):
        raise SchedulingError(
            f"compute_at: the loop over {p_loop.name()} must start at 0"
        )
    written = infer_range(producer_assign.idx()[dim], p_loop)
    offset = written.lo
    if (
        written.base is None
        or written.base.get(p_loop.name()) != 1
        or {v: c for v, c in written.base.items() if v != p_loop.name()} != outer
        or offset is None
        or offset != written.hi
    ):
        raise SchedulingError(
            f"compute_at: {producer}'s index in dimension {dim} must be "
            f"{p_loop.name()} plus a constant"
            + (f" plus what the loops around {it} add" if outer else "")
        )
    if reads.lo < offset:
        raise SchedulingError(
            f"compute_at: iteration {it} reads {producer} (dimension {dim}) at "
            f"{reads}, before the first value its producer loop computes"
        )
    extent = reads.hi - offset + 1  # values of the producer one iteration needs

    # the producer's nest goes right before the consumer's
    if get_index_in_body(proc, p_loop) > get_index_in_body(proc, c_loop):
        raise SchedulingError(
            f"compute_at: {producer} is computed after the loop over {it}"
        )
    while p_loop.next() != c_loop:
        proc = reorder_stmts(proc, p_loop.expand(0, 1))
        p_loop, c_loop = proc.forward(p_loop), proc.forward(c_loop)

    if with_prologue:
        return _fuse_sliding_window(proc, p_loop, c_loop, producer, stride, extent)

    _check_fusable(p_loop, c_loop, producer)
    if not (stride == 1 and extent == 1):
        hi = FormattedExprStr("_", c_loop.hi())
        proc = divide_with_recompute(proc, p_loop, hi, stride, [it, f"{it}i"])
        inner = proc.forward(p_loop).body()[0]
        try:
            proc = rewrite_expr(proc, inner.hi(), extent)
        except SchedulingError as e:
            # a producer that computes more values than the consumer reads
            # (its loop runs past them): each chunk keeps the extent
            # divide_with_recompute gave it, a constant at least `extent`,
            # and so still holds every value its iteration reads
            proc = simplify(proc)
            hi = proc.forward(inner).hi()
            if not (isinstance(hi, LiteralCursor) and hi.value() >= extent):
                raise SchedulingError(
                    f"compute_at: cannot prove that each iteration of {it} "
                    f"computes the {extent} values of {producer} (dimension "
                    f"{dim}) it reads"
                ) from e
    # dependence-free by construction: see the module docstring
    proc = fuse(proc, p_loop, c_loop, unsafe_disable_check=True)
    proc = simplify(proc)
    return proc, proc.forward(p_loop)


def _fuse_sliding_window(proc, p_loop, c_loop, producer, stride, extent):
    """Computes the first `extent - 1` values before the loop (the
    prologue), then one new value per iteration: every step is checked."""
    if stride != 1:
        raise SchedulingError(
            f"compute_at: a sliding window needs the loop over {c_loop.name()} to "
            f"advance {producer} by one per iteration, not {stride}"
        )
    if extent > 1:
        proc = cut_loop(proc, p_loop, extent - 1)
        p_loop = proc.forward(p_loop).next()
        proc = shift_loop(proc, p_loop, 0)
    proc = fuse(proc, p_loop, c_loop)
    proc = simplify(proc)
    return proc, proc.forward(p_loop)


@user_op
def compute_at(proc, producer_assign, target_loop, with_prologue=False):
    """Computes the producer assigned by `producer_assign` inside the
    consumer's loop `target_loop`: for each loop from the consumer's
    outermost one down to `target_loop`, the producer's loop over the same
    dimension is divided into overlapping chunks (`divide_with_recompute`),
    one per consumer iteration, holding exactly the values that iteration
    reads, and fused with it.

    With `with_prologue=True` each consumer loop must advance by one and
    the producer is instead computed as a sliding window: the values the
    first iteration needs, but the last, before the loop (a prologue), then
    one new value per iteration; nothing is recomputed.

        for y in seq(0, H + 2):              for y in seq(0, H):
            bx[y] = f(y)                         for yi in seq(0, 3):
        for y in seq(0, H):              ->          bx[y + yi] = f(y + yi)
            out[y] = bx[y] + bx[y + 2]           out[y] = bx[y] + bx[y + 2]
    """
    producer_assign = _stmt(proc, producer_assign)
    target_loop = get_loop(proc, target_loop)
    if not isinstance(producer_assign, AssignCursor):
        raise TypeError("producer_assign must be an AssignCursor")
    if not isinstance(target_loop, ForCursor):
        raise TypeError("target_loop must be a ForCursor")
    producer = producer_assign.name()

    _, c_top = match_parent(producer_assign, target_loop)
    c_loops = [target_loop, *get_parents(proc, target_loop, up_to=c_top)]
    for c_loop in reversed(c_loops):
        if not isinstance(c_loop, ForCursor):
            raise SchedulingError(
                "compute_at: the statements enclosing target_loop must be loops"
            )
    for c_loop in reversed(c_loops):
        proc, fused = _compute_at_level(proc, producer_assign, c_loop, with_prologue)
        if with_prologue:
            # the copy of the assignment to follow is the one in the loop
            producer_assign = _assign_in(fused, producer)
    return proc


# --------------------------------------------------------------------------- #
# store_at


@user_op
def store_at(proc, producer_alloc, target_loop):
    """Moves the allocation `producer_alloc` into `target_loop` (through each
    loop between them, with `sink_alloc`) and shrinks each dimension indexed
    by one of those loops to the region one iteration reads and writes
    (`resize_dim`)."""
    producer_alloc = _stmt(proc, producer_alloc)
    target_loop = get_loop(proc, target_loop)
    if not isinstance(producer_alloc, AllocCursor):
        raise TypeError("producer_alloc must be an AllocCursor")
    if not isinstance(target_loop, ForCursor):
        raise TypeError("target_loop must be a ForCursor")
    name = producer_alloc.name()

    top, alloc_anc = match_parent(target_loop, producer_alloc)
    if alloc_anc != producer_alloc or get_index_in_body(
        proc, producer_alloc
    ) > get_index_in_body(proc, top):
        raise SchedulingError(
            f"store_at: the allocation of {name} must come before the loop over "
            f"{target_loop.name()}, in an enclosing body"
        )
    scopes = [*get_parents(proc, target_loop, up_to=top)][::-1] + [target_loop]
    if top == target_loop:
        scopes = [target_loop]

    for scope in scopes:
        scope, producer_alloc = proc.forward(scope), proc.forward(producer_alloc)
        while producer_alloc.next() != scope:
            proc = reorder_stmts(proc, producer_alloc.expand(0, 1))
            scope, producer_alloc = proc.forward(scope), proc.forward(producer_alloc)
        proc = sink_alloc(proc, producer_alloc)
        if isinstance(scope, IfCursor):
            continue
        scope = proc.forward(scope)
        for dim in _dims_indexed_by(scope, name, "RW"):
            region = bounds_inference(scope, name, dim, include=["R", "W"])
            if region.get_size() is None:
                raise SchedulingError(
                    f"store_at: cannot bound the region of {name} (dimension {dim}) "
                    f"one iteration of {scope.name()} uses: {region}"
                )
            lo, _ = region.get_bounds()
            proc = resize_dim(proc, producer_alloc, dim, region.get_size(), lo)
            scope = proc.forward(scope)
        proc = simplify(proc)
    return proc


@user_op
def compute_and_store_at(proc, producer, target_loop):
    """Halide's `compute_at` (which also stores there): `compute_at` of the
    assignment to the buffer `producer`, then `store_at` of its allocation,
    both at `target_loop`."""
    target_loop = get_loop(proc, target_loop)
    if not isinstance(target_loop, ForCursor):
        raise TypeError("target_loop must be a ForCursor")
    # fusion replaces the consumer's loop; a statement of its body follows
    marker = target_loop.body()[0]
    proc = compute_at(proc, proc.find(f"{producer} = _"), target_loop)
    target_loop = proc.forward(marker).parent()
    return store_at(proc, proc.find(f"{producer}: _"), target_loop)


# --------------------------------------------------------------------------- #
# Tiling and splitting


@user_op
def tile(
    proc,
    i_loop,
    j_loop,
    new_i_iters,
    new_j_iters,
    i_tile_size,
    j_tile_size,
    perfect=True,
):
    """Tiles the nest `i_loop`/`j_loop` (`j_loop` directly inside
    `i_loop`): `for io: for jo: for ii: for ji:` with the tile sizes, which
    must divide the loops' bounds."""
    if not perfect:
        raise SchedulingError("tile: only perfect tiling is currently supported")
    i_loop, j_loop = get_loop(proc, i_loop), get_loop(proc, j_loop)
    if j_loop.parent() != i_loop:
        raise SchedulingError("tile: expected j_loop to be directly inside i_loop")
    proc = divide_loop(proc, i_loop, i_tile_size, new_i_iters, perfect=True)
    proc = divide_loop(proc, j_loop, j_tile_size, new_j_iters, perfect=True)
    return reorder_loops(proc, proc.forward(i_loop).body()[0])


@user_op
def split(proc, loop, o_iter, i_iter, split_factor, tail):
    """`divide_loop(proc, loop, split_factor, [o_iter, i_iter], tail)`;
    `tail="perfect"` means `perfect=True`."""
    if tail == "perfect":
        return divide_loop(proc, loop, split_factor, [o_iter, i_iter], perfect=True)
    return divide_loop(proc, loop, split_factor, [o_iter, i_iter], tail=tail)


# --------------------------------------------------------------------------- #
# Halide-like interface: stages by buffer name, loops by iterator name


def _stage_loop(p, stage, loop):
    return get_enclosing_loop_by_name(p, p.find(f"{stage} = _"), loop)


@user_op
def halide_tile(p, buffer, y, x, yi, xi, yTile, xTile):
    """`buffer.tile(x, y, xi, yi, xTile, yTile)`: the outer loops keep the
    names `y` and `x`."""
    y_loop, x_loop = _stage_loop(p, buffer, y), _stage_loop(p, buffer, x)
    return tile(p, y_loop, x_loop, [y, yi], [x, xi], yTile, xTile, perfect=True)


@user_op
def halide_split(p, stage, x, xo, xi, split_factor, tail="perfect"):
    """`stage.split(x, xo, xi, split_factor)`; `tail` is one of "perfect",
    "cut", "guard", "cut_and_guard"."""
    return split(p, _stage_loop(p, stage, x), xo, xi, split_factor, tail)


@user_op
def halide_compute_at(p, producer, consumer, loop, with_prologue=True):
    """`producer.compute_at(consumer, loop)` without moving the storage
    (by default as a sliding window, see `compute_at`)."""
    producer_assign = p.find(f"{producer} = _")
    target_loop = _stage_loop(p, consumer, loop)
    return compute_at(p, producer_assign, target_loop, with_prologue=with_prologue)


@user_op
def halide_store_at(p, producer, consumer, loop):
    """`producer.store_at(consumer, loop)`."""
    target_loop = _stage_loop(p, consumer, loop)
    return store_at(p, p.find(f"{producer}: _"), target_loop)


@user_op
def halide_compute_and_store_at_same(p, producer, consumer, loop):
    """`producer.compute_at(consumer, loop)`, storage included."""
    return compute_and_store_at(p, producer, _stage_loop(p, consumer, loop))


@user_op
def halide_compute_and_store_at(p, producer, consumer, compute_loop, store_loop):
    """`producer.store_at(consumer, store_loop).compute_at(consumer,
    compute_loop)`: computed and stored at `store_loop`, then computed as a
    sliding window at `compute_loop` inside it."""
    p = halide_compute_and_store_at_same(p, producer, consumer, store_loop)
    producer_assign = p.find(f"{producer} = _")
    target_loop = _stage_loop(p, consumer, compute_loop)
    return compute_at(p, producer_assign, target_loop, with_prologue=True)


@user_op
def halide_fully_inline(p, producer, consumer):
    """Replaces the reads of `producer` in `consumer` by its expression (the
    consumer must read a single value of it per iteration) and deletes the
    buffer."""
    loop = get_enclosing_loop(p, p.find(f"{consumer} = _"))
    p = compute_and_store_at(p, producer, loop)
    p = inline_assign(p, p.find(f"{producer} = _"))
    return delete_buffer(p, p.find(f"{producer}: _"))


@user_op
def halide_parallel(p, loop):
    """`parallelize_loop` of the loop over `loop`."""
    return parallelize_loop(p, p.find_loop(loop))
