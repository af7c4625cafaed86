"""Moving statements across loops: hoisting, jamming, reordering, and
fissioning a body into single statements (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import (
    AllocCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    StmtCursor,
)
from exo2.stdlib.binding import parallelize_allocs
from exo2.stdlib.higher_order import (
    apply,
    attempt,
    repeate,
)
from exo2.stdlib.inspection import (
    get_children,
    get_symbols,
    is_end_of_body,
    is_loop,
)
from exo2.stdlib.rc_wrappers import fission_
from exo2.stdlib.scheduling import (
    FormattedExprStr,
    SchedulingError,
    add_loop,
    fission,
    fuse,
    lift_alloc,
    remove_loop,
    reorder_stmts,
    shift_loop,
    simplify,
    user_op,
)


@dataclass
class hoist_stmt_cursors:
    allocs: list
    stmt: StmtCursor
    loop: ForCursor

    def __iter__(self):
        yield self.allocs
        yield self.stmt
        yield self.loop


@dataclass
class move_to_top_cursors:
    allocs: list
    stmt: StmtCursor

    def __iter__(self):
        yield self.allocs
        yield self.stmt


@user_op
def move_to_top(proc, stmt, rc=False):
    """Moves `stmt` to the top of its block, one `reorder_stmts` at a time;
    an allocation of a buffer it uses is lifted out of the block
    (`lift_alloc`) instead of passed. rc: `(allocs, stmt)` (the lifted
    allocations, the statement)."""
    stmt = proc.forward(stmt)
    if not isinstance(stmt, StmtCursor):
        raise SchedulingError(f"expected a statement, not {type(stmt).__name__}")
    deps = _free_names(proc, [stmt])
    allocs = []
    while not isinstance(stmt.prev(), InvalidCursor):
        prev_stmt = stmt.prev()
        if isinstance(prev_stmt, AllocCursor) and prev_stmt.name() in deps:
            proc = lift_alloc(proc, prev_stmt)
            allocs.append(prev_stmt)
        else:
            proc = reorder_stmts(proc, stmt.expand(1, 0))
        stmt = proc.forward(stmt)
    if not rc:
        return proc
    return proc, move_to_top_cursors([proc.forward(a) for a in allocs], stmt)


@user_op
def hoist_stmt(proc, stmt, rc=False):
    """Moves a statement that does not depend on its enclosing loop out of
    it (in front): reorders it to the top of the body (lifting the
    allocations it uses), fissions it off and removes the loop around it.
    rc: `(allocs, stmt, loop)` (the lifted allocations, the statement, the
    loop with the rest)."""
    stmt = proc.forward(stmt)
    if not isinstance(stmt, StmtCursor):
        raise SchedulingError("Cannot hoist cursor that are not statements")
    loop = stmt.parent()
    if not isinstance(loop, ForCursor):
        raise SchedulingError("Statement is not within a loop")
    deps = _free_names(proc, [stmt])
    if loop.name() in deps:
        raise SchedulingError(
            "Cannot hoist cursor to a statement that depends on enclosing loop"
        )

    if isinstance(stmt, AllocCursor):
        proc = lift_alloc(proc, stmt)
        if not rc:
            return proc
        stmt = proc.forward(stmt)
        return proc, hoist_stmt_cursors([stmt], stmt, proc.forward(loop))

    proc, (allocs, stmt) = move_to_top(proc, stmt, rc=True)
    loop = proc.forward(loop)
    if len(loop.body()) > 1:
        proc, (_, loop) = fission_(proc, stmt.after(), rc=True)
        stmt = proc.forward(stmt)
    else:
        loop = InvalidCursor()
    proc = remove_loop(proc, stmt.parent())
    if not rc:
        return proc
    allocs = [proc.forward(a) for a in allocs]
    stmt = proc.forward(stmt)
    if not isinstance(loop, InvalidCursor):
        loop = proc.forward(loop)
    return proc, hoist_stmt_cursors(allocs, stmt, loop)


def _free_names(proc, stmts, bound=frozenset()):
    """The names the statements `stmts` use from outside them: every name
    below them less those they declare first (a loop's iterator in its
    body, an allocation after it), so that an inlined loop whose iterator
    shadows the enclosing loop's does not depend on it."""
    free, bound = set(), set(bound)
    for s in stmts:
        if isinstance(s, AllocCursor):
            bound.add(s.name())
        elif isinstance(s, ForCursor):
            bounds = {n for e in (s.lo(), s.hi()) for n in get_symbols(proc, e)}
            free |= bounds - bound
            free |= _free_names(proc, s.body(), bound | {s.name()})
        elif isinstance(s, IfCursor):
            free |= set(get_symbols(proc, s.cond())) - bound
            free |= _free_names(proc, s.body(), bound)
            free |= _free_names(proc, s.orelse() or [], bound)
        else:
            free |= set(get_symbols(proc, s)) - bound
    return free


