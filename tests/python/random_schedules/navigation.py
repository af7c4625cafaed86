"""Walking a procedure for the randomized schedule test: statements with
the loop iterators around them, expressions, and their source text (cursors
print statements only) for generated arguments and reports."""

from exo2 import Procedure
from exo2.API_cursors import (
    AllocCursor,
    AssignConfigCursor,
    AssignCursor,
    BinaryOpCursor,
    BlockCursor,
    CallCursor,
    ExprCursor,
    ExternFunctionCursor,
    ForCursor,
    GapCursor,
    IfCursor,
    LiteralCursor,
    ReadConfigCursor,
    ReadCursor,
    ReduceCursor,
    StmtCursor,
    StrideExprCursor,
    UnaryMinusCursor,
    WindowStmtCursor,
)
from exo2.API_types import ExoType
from exo2.core.configs import Config


def walk(block, iters=()):
    """(statement, enclosing loop iterators) for every statement of
    `block`, in program order."""
    for stmt in block:
        yield stmt, iters
        if isinstance(stmt, ForCursor):
            yield from walk(stmt.body(), (*iters, stmt.name()))
        elif isinstance(stmt, IfCursor):
            yield from walk(stmt.body(), iters)
            if stmt.orelse():
                yield from walk(stmt.orelse(), iters)


def sub_expressions(expr):
    yield expr
    if isinstance(expr, BinaryOpCursor):
        yield from sub_expressions(expr.lhs())
        yield from sub_expressions(expr.rhs())
    elif isinstance(expr, UnaryMinusCursor):
        yield from sub_expressions(expr.arg())
    elif isinstance(expr, (ReadCursor, ExternFunctionCursor)):
        for e in expr.idx() if isinstance(expr, ReadCursor) else expr.args():
            yield from sub_expressions(e)


def expressions_of(stmt):
    """The expressions of a statement that a primitive may point at (window
    expressions excluded)."""
    if isinstance(stmt, (AssignCursor, ReduceCursor)):
        roots = [*stmt.idx(), stmt.rhs()]
    elif isinstance(stmt, IfCursor):
        roots = [stmt.cond()]
    elif isinstance(stmt, ForCursor):
        roots = [stmt.lo(), stmt.hi()]
    elif isinstance(stmt, AssignConfigCursor):
        roots = [stmt.rhs()]
    else:
        roots = []
    for root in roots:
        yield from sub_expressions(root)


def text(expr):
    """Source text of an expression (cursors print statements only)."""
    if isinstance(expr, LiteralCursor):
        return repr(expr.value())
    if isinstance(expr, ReadCursor):
        idx = [text(e) for e in expr.idx()]
        return f"{expr.name()}[{', '.join(idx)}]" if idx else expr.name()
    if isinstance(expr, BinaryOpCursor):
        return f"({text(expr.lhs())} {expr.op()} {text(expr.rhs())})"
    if isinstance(expr, UnaryMinusCursor):
        return f"-{text(expr.arg())}"
    if isinstance(expr, ExternFunctionCursor):
        return f"{expr.name()}({', '.join(text(e) for e in expr.args())})"
    if isinstance(expr, ReadConfigCursor):
        return f"{expr.config().name()}.{expr.field()}"
    if isinstance(expr, StrideExprCursor):
        return f"stride({expr.name()}, {expr.dim()})"
    raise TypeError(f"no source text for {type(expr).__name__}")


def stmt_text(stmt):
    """The first line of a statement, for reports."""
    if isinstance(stmt, (AssignCursor, ReduceCursor)):
        idx = [text(e) for e in stmt.idx()]
        lhs = f"{stmt.name()}[{', '.join(idx)}]" if idx else stmt.name()
        op = "=" if isinstance(stmt, AssignCursor) else "+="
        return f"{lhs} {op} {text(stmt.rhs())}"
    if isinstance(stmt, ForCursor):
        return f"for {stmt.name()} in seq({text(stmt.lo())}, {text(stmt.hi())}):"
    if isinstance(stmt, IfCursor):
        return f"if {text(stmt.cond())}:"
    if isinstance(stmt, (AllocCursor, WindowStmtCursor)):
        return f"{stmt.name()} {'=' if isinstance(stmt, WindowStmtCursor) else ':'} ..."
    if isinstance(stmt, CallCursor):
        return f"{stmt.subproc().name()}(...)"
    if isinstance(stmt, AssignConfigCursor):
        return f"{stmt.config().name()}.{stmt.field()} = {text(stmt.rhs())}"
    return type(stmt).__name__


def is_control(expr):
    typ = expr.type()
    return typ.is_indexable() or typ == ExoType.Bool


class View:
    """What generators pick from: the statements of one procedure."""

    def __init__(self, p):
        self.proc = p
        self.sites = list(walk(p.body()))
        self.size_params = [a.name() for a in p.args() if a.type().is_indexable()]

    def statements(self, kind=StmtCursor):
        return [s for s, _ in self.sites if isinstance(s, kind)]

    def loops(self):
        return self.statements(ForCursor)

    def allocs(self):
        return self.statements(AllocCursor)

    def iterators_at(self, stmt):
        return next(iters for s, iters in self.sites if s == stmt)

    def pairs(self, first=StmtCursor, second=StmtCursor):
        """Adjacent statements (s, s.next()) of the given kinds."""
        return [
            (s, s.next())
            for s in self.statements(first)
            if s.next() and isinstance(s.next(), second)
        ]

    def expressions(self, keep=lambda e: True):
        return [(e, s) for s, _ in self.sites for e in expressions_of(s) if keep(e)]

    def depth(self, stmt):
        """The number of loops and ifs around `stmt`."""
        depth, parent = 0, stmt.parent()
        while isinstance(parent, (ForCursor, IfCursor)):
            depth, parent = depth + 1, parent.parent()
        return depth


def describe(value):
    if isinstance(value, Procedure):
        return f"<proc {value.name()}>"
    if isinstance(value, Config):
        return value.name()
    if isinstance(value, type):  # a memory
        return value.__name__
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    if isinstance(value, BlockCursor):
        return f"<block of {len(value)} at {describe(value[0])}>"
    if isinstance(value, GapCursor):
        return f"<gap {value.type().name} {describe(value.anchor())}>"
    if isinstance(value, StmtCursor):
        return f"<{stmt_text(value)}>"
    if isinstance(value, ExprCursor):
        return f"<expr {text(value)}>"
    return repr(value)
