"""Instruction selection: replacing statements by instruction procedures,
the call site checked (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import (
    AllocCursor,
    AssignCursor,
    BinaryOpCursor,
    CallCursor,
    ExternFunctionCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    InvalidCursorError,
    LiteralCursor,
    ReadConfigCursor,
    ReadCursor,
    ReduceCursor,
    StrideExprCursor,
    UnaryMinusCursor,
    WindowExprCursor,
    WindowStmtCursor,
)
from exo2.rewrite.LoopIR_unification import UnificationError
from exo2.stdlib.inspection import (
    get_declaration,
    nlr_stmts,
)
from exo2.stdlib.scheduling import (
    SchedulingError,
    inline,
    inline_window,
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
    return _replace_checked(proc, stmt, subproc, quiet, check_call_site)


def _replace_checked(proc, stmt, subproc, quiet, call_site_ok):
    """`checked_replace` with the call-site check `call_site_ok(proc,
    call)`."""
    stmt = proc.forward(stmt)
    try:
        new_proc = replace(proc, stmt, subproc, quiet=quiet)
    except (SchedulingError, UnificationError, TypeError, ValueError) as e:
        raise SchedulingError("failed to replace") from e
    # the block of the replaced statement forwards to the call
    call = new_proc.forward(stmt.as_block())[0]
    if not call_site_ok(new_proc, call):
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


@dataclass(frozen=True)
class _InstructionForm:
    """What selection needs of an instruction, read once: the shape of its
    body's statement (None unless its body is one statement), and for each
    parameter, in order, its memory and type (None for a control one)."""

    shape: object
    params: tuple

    @staticmethod
    def of(instr):
        body = list(instr.body())
        shape = _stmt_shape(body[0]) if len(body) == 1 else None
        params = tuple(
            (a.mem(), a.type()) if a.type().is_numeric() else None for a in instr.args()
        )
        return _InstructionForm(shape, params)


# id(instruction) -> (instruction, its form); holding the instruction keeps
# its id from being reused. Instructions are immutable, so the form stays.
_FORMS = {}


def _form(instr):
    entry = _FORMS.get(id(instr))
    if entry is None or entry[0] is not instr:
        entry = _FORMS[id(instr)] = (instr, _InstructionForm.of(instr))
    return entry[1]


def _candidates(instructions):
    """`{shape: [(instruction, form), ...]}` (in order) of the instructions
    whose body one statement can unify with: `replace` of one statement
    matches a body of one statement."""
    by_shape = {}
    for instr in instructions:
        form = _form(instr)
        if form.shape is not None:
            by_shape.setdefault(form.shape, []).append((instr, form))
    return by_shape


def _buffer_declarations(proc):
    """`{name: (memory, type)}` of the buffers `proc` declares (its data
    parameters and allocations); None for a name declared more than once
    with different memories or types, or by a window statement: its
    memory depends on the place."""
    declared = {}

    def declare(name, memory_and_type):
        if declared.get(name, memory_and_type) != memory_and_type:
            memory_and_type = None
        declared[name] = memory_and_type

    for arg in proc.args():
        if arg.type().is_numeric():
            declare(arg.name(), (arg.mem(), arg.type()))
    for stmt in nlr_stmts(proc):
        if isinstance(stmt, AllocCursor):
            declare(stmt.name(), (stmt.mem(), stmt.type()))
        elif isinstance(stmt, WindowStmtCursor):
            declare(stmt.name(), None)
    return declared


def _data_buffers(node, out):
    """Adds the names of the data buffers the statement or expression
    `node` reads or writes to `out`; False where it cannot tell (a kind of
    statement or expression it does not know)."""
    if isinstance(node, AssignCursor | ReduceCursor):
        out.add(node.name())
        return _data_buffers(node.rhs(), out)
    if isinstance(node, ForCursor):
        return all(_data_buffers(s, out) for s in node.body())
    if isinstance(node, IfCursor):
        orelse = node.orelse()
        parts = [node.cond(), *node.body(), *(orelse or ())]
        return all(_data_buffers(s, out) for s in parts)
    if isinstance(node, ReadCursor):
        if node.type().is_numeric():
            out.add(node.name())
        return True  # a control value's indices read no data
    if isinstance(node, WindowExprCursor):
        out.add(node.name())
        return True
    if isinstance(node, BinaryOpCursor):
        return _data_buffers(node.lhs(), out) and _data_buffers(node.rhs(), out)
    if isinstance(node, UnaryMinusCursor):
        return _data_buffers(node.arg(), out)
    if isinstance(node, ExternFunctionCursor):
        return all(_data_buffers(a, out) for a in node.args())
    return isinstance(node, LiteralCursor | ReadConfigCursor | StrideExprCursor)


def _may_pass_call_site(form, memories):
    """Whether a call to an instruction of `form` whose data arguments are
    buffers of `memories` (a set; None when unknown) can pass
    `check_call_site`: each data parameter's memory must have a subclass
    among them. A replacement passes only buffers of the statements it
    replaces."""
    if memories is None:
        return True
    return all(
        any(issubclass(m, param[0]) for m in memories)
        for param in form.params
        if param is not None
    )


def _statement_memories(stmt, declared):
    """The memories of the data buffers `stmt` accesses, or None when one
    is unknown."""
    names = set()
    if not _data_buffers(stmt, names):
        return None
    found = [declared.get(name) for name in names]
    return None if None in found else {memory for memory, _ in found}


def _call_site_check(declared, form):
    """`check_call_site` for a call to an instruction of `form` in a
    procedure whose buffers are `declared` (`_buffer_declarations`): the
    memory and type of each data argument are looked up there, and only a
    name declared in more than one way is looked up at the call."""

    def call_site_ok(proc, call):
        for arg, param in zip(call.args(), form.params, strict=True):
            if param is None:
                continue
            found = declared.get(arg.name())
            if found is None:
                return check_call_site(proc, call)
            if not issubclass(found[0], param[0]) or found[1] != param[1]:
                return False
        return True

    return call_site_ok


@user_op
def replace_all_stmts(proc, instructions):
    """Tries `checked_replace` with each instruction (in order) on every
    statement, in pre-order; the first that succeeds replaces it. Only
    instructions whose body has the statement's shape are tried: the
    others cannot unify with it; nor are those whose data parameters'
    memories none of the statement's buffers is in (a scalar statement in
    DRAM, for a vector instruction): `check_call_site` would refuse them."""
    if not isinstance(instructions, list):
        instructions = [instructions]
    by_shape = _candidates(instructions)
    declared = _buffer_declarations(proc)
    # Shapes of the statements of `proc` as given, each found once from its
    # body's: a statement the loop below still finds has the same subtree
    # (a replacement changes only the statement replaced, before it in
    # pre-order, and what is inside that one is no longer found).
    shapes = {}

    def shape_of(stmt):
        shape = shapes.get(stmt)
        if shape is None:
            if isinstance(stmt, ForCursor):
                shape = ("for", *(shape_of(s) for s in stmt.body()))
            else:
                shape = _stmt_shape(stmt)
            shapes[stmt] = shape
        return shape

    for stmt in list(nlr_stmts(proc)):
        shape = shape_of(stmt)
        try:
            stmt = proc.forward(stmt)
        except InvalidCursorError:
            continue
        candidates = by_shape.get(shape, ())
        if candidates:
            memories = _statement_memories(stmt, declared)
            candidates = [c for c in candidates if _may_pass_call_site(c[1], memories)]
        for instr, form in candidates:
            try:
                call_site_ok = _call_site_check(declared, form)
                proc = _replace_checked(proc, stmt, instr, True, call_site_ok)
                break
            except SchedulingError:
                pass
    return proc


@dataclass
class inline_instr_cursors:
    stmt: object
    instr: object

    def __iter__(self):
        yield self.stmt
        yield self.instr


@user_op
def inline_instr(proc, call, rc=False):
    """The opposite of `replace`: the call `call` inlined, and the window
    statements that leaves (one per window argument) inlined too, so the
    instruction's body reads and writes the caller's buffers. rc: `(stmt,
    instr)`, the statement the call became (the body's first) and the
    procedure it called (to `replace` it again)."""
    call = proc.forward(call)
    if not isinstance(call, CallCursor):
        raise SchedulingError(f"expected a call, not {type(call).__name__}")
    instr, parent = call.subproc(), call.parent()

    def statements(p):  # the block around the call (the body at the top)
        return (
            p.body() if isinstance(parent, InvalidCursor) else p.forward(parent).body()
        )

    index = next(i for i, s in enumerate(statements(proc)) if s == call)
    proc = inline(proc, call)
    while isinstance(statements(proc)[index], WindowStmtCursor):
        proc = inline_window(proc, statements(proc)[index])
    if not rc:
        return proc
    return proc, inline_instr_cursors(statements(proc)[index], instr)
