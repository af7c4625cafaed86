"""Cursors: locations in a procedure that schedules find, navigate, inspect
and forward (docs/cursors.md).

A cursor is an internal location (`_core.CoreCursor`, a path into the
procedure's IR) together with the `Procedure` it points into. Navigation
and inspection run in the core; the classes here choose the right cursor
class for each result and phrase errors as Exo does.
"""

import difflib
import inspect
import os
import re
from typing import Annotated

from . import _core
from .api_arguments import checked
from .API_types import ExoType
from .core.internal_cursors import GapType, InvalidCursorError
from .core.printing import format_proc_text
from .errors import SchedulingError
from .frontend.pattern_match import parse_pattern, split_match_no
from .frontend.source import code_path

__all__ = [
    "Cursor",
    "InvalidCursor",
    "ArgCursor",
    "StmtCursorPrototype",
    "StmtCursor",
    "AssignCursor",
    "ReduceCursor",
    "AssignConfigCursor",
    "PassCursor",
    "IfCursor",
    "ForCursor",
    "AllocCursor",
    "CallCursor",
    "WindowStmtCursor",
    "BlockCursor",
    "GapCursor",
    "ExprCursorPrototype",
    "ExprCursor",
    "ReadCursor",
    "ReadConfigCursor",
    "LiteralCursor",
    "UnaryMinusCursor",
    "BinaryOpCursor",
    "ExternFunctionCursor",
    "WindowExprCursor",
    "StrideExprCursor",
    "ExprListCursor",
    "InvalidCursorError",
]

_EXO_TYPES = {
    "f16": ExoType.F16,
    "bf16": ExoType.BF16,
    "f32": ExoType.F32,
    "f64": ExoType.F64,
    "ui8": ExoType.UI8,
    "i8": ExoType.I8,
    "ui16": ExoType.UI16,
    "i32": ExoType.I32,
    "R": ExoType.R,
    "index": ExoType.Index,
    "bool": ExoType.Bool,
    "size": ExoType.Size,
    "int": ExoType.Int,
    "stride": ExoType.Stride,
    "barrier": ExoType.Barrier,
}


def _exo_type(impl):
    return _EXO_TYPES[impl.type_name()]


def _require(condition):
    """Exo's bare `assert` on misuse of an accessor (spec [compat])."""
    if not condition:
        raise AssertionError()


# --------------------------------------------------------------------------- #
# The cursor classes


class Cursor:
    """A location in one procedure: `(internal location, Procedure)`."""

    def __init__(self, impl, proc):
        if not isinstance(impl, _core.CoreCursor):
            raise TypeError(
                "Do not try to directly construct a Cursor. "
                "Use the provided methods to obtain cursors "
                "from Procedures and from other Cursors"
            )
        self._impl = impl
        self._proc = proc

    def proc(self):
        """The Procedure this cursor points into."""
        return self._proc

    def __bool__(self):
        return True

    def __eq__(self, other):
        return (
            type(self) is type(other)
            and self._impl.same_location(other._impl)
            and (self._proc is other._proc or self._proc == other._proc)
        )

    def __hash__(self):
        return hash((type(self), self._impl.key()))

    def __repr__(self):
        return f"<{type(self).__name__} {self._impl!r}>"

    def parent(self):
        """The enclosing statement or expression; InvalidCursor at the top."""
        return _lift_or_invalid(self._impl.parent(), self._proc)

    @checked
    def find(
        self, pattern: Annotated[str, "expected a pattern string"], many: bool = False
    ):
        """Matches of `pattern` within this cursor's sub-tree."""
        return find(self._impl, self._proc, pattern, many)

    def __str__(self):
        return format_proc_text(self._impl.print())

    def _child(self, slot):
        """The cursor of the single expression in `slot` (`"rhs"`, `"lo"`)."""
        return _lift(self._impl.child(slot, 0), self._proc)

    def _expr_list(self, slot):
        """The ExprListCursor of the list `slot` (`"idx"`, `"args"`)."""
        return ExprListCursor(self._impl, self._proc, self._impl.children(slot))


