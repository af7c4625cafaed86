"""Sub-procedure primitives (primitives.md §8): extract_subproc, inline,
call_eqv; and the legacy add_unsafe_guard (§11)."""

from .. import _core
from ..API import Procedure
from ..core import equivalence
from .arguments import (
    BlockCursorA,
    BoolA,
    CallCursorA,
    NameA,
    NewExprA,
    ProcA,
    sched_op,
)
from .results import derived_procedure

__all__ = ["extract_subproc", "inline", "call_eqv", "add_unsafe_guard"]


@sched_op([BlockCursorA, NameA, BoolA])
def extract_subproc(proc, block, subproc_name, include_asserts=True):
    """Moves the block into a new procedure `subproc_name` and calls it;
    returns `(proc, subproc)`."""
    provenance, subproc = _core.extract_subproc(
        proc._provenance, block._impl, subproc_name, include_asserts
    )
    return derived_procedure(provenance), Procedure(subproc)


@sched_op([CallCursorA])
def inline(proc, call_cursor):
    """Replaces the call by the callee's body, arguments substituted."""
    return derived_procedure(_core.inline_call(proc._provenance, call_cursor._impl))


@sched_op([CallCursorA, ProcA])
def call_eqv(proc, call_cursor, eqv_proc):
    """Calls `eqv_proc` instead of the callee, which must be recorded as
    equivalent to it."""
    callee = call_cursor._impl.subproc()
    fields = equivalence.fields_modulo(callee, eqv_proc.INTERNAL_proc())
    provenance, visible = _core.call_eqv(
        proc._provenance,
        call_cursor._impl,
        eqv_proc.INTERNAL_proc(),
        fields is not None,
        [(config.INTERNAL_core(), field) for config, field in fields or ()],
    )
    return derived_procedure(provenance, visible)


@sched_op([BlockCursorA, NewExprA("block_cursor", "bool")])
def add_unsafe_guard(proc, block_cursor, var_expr):
    """Deprecated: wraps the block's first statement in `if var_expr:`,
    unchecked. Cursors cannot be forwarded across it."""
    return derived_procedure(
        _core.add_unsafe_guard(proc._provenance, block_cursor._impl, var_expr)
    )
