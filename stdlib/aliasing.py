"""Common subexpressions, aliasing reads and copies (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from exo2.API_cursors import BlockCursor
from exo2.libs.memories import DRAM
from exo2.stdlib.binding import bind_and_set_expr
from exo2.stdlib.common import _WHOLE_PROC
from exo2.stdlib.higher_order import (
    attempt,
    make_pass,
    predicate,
)
from exo2.stdlib.inspection import (
    expr_to_string,
    get_bounding_block,
    get_declaration,
    is_access,
    is_assign,
    is_copy,
    is_read,
    is_reduce,
    is_stmt,
    lrn,
)
from exo2.stdlib.scheduling import (
    inline_assign,
    user_op,
)
from exo2.stdlib.staging import auto_stage_mem


@user_op
def cse(proc, block, precision):
    """Common-subexpression elimination of repeated buffer accesses in
    `block`: reads of the same element, all reads, are bound into one
    `precision` temporary; a group with a write is staged (`auto_stage_mem`
    over the smallest block holding it)."""
    if not isinstance(block, BlockCursor):
        block = proc.forward(block).as_block()
    accesses = [
        c
        for c in lrn(proc, block)
        if is_access(proc, c) and (is_stmt(proc, c) or c.type().is_numeric())
    ]
    groups = {}
    for access in accesses:
        key = (access.name(), expr_to_string(access.idx()))
        groups.setdefault(key, []).append(access)
    for (buff, _), group in groups.items():
        if len(group) < 2:
            continue
        if all(is_read(proc, c) for c in group):
            proc = bind_and_set_expr(proc, group, precision, DRAM)
        else:
            proc = auto_stage_mem(proc, get_bounding_block(proc, group), buff)
    return proc


@user_op
def dealias(proc, stmt, keep=()):
    """Binds all but the last of the repeated reads of a buffer in the
    right-hand side of an assignment or reduction, and the whole right-hand
    side when it reads the buffer written, into temporaries of the buffers'
    precision and memory. Repeated reads of the buffers named in `keep`
    stay (**[exo2]**)."""
    stmt = proc.forward(stmt)
    if not is_assign(proc, stmt) and not is_reduce(proc, stmt):
        raise TypeError("stmt must be an assign or reduce")
    accesses = [
        c
        for c in lrn(proc, stmt.rhs())
        if is_access(proc, c) and (is_stmt(proc, c) or c.type().is_numeric())
    ]
    by_buffer = {}
    for access in accesses:
        by_buffer.setdefault(access.name(), []).append(access)
    for name, buff_accesses in by_buffer.items():
        if name in keep:
            continue
        for access in buff_accesses[:-1]:
            decl = get_declaration(proc, stmt, access.name())
            proc = bind_and_set_expr(proc, access, decl.type(), decl.mem())
    if stmt.name() in by_buffer:
        stmt = proc.forward(stmt)
        decl = get_declaration(proc, stmt, stmt.name())
        proc = bind_and_set_expr(proc, stmt.rhs(), decl.type(), decl.mem())
    return proc


_dealiasing_pass = make_pass(attempt(dealias, errs=(TypeError,)))


@user_op
def dealiasing_pass(proc, block=_WHOLE_PROC, keep=()):
    """`dealias` of every assignment and reduction in `block`."""
    return _dealiasing_pass(proc, block, keep=keep)


def _inline_copy(proc, assign):
    return inline_assign(proc, assign)


_inline_copies = make_pass(predicate(attempt(_inline_copy), is_copy))


@user_op
def inline_copies(proc, block=_WHOLE_PROC):
    """`inline_assign` of every copy `x[...] = y[...]` between buffers of
    the same memory in `block`, where it is allowed."""
    return _inline_copies(proc, block)
