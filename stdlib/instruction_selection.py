"""Instruction selection: replacing statements by instruction procedures,
the call site checked (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import (
    AssignCursor,
    BinaryOpCursor,
    CallCursor,
    ExternFunctionCursor,
    ForCursor,
    InvalidCursorError,
    ReduceCursor,
    UnaryMinusCursor,
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


def _expr_shape(expr):
    """The part of a data expression unification compares literally: the
    kinds of its nodes, binary operators and extern names. Control and
    bool subexpressions unify by equations, whatever their shape."""
    if not expr.type().is_numeric():
        return "not data"
    if isinstance(expr, BinaryOpCursor):
        return (expr.op(), _expr_shape(expr.lhs()), _expr_shape(expr.rhs()))
    if isinstance(expr, UnaryMinusCursor):
        return ("-", _expr_shape(expr.arg()))
    if isinstance(expr, ExternFunctionCursor):
        return (expr.name(), *(_expr_shape(a) for a in expr.args()))
    return type(expr).__name__


def _stmt_shape(stmt):
    """A necessary condition for `stmt` to unify with a statement
    (docs/instruction-selection.md, "How unification works"): statements
    of different shapes never unify, since unification requires the same
    statement kinds, loop bodies of the same length and data expressions
    of the same operators and externs."""
    if isinstance(stmt, AssignCursor | ReduceCursor):
        return (type(stmt).__name__, _expr_shape(stmt.rhs()))
    if isinstance(stmt, ForCursor):
        return ("for", *(_stmt_shape(s) for s in stmt.body()))
    return type(stmt).__name__


def _candidates(instructions):
    """`{shape: [instruction, ...]}` (in order) of the instructions whose
    body one statement can unify with: `replace` of one statement matches a
    body of one statement."""
    by_shape = {}
    for instr in instructions:
        body = list(instr.body())
        if len(body) == 1:
            by_shape.setdefault(_stmt_shape(body[0]), []).append(instr)
    return by_shape


@user_op
def replace_all_stmts(proc, instructions):
    """Tries `checked_replace` with each instruction (in order) on every
    statement, in pre-order; the first that succeeds replaces it. Only
    instructions whose body has the statement's shape are tried: the
    others cannot unify with it."""
    if not isinstance(instructions, list):
        instructions = [instructions]
    by_shape = _candidates(instructions)
    for stmt in list(nlr_stmts(proc)):
        try:
            stmt = proc.forward(stmt)
        except InvalidCursorError:
            continue
        for instr in by_shape.get(_stmt_shape(stmt), ()):
            try:
                proc = checked_replace(proc, stmt, instr, quiet=True)
                break
            except SchedulingError:
                pass
    return proc
