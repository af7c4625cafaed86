"""Metaprogramming: Python code embedded in kernels, run at parse time.

Quotes are Exo fragments held by Python (`with exo:` blocks, `~{expr}`),
unquotes are Python values pasted into Exo (`{expr}`, implicit names) —
docs/writing-kernels.md, "Metaprogramming". This module runs the Python side; the parser
(`pyparser.Parser`) parses the Exo fragments it is handed back.

A `with python:` block (or the expression of an unquote) runs as the body of
a nested function,

    def __exo2_outer(<bound names>, __exo2_quote):
        def __exo2_inner():
            nonlocal <bound names>
            <user statements>
        return __exo2_inner()

so that the user's code sees the defining frame's locals and the Exo
variables in scope (as opaque `ExoSymbol`s) with ordinary closure semantics.
A block's assignments stay visible to the rest of the kernel (later blocks
and unquotes), as in a Python function body. Each `with exo:` block and
`~{...}` is replaced by a call `__exo2_quote(site, {name: lambda: name})`:
the lambdas capture, with Python's own scoping rules, every Python value the
fragment may refer to, so fragments inside comprehensions and nested
functions resolve names correctly.
"""

import ast
import copy
import keyword

from .source import PythonScope


class ExoExpression:
    """A quoted Exo expression held by Python (`~{a + b}`)."""

    def __init__(self, expr):
        self.expr = expr

    def __repr__(self):
        return f"ExoExpression({self.expr})"


class ExoSymbol:
    """An Exo variable seen from Python: opaque, usable in unquotes and as
    the target of an assignment."""

    def __init__(self, sym, is_size=False):
        self.sym = sym
        self.is_size = is_size

    def __repr__(self):
        return f"ExoSymbol({self.sym.name()})"


class ExoStatementList:
    """Exo statements captured by `with exo as s:`, unquoted with `{s}`."""

    def __init__(self, stmts):
        self.stmts = tuple(stmts)

    def __add__(self, other):
        if not isinstance(other, ExoStatementList):
            return NotImplemented
        return ExoStatementList(self.stmts + other.stmts)

    def __repr__(self):
        return f"ExoStatementList({len(self.stmts)} statements)"


_QUOTE_KEYWORD = "exo"
_OUTER = "__exo2_outer"
_INNER = "__exo2_inner"
_QUOTE = "__exo2_quote"
_LOCALS = "__exo2_locals"

# Where `with exo:` blocks emit their statements: one list per running
# `with python:` block, None while an expression unquote runs.
_emission_targets = []


class MetaContext:
    """What running Python code needs from the parser that meets it.

    `make_parser(scope)` returns a parser for fragments whose free Python
    names resolve in `scope`; `exo_names` maps the Exo variables in scope to
    `ExoSymbol`s.
    """

    def __init__(self, source, scope, exo_names, make_parser):
        self.source = source
        self.scope = scope
        self.exo_names = exo_names
        self.make_parser = make_parser


def run_block(stmts, context, sink):
    """Execute the statements of a `with python:` block; the statements of
    every `with exo:` block it executes are appended to `sink`. Returns the
    Python names the block assigned, which stay visible to the rest of the
    kernel."""
    quote = _Quote(context)
    replacer = _QuoteReplacer(context.source, quote)
    body = [replacer.visit(stmt) for stmt in copy.deepcopy(stmts)]
    # `locals()` at the end of the block: its assignments and the final
    # values of the names it shares with the enclosing scope.
    body.append(
        ast.Return(
            value=ast.Call(
                func=ast.Name(id=_LOCALS, ctx=ast.Load()), args=[], keywords=[]
            )
        )
    )
    _emission_targets.append(sink)
    try:
        final = _run(body, context, quote)
    finally:
        _emission_targets.pop()
    return {
        name: value
        for name, value in final.items()
        if not name.startswith("__exo2")
        and not (name in context.exo_names and value is context.exo_names[name])
    }


def evaluate(expr, context):
    """The Python value of the unquote `{expr}`."""
    quote = _Quote(context)
    replacer = _QuoteReplacer(context.source, quote)
    body = [ast.Return(value=replacer.visit(copy.deepcopy(expr)))]
    ast.copy_location(body[0], expr)
    _emission_targets.append(None)
    try:
        return _run(body, context, quote)
    finally:
        _emission_targets.pop()


