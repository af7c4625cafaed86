"""exo2.stdlib.analysis: what a statement can see, and memory consistency at
call sites (stdlib.md, end of §6).

Written against the public API only, like all of exo2.stdlib.
"""

from exo2 import DRAM, Procedure, SchedulingError
from exo2.API_cursors import (
    AllocCursor,
    CallCursor,
    InvalidCursor,
    StmtCursor,
    WindowStmtCursor,
)
from exo2.stdlib.scheduling import user_op

# Exo's module has no __all__: `import *` of it also gives DRAM, Procedure
# and SchedulingError, which it imports; so does this one.
__all__ = [
    "get_observed_stmts",
    "check_call_mem_types",
    "DRAM",
    "Procedure",
    "SchedulingError",
]


def _observed(stmt):
    cursor = stmt
    while True:
        previous = cursor.prev()
        if isinstance(previous, InvalidCursor):
            # the first statement of a body: next comes the enclosing one
            previous = cursor.parent()
            if isinstance(previous, InvalidCursor):
                return
        cursor = previous
        yield cursor


@user_op
def get_observed_stmts(stmt_cursor):
    """Generator of the statements before `stmt_cursor`, walking backwards:
    each previous sibling, then the enclosing statement, then its previous
    siblings, and so on up to the first statement of the procedure.

    For `s1; if c: (s2; s3); for i: (s4; s5)` and `stmt_cursor` at `s5`:
    `s4`, the loop, the if, `s1` (the statements inside the if are not
    visible from `s5`)."""
    if not isinstance(stmt_cursor, StmtCursor):
        raise TypeError("stmt_cursor must be an instance of StmtCursor")
    return _observed(stmt_cursor)


def _buffer_memory(stmt, name):
    """The memory of the buffer `name` as `stmt` sees it: the innermost
    allocation before it, else the parameter; window statements stand for
    the buffer they window."""
    for observed in _observed(stmt):
        if isinstance(observed, AllocCursor) and observed.name() == name:
            return observed.mem()
        if isinstance(observed, WindowStmtCursor) and observed.name() == name:
            return _buffer_memory(observed, observed.winexpr().name())
    for arg in stmt.proc().args():
        if arg.name() == name:
            return arg.mem()
    raise TypeError(f"no buffer named {name} is visible at the call")


@user_op
def check_call_mem_types(call_cursor):
    """Whether every data argument of the call lives in the memory of the
    callee's parameter or in a subclass of it."""
    if not isinstance(call_cursor, CallCursor):
        raise TypeError("call_cursor must be a CallCursor")
    params = call_cursor.subproc().args()
    for arg, param in zip(call_cursor.args(), params, strict=True):
        if not param.type().is_numeric():
            continue
        if not issubclass(_buffer_memory(call_cursor, arg.name()), param.mem()):
            return False
    return True
