"""The Procedure methods that start a new procedure rather than derive one
(procedure-and-codegen.md §1): partial_eval, transpose, add_assertion.

They change the signature or the meaning, so their results have no parent:
cursors cannot be forwarded into them and they start a new equivalence
class.
"""

import ast

from .. import API_cursors as PC
from .. import _core
from ..api_arguments import CONTROL_INTS
from ..core.configs import Config
from ..errors import KernelCheckError, SchedulingError
from ..frontend.parse_fragment import ParseFragmentError
from ..frontend.source import PythonScope
from .new_expressions import (
    _caller,
    nodes_outside_unquotes,
    parse_exo_expr,
    parse_python_expr,
    variables_before,
)


def partial_eval(proc, args, kwargs):
    """`proc` with leading (positional) or named control parameters fixed."""
    if args and kwargs:
        raise ValueError("Must provide EITHER ordered OR named arguments")
    if not args and not kwargs:
        return proc
    names = [a.name() for a in proc.args()]
    if args:
        if len(args) > len(names):
            raise TypeError(
                f"expected no more than {len(names)} arguments, but got {len(args)}"
            )
        values = list(enumerate(args))
    else:
        values = []
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"no argument {name} found")
            values.append((names.index(name), value))
    for position, value in values:
        if isinstance(value, int) and value not in CONTROL_INTS:
            raise SchedulingError(
                f"cannot partially evaluate {names[position]} to {value}: control "
                "values must lie in [-2**31, 2**31)"
            )
    return type(proc)(_core.partial_eval(proc._proc, values))


def transpose(proc, arg_cursor):
    """`proc` with the two dimensions of a 2-D parameter swapped."""
    if not (
        isinstance(arg_cursor, PC.ArgCursor)
        and arg_cursor.is_tensor()
        and len(arg_cursor.shape()) == 2
    ):
        raise TypeError("expected a 2D argument cursor")
    arg_cursor = proc.forward(arg_cursor)
    return type(proc)(_core.transpose(proc._proc, arg_cursor._impl))


def add_assertion(proc, assertion, configs):
    """`proc` with `assertion` appended to its preconditions, unchecked."""
    if not isinstance(assertion, str):
        raise TypeError("assertion must be an Exo string")
    expr = _parse_assertion(proc, assertion, configs or [])
    try:
        return type(proc)(_core.add_assertion(proc._proc, expr))
    except KernelCheckError as e:
        raise KernelCheckError(
            f"argument 1, 'assertion' to add_assertion: {e.diagnostics[0][3]}",
            e.heading,
            e.diagnostics,
        ) from None


def _parse_assertion(proc, text, configs):
    """The untyped core expression of `text` in the scope of the first
    statement (the parameters); `C.f` reads a config of `configs` named C."""
    frame, source = _caller()
    tree = parse_python_expr(text)
    if not all(isinstance(c, Config) for c in configs):
        raise TypeError("add_assertion: configs must be a list of Config objects")
    by_name = {c.name(): c for c in configs}
    variables = variables_before(proc.body()[0])
    scope = PythonScope(frame.f_globals, {**frame.f_locals, **by_name})
    for node in nodes_outside_unquotes(tree):
        if isinstance(node, ast.Name):
            if node.id == "_":
                raise ParseFragmentError("String cannot contain holes")
            if node.id not in variables and not scope.lookup(node.id)[0]:
                raise ParseFragmentError(
                    f"{node.id} not found in the current environment"
                )
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            config = by_name.get(node.value.id)
            if config is None:
                raise ParseFragmentError(
                    f"Could not find Config named '{node.value.id}'. Try supplying "
                    "a list of Config objects via an optional 'configs' argument"
                )
            if not config.has_field(node.attr):
                raise ParseFragmentError(
                    f"Config named '{node.value.id}' does not have a field "
                    f"named '{node.attr}'"
                )
    return parse_exo_expr(tree, source, scope, variables)
