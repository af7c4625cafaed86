"""Buffer primitives (docs/primitives-buffers.md, with the legacy
autolift_alloc / autofission): allocation placement, staging and binding.

The C++ primitive checks the shape of its arguments again; the checks here
give Exo's exception classes and texts (TypeError / ValueError) first.
"""

import ast
import re

from .. import API_cursors as PC
from .. import _core
from .arguments import (
    AllocCursorA,
    ArgumentProcessor,
    BlockCursorA,
    BoolA,
    EnumA,
    ExprCursorA,
    GapCursorA,
    NameA,
    PosIntA,
    _KindCursorA,
    sched_op,
)
from .new_expressions import parse_new_expr
from .results import derived_procedure

__all__ = [
    "bind_expr",
    "stage_mem",
    "lift_alloc",
    "autolift_alloc",
    "sink_alloc",
    "delete_buffer",
    "reuse_buffer",
    "inline_window",
    "autofission",
]

_WINDOW = re.compile(r"^\s*[a-zA-Z_]\w*\s*(\[.*\])?\s*$", re.DOTALL)


class WindowStrA(ArgumentProcessor):
    """A window string `"x"` or `"x[e, lo:hi, ...]"` (docs/reference/primitives.md),
    parsed in the scope before the statement of the argument named
    `cursor_arg`; every interval needs both bounds."""

    def __init__(self, cursor_arg):
        self.cursor_arg = cursor_arg

    def __call__(self, arg, all_args):
        if not isinstance(arg, str):
            self.err(f"expected a windowing string, not {type(arg)}")
        if not _WINDOW.match(arg) or not _complete_window(arg):
            self.err(
                f"expected windowing string of the form 'name[args]', but got '{arg}'",
                ValueError,
            )
        return parse_new_expr(arg, all_args[self.cursor_arg])


def _complete_window(text):
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    if isinstance(tree, ast.Name):
        return True
    if not isinstance(tree, ast.Subscript) or not isinstance(tree.value, ast.Name):
        return False
    dims = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
    return all(
        not isinstance(d, ast.Slice)
        or (d.lower is not None and d.upper is not None and d.step is None)
        for d in dims
    )


@sched_op([BlockCursorA, WindowStrA("block_cursor"), NameA, BoolA])
def stage_mem(proc, block_cursor, win_expr, new_buf_name, accum=False):
    """Stages the window `win_expr` of a buffer (`'x[i, j:j+4]'`) through a
    new buffer around the block: a load nest before it, the accesses inside
    the window rewritten to the new buffer, a store nest after it (each only
    when needed; with `accum=True` the new buffer starts at zero and is
    added back)."""
    return derived_procedure(
        _core.stage_mem(
            proc._provenance, block_cursor._impl, win_expr, new_buf_name, accum
        )
    )


class OptionalPosIntA(PosIntA):
    """A positive integer or None."""

    def __call__(self, value, all_args):
        return None if value is None else super().__call__(value, all_args)


@sched_op([AllocCursorA, PosIntA])
def lift_alloc(proc, alloc_cursor, n_lifts=1):
    """Moves the allocation before its `n_lifts`-th enclosing loop or if."""
    return derived_procedure(
        _core.lift_alloc(proc._provenance, alloc_cursor._impl, n_lifts)
    )


@sched_op([AllocCursorA, PosIntA, EnumA(["row", "col"]), OptionalPosIntA, BoolA])
def autolift_alloc(
    proc, alloc_cursor, n_lifts=1, mode="row", size=None, keep_dims=False
):
    """Legacy lift_alloc: with `keep_dims`, each lifted loop the buffer's
    accesses depend on adds a dimension (before the others in `row` mode,
    after them in `col` mode). The result has no forwarding."""
    return derived_procedure(
        _core.autolift_alloc(
            proc._provenance, alloc_cursor._impl, n_lifts, mode, size, keep_dims
        )
    )


@sched_op([AllocCursorA])
def sink_alloc(proc, alloc_cursor):
    """Moves the allocation into the loop or if right after it (an else
    branch gets its own copy)."""
    return derived_procedure(_core.sink_alloc(proc._provenance, alloc_cursor._impl))


@sched_op([AllocCursorA])
def delete_buffer(proc, buf_cursor):
    """Deletes an allocation whose buffer is never used."""
    return derived_procedure(_core.delete_buffer(proc._provenance, buf_cursor._impl))


_CONTROL_TYPES = ("index", "size", "int", "bool", "stride")


@sched_op([ExprCursorA(many=True), NameA])
def bind_expr(proc, expr_cursors, new_name):
    """Binds the first expression to a new scalar `new_name` assigned just
    before its statement, and replaces the given copies of it (up to the
    first write to something it reads) by reads of `new_name`."""
    if any(e._impl.type_name() in _CONTROL_TYPES for e in expr_cursors):
        raise TypeError(
            "only numeric (not index or size) expressions can be bound by bind_expr()"
        )
    return derived_procedure(
        _core.bind_expr(proc._provenance, [e._impl for e in expr_cursors], new_name)
    )


@sched_op([AllocCursorA, AllocCursorA])
def reuse_buffer(proc, buf_cursor, replace_cursor):
    """Deletes the allocation `replace_cursor` and stores its buffer in the
    earlier buffer `buf_cursor` (same type), which must be dead from the
    first write to the replaced buffer on."""
    return derived_procedure(
        _core.reuse_buffer(proc._provenance, buf_cursor._impl, replace_cursor._impl)
    )


class WindowStmtCursorA(_KindCursorA):
    """A window statement: a cursor or a pattern."""

    classes = (PC.WindowStmtCursor,)
    expected = "a WindowStmtCursor"


@sched_op([WindowStmtCursorA])
def inline_window(proc, winstmt_cursor):
    """Deletes the window statement `y = x[...]` and rewrites every later use
    of `y` as the matching access, window or stride of `x`."""
    return derived_procedure(
        _core.inline_window(proc._provenance, winstmt_cursor._impl)
    )


@sched_op([GapCursorA, PosIntA])
def autofission(proc, gap_cursor, n_lifts=1):
    """Legacy fission: splits the `n_lifts` loops or ifs around the gap and
    drops a split loop around a side that does not need it. The result has
    no forwarding."""
    return derived_procedure(
        _core.autofission(proc._provenance, gap_cursor._impl, n_lifts)
    )
