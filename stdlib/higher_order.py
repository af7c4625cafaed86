"""exo2.stdlib.higher_order: combinators over scheduling operations
(docs/combinators.md). An *op* is any `f(proc, *args, **kwargs) -> proc`.

Written against the public API only, like all of exo2.stdlib. `make_pass`
uses the traversals of `exo2.stdlib.inspection`; `lift_rc` picks one cursor
of the records `exo2.stdlib.rc_wrappers` returns.
"""

import functools

from exo2 import SchedulingError
from exo2.API_cursors import InvalidCursor, InvalidCursorError
from exo2.stdlib.inspection import nlr_stmts

__all__ = ["apply", "attempt", "make_pass", "lift_rc", "repeate", "predicate"]

# The default scope: "the whole procedure".
_WHOLE_PROC = InvalidCursor()


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
    turn, each forwarded to the procedure the previous step produced.

    A cursor whose code an earlier step removed is handed to `op` as it
    was, so that `op`'s own forwarding raises the `InvalidCursorError`
    there (as in Exo): `apply(attempt(op))` skips such cursors."""

    @functools.wraps(op)
    def applied(proc, cursors, *args, **kwargs):
        for cursor in cursors:
            try:
                cursor = proc.forward(cursor)
            except InvalidCursorError:
                pass
            proc = op(proc, cursor, *args, **kwargs)
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


def make_pass(op, trav_start=nlr_stmts):
    """`f(proc, block=InvalidCursor(), *args, **kwargs)`: `apply(op)` over
    the cursors `trav_start(proc, block)` yields (by default every
    statement of `block`, or of the whole procedure, in pre-order)."""

    @functools.wraps(op)
    def applied_everywhere(proc, block=_WHOLE_PROC, *args, **kwargs):
        return apply(op)(proc, trav_start(proc, block), *args, **kwargs)

    return applied_everywhere


def lift_rc(op, attr):
    """`f(*args, **kwargs)`: `op(*args, **kwargs, rc=True)`, returning the
    procedure and the cursor `attr` of the record `op` returns."""

    @functools.wraps(op)
    def lifted(*args, **kwargs):
        proc, cursors = op(*args, **kwargs, rc=True)
        return proc, getattr(cursors, attr)

    return lifted


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
