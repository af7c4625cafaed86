"""New expressions given to primitives as text or numbers (docs/reference/primitives.md).

The text is parsed as an expression in the scope just before a context
statement (the cursor argument's statement; an expression's enclosing
statement; a gap's anchor): parameters, enclosing loop iterators, earlier
allocations and window statements. The result is untyped; the primitive
types it in the same scope.
"""

import ast
import collections
import functools
import importlib.util
import inspect
import itertools
import os

from .. import API_cursors as PC
from .. import _core
from ..frontend.metaprogramming import ExoExpression, ExoSymbol
from ..frontend.parse_fragment import ParseFragmentError
from ..frontend.pyparser import Parser, literal_problem
from ..frontend.source import (
    CallSiteContext,
    ParseError,
    PythonScope,
    SourceContext,
    code_path,
)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.cache
def _stdlib_dir():
    """The standard library's directory (exo2.stdlib may be installed
    outside the package)."""
    spec = importlib.util.find_spec("exo2.stdlib")
    return os.path.dirname(os.path.abspath(spec.origin))


def context_statement(cursor):
    """The statement whose scope a new expression for `cursor` uses."""
    while isinstance(cursor, PC.ExprCursorPrototype):
        cursor = cursor.parent()
    if isinstance(cursor, PC.GapCursor):
        return cursor.anchor()
    if isinstance(cursor, PC.BlockCursor):
        return cursor[0]
    return cursor


class FormattedExprStr:
    """A new expression whose `_` holes are filled, in order, by copies of the
    expressions under `expr_holes` (docs/reference/primitives.md, "New expressions"):
    `FormattedExprStr("_ + 1", c)`."""

    def __init__(self, expr_str, *expr_holes):
        if not isinstance(expr_str, str):
            raise TypeError("expr_str must be a string")
        for hole in expr_holes:
            if not isinstance(hole, PC.ExprCursor):
                raise TypeError("Cursor provided to fill a hole must be a ExprCursor")
        self.expr_str = expr_str
        self.expr_holes = expr_holes


def _hole_name(k):
    return f"__exo2_hole_{k}"


class _FillHoles(ast.NodeTransformer):
    """Replaces the `_` holes, in source order, by unquotes of the hole
    expressions (bound in the parse scope under `_hole_name(k)`)."""

    def __init__(self):
        self.count = 0

    def visit_Name(self, node):
        if node.id != "_":
            return node
        name = ast.Name(id=_hole_name(self.count), ctx=ast.Load())
        self.count += 1
        return ast.copy_location(ast.Set(elts=[ast.copy_location(name, node)]), node)


def _variables_read(expr_cursor):
    """`(name, Sym)` of the variables an expression cursor reads."""
    todo, names = [expr_cursor], []
    while todo:
        c = todo.pop()
        if isinstance(c, (PC.ReadCursor, PC.StrideExprCursor)):
            names.append((c.name(), c._impl.read_sym()))
        if isinstance(c, PC.ReadCursor):
            todo.extend(c.idx())
        elif isinstance(c, PC.BinaryOpCursor):
            todo.extend([c.lhs(), c.rhs()])
        elif isinstance(c, PC.UnaryMinusCursor):
            todo.append(c.arg())
        elif isinstance(c, PC.ExternFunctionCursor):
            todo.extend(c.args())
    return names


def _fill_holes(formatted, tree, variables):
    """`tree` with its holes filled, and the hole expressions by name."""
    filler = _FillHoles()
    tree = filler.visit(tree)
    holes = formatted.expr_holes
    if filler.count > len(holes):
        raise ParseFragmentError("String contains more holes than expressions provided")
    bound = {}
    for k, hole in enumerate(holes[: filler.count]):
        if isinstance(hole, PC.WindowExprCursor):
            raise ParseFragmentError(
                "Using a window expression is not allowed to fill a hole in an expression"
            )
        # The very variable must be in scope, not just one of the same name.
        for name, sym in _variables_read(hole):
            if name not in variables or variables[name].sym != sym:
                raise ParseFragmentError(
                    f"{name} used in an expression to fill a string hole, but not "
                    "found in current environment"
                )
        bound[_hole_name(k)] = ExoExpression(hole._impl.expr())
    return tree, bound


def parse_new_expr(value, cursor):
    """The untyped core expression for `value` in the scope of `cursor`."""
    frame, source = _caller()
    if isinstance(value, (bool, int, float)):
        if problem := literal_problem(value):
            raise ParseFragmentError(problem)
        return _core.const(value, source.srcinfo(_at_line_start()))
    formatted = value if isinstance(value, FormattedExprStr) else None
    text = formatted.expr_str if formatted else value
    if not isinstance(text, str):
        raise TypeError(f"expected an expression string, not {type(value)}")
    # filling holes rewrites the tree: a formatted text gets one of its own
    tree = parse_python_expr(text) if formatted else _parsed_expr(text)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for hole in formatted.expr_holes if formatted else ():
        if not isinstance(hole, PC.WindowExprCursor):
            names.update(name for name, _ in _variables_read(hole))
    variables = variables_before(context_statement(cursor), names)
    key = _parse_key(text, names, variables, source) if not formatted else None
    if key is not None and key in _PARSED_IN_SCOPE:
        return _PARSED_IN_SCOPE[key]
    holes = {}
    if formatted:
        tree, holes = _fill_holes(formatted, tree, variables)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "_":
            raise ParseFragmentError("String cannot contain holes")
    scope = PythonScope(frame.f_globals, {**frame.f_locals, **holes})
    for node in _names_outside_unquotes(tree):
        found, _ = scope.lookup(node.id)
        if node.id not in variables and not found:
            raise ParseFragmentError(f"{node.id} not found in the current environment")
    for node in nodes_outside_unquotes(tree):
        # `Config.field`: the config must be a Python name in scope.
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if not scope.lookup(node.value.id)[0]:
                raise ParseFragmentError(
                    f"{node.value.id} not found in the current environment"
                )
    expr = parse_exo_expr(tree, source, scope, variables)
    if key is not None:
        if len(_PARSED_IN_SCOPE) >= _PARSED_IN_SCOPE_LIMIT:
            _PARSED_IN_SCOPE.clear()
        _PARSED_IN_SCOPE[key] = expr
    return expr


