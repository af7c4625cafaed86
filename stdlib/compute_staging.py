"""Staging computations into a memory (vector registers): every operand
and result bound to a buffer there, with the rules that group operands
(docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from exo2.API_cursors import (
    AllocCursor,
    AssignCursor,
    ReadCursor,
)
from exo2.libs.memories import DRAM
from exo2.stdlib.aliasing import dealiasing_pass
from exo2.stdlib.binding import bind_and_set_expr
from exo2.stdlib.common import _WHOLE_PROC
from exo2.stdlib.higher_order import (
    apply,
    attempt,
    lift_rc,
    make_pass,
)
from exo2.stdlib.inspection import (
    are_exprs_equal,
    get_children,
    get_declaration,
    is_add,
    is_assign,
    is_literal,
    is_mul,
    is_select,
    is_unary_minus,
    lrn_stmts,
    nlr_stmts,
)
from exo2.stdlib.scheduling import (
    fold_into_reduce,
    set_memory,
    user_op,
)
from exo2.stdlib.staging import unfold_reduce


@user_op
def fma_rule(proc, expr):
    """Staging rule: the operands `[a, b, c]` of `a * b + c` or
    `c + a * b`, else None."""
    expr = proc.forward(expr)
    if is_add(proc, expr):
        if is_mul(proc, expr.lhs()):
            return [expr.lhs().lhs(), expr.lhs().rhs(), expr.rhs()]
        if is_mul(proc, expr.rhs()):
            return [expr.lhs(), expr.rhs().lhs(), expr.rhs().rhs()]
    return None


@user_op
def abs_rule(proc, expr):
    """Staging rule: for `select(0.0, x, x, -x)` (abs), one operand group
    `[[x, x, x]]` (the three occurrences of `x`, staged together), else
    None."""
    expr = proc.forward(expr)
    if is_select(proc, expr):
        args = expr.args()
        if (
            is_literal(proc, args[0], 0.0)
            and is_unary_minus(proc, args[3])
            and are_exprs_equal(proc, args[1], args[2])
            and are_exprs_equal(proc, args[1], args[3].arg())
        ):
            return [[args[1], args[2], args[3].arg()]]
    return None


@user_op
def max_rule(proc, expr):
    """Staging rule: for `select(a, b, b, a)` (`a < b ? b : a`, the larger
    of the two, as a max instruction computes it), the operand groups
    `[[a, a], [b, b]]` (each operand's two occurrences staged together),
    else None."""
    expr = proc.forward(expr)
    if is_select(proc, expr):
        args = expr.args()
        if are_exprs_equal(proc, args[0], args[3]) and are_exprs_equal(
            proc, args[1], args[2]
        ):
            return [[args[0], args[3]], [args[1], args[2]]]
    return None


@user_op
def stage_expr_into_memory(proc, exprs, precision, memory):
    """Binds `exprs` (one expression or a list of equal ones) into a new
    buffer of `precision` in `memory`, unless the expression is already
    assigned to, or read from, a buffer in `memory`. Returns `(proc, expr)`,
    `expr` the expression as now bound."""
    exprs = [proc.forward(e) for e in (exprs if isinstance(exprs, list) else [exprs])]
    expr = exprs[0]
    parent = expr.parent()
    if isinstance(parent, AssignCursor) and (
        get_declaration(proc, expr, parent.name()).mem() is memory
    ):
        return proc, expr
    if isinstance(expr, ReadCursor) and (
        get_declaration(proc, expr, expr.name()).mem() is memory
    ):
        return proc, expr
    return lift_rc(bind_and_set_expr, "bound_expr")(proc, exprs, precision, memory)


def _numeric_children(proc, cursor):
    return [
        c
        for c in get_children(proc, cursor)
        if hasattr(c, "type") and c.type().is_numeric()
    ]


@user_op
def stage_compute(
    proc, block=_WHOLE_PROC, precision="R", memory=DRAM, children_ops=None
):
    """Stages every operand and result of the computations in `block` into
    buffers of `precision` in `memory`: allocations move to `memory`,
    reductions are unfolded, each right-hand side is bound (recursively, its
    operands too; a rule of `children_ops` such as `fma_rule` chooses the
    operand groups of an expression, else its numeric children are used),
    then reductions are folded back and aliasing reads dealiased."""
    children_ops = list(children_ops or [])
    children_ops.append(_numeric_children)
    grouped = set()

    def stage(proc, exprs):
        proc, expr = stage_expr_into_memory(proc, exprs, precision, memory)
        children = []
        for children_op in children_ops:
            children = children_op(proc, expr)
            if children:
                break
        # a child is an expression or a group of equal ones (a list), which
        # a rule wants in one buffer: dealiasing must not split it again
        for child in children:
            if isinstance(child, list) and len(child) > 1:
                proc, staged = stage_expr_into_memory(proc, child, precision, memory)
                # the group now reads one buffer: the one bound to `staged`
                binding = staged.parent()
                grouped.add(
                    binding.name() if is_assign(proc, binding) else staged.name()
                )
                child = staged
            proc = stage(proc, child)
        return proc

    allocs = [s for s in nlr_stmts(proc, block) if isinstance(s, AllocCursor)]
    proc = apply(set_memory)(proc, allocs, memory)
    proc = make_pass(attempt(unfold_reduce))(proc, block)
    assigns = [s for s in lrn_stmts(proc, block) if isinstance(s, AssignCursor)]
    proc = apply(stage)(proc, [a.rhs() for a in assigns])
    proc = make_pass(attempt(fold_into_reduce))(proc, block)
    return dealiasing_pass(proc, block, keep=grouped)
