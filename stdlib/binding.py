"""Binding expressions to new buffers, and giving allocations per-iteration
copies (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import (
    AllocCursor,
    ExprCursor,
    ForCursor,
    IfCursor,
)
from exo2.stdlib.higher_order import apply
from exo2.stdlib.inspection import (
    expr_to_string,
    get_declaration,
    get_distance,
    get_enclosing_stmt,
    get_unique_names,
    nlr_stmts,
)
from exo2.stdlib.scheduling import (
    SchedulingError,
    bind_expr,
    expand_dim,
    lift_alloc,
    set_memory,
    set_precision,
    user_op,
)


@dataclass
class bind_and_set_expr_cursors:
    alloc: AllocCursor
    bound_expr: ExprCursor
    expr_reads: ExprCursor

    def __iter__(self):
        yield self.alloc
        yield self.bound_expr
        yield self.expr_reads


@user_op
def bind_and_set_expr(proc, exprs, precision, memory, new_name=None, rc=False):
    """`bind_expr` of `exprs` (one expression or a list of equal ones) into
    a new buffer (named `new_name`, else a fresh `varK`), then sets its
    precision and memory. rc: `(alloc, bound_expr, expr_reads)`, the
    latter being the `exprs` given."""
    if new_name is None:
        new_name = next(get_unique_names(proc))
    expr = exprs if isinstance(exprs, ExprCursor) else exprs[0]
    stmt = get_enclosing_stmt(proc, proc.forward(expr))
    proc = bind_expr(proc, exprs, new_name)
    proc = set_precision(proc, new_name, precision)
    proc = set_memory(proc, new_name, memory)
    if not rc:
        return proc
    alloc = get_declaration(proc, proc.forward(stmt), new_name)
    bound_expr = alloc.next().rhs()
    return proc, bind_and_set_expr_cursors(alloc, bound_expr, exprs)


@user_op
def parallelize_and_lift_alloc(proc, alloc_cursor, n_lifts=1):
    """Lifts an allocation out of `n_lifts` scopes; out of a loop
    `for i in seq(lo, hi)` it first gains a leading dimension `hi` indexed
    by `i`, so that every iteration keeps its own copy."""
    for _ in range(n_lifts):
        alloc_cursor = proc.forward(alloc_cursor)
        scope = alloc_cursor.parent()
        if isinstance(scope, ForCursor):
            proc = expand_dim(
                proc, alloc_cursor, expr_to_string(scope.hi()), scope.name()
            )
        proc = lift_alloc(proc, alloc_cursor)
    return proc


@user_op
def parallelize_allocs(proc, cursor):
    """`parallelize_and_lift_alloc` of every allocation inside the loop or
    if `cursor`, lifted out of `cursor` (just above it)."""
    cursor = proc.forward(cursor)
    if not isinstance(cursor, (ForCursor, IfCursor)):
        raise SchedulingError(
            f"Got type {type(cursor)}, expected {ForCursor} or {IfCursor}"
        )
    allocs = [s for s in nlr_stmts(proc, cursor) if isinstance(s, AllocCursor)]

    def lift(proc, alloc):
        return parallelize_and_lift_alloc(
            proc, alloc, get_distance(proc, alloc, cursor)
        )

    return apply(lift)(proc, allocs)