# Node types of an expression whose parse depends on nothing but its text,
# the variables it names and the call site: arithmetic, comparisons and
# boolean operators over names and literals (no unquote, attribute, call or
# subscript, which read the Python scope or the statement).
_SCOPE_FREE_NODES = (
    ast.Name,
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.BoolOp,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
    ast.expr_context,
)

# (text, call site, variables named) -> the core expression parsed: a
# scheduling library parses the same texts at the same call for every step
# of every kernel (`expand_dim`'s extent, `cut_loop`'s cut). Core expressions
# are immutable, so one is shared; cleared when full.
_PARSED_IN_SCOPE = {}
_PARSED_IN_SCOPE_LIMIT = 8192


@functools.lru_cache(maxsize=4096)
def _scope_free(text):
    """Whether the expression `text` is made of `_SCOPE_FREE_NODES` only."""
    return all(isinstance(n, _SCOPE_FREE_NODES) for n in ast.walk(_parsed_expr(text)))


def _parse_key(text, names, variables, source):
    """The key of `_PARSED_IN_SCOPE` for `text`, or None where its parse may
    depend on more than the key holds: a Python name, a hole, an unquote,
    or a source placing nodes by their own positions."""
    if not isinstance(source, CallSiteContext) or "_" in names:
        return None
    if not names <= variables.keys() or not _scope_free(text):
        return None
    named = tuple(sorted((n, v.sym, v.is_size) for n, v in variables.items()))
    return (text, source.filename, source.line, source.col, named)


def parse_python_expr(text):
    """The Python AST of the expression `text`; ParseFragmentError when it
    is not one."""
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise ParseFragmentError(f"cannot parse '{text}': {e.msg}") from e


@functools.lru_cache(maxsize=4096)
def _parsed_expr(text):
    """`parse_python_expr`, once per text (scheduling libraries pass the
    same few texts thousands of times); the tree is only read."""
    return parse_python_expr(text)


def variables_before(statement, names=None):
    """The object-language variables in scope just before `statement`, by
    name; only those of `names` when given (a procedure may have hundreds,
    an expression names a few)."""
    return {
        name: ExoSymbol(sym, is_size)
        for name, sym, is_size in _core.variables_in_scope(statement._impl)
        if names is None or name in names
    }


def parse_exo_expr(tree, source, scope, variables):
    """The untyped core expression of the Python AST `tree`, its names
    resolved in `variables`, then the Python `scope`."""
    parser = Parser(source, scope)
    parser.exo_locals = collections.ChainMap(variables)
    try:
        return parser.parse_expr(tree)
    except ParseError as e:
        raise ParseFragmentError(str(e)) from e


def nodes_outside_unquotes(tree):
    """The nodes of `tree` except inside `{...}` unquotes, call targets and
    attributes' operands."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Set):
            continue
        yield node
        if isinstance(node, ast.Call):
            todo.extend(node.args)
        elif not isinstance(node, ast.Attribute):
            todo.extend(ast.iter_child_nodes(node))


def _names_outside_unquotes(tree):
    """Name nodes of `tree`, skipping `{...}` unquotes, call targets and
    attributes' operands."""
    return (n for n in nodes_outside_unquotes(tree) if isinstance(n, ast.Name))


def _at_line_start():
    node = ast.Constant(0)
    node.lineno, node.col_offset = 1, 0
    return node


def _place(code):
    """Where the code object `code` comes from: "stdlib" (exo2.stdlib, a
    scheduling library), "exo2" (the rest of exo2) or "user"."""
    # cached by path: code objects of equal content compare equal whatever
    # their file, so they cannot key the cache
    return _place_of_path(code_path(code))


@functools.lru_cache(maxsize=1024)
def _place_of_path(path):
    if path.startswith(os.path.join(_stdlib_dir(), "")):
        return "stdlib"
    if path.startswith(os.path.join(_PACKAGE_DIR, "")):
        return "exo2"
    return "user"


def _call_column(frame):
    """The column of the call `frame` is running, or -1 when unknown."""
    return _column_at(frame.f_code, frame.f_lasti)


@functools.lru_cache(maxsize=4096)
def _column_at(code, lasti):
    # the positions are walked up to the instruction: cached per call site
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return -1
    position = next(itertools.islice(positions(), lasti // 2, None), None)
    return -1 if position is None or position[2] is None else position[2]


def _caller():
    """The frame whose names a new expression sees (the innermost one
    outside exo2's own modules: scheduling libraries count), and a
    SourceContext placing the expression at the user's call (the innermost
    frame outside exo2 and its standard library)."""
    here = inspect.currentframe()
    scope_frame = user_frame = None
    frame = here
    while frame is not None and user_frame is None:
        place = _place(frame.f_code)
        if scope_frame is None and place != "exo2":
            scope_frame = frame
        if place == "user":
            user_frame = frame
        frame = frame.f_back
    if scope_frame is None:
        return here, SourceContext("<string>", 0, 0)
    user_frame = user_frame or scope_frame
    source = CallSiteContext(
        user_frame.f_code.co_filename, user_frame.f_lineno, _call_column(user_frame)
    )
    return scope_frame, source
