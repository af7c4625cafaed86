"""exo2.stdlib.higher_order: combinators over scheduling operations
(stdlib.md §2). An *op* is any `f(proc, *args, **kwargs) -> proc`.

Written against the public API only, like all of exo2.stdlib. `make_pass`
and `lift_rc` join this module with the traversals of
`exo2.stdlib.inspection` and the cursor records of `exo2.stdlib.rc_wrappers`.
"""

import functools

from exo2 import SchedulingError
from exo2.API_cursors import InvalidCursorError

__all__ = ["attempt", "apply", "predicate", "repeate"]

_DEFAULT_ERRORS = frozenset(
    {ValueError, TypeError, SchedulingError, InvalidCursorError}
)


def attempt(op, errs=_DEFAULT_ERRORS):
    """`f(proc, *args, rs=False, **kwargs)`: `op(proc, ...)`, or `proc`
    unchanged when `op` raises one of `errs`; with `rs=True` the result is
    `(proc, succeeded)`."""
    errors = tuple(errs)

    @functools.wraps(op)
    def attempted(proc, *args, rs=False, **kwargs):
        try:
            result, succeeded = op(proc, *args, **kwargs), True
        except errors:
            result, succeeded = proc, False
        return (result, succeeded) if rs else result

    return attempted


def apply(op):
    """`f(proc, cursors, *args, **kwargs)`: `op` applied to each cursor in
    turn, each forwarded to the procedure the previous step produced."""

    @functools.wraps(op)
    def applied(proc, cursors, *args, **kwargs):
        for cursor in cursors:
            proc = op(proc, proc.forward(cursor), *args, **kwargs)
        return proc

    return applied


def predicate(op, pred):
    """`f(proc, *args, **kwargs)`: `op` applied only when
    `pred(proc, *args, **kwargs)` holds."""

    @functools.wraps(op)
    def guarded(proc, *args, **kwargs):
        if pred(proc, *args, **kwargs):
            return op(proc, *args, **kwargs)
        return proc

    return guarded


def repeate(op):
    """`f(proc, *args, **kwargs)`: `attempt(op)` applied until it fails."""
    attempted = attempt(op)

    @functools.wraps(op)
    def repeated(proc, *args, **kwargs):
        while True:
            proc, succeeded = attempted(proc, *args, rs=True, **kwargs)
            if not succeeded:
                return proc

    return repeated
