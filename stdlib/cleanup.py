"""Clean-up passes: dead code, constant-indexed buffers, small loops
(docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from exo2.API_cursors import (
    AllocCursor,
    ForCursor,
    LiteralCursor,
    PassCursor,
)
from exo2.stdlib.common import _WHOLE_PROC
from exo2.stdlib.higher_order import (
    attempt,
    make_pass,
    predicate,
)
from exo2.stdlib.inspection import (
    is_loop,
    is_loop_bounds_const,
    lrn_stmts,
    nlr_stmts,
)
from exo2.stdlib.scheduling import (
    SchedulingError,
    delete_pass,
    eliminate_dead_code,
    simplify,
    unroll_buffer,
    unroll_loop,
    user_op,
)


def _eliminate_dead_code_pruned(proc, s):
    s = proc.forward(s)
    if isinstance(s, ForCursor) and is_loop_bounds_const(proc, s):
        return proc
    return eliminate_dead_code(proc, s)


_dce_pass = make_pass(attempt(_eliminate_dead_code_pruned))


@user_op
def dce(proc, block=_WHOLE_PROC):
    """Dead-code elimination over every statement of `block` (default: the
    whole procedure): ifs with a constant condition lose their dead branch,
    loops that never run (other than constant-bound ones) disappear."""
    return _dce_pass(proc, block)


@user_op
def unroll_buffers(proc, block=_WHOLE_PROC, mem=None):
    """`unroll_buffer` of the leading dimension of every allocation in
    `block` whose leading dimension is a literal and whose accesses index
    it with constants, until nothing changes; a buffer in `mem` keeps its
    last dimension (its vector lanes)."""

    def rewrite(proc, alloc):
        alloc = proc.forward(alloc)
        if not isinstance(alloc, AllocCursor) or not alloc.is_tensor():
            return proc
        keep = int(alloc.mem() is mem)
        if len(alloc.shape()) - keep and isinstance(alloc.shape()[0], LiteralCursor):
            # buffers indexed by a variable there stay as they are
            return attempt(unroll_buffer, errs=(SchedulingError,))(proc, alloc, 0)
        return proc

    while True:
        new_proc = make_pass(rewrite)(proc, block)
        if new_proc == proc:
            return proc
        proc = new_proc


@user_op
def unroll_loops(proc, block=_WHOLE_PROC, threshold=None):
    """`unroll_loop` of every loop in `block` with constant bounds and at
    most `threshold` iterations (any number when None), innermost first."""

    def pred(proc, s):
        s = proc.forward(s)
        if not (is_loop(proc, s) and is_loop_bounds_const(proc, s)):
            return False
        return threshold is None or s.hi().value() - s.lo().value() <= threshold

    return make_pass(predicate(unroll_loop, pred), lrn_stmts)(proc, block)


@user_op
def cleanup(proc):
    """`simplify`, unrolling of one-iteration loops, `dce`, and
    `delete_pass` when a `pass` is left."""
    proc = simplify(proc)
    proc = unroll_loops(proc, threshold=1)
    proc = dce(proc)
    if any(isinstance(s, PassCursor) for s in nlr_stmts(proc)):
        proc = delete_pass(proc)
    return proc
