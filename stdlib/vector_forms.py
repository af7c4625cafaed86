"""exo2.stdlib.vector_forms: which instruction a statement over vector lanes
needs, for the errors of `vectorize` and `accumulate_in_registers`
(docs/stdlib.md, "Vectorizing a loop").

After vectorizing, every statement that reads or writes a buffer in a
vector memory (one whose elements plain C cannot touch, such as AVX2) must
have become an instruction call; the compiler refuses any other. A
statement left over sits in a loop over the lanes (`for ii in seq(0, 8):
var1[ii] = x[8 * io + ii]`), possibly under the guard of a predicated tail
(`if ii + 8 * io < n:`). `unmatched_vector_stmts` finds them and
`describe_vector_stmt` names the form of instruction each would need (a
load, a masked load, a fused multiply-add, a horizontal sum, ...), with the
memories and precision of its operands.
"""

from __future__ import annotations

from exo2.API_cursors import (
    AllocCursor,
    AssignCursor,
    BinaryOpCursor,
    ExternFunctionCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    UnaryMinusCursor,
)
from exo2.stdlib.inspection import get_declaration, get_symbols

_MARKER = "  # <-- NODE"


def stmt_text(stmt):
    """The statement as printed (a loop or an if with its body), on one line:
    `for ii in seq(0, 8): var1[ii] = x[8 * io + ii]`."""
    depth = 0
    parent = stmt.parent()
    while not isinstance(parent, InvalidCursor):
        depth, parent = depth + 1, parent.parent()
    indent = 4 * (depth + 1)  # the printer indents each scope by 4
    lines = str(stmt).splitlines()
    mark = next(k for k, line in enumerate(lines) if line.endswith(_MARKER))
    lines[mark] = lines[mark][: -len(_MARKER)]
    start = mark
    while start > 0 and _indent(lines[start]) > indent:  # a wrapped statement
        start -= 1
    end = mark + 1
    while end < len(lines) and _indent(lines[end]) > indent:  # body, wrapping
        end += 1
    text = " ".join(line.strip() for line in lines[start:end])
    return text.replace("( ", "(").replace("[ ", "[")


def _indent(line):
    return len(line) - len(line.lstrip())


def _memory(proc, stmt, name):
    return get_declaration(proc, stmt, name).mem()


def _data_reads(expr):
    """The names of the buffers read by the data expression `expr` (the
    reads in its indices are of control values)."""
    if isinstance(expr, ReadCursor):
        return [expr.name()]
    if isinstance(expr, BinaryOpCursor):
        return _data_reads(expr.lhs()) + _data_reads(expr.rhs())
    if isinstance(expr, UnaryMinusCursor):
        return _data_reads(expr.arg())
    if isinstance(expr, ExternFunctionCursor):
        return [name for a in expr.args() for name in _data_reads(a)]
    return []


def unmatched_vector_stmts(proc, memory):
    """The assignments and reductions of `proc` that touch a buffer in
    `memory`, a vector memory: each needs an instruction. One walk, in
    pre-order, keeps the allocations each statement sees (those before it
    in its block and in the blocks around it, as `get_declaration` finds
    them); a name no allocation there declares is a parameter's."""
    params = {arg.name(): arg for arg in proc.args()}
    found = []

    def memory_of(stmt, name, visible):
        if name in visible:
            return visible[name]
        if name in params:
            return params[name].mem()
        return _memory(proc, stmt, name)  # raises as get_declaration does

    def walk(block, visible):
        visible = dict(visible)  # name -> memory of the allocation seen
        for stmt in block:
            if isinstance(stmt, AllocCursor):
                visible[stmt.name()] = stmt.mem()
            elif isinstance(stmt, AssignCursor | ReduceCursor):
                names = [stmt.name(), *_data_reads(stmt.rhs())]
                if any(memory_of(stmt, n, visible) is memory for n in names):
                    found.append(stmt)
            elif isinstance(stmt, ForCursor):
                walk(stmt.body(), visible)
            elif isinstance(stmt, IfCursor):
                walk(stmt.body(), visible)
                walk(stmt.orelse() or (), visible)

    walk(proc.body(), {})
    return found


def _lane_scope(stmt):
    """The loop over the lanes around `stmt` and the guard between them
    (None when there is none)."""
    guard, scope = None, stmt.parent()
    while isinstance(scope, IfCursor):
        guard, scope = scope, scope.parent()
    return (scope if isinstance(scope, ForCursor) else None), guard


