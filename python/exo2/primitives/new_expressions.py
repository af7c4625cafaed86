"""New expressions given to primitives as text or numbers (primitives.md §3).

The text is parsed as an expression in the scope just before a context
statement (the cursor argument's statement; an expression's enclosing
statement; a gap's anchor): parameters, enclosing loop iterators, earlier
allocations and window statements. The result is untyped; the primitive
types it in the same scope.
"""

import ast
import collections
import inspect
import os

from .. import API_cursors as PC
from .. import _core
from ..frontend.metaprogramming import ExoSymbol
from ..frontend.parse_fragment import ParseFragmentError
from ..frontend.pyparser import Parser
from ..frontend.source import ParseError, PythonScope, SourceContext

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def context_statement(cursor):
    """The statement whose scope a new expression for `cursor` uses."""
    while isinstance(cursor, PC.ExprCursorPrototype):
        cursor = cursor.parent()
    if isinstance(cursor, PC.GapCursor):
        return cursor.anchor()
    if isinstance(cursor, PC.BlockCursor):
        return cursor[0]
    return cursor


def parse_new_expr(value, cursor):
    """The untyped core expression for `value` in the scope of `cursor`."""
    frame, source = _caller()
    if isinstance(value, bool):
        return _core.const(value, source.srcinfo(_at_line_start()))
    if isinstance(value, (int, float)):
        return _core.const(value, source.srcinfo(_at_line_start()))
    if not isinstance(value, str):
        raise TypeError(f"expected an expression string, not {type(value)}")
    try:
        tree = ast.parse(value.strip(), mode="eval").body
    except SyntaxError as e:
        raise ParseFragmentError(f"cannot parse '{value}': {e.msg}") from e
    statement = context_statement(cursor)
    variables = {
        name: ExoSymbol(sym, is_size)
        for name, sym, is_size in _core.variables_in_scope(statement._impl)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "_":
            raise ParseFragmentError("String cannot contain holes")
    scope = PythonScope(frame.f_globals, frame.f_locals)
    for node in _names_outside_unquotes(tree):
        found, _ = scope.lookup(node.id)
        if node.id not in variables and not found:
            raise ParseFragmentError(f"{node.id} not found in the current environment")
    parser = Parser(source, scope)
    parser.exo_locals = collections.ChainMap(variables)
    try:
        return parser.parse_expr(tree)
    except ParseError as e:
        raise ParseFragmentError(str(e)) from e


def _names_outside_unquotes(tree):
    """Name nodes of `tree`, skipping `{...}` unquotes and call targets."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Set):
            continue
        if isinstance(node, ast.Name):
            yield node
        if isinstance(node, ast.Call):
            todo.extend(node.args)
            continue
        if isinstance(node, ast.Attribute):
            continue
        todo.extend(ast.iter_child_nodes(node))


def _at_line_start():
    node = ast.Constant(0)
    node.lineno, node.col_offset = 1, 0
    return node


def _caller():
    """The innermost frame outside exo2's own modules, and a SourceContext
    placing fragment positions on its current line."""
    frame = inspect.currentframe()
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_PACKAGE_DIR):
            break
        frame = frame.f_back
    if frame is None:
        return inspect.currentframe(), SourceContext("<string>", 0, 0)
    return frame, SourceContext(frame.f_code.co_filename, frame.f_lineno - 1, 0)
