"""Interleaving loop iterations: interleave, unroll and jam
(docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from exo2.API_cursors import (
    AllocCursor,
    ForCursor,
    InvalidCursor,
    LiteralCursor,
)
from exo2.libs.memories import DRAM
from exo2.stdlib.binding import parallelize_and_lift_alloc
from exo2.stdlib.higher_order import apply
from exo2.stdlib.loop_bounds import _binary_specialize, divide_loop_recursive
from exo2.stdlib.rc_wrappers import divide_loop_
from exo2.stdlib.reductions import parallelize_all_reductions
from exo2.stdlib.scheduling import (
    SchedulingError,
    divide_loop,
    eliminate_dead_code,
    fission,
    reorder_loops,
    rewrite_expr,
    simplify,
    unroll_loop,
    user_op,
)


def _interleave_rewrite(proc, loop, factor, par_reduce, memory, tail):
    if factor is not None:
        proc, (outer, loop, _) = divide_loop_(proc, loop, factor, tail=tail, rc=True)
    else:
        loop = proc.forward(loop)
        outer = loop.parent()
    if par_reduce:
        proc = parallelize_all_reductions(proc, outer, memory=memory, unroll=True)
        loop = proc.forward(outer).body()[0]
    loop = proc.forward(loop)
    allocs = [s for s in loop.body() if isinstance(s, AllocCursor)]
    proc = apply(parallelize_and_lift_alloc)(proc, allocs)
    stmts = list(proc.forward(loop).body())
    proc = apply(fission)(proc, [s.after() for s in stmts[:-1]])
    return apply(unroll_loop)(proc, [proc.forward(s).parent() for s in stmts])


@user_op
def interleave_loop(proc, loop, factor=None, par_reduce=False, memory=DRAM, tail="cut"):
    """Divides `loop` by `factor` (or takes it as the inner loop when
    `factor` is None), gives allocations per-iteration copies, fissions the
    body into single statements and unrolls each: every statement appears
    `factor` times in a row. `tail` ∈ `cut`, `cut_and_guard`, `recursive`
    (the tail divided again by halves), `specialize` (the tail specialized
    on each possible trip count). With `par_reduce`, reductions over the
    loop first get `factor` partial sums in `memory`."""
    if factor == 1:
        return proc
    loop = proc.forward(loop)
    if tail in {"cut", "cut_and_guard"}:
        return _interleave_rewrite(proc, loop, factor, par_reduce, memory, tail)
    if tail not in {"recursive", "specialize"}:
        raise SchedulingError(f"Unknown tail strategy: {tail}")
    if factor is None:
        raise SchedulingError(f"Cannot specify {tail} tail strategy and factor=None")

    def rewrite(proc, inner):
        return _interleave_rewrite(proc, inner, None, par_reduce, memory, "cut")

    if tail == "recursive":
        proc, (_, inners, _) = divide_loop_recursive(
            proc, loop, factor, tail="cut", rc=True
        )
        return apply(rewrite)(proc, inners)
    proc = _interleave_rewrite(proc, loop, factor, par_reduce, memory, "cut")
    tail_loop = proc.forward(loop).next()
    proc, leaves = _binary_specialize(proc, tail_loop, tail_loop.hi(), range(factor))
    # in the leaf for `v` the tail loop runs `v` times: say so, then unroll
    for value, leaf in leaves:
        if value is not None and isinstance(leaf, ForCursor):
            leaf = proc.forward(leaf)
            proc = rewrite_expr(proc, leaf.hi(), str(value))
            proc = rewrite(proc, leaf) if value else eliminate_dead_code(proc, leaf)
    return proc


@user_op
def unroll_and_jam(proc, loop, factor, unroll=(True, True, True)):
    """Unroll-and-jam of `loop` around the one loop in its body."""
    loop = proc.forward(loop)
    inner_loops = [s for s in loop.body() if isinstance(s, ForCursor)]
    if len(inner_loops) > 1:
        raise SchedulingError("Multiple loops found, decision is ambigious")
    if not inner_loops:
        raise SchedulingError("No loops found")
    return interleave_outer_loop_with_inner_loop(
        proc, loop, inner_loops[0], factor, unroll=unroll
    )


@user_op
def unroll_and_jam_parent(proc, loop, factor, unroll=(True, True, True)):
    """Unroll-and-jam of `loop`'s parent loop around `loop`."""
    loop = proc.forward(loop)
    outer_loop = loop.parent()
    if not isinstance(outer_loop, ForCursor):
        raise SchedulingError("parent is not a loop")
    return interleave_outer_loop_with_inner_loop(
        proc, outer_loop, loop, factor, unroll=unroll
    )


@user_op
def interleave_outer_loop_with_inner_loop(
    proc,
    outer_loop_cursor,
    inner_loop_cursor,
    interleave_factor,
    unroll=(True, True, True),
):
    """Divides `outer` by `interleave_factor` (unless its trip count is that
    constant), isolates `inner` from the statements before and after it by
    fission, and moves the new `factor`-iteration loop inside `inner`.
    `unroll` selects which of the prologue, middle and epilogue loops of
    `factor` iterations are unrolled."""
    outer = proc.forward(outer_loop_cursor)
    inner = proc.forward(inner_loop_cursor)
    if inner.parent() != outer:
        raise SchedulingError("the inner loop must be in the body of the outer loop")
    if (
        isinstance(outer.hi(), LiteralCursor)
        and outer.hi().value() == interleave_factor
    ):
        middle = outer
    else:
        name = outer.name()
        proc = divide_loop(
            proc, outer, interleave_factor, (name + "o", name + "i"), tail="cut"
        )
        middle = proc.forward(outer).body()[0]
    middle_stmts = list(middle.body())
    proc = simplify(proc)
    for stmt in middle_stmts:
        if isinstance(stmt, AllocCursor):
            proc = parallelize_and_lift_alloc(proc, stmt)

    inner = proc.forward(inner)
    if not isinstance(inner.prev(), InvalidCursor):
        proc = fission(proc, inner.before())
        inner = proc.forward(inner)
        if unroll[0]:
            proc = unroll_loop(proc, inner.parent().prev())
    inner = proc.forward(inner)
    if not isinstance(inner.next(), InvalidCursor):
        proc = fission(proc, inner.after())
        inner = proc.forward(inner)
        if unroll[2]:
            proc = unroll_loop(proc, inner.parent().next())
    inner = proc.forward(inner)
    proc = reorder_loops(proc, inner.parent())
    if unroll[1]:
        # `inner` follows its loop, now outside the `factor`-iteration one
        proc = unroll_loop(proc, proc.forward(inner).body()[0])
    return proc