def _run(body, context, quote):
    """Run `body` as the nested function described in the module docstring."""
    bound = {
        name: value
        for name, value in context.scope.own_locals().items()
        if _is_bindable(name)
    }
    bound.update(context.exo_names)
    declared_global = _global_names(body)
    nonlocal_names = [name for name in bound if name not in declared_global]
    inner_body = [ast.Nonlocal(names=nonlocal_names)] if nonlocal_names else []
    inner_body += body
    no_args = ast.arguments(
        posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]
    )
    outer_args = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(arg=name) for name in [*bound, _QUOTE, _LOCALS]],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    inner = ast.FunctionDef(
        name=_INNER, args=no_args, body=inner_body, decorator_list=[], returns=None
    )
    call_inner = ast.Call(
        func=ast.Name(id=_INNER, ctx=ast.Load()), args=[], keywords=[]
    )
    outer = ast.FunctionDef(
        name=_OUTER,
        args=outer_args,
        body=[inner, ast.Return(value=call_inner)],
        decorator_list=[],
        returns=None,
    )
    ast.copy_location(outer, body[0])
    ast.copy_location(inner, body[0])
    module = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
    ast.increment_lineno(module, context.source.line_offset)
    namespace = {}
    exec(
        compile(module, context.source.filename, "exec"),
        context.scope.globals,
        namespace,
    )
    return namespace[_OUTER](**bound, **{_QUOTE: quote, _LOCALS: locals})


def _is_bindable(name):
    return (
        name.isidentifier()
        and not keyword.iskeyword(name)
        and name not in (_QUOTE, _LOCALS)
    )


def _global_names(body):
    """Names the block declares `global` (they cannot also be nonlocal)."""
    names = set()
    for stmt in body:
        for node in _walk_same_function(stmt):
            if isinstance(node, ast.Global):
                names.update(node.names)
    return names


def _walk_same_function(node):
    """`ast.walk` that does not enter nested functions or classes."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(
            child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
        ):
            yield from _walk_same_function(child)


class _Quote:
    """The `__exo2_quote` callable: parses the Exo fragment of a site with
    the Python values captured at the call."""

    def __init__(self, context):
        self.context = context
        self.sites = []

    def add_site(self, kind, fragment):
        self.sites.append((kind, fragment))
        return len(self.sites) - 1

    def __call__(self, site, captured):
        kind, fragment = self.sites[site]
        values = {}
        for name, read in captured.items():
            try:
                values[name] = read()
            except NameError:
                pass
        scope = PythonScope(self.context.scope.globals, values)
        parser = self.context.make_parser(scope)
        if kind == "expression":
            return parser.quote_expression(fragment)
        stmts = parser.parse_block(fragment)
        if kind == "capture":
            return ExoStatementList(stmts)
        target = _emission_targets[-1] if _emission_targets else None
        if target is None:
            raise TypeError(
                "Cannot unquote Exo statements in this context. You are likely "
                "trying to unquote Exo statements while inside an Exo expression."
            )
        target.extend(stmts)
        return None


class _QuoteReplacer(ast.NodeTransformer):
    """Replaces quotes in Python code by calls of `__exo2_quote` and rejects
    the Python statements metaprogramming does not support."""

    def __init__(self, source, quote):
        self.source = source
        self.quote = quote
        self.inside_function = False

    def _site_call(self, kind, fragment, located_at):
        site = self.quote.add_site(kind, fragment)
        fragment_nodes = fragment if isinstance(fragment, list) else [fragment]
        names = sorted(
            {
                node.id
                for root in fragment_nodes
                for node in ast.walk(root)
                if isinstance(node, ast.Name) and _is_bindable(node.id)
            }
        )
        captured = ast.Dict(
            keys=[ast.Constant(value=name) for name in names],
            values=[
                ast.Lambda(
                    args=ast.arguments(
                        posonlyargs=[],
                        args=[],
                        kwonlyargs=[],
                        kw_defaults=[],
                        defaults=[],
                    ),
                    body=ast.Name(id=name, ctx=ast.Load()),
                )
                for name in names
            ],
        )
        call = ast.Call(
            func=ast.Name(id=_QUOTE, ctx=ast.Load()),
            args=[ast.Constant(value=site), captured],
            keywords=[],
        )
        return ast.copy_location(call, located_at)

    def visit_With(self, node):
        if (
            len(node.items) == 1
            and isinstance(node.items[0].context_expr, ast.Name)
            and node.items[0].context_expr.id == _QUOTE_KEYWORD
        ):
            target = node.items[0].optional_vars
            if target is None:
                call = self._site_call("emit", node.body, node)
                return ast.copy_location(ast.Expr(value=call), node)
            call = self._site_call("capture", node.body, node)
            return ast.copy_location(ast.Assign(targets=[target], value=call), node)
        return self.generic_visit(node)

    def visit_UnaryOp(self, node):
        if (
            isinstance(node.op, ast.Invert)
            and isinstance(node.operand, ast.Set)
            and len(node.operand.elts) == 1
        ):
            return self._site_call("expression", node.operand.elts[0], node)
        return self.generic_visit(node)

    def visit_Nonlocal(self, node):
        self.source.error(node, "nonlocal is not supported in metalanguage")

    def visit_Return(self, node):
        if not self.inside_function:
            self.source.error(node, "cannot return from metalanguage fragment")
        return self.generic_visit(node)

    def _visit_function(self, node):
        outer = self.inside_function
        self.inside_function = True
        try:
            return self.generic_visit(node)
        finally:
            self.inside_function = outer

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function
    visit_Lambda = _visit_function
