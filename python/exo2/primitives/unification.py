"""Instruction selection (primitives.md §8, §11): `replace` unifies a block
with a procedure body and calls it; `insert_noop_call`."""

from .. import _core
from ..errors import UnificationError
from .arguments import BlockCursorA, BoolA, GapCursorA, ListA, NewExprA, ProcA, sched_op
from .results import derived_procedure

__all__ = ["replace", "insert_noop_call"]


@sched_op([BlockCursorA, ProcA, BoolA])
def replace(proc, block_cursor, subproc, quiet=False):
    """Replaces the first `len(subproc.body)` statements of the block by a
    call to `subproc`, whose arguments are found by unification; the callee's
    preconditions must hold at the call."""
    try:
        return derived_procedure(
            _core.replace(proc._provenance, block_cursor._impl, subproc._proc)
        )
    except UnificationError:
        if not quiet:
            print(f"Failed to unify the following:\nSubproc:\n{subproc}\nStatements:")
            for text in _core.block_statements_text(block_cursor._impl):
                print(text)
        raise


@sched_op([GapCursorA, ProcA, ListA(NewExprA("gap_cursor", "any"))])
def insert_noop_call(proc, gap_cursor, instr, args):
    """Inserts a call to `instr`, whose body must be `pass`, at the gap;
    `args` are expression or window strings in the scope of the gap."""
    if len(args) != len(instr._proc.arg_names()):
        raise TypeError("Function argument count mismatch")
    return derived_procedure(
        _core.insert_noop_call(proc._provenance, gap_cursor._impl, instr._proc, args)
    )