def _check_index(i, length):
    """IndexError, as sequences raise it, unless `-length <= i < length`."""
    if not -length <= i < length:
        raise IndexError(f"cursor index {i} out of range for {length} items")


def _no_print(cursor):
    raise NotImplementedError(
        "Cursor printing is only implemented for procs and statements"
    )


class InvalidCursor(Cursor):
    """A cursor to nothing: falsy, and its own parent."""

    def __init__(self):
        self._impl = None
        self._proc = None

    def __bool__(self):
        return False

    def __eq__(self, other):
        return isinstance(other, InvalidCursor)

    def __hash__(self):
        return hash(InvalidCursor)

    def __repr__(self):
        return "<InvalidCursor>"

    def proc(self):
        raise InvalidCursorError("Cannot get the Procedure of an invalid cursor")

    def parent(self):
        return self

    def find(self, pattern, many=False):
        raise InvalidCursorError("Cannot find in an invalid cursor")

    def __str__(self):
        raise InvalidCursorError("Trying to print the Invalid Cursor!")


class ListCursorPrototype(Cursor):
    """A sequence of cursors supporting iteration, `len`, indexing and
    contiguous slicing."""

    def __init__(self, impl, proc, items=()):
        super().__init__(impl, proc)
        self._items = list(items)

    def __iter__(self):
        return (_lift(item, self._proc) for item in self._items)

    def __len__(self):
        return len(self._items)

    @checked
    def __getitem__(self, i: int | slice):
        if isinstance(i, slice):
            if i.step not in (None, 1):
                raise IndexError("block cursors must be contiguous")
            return type(self)(self._impl, self._proc, self._items[i])
        _check_index(i, len(self._items))
        return _lift(self._items[i], self._proc)

    def __eq__(self, other):
        return (
            type(self) is type(other)
            and len(self._items) == len(other._items)
            and all(
                a.same_location(b)
                for a, b in zip(self._items, other._items, strict=True)
            )
            and (self._proc is other._proc or self._proc == other._proc)
        )

    def __hash__(self):
        return hash((type(self), tuple(item.key() for item in self._items)))

    __str__ = _no_print


class ExprListCursor(ListCursorPrototype):
    """The expressions of a list slot (`idx`, `args`, `shape`)."""


class ArgListCursor(ListCursorPrototype):
    """The parameters of a procedure."""


class _DeclarationInspection:
    """What parameters and allocations both answer (docs/cursors.md, "Inspecting")."""

    def name(self):
        return self._impl.name()

    def mem(self):
        _require(not self._impl.is_indexable())
        return self._impl.mem()

    def is_tensor(self):
        return self._impl.is_tensor()

    def shape(self):
        _require(self.is_tensor())
        return self._expr_list("shape")

    def type(self):
        return _exo_type(self._impl)


class _BufferAccess:
    """What reads, assignments and reductions of `name[idx]` answer."""

    def name(self):
        return self._impl.name()

    def idx(self):
        return self._expr_list("idx")


class _ConfigAccess:
    """What reads and writes of `config.field` answer."""

    def config(self):
        return self._impl.config()

    def field(self):
        return self._impl.field()


class ArgCursor(_DeclarationInspection, Cursor):
    """A parameter: `name : type @ mem`."""

    __str__ = _no_print


class StmtCursorPrototype(Cursor):
    """Statements, blocks and gaps."""


class StmtCursor(StmtCursorPrototype):
    """One statement."""

    def before(self):
        """The gap before this statement (it moves with the statement)."""
        return GapCursor(self._impl.before(), self._proc)

    def after(self):
        """The gap after this statement (it moves with the statement)."""
        return GapCursor(self._impl.after(), self._proc)

    @checked
    def prev(self, dist: int = 1):
        return _lift_or_invalid(self._impl.sibling(-dist), self._proc)

    @checked
    def next(self, dist: int = 1):
        """The statement `dist` positions later in the same block, or
        InvalidCursor."""
        return _lift_or_invalid(self._impl.sibling(dist), self._proc)

    def as_block(self):
        return BlockCursor(self._impl.as_block(), self._proc)

    @checked
    def expand(self, delta_lo: int | None = None, delta_hi: int | None = None):
        return self.as_block().expand(delta_lo, delta_hi)

    @checked
    def is_ancestor_of(self, other: Cursor):
        """Whether `other` (a node, or a block's / gap's anchor) lies in this
        statement's sub-tree; False for a cursor of another procedure."""
        if not other:
            raise InvalidCursorError("cannot compare with the invalid cursor")
        if other.proc() is not self._proc:
            return False
        return self._impl.is_ancestor_of(other._impl)