@dataclass
class hoist_from_loop_cursors:
    hoisted: list
    loop: ForCursor

    def __iter__(self):
        yield self.hoisted
        yield self.loop


@user_op
def hoist_from_loop(proc, loop, rc=False):
    """`hoist_stmt` of every statement of `loop` that can be hoisted
    (allocations stay unless a hoisted statement needs them). rc:
    `(hoisted, loop)`, `hoisted` a list of `(stmt, allocs)`."""
    loop = proc.forward(loop)
    if not is_loop(proc, loop):
        raise SchedulingError(f"loop must of type {ForCursor} not {type(loop)}")
    results = []

    def hoist_non_alloc(proc, stmt):
        stmt = proc.forward(stmt)
        if isinstance(stmt, AllocCursor):
            return proc
        proc, cursors = hoist_stmt(proc, stmt, rc=True)
        results.append(cursors)
        return proc

    proc = apply(attempt(hoist_non_alloc))(proc, list(loop.body()))
    if not rc:
        return proc
    # the loop left behind: the last hoist's (the original loop if none)
    loop = results[-1].loop if results else loop
    if not isinstance(loop, InvalidCursor):
        loop = proc.forward(loop)
    hoisted = [
        (proc.forward(c.stmt), tuple(proc.forward(a) for a in c.allocs))
        for c in results
    ]
    return proc, hoist_from_loop_cursors(hoisted, loop)


@dataclass
class jam_stmt_cursors:
    loop: ForCursor
    stmt: StmtCursor

    def __iter__(self):
        yield self.loop
        yield self.stmt


@user_op
def reorder_stmt_forward(proc, stmt):
    """Swaps `stmt` with the statement after it."""
    stmt = proc.forward(stmt)
    return reorder_stmts(proc, stmt.as_block().expand(0, 1))


@user_op
def reorder_stmt_backwards(proc, stmt):
    """Swaps `stmt` with the statement before it. (Exo's version expands the
    block by -1 and always raises ValueError.)"""
    stmt = proc.forward(stmt)
    return reorder_stmts(proc, stmt.as_block().expand(1, 0))


@user_op
def jam_stmt(proc, stmt, unsafe_disable_check=False, rc=False):
    """Pushes `stmt` into the loop that follows it, as the last statement of
    its body: wraps it in a loop of the same range (`add_loop` +
    `shift_loop`; the statement must be idempotent), fuses the two loops
    and moves it down. rc: `(loop, stmt)`."""
    stmt = proc.forward(stmt)
    loop = stmt.next()
    if not isinstance(loop, ForCursor):
        raise SchedulingError("Next statement must be a loop.")
    proc = add_loop(
        proc,
        stmt,
        loop.name(),
        FormattedExprStr("_ - _", loop.hi(), loop.lo()),
        unsafe_disable_check=unsafe_disable_check,
    )
    stmt_loop = proc.forward(stmt).parent()
    proc = shift_loop(proc, stmt_loop, FormattedExprStr("_", loop.lo()))
    proc = simplify(proc)
    proc = fuse(proc, stmt_loop, loop, unsafe_disable_check=unsafe_disable_check)
    proc = repeate(reorder_stmt_forward)(proc, stmt)
    if not rc:
        return proc
    return proc, jam_stmt_cursors(proc.forward(stmt_loop), proc.forward(stmt))


@user_op
def fission_into_singles(proc, cursor):
    """Fissions the loop or if `cursor` (and the scopes inside) until every
    innermost scope holds one statement; allocations first get
    per-iteration copies (`parallelize_allocs`)."""
    cursor = proc.forward(cursor)
    if not isinstance(cursor, (ForCursor, IfCursor)):
        raise SchedulingError(
            f"Got type {type(cursor)}, expected {ForCursor} or {IfCursor}"
        )

    def dfs(proc, cursor, n_lifts=0):
        cursor = proc.forward(cursor)
        if n_lifts and not is_end_of_body(proc, cursor):
            proc = fission(proc, cursor.after(), n_lifts)
        children = [c for c in get_children(proc, cursor) if isinstance(c, StmtCursor)]
        return apply(dfs)(proc, children, n_lifts + 1)

    proc = parallelize_allocs(proc, cursor)
    return dfs(proc, cursor)
