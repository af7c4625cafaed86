"""Loop and scope primitives (docs/primitives-loops.md, with `simplify`
and `eliminate_dead_code`): argument processing, then the C++ primitive.
"""

from .. import _core
from .arguments import (
    BlockCursorA,
    BoolA,
    EnumA,
    ForCursorA,
    ForOrIfCursorA,
    GapCursorA,
    ListA,
    ListOrElemA,
    NameA,
    NestedForLoopCursorA,
    NewExprA,
    PosIntA,
    sched_op,
)
from .results import derived_procedure


@sched_op(
    [
        ForCursorA,
        PosIntA,
        ListA(NameA, length=2),
        EnumA(["cut", "guard", "cut_and_guard"]),
        BoolA,
    ]
)
def divide_loop(proc, loop_cursor, div_const, new_iters, tail="guard", perfect=False):
    """Splits `for i in seq(0, hi)` into `for io: for ii in seq(0, div_const)`
    with `i = div_const * io + ii`; `tail` says how the remainder runs
    (`guard`, `cut`, `cut_and_guard`); `perfect=True` proves that
    `div_const` divides `hi` and adds no tail."""
    outer, inner = new_iters
    return derived_procedure(
        _core.divide_loop(
            proc._provenance,
            loop_cursor._impl,
            div_const,
            outer,
            inner,
            tail,
            perfect,
        )
    )


@sched_op([NestedForLoopCursorA])
def reorder_loops(proc, nested_loops):
    """Swaps two perfectly nested loops (`"i j"` names the pair)."""
    return derived_procedure(_core.reorder_loops(proc._provenance, nested_loops._impl))


@sched_op([NestedForLoopCursorA, NameA])
def mult_loops(proc, nested_loops, new_iter_name):
    """Fuses `for i in seq(0, e): for j in seq(0, c)` (`c` a literal) into
    `for k in seq(0, e * c)` with `i = k / c`, `j = k % c`."""
    return derived_procedure(
        _core.mult_loops(proc._provenance, nested_loops._impl, new_iter_name)
    )


@sched_op([ForCursorA, ForCursorA])
def join_loops(proc, loop1_cursor, loop2_cursor):
    """Joins `seq(lo, mid)` and a following `seq(mid, hi)` loop with the
    same body into one `seq(lo, hi)` loop."""
    return derived_procedure(
        _core.join_loops(proc._provenance, loop1_cursor._impl, loop2_cursor._impl)
    )


@sched_op(
    [ForCursorA, NewExprA("loop_cursor", "control"), PosIntA, ListA(NameA, length=2)]
)
def divide_with_recompute(proc, loop_cursor, outer_hi, outer_stride, new_iters):
    """Splits `for i in seq(0, hi)` into `outer_hi` overlapping inner loops of
    `outer_stride + (hi - outer_hi * outer_stride)` iterations each, with
    `i = io * outer_stride + ii`; the idempotent body recomputes the
    overlap."""
    outer, inner = new_iters
    return derived_procedure(
        _core.divide_with_recompute(
            proc._provenance, loop_cursor._impl, outer_hi, outer_stride, outer, inner
        )
    )


@sched_op([ForCursorA])
def unroll_loop(proc, loop_cursor):
    """Replaces a loop with literal bounds by copies of its body."""
    return derived_procedure(_core.unroll_loop(proc._provenance, loop_cursor._impl))


@sched_op([ForCursorA, NewExprA("loop_cursor", "control")])
def cut_loop(proc, loop_cursor, cut_point):
    """Splits `seq(lo, hi)` into `seq(lo, cut_point)` and `seq(cut_point, hi)`."""
    return derived_procedure(
        _core.cut_loop(proc._provenance, loop_cursor._impl, cut_point)
    )


@sched_op([ForCursorA, NewExprA("loop_cursor", "control")])
def shift_loop(proc, loop_cursor, new_lo):
    """Makes the loop start at `new_lo`, offsetting uses of its iterator."""
    return derived_procedure(
        _core.shift_loop(proc._provenance, loop_cursor._impl, new_lo)
    )


@sched_op(
    [
        ForCursorA,
        NewExprA("loop_cursor", "control", optional=True),
        NewExprA("loop_cursor", "control", optional=True),
    ]
)
def widen_loop(proc, loop_cursor, new_lo=None, new_hi=None):
    """Runs the loop over `seq(new_lo, new_hi)` (None: the bound it has),
    its body guarded by the bounds it had: `if lo <= i and i < hi:`."""
    return derived_procedure(
        _core.widen_loop(proc._provenance, loop_cursor._impl, new_lo, new_hi)
    )


@sched_op([ForCursorA, BoolA])
def remove_loop(proc, loop_cursor, unsafe_disable_check=False):
    """Replaces a loop whose body does not use its iterator by the body."""
    return derived_procedure(
        _core.remove_loop(proc._provenance, loop_cursor._impl, unsafe_disable_check)
    )


@sched_op([GapCursorA, PosIntA, BoolA])
def fission(proc, gap_cursor, n_lifts=1, unsafe_disable_checks=False):
    """Splits the `n_lifts` loops or ifs around a gap in two."""
    return derived_procedure(
        _core.fission(
            proc._provenance, gap_cursor._impl, n_lifts, unsafe_disable_checks
        )
    )


@sched_op([])
def simplify(proc):
    """Affine normal form of control expressions, constant folding, and
    removal of code with literal conditions (docs/primitives-loops.md)."""
    return derived_procedure(_core.simplify(proc._provenance))


@sched_op([ForOrIfCursorA, ForOrIfCursorA, BoolA])
def fuse(proc, stmt1, stmt2, unsafe_disable_check=False):
    """Fuses two adjacent loops with equal bounds, or two adjacent ifs with
    equivalent conditions."""
    return derived_procedure(
        _core.fuse(proc._provenance, stmt1._impl, stmt2._impl, unsafe_disable_check)
    )


@sched_op([BlockCursorA, NameA, NewExprA("block_cursor", "control"), BoolA, BoolA])
def add_loop(
    proc, block_cursor, iter_name, hi_expr, guard=False, unsafe_disable_check=False
):
    """Wraps one statement in `for iter_name in seq(0, hi_expr)` (and in
    `if iter_name == 0:` with `guard=True`)."""
    if len(block_cursor) != 1:
        raise NotImplementedError("TODO: support blocks of size > 1")
    return derived_procedure(
        _core.add_loop(
            proc._provenance,
            block_cursor[0]._impl,
            iter_name,
            hi_expr,
            guard,
            unsafe_disable_check,
        )
    )


@sched_op([ForOrIfCursorA])
def eliminate_dead_code(proc, stmt_cursor):
    """Replaces an if whose condition is always true (false) by its then
    (else) branch, or deletes a loop that never runs."""
    return derived_procedure(
        _core.eliminate_dead_code(proc._provenance, stmt_cursor._impl)
    )


@sched_op([ForOrIfCursorA])
def lift_scope(proc, scope_cursor):
    """Moves an if or loop above its parent if or loop (docs/primitives-loops.md)."""
    return derived_procedure(_core.lift_scope(proc._provenance, scope_cursor._impl))


@sched_op([BlockCursorA, ListOrElemA(NewExprA("block", "condition"))])
def specialize(proc, block, conds):
    """Replaces `block` by `if c0: block elif c1: block ... else: block`, one
    copy per condition plus a default copy."""
    return derived_procedure(
        _core.specialize(proc._provenance, block._impl, list(conds))
    )
