"""exo2.stdlib.scheduling: every primitive, `sched_op` and its argument
processors, the combinators, `user_op`, `SchedulingError`, `Procedure` and
the cursor classes, plus the library operations of docs/stdlib.md
(`loop_hack`, `call_site_mem_aware_replace`, `replace_all`, `replace_once`,
`lift_if`, `MemoryError`).

Written against the public API only, like all of exo2.stdlib.
"""

import functools

from exo2.API import Procedure
from exo2.API_cursors import *  # noqa: F403
from exo2.API_cursors import (
    AssignCursor,
    ForCursor,
    ReduceCursor,
)
from exo2.API_cursors import __all__ as _cursor_names
from exo2.API_scheduling import *  # noqa: F403
from exo2.API_scheduling import (
    BlockCursorA,
    BoolA,
    ProcA,
    SchedulingError,
    lift_scope,
    replace,
    sched_op,
    user_op,
)
from exo2.API_scheduling import __all__ as _scheduling_names
from exo2.rewrite.LoopIR_unification import UnificationError

# Exo 1.0's name for it here, which scheduling libraries import.
_UnificationError = UnificationError

__all__ = [
    *_scheduling_names,
    *_cursor_names,
    "Procedure",
    "loop_hack",
    "MemoryError",
    "call_site_mem_aware_replace",
    "replace_all",
    "replace_once",
    "lift_if",
    "check_call_mem_types",  # noqa: F405 (module __getattr__)
]


def __getattr__(name):
    # Exo's module re-exports check_call_mem_types; exo2.stdlib.analysis
    # imports this module, so it is looked up on first use
    if name == "check_call_mem_types":
        from exo2.stdlib.analysis import check_call_mem_types

        return check_call_mem_types
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def loop_hack(sched, find_func, verbose=False):
    """Deprecated (kept for Exo code): `f(proc, *args, **kwargs)` applying
    `sched(proc, cursor, *args, **kwargs)` to the i-th cursor of
    `find_func(proc)` for each i, calling `find_func` again on the procedure
    of every step."""

    @functools.wraps(sched)
    def loop_hack_sched(proc, *args, **kwargs):
        for i in range(len(find_func(proc))):
            cursor = find_func(proc)[i]
            if verbose:
                print(f"loop_hack: {getattr(sched, '__name__', 'op')} at {i}")
            proc = sched(proc, cursor, *args, **kwargs)
        return proc

    loop_hack_sched.__name__ = f"loop_hack_{getattr(sched, '__name__', 'op')}"
    return loop_hack_sched


class MemoryError(Exception):  # noqa: A001 (Exo's name)
    """A replacement whose call passes a buffer in a memory the callee's
    parameter does not accept."""


@sched_op([BlockCursorA, ProcA, BoolA])
def call_site_mem_aware_replace(proc, block_cursor, subproc, quiet=False):
    """`replace`, then checks that the new call passes arguments in memories
    its callee accepts (`check_call_mem_types`)."""
    proc = replace(proc, block_cursor, subproc, quiet)
    check = __getattr__("check_call_mem_types")
    if not check(proc.forward(block_cursor)[0]):
        raise MemoryError(
            "replace failed due to memory type mismatch between block and subproc"
        )
    return proc


# The statement pattern finding the candidate first statements, per kind of
# a subprocedure's first statement (other kinds are not tried).
_FIRST_STMT_PATTERNS = {
    AssignCursor: "_ = _",
    ReduceCursor: "_ += _",
    ForCursor: "for _ in _: _",
}


def _candidates(proc, pattern):
    """The statements matching `pattern` in `proc`, in order (none: [])."""
    try:
        return proc.find(pattern, many=True)
    except SchedulingError:
        return []


def _replace_helper(proc, subprocs, mem_aware, once):
    if not isinstance(subprocs, list):
        subprocs = [subprocs]
    for subproc in subprocs:
        if not isinstance(subproc, Procedure):
            raise TypeError("expected Procedure as 2nd argument")

    for subproc in subprocs:
        body = subproc.body()
        pattern = _FIRST_STMT_PATTERNS.get(type(body[0]))
        if pattern is None:
            continue
        # Candidate i is the i-th match of the pattern; a failed candidate
        # stays, and after a replacement the list is found again (the
        # candidate became a call: the i-th match is now the next one).
        candidates = _candidates(proc, pattern)
        i = 0
        while i < len(candidates):
            block = candidates[i].expand(0, len(body) - 1)
            try:
                if len(block) != len(body):
                    raise UnificationError("the block is shorter than the body")
                if mem_aware:
                    proc = call_site_mem_aware_replace(proc, block, subproc, True)
                else:
                    proc = replace(proc, block, subproc, True)
            except (UnificationError, MemoryError, SchedulingError):
                i += 1  # this candidate stays; try the next one
                continue
            if once:
                break
            candidates = _candidates(proc, pattern)
    return proc


@user_op
def replace_all(proc, subprocs, mem_aware=True):
    """Replaces, for each subprocedure (one or a list) in order, every block
    that unifies with its body by a call to it; with `mem_aware`, only where
    the call's arguments are in memories the callee accepts."""
    return _replace_helper(proc, subprocs, mem_aware, once=False)


@user_op
def replace_once(proc, subprocs, mem_aware=True):
    """`replace_all`, stopping after the first replacement per
    subprocedure."""
    return _replace_helper(proc, subprocs, mem_aware, once=True)


@user_op
def lift_if(proc, cursor, n_lifts=1):
    """`lift_scope(proc, cursor)` applied `n_lifts` times: the if statement
    (or loop) at `cursor` moves above `n_lifts` enclosing scopes."""
    orig_proc = proc
    for i in range(n_lifts):
        try:
            proc = lift_scope(proc, cursor)
        except SchedulingError as e:
            raise SchedulingError(
                f"Could not fully lift if statement! {n_lifts - i} lift(s) remain! {e}",
                orig=orig_proc,
                proc=proc,
            ) from e
    return proc