class BlockCursor(StmtCursorPrototype, ListCursorPrototype):
    """A non-empty run of consecutive statements of one body."""

    def __init__(self, impl, proc):
        Cursor.__init__(self, impl, proc)

    def _range(self):
        lo, hi = self._impl.block_range()
        return range(lo, hi)

    def __iter__(self):
        return (_lift(self._impl.block_item(i), self._proc) for i in self._range())

    def __len__(self):
        return len(self._range())

    @checked
    def __getitem__(self, i: int | slice):
        if not isinstance(i, slice):
            _check_index(i, len(self))
        positions = self._range()[i]
        if isinstance(positions, range):
            if positions.step != 1:
                raise IndexError("block cursors must be contiguous")
            if not positions:
                raise IndexError("block cursors cannot be empty")
            return BlockCursor(
                self._impl.block_slice(positions.start, positions.stop), self._proc
            )
        return _lift(self._impl.block_item(positions), self._proc)

    __eq__ = Cursor.__eq__
    __hash__ = Cursor.__hash__
    __str__ = Cursor.__str__

    def as_block(self):
        return self

    @checked
    def expand(self, delta_lo: int | None = None, delta_hi: int | None = None):
        """Grows the block by up to that many statements at each end (None:
        to the edge of the enclosing body)."""
        if delta_lo is not None and delta_lo < 0:
            raise ValueError("delta_lo must be non-negative")
        if delta_hi is not None and delta_hi < 0:
            raise ValueError("delta_hi must be non-negative")
        return BlockCursor(self._impl.expand(delta_lo, delta_hi), self._proc)

    def anchor(self):
        """The statement whose body holds the block; InvalidCursor at the
        top level."""
        return _lift_or_invalid(self._impl.anchor(), self._proc)

    def before(self):
        return GapCursor(self._impl.before(), self._proc)

    def after(self):
        return GapCursor(self._impl.after(), self._proc)


class GapCursor(StmtCursorPrototype):
    """The space before or after a statement, anchored to it."""

    def anchor(self):
        return _lift(self._impl.anchor(), self._proc)

    def type(self):
        return GapType[self._impl.gap_side()]


class AssignCursor(_BufferAccess, StmtCursor):
    """`name[idx] = rhs`"""

    def rhs(self):
        return self._child("rhs")

    def type(self):
        return _exo_type(self._impl)


class ReduceCursor(_BufferAccess, StmtCursor):
    """`name[idx] += rhs`"""

    def rhs(self):
        return self._child("rhs")


class AssignConfigCursor(_ConfigAccess, StmtCursor):
    """`config.field = rhs`"""

    def rhs(self):
        return self._child("rhs")


class PassCursor(StmtCursor):
    """`pass`"""


class IfCursor(StmtCursor):
    """`if cond: body else: orelse`"""

    def cond(self):
        return self._child("cond")

    def body(self):
        return BlockCursor(self._impl.child_block("body"), self._proc)

    def orelse(self):
        """The else branch, or InvalidCursor when there is none."""
        return _lift_or_invalid(self._impl.child_block("orelse"), self._proc)


class ForCursor(StmtCursor):
    """`for name in seq(lo, hi): body`"""

    def name(self):
        return self._impl.name()

    def mode(self):
        """**[exo2]** The loop mode: `seq`, `par` (the objects of
        `exo2.core.extensions`) or a backend's mode (`cuda_tasks`, ...)."""
        from .core import extensions

        mode = self._impl.loop_mode()
        if mode == "seq":
            return extensions.seq
        if mode == "par":
            return extensions.par
        return mode

    def lo(self):
        return self._child("lo")

    def hi(self):
        return self._child("hi")

    def body(self):
        return BlockCursor(self._impl.child_block("body"), self._proc)


