"""Expression and statement primitives (primitives.md §10, and
`parallelize_loop` of §9): argument processing, then the C++ primitive.

The C++ primitive checks the shape of its arguments again; the checks here
give Exo's exception classes and texts (TypeError / ValueError) first.
"""

from .. import API_cursors as PC
from .. import _core
from .arguments import (
    AssignCursorA,
    AssignOrReduceCursorA,
    BlockCursorA,
    ExprCursorA,
    ForCursorA,
    GapCursorA,
    InstrStrA,
    NameA,
    NewExprA,
    sched_op,
)
from .results import derived_procedure

__all__ = [
    "rename",
    "make_instr",
    "insert_pass",
    "delete_pass",
    "reorder_stmts",
    "commute_expr",
    "left_reassociate_expr",
    "rewrite_expr",
    "merge_writes",
    "split_write",
    "fold_into_reduce",
    "inline_assign",
    "lift_reduce_constant",
    "parallelize_loop",
]

_CONTROL_TYPES = ("index", "size", "int", "bool", "stride")


def _is_numeric(expr_cursor):
    return expr_cursor._impl.type_name() not in _CONTROL_TYPES


def _op_of(expr_cursor):
    if isinstance(expr_cursor, PC.BinaryOpCursor):
        return expr_cursor.op()
    return type(expr_cursor).__name__


@sched_op([NameA])
def rename(proc, name):
    """Renames the procedure; cursors forward unchanged."""
    return derived_procedure(_core.rename(proc._provenance, name))


@sched_op([InstrStrA, InstrStrA])
def make_instr(proc, c_instr, c_global=""):
    """Turns the procedure into an instruction emitted as `c_instr` at each
    call (with `c_global` once per file)."""
    return derived_procedure(_core.make_instr(proc._provenance, c_instr, c_global))


@sched_op([GapCursorA])
def insert_pass(proc, gap_cursor):
    """Inserts `pass` at the gap."""
    return derived_procedure(_core.insert_pass(proc._provenance, gap_cursor._impl))


@sched_op([])
def delete_pass(proc):
    """Deprecated: deletes every `pass`, and loops whose body is only one."""
    return derived_procedure(_core.delete_pass(proc._provenance))


@sched_op([BlockCursorA(block_size=2)])
def reorder_stmts(proc, block_cursor):
    """`s1; s2` → `s2; s1`, after proving that they commute."""
    return derived_procedure(_core.reorder_stmts(proc._provenance, block_cursor._impl))


@sched_op([ExprCursorA(many=True)])
def commute_expr(proc, expr_cursors):
    """Swaps the operands of each data `+` / `*`: `a * b` → `b * a`."""
    for e in expr_cursors:
        if _op_of(e) not in ("+", "*"):
            raise TypeError(f"only '+' or '*' can commute, got {_op_of(e)}")
    if any(not _is_numeric(e) for e in expr_cursors):
        raise TypeError(
            "only numeric (not index or size) expressions can commute by commute_expr()"
        )
    return derived_procedure(
        _core.commute_expr(proc._provenance, [e._impl for e in expr_cursors])
    )


@sched_op([ExprCursorA])
def left_reassociate_expr(proc, expr):
    """`a + (b + c)` → `(a + b) + c` (also for `*`)."""
    op = _op_of(expr)
    if op not in ("+", "*"):
        raise TypeError(f"Only '+' or '*' can be reassociated, got {op}")
    if _op_of(expr.rhs()) != op:
        raise TypeError(
            "The rhs of the expression must be the same binary operation "
            f"as the expression ({op})"
        )
    return derived_procedure(_core.left_reassociate_expr(proc._provenance, expr._impl))


@sched_op([ExprCursorA, NewExprA("expr_cursor", "same")])
def rewrite_expr(proc, expr_cursor, new_expr):
    """Replaces the expression by `new_expr` after proving them equal in
    the context of its statement."""
    return derived_procedure(
        _core.rewrite_expr(proc._provenance, expr_cursor._impl, new_expr)
    )


@sched_op([BlockCursorA(block_size=2)])
def merge_writes(proc, block_cursor):
    """Merges two writes to one element: `a = b; a += c` → `a = b + c`
    (and the other three combinations of `=` and `+=`)."""
    s1, s2 = block_cursor[0], block_cursor[1]
    kinds = (PC.AssignCursor, PC.ReduceCursor)
    if not isinstance(s1, kinds) or not isinstance(s2, kinds):
        raise ValueError(
            "expected two consecutive assign/reduce statements, "
            f"got {type(s1)} and {type(s2)} instead."
        )
    return derived_procedure(_core.merge_writes(proc._provenance, block_cursor._impl))


@sched_op([AssignOrReduceCursorA])
def split_write(proc, stmt):
    """`a = b + c` → `a = b; a += c` (`a += b + c` → `a += b; a += c`)."""
    return derived_procedure(_core.split_write(proc._provenance, stmt._impl))


@sched_op([AssignCursorA])
def fold_into_reduce(proc, assign):
    """`a = a + e` → `a += e`."""
    return derived_procedure(_core.fold_into_reduce(proc._provenance, assign._impl))


@sched_op([AssignCursorA])
def inline_assign(proc, alloc_cursor):
    """Deletes `x = e` and replaces the later reads of `x` by `e`."""
    return derived_procedure(_core.inline_assign(proc._provenance, alloc_cursor._impl))


@sched_op([BlockCursorA(block_size=2)])
def lift_reduce_constant(proc, block_cursor):
    """`x = 0.0; for ...: x += c * e` → `x = 0.0; for ...: x += e; x = c * x`."""
    return derived_procedure(
        _core.lift_reduce_constant(proc._provenance, block_cursor._impl)
    )


@sched_op([ForCursorA])
def parallelize_loop(proc, loop_cursor):
    """Marks the loop `par`; races are checked when compiling."""
    return derived_procedure(
        _core.parallelize_loop(proc._provenance, loop_cursor._impl)
    )