def _strided(proc, access, lane):
    """`strided ` when the lanes of `access` are not adjacent in memory (the
    lane loop indexes a dimension other than the last), else ``."""
    for index in list(access.idx())[:-1]:
        if lane in get_symbols(proc, index):
            return f"strided (lanes not adjacent in '{access.name()}') "
    return ""


def _operation(proc, stmt, memory, lane):
    """What `stmt` does to vectors, as a noun phrase (`load from DRAM`)."""
    lhs_vec = _memory(proc, stmt, stmt.name()) is memory
    lhs_uses_lane = lane in get_symbols(proc, stmt.idx())
    reduce = isinstance(stmt, ReduceCursor)
    rhs = stmt.rhs()
    if isinstance(rhs, LiteralCursor):
        return f"set of every lane to {rhs.value()}"
    if isinstance(rhs, ReadCursor):
        src = _memory(proc, stmt, rhs.name()).name()
        dst = _memory(proc, stmt, stmt.name()).name()
        if lhs_vec and src != memory.name():
            if lane not in get_symbols(proc, rhs.idx()):
                return f"broadcast of one {src} value to every lane"
            kind = "add of a load" if reduce else "load"
            return f"{_strided(proc, rhs, lane)}{kind} from {src}"
        if not lhs_vec:
            if reduce and not lhs_uses_lane:
                into = f"one {dst} value"
                if len(stmt.idx()) > 0:  # an element: scalar parameters refuse it
                    into = (
                        f"the element {stmt.name()}[...] (an instruction whose "
                        "result is a scalar parameter needs a scalar: stage the "
                        "element into one first, stage_mem(..., accum=True))"
                    )
                return f"horizontal sum of the lanes into {into}"
            kind = "add" if reduce else "store"
            return f"{_strided(proc, stmt, lane)}{kind} into {dst}"
        return "lane-wise `dst += a`" if reduce else "register copy `dst = a`"
    if reduce and isinstance(rhs, BinaryOpCursor) and rhs.op() == "*":
        return "fused multiply-add `dst += a * b`"
    operands = iter("abcdefghijklmnopqrstuvwxyz")
    form = _pattern(rhs, operands)
    if reduce and isinstance(rhs, ReadCursor) is False and form:
        return f"lane-wise `dst += {form}`"
    if form:
        return f"lane-wise `dst = {form}`"
    return "matching instruction (one whose body is this loop)"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}


def _rank(expr):
    """How tightly `expr` binds: a binary operator's precedence, else 9."""
    return _PRECEDENCE[expr.op()] if isinstance(expr, BinaryOpCursor) else 9


def _pattern(expr, operands):
    """`expr` with each read replaced by the next letter of `operands`
    (`a + b * c`), or None for an expression outside these forms."""
    if isinstance(expr, ReadCursor):
        return next(operands)
    if isinstance(expr, LiteralCursor):
        return str(expr.value())
    if isinstance(expr, UnaryMinusCursor):
        arg = _pattern(expr.arg(), operands)
        return arg and f"-{arg}"
    if isinstance(expr, BinaryOpCursor):
        lhs = _pattern(expr.lhs(), operands)
        rhs = _pattern(expr.rhs(), operands)
        if lhs is None or rhs is None:
            return None
        rank = _rank(expr)
        if _rank(expr.lhs()) < rank:
            lhs = f"({lhs})"
        if _rank(expr.rhs()) < rank or (
            _rank(expr.rhs()) == rank and expr.op() in "-/%"
        ):
            rhs = f"({rhs})"
        return f"{lhs} {expr.op()} {rhs}"
    if isinstance(expr, ExternFunctionCursor):
        args = [_pattern(a, operands) for a in expr.args()]
        return None if None in args else f"{expr.name()}({', '.join(args)})"
    return None


def describe_vector_stmt(proc, stmt, memory):
    """`(text, need)`: the loop over the lanes around `stmt` on one line, and
    the form of instruction it needs, e.g. `a masked load from DRAM (AVX2
    vectors of f32; only the lanes where ii + 8 * io < n)`."""
    loop, guard = _lane_scope(stmt)
    need = _operation(proc, stmt, memory, loop.name() if loop else None)
    precision = get_declaration(proc, stmt, stmt.name()).type().name.lower()
    where = f"{memory.name()} vectors of {precision}"
    if loop is not None and not isinstance(loop.hi(), LiteralCursor):
        where += f"; {stmt_text(loop).split(':', 1)[0]} lanes"
    if guard is not None:
        need = f"masked {need}"
        cond = stmt_text(guard).split(":", 1)[0].removeprefix("if ")
        where += f"; only the lanes where {cond}"
    return stmt_text(loop or stmt), f"a {need} ({where})"