class AllocCursor(_DeclarationInspection, StmtCursor):
    """`name : type @ mem`"""

    def dim_annotations(self):
        """**[exo2]** One annotation object (`ring(4)`, a unit) or None per
        dimension."""
        return self._impl.dim_annotations()


class CallCursor(StmtCursor):
    """`subproc(args)`"""

    def subproc(self):
        """A fresh Procedure wrapping the callee (no provenance)."""
        return type(self._proc)(self._impl.subproc())

    def args(self):
        return self._expr_list("args")

    def trailing_barriers(self):
        """**[exo2]** The barrier elements of `f(args) >> bar[i]` (an
        ExprListCursor, empty without trailing barriers)."""
        return self._expr_list("barriers")


class WithCursor(StmtCursor):
    """**[exo2]** `with ctx: body` (docs/cuda.md)."""

    def ctx(self):
        """The context object (`CudaDeviceFunction(...)`, ...)."""
        return self._impl.with_context()

    def body(self):
        return BlockCursor(self._impl.child_block("body"), self._proc)


class SyncCursor(StmtCursor):
    """**[exo2]** `Fence(pre, post)`, `Arrive(pre) >> bar[i]` or
    `Await(bar[i], post)` (docs/cuda.md)."""

    def kind(self):
        """`"fence"`, `"arrive"` or `"await"`."""
        return self._impl.sync_kind().lower()

    def pre(self):
        """The `pre` timeline, or None (Await)."""
        return self._impl.sync_timelines()[0]

    def post(self):
        """The `post` timeline, or None (Arrive)."""
        return self._impl.sync_timelines()[1]

    def barriers(self):
        """The barrier elements named (an ExprListCursor)."""
        return self._expr_list("barriers")


class WindowStmtCursor(StmtCursor):
    """`name = winexpr`"""

    def name(self):
        return self._impl.name()

    def winexpr(self):
        return WindowExprCursor(self._impl.child("rhs", 0), self._proc)


class ExprCursorPrototype(Cursor):
    """Expressions and expression lists."""


class ExprCursor(ExprCursorPrototype):
    """One expression."""

    def type(self):
        return _exo_type(self._impl)

    __str__ = _no_print


class ReadCursor(_BufferAccess, ExprCursor):
    """`name` or `name[idx]`"""


class ReadConfigCursor(_ConfigAccess, ExprCursor):
    """`config.field`"""


class LiteralCursor(ExprCursor):
    """A literal: `bool`, `int` (control) or `float` (data)."""

    def value(self):
        return self._impl.value()


class UnaryMinusCursor(ExprCursor):
    """`-arg`"""

    def arg(self):
        return self._child("arg")


class BinaryOpCursor(ExprCursor):
    """`lhs op rhs` with op one of + - * / % < > <= >= == and or"""

    def op(self):
        return self._impl.op()

    def lhs(self):
        return self._child("lhs")

    def rhs(self):
        return self._child("rhs")


class ExternFunctionCursor(ExprCursor):
    """`name(args)` of an extern function"""

    def name(self):
        return self._impl.name()

    def args(self):
        return self._expr_list("args")


class WindowExprCursor(ExprCursor):
    """`name[w_args]`: each entry a point (ExprCursor) or an interval
    (pair of ExprCursors)."""

    def name(self):
        return self._impl.name()

    def idx(self):
        return [
            tuple(_lift(c, self._proc) for c in w)
            if isinstance(w, tuple)
            else _lift(w, self._proc)
            for w in self._impl.window_idx()
        ]


class StrideExprCursor(ExprCursor):
    """`stride(name, dim)`"""

    def name(self):
        return self._impl.name()

    def dim(self):
        return self._impl.dim()


# --------------------------------------------------------------------------- #
# Internal: choosing classes, finding, forwarding

