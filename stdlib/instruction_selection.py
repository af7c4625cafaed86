"""Instruction selection: replacing statements by instruction procedures,
the call site checked (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import (
    CallCursor,
    InvalidCursorError,
)
from exo2.rewrite.LoopIR_unification import UnificationError
from exo2.stdlib.inspection import (
    get_declaration,
    nlr_stmts,
)
from exo2.stdlib.scheduling import (
    SchedulingError,
    replace,
    user_op,
)


def _memory_and_type(proc, stmt, name):
    decl = get_declaration(proc, stmt, name)
    return decl.mem(), decl.type()


@user_op
def check_call_site(proc, call_cursor):
    """Whether every data argument of the call is a buffer whose memory is
    (a subclass of) the memory of the callee's parameter and whose
    precision is the parameter's."""
    call_cursor = proc.forward(call_cursor)
    if not isinstance(call_cursor, CallCursor):
        raise TypeError("call_cursor must be a CallCursor")
    for arg, param in zip(
        call_cursor.args(), call_cursor.subproc().args(), strict=True
    ):
        if not param.type().is_numeric():
            continue
        arg_mem, arg_type = _memory_and_type(proc, call_cursor, arg.name())
        if not issubclass(arg_mem, param.mem()) or arg_type != param.type():
            return False
    return True


@user_op
def checked_replace(proc, stmt, subproc, quiet=False):
    """`replace` of one statement by a call to `subproc`, then
    `check_call_site` on the call."""
    stmt = proc.forward(stmt)
    try:
        new_proc = replace(proc, stmt, subproc, quiet=quiet)
    except (SchedulingError, UnificationError, TypeError, ValueError) as e:
        raise SchedulingError("failed to replace") from e
    # the block of the replaced statement forwards to the call
    call = new_proc.forward(stmt.as_block())[0]
    if not check_call_site(new_proc, call):
        raise SchedulingError("Call site inconsistency")
    return new_proc


@dataclass
class replace_cursors:
    """The call a replacement made (Exo's cursor record for it); iterating
    yields the call."""

    call: CallCursor

    def __iter__(self):
        yield self.call


@user_op
def replace_all_stmts(proc, instructions):
    """Tries `checked_replace` with each instruction (in order) on every
    statement, in pre-order; the first that succeeds replaces it."""
    if not isinstance(instructions, list):
        instructions = [instructions]
    for stmt in list(nlr_stmts(proc)):
        try:
            stmt = proc.forward(stmt)
        except InvalidCursorError:
            continue
        for instr in instructions:
            try:
                proc = checked_replace(proc, stmt, instr, quiet=True)
                break
            except SchedulingError:
                pass
    return proc