_CLASS_OF_KIND = {
    "Param": ArgCursor,
    "Block": BlockCursor,
    "Gap": GapCursor,
    "Assign": AssignCursor,
    "Reduce": ReduceCursor,
    "WriteConfig": AssignConfigCursor,
    "Pass": PassCursor,
    "If": IfCursor,
    "For": ForCursor,
    "Alloc": AllocCursor,
    "Call": CallCursor,
    "WindowStmt": WindowStmtCursor,
    "Free": StmtCursor,
    "With": WithCursor,
    "Sync": SyncCursor,
    "Read": ReadCursor,
    "Const": LiteralCursor,
    "USub": UnaryMinusCursor,
    "BinOp": BinaryOpCursor,
    "ExternCall": ExternFunctionCursor,
    "WindowExpr": WindowExprCursor,
    "StrideExpr": StrideExprCursor,
    "ReadConfig": ReadConfigCursor,
}


def _lift(impl, proc):
    """The public cursor of an internal location."""
    # Cursor.__init__ without its check that `impl` is internal (it is, and
    # scheduling lifts hundreds of thousands of locations)
    cursor = object.__new__(_CLASS_OF_KIND[impl.kind()])
    cursor._impl = impl
    cursor._proc = proc
    return cursor


def _lift_or_invalid(impl, proc):
    """Like `_lift`, with InvalidCursor for nothing and for the procedure."""
    if impl is None or impl.kind() == "Proc":
        return InvalidCursor()
    return _lift(impl, proc)


def root_cursor(proc):
    """The internal location of the procedure itself."""
    return _core.CoreCursor.root(proc.INTERNAL_proc())


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_STDLIB_DIR = os.path.join(_PACKAGE_DIR, "stdlib")


def _caller_scope():
    """Names of the innermost frame outside exo2's own modules (scheduling
    libraries count as callers): where `{...}` unquotes are evaluated."""
    frame = inspect.currentframe()
    try:
        while frame is not None:
            path = code_path(frame.f_code)
            if not path.startswith(_PACKAGE_DIR) or path.startswith(_STDLIB_DIR):
                return {**frame.f_globals, **frame.f_locals}
            frame = frame.f_back
        return {}
    finally:
        del frame


def find(scope, proc, pattern, many):
    """The most specific cursors matching `pattern` within the internal
    location `scope` of `proc` (docs/cursors.md, "Finding code")."""
    if not isinstance(pattern, str):
        raise TypeError("expected a pattern string")
    text, match_no = split_match_no(pattern)
    if match_no is None and not many:
        match_no = 0
    description = parse_pattern(text, _caller_scope)
    cursors = []
    for impl in scope.find(description, match_no):
        if impl.kind() == "Block" and len(range(*impl.block_range())) == 1:
            impl = impl.block_item(impl.block_range()[0])
        cursors.append(_lift(impl, proc))
    if not cursors:
        hint = _find_hint(scope, proc, text)
        if hint:
            raise SchedulingError(
                "failed to find matches", kind="not-found", pattern=pattern, hint=hint
            )
        raise SchedulingError(
            "failed to find matches", kind="not-found", pattern=pattern
        )
    return cursors if many else cursors[0]


# What a pattern looks for, by its first words: a loop's iterator, an
# allocation, or the buffer a statement writes.
_LOOP_PATTERN = re.compile(r"^\s*for\s+([A-Za-z_]\w*)\s+in\b")
_ALLOC_PATTERN = re.compile(r"^\s*([A-Za-z_]\w*)\s*:")
_WRITE_PATTERN = re.compile(r"^\s*([A-Za-z_]\w*)\s*(\[|=|\+=)")


def _names_in(scope, pattern, name_of):
    """The distinct names of the matches of `pattern` in `scope`, in order."""
    names = []
    for impl in scope.find(parse_pattern(pattern, {}), None):
        name = name_of(impl)
        if name not in names:
            names.append(name)
    return names


def _find_hint(scope, proc, text):
    """For a pattern nothing matched: the loops (or buffers) there are,
    and the closest name to the one it looks for ("did you mean `jo`?
    loops here: io, jo, ji"); None for other patterns."""
    if match := _LOOP_PATTERN.match(text):
        kind, names = "loops", _names_in(scope, "for _ in _: _", lambda c: c.name())
    elif match := (_ALLOC_PATTERN.match(text) or _WRITE_PATTERN.match(text)):
        if match[1] == "_":
            return None
        names = [a.name() for a in proc_args(proc) if a.type().is_numeric()]
        names += _names_in(scope, "_ : _", lambda c: c.name())
        if match[1] in names:
            return None  # the buffer is there: the rest of the pattern differs
        kind = "buffers"
    else:
        return None
    if not names:
        return f"there are no {kind} here"
    close = difflib.get_close_matches(match[1], names, n=1, cutoff=0.5)
    listing = f"{kind} here: {', '.join(names)}"
    if close and close[0] != match[1]:
        return f"did you mean `{close[0]}`? {listing}"
    return listing


def forward(proc, cursor):
    """`cursor` (of `proc` or an ancestor) as a cursor of `proc`."""
    if isinstance(cursor, InvalidCursor):
        raise InvalidCursorError("cannot forward an invalid cursor")
    if cursor.proc() is proc:
        return cursor  # cursors never change: it is its own forwarding
    origin = cursor.proc()._provenance
    if isinstance(cursor, ListCursorPrototype) and not isinstance(cursor, BlockCursor):
        items = [proc._provenance.forward(origin, item) for item in cursor._items]
        owner = proc._provenance.forward(origin, cursor._impl)
        return type(cursor)(owner, proc, items)
    return type(cursor)(proc._provenance.forward(origin, cursor._impl), proc)


def proc_args(proc):
    """`Procedure.args()`."""
    root = root_cursor(proc)
    params = root.params()
    return ArgListCursor(root, proc, params) if params else []


def proc_body(proc):
    """`Procedure.body()`."""
    return BlockCursor(root_cursor(proc).child_block("body"), proc)


# What the printer writes after a marked statement (docs/cursors.md,
# "Printing a cursor").
_NODE_MARK = "  # <-- NODE"


def _statements(block):
    """Every statement under `block`, in program order."""
    for stmt in block:
        yield stmt
        if isinstance(stmt, ForCursor | WithCursor | IfCursor):
            yield from _statements(stmt.body())
        if isinstance(stmt, IfCursor) and isinstance(stmt.orelse(), BlockCursor):
            yield from _statements(stmt.orelse())


def render_marked(proc, locations):
    """The text of `proc` with `# <-- NODE` after the first line of every
    statement that starts on the line of one of `locations` (`(file, line,
    col)`: an access's column lies inside its statement, so only the line
    is compared), or None when no statement does."""
    lines = {(file, line) for file, line, _ in locations}
    marked = [
        stmt
        for stmt in _statements(proc_body(proc))
        if (where := stmt._impl.srcinfo()) is not None and where[:2] in lines
    ]
    if not marked:
        return None
    text = str(marked[0]).split("\n")
    for stmt in marked[1:]:
        other = str(stmt).split("\n")
        # Both texts are the procedure with one mark each: merge the marks
        # line by line (a mark that made yapf wrap differently is left out).
        if len(other) == len(text):
            text = [
                b if b.endswith(_NODE_MARK) else a
                for a, b in zip(text, other, strict=True)
            ]
    return "\n".join(text)


_NAME_AND_COUNT = re.compile(r"^([a-zA-Z_]\w*)\s*(\#\s*[0-9]+)?$")


def loop_pattern(pattern):
    """`"i"` / `"i #k"` → `for i in _: _` / `for i in _: _ #k`."""
    if not isinstance(pattern, str):
        raise TypeError("expected a pattern string")
    if match := _NAME_AND_COUNT.search(pattern):
        return f"for {match[1]} in _: _{match[2] or ''}"
    return pattern


def find_alloc_or_arg(proc, pattern):
    """`Procedure.find_alloc_or_arg`."""
    if not isinstance(pattern, str):
        raise TypeError("expected a pattern string")
    if match := _NAME_AND_COUNT.search(pattern):
        for arg in proc.args():
            if arg.name() == match[1]:
                return arg
        pattern = f"{match[1]}: _{match[2] or ''}"
    return proc.find(pattern)
