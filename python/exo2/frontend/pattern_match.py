"""Pattern strings for `find` (docs/cursors.md, "Finding code").

A pattern is parsed with Python's `ast` into a description made of tuples,
which the core matches (src/cursors/pattern.cpp):

    expressions  ("hole",) ("read", name, [idx]) ("const", value)
                 ("usub", e) ("binop", op, lhs, rhs) ("extern", name, [args])
                 ("stride", name, dim | None) ("config", config, field)
    statements   ("hole",) ("assign" | "reduce", name, [idx], rhs)
                 ("alloc", name, [sizes]) ("for", iter, lo, hi, [body])
                 ("if", cond, [body], [orelse]) ("call", name)
                 ("write_config", config, field) ("pass",)
                 ("with", [body]) ("sync", "Fence" | "Arrive" | "Await")

and the whole pattern is `("expr", e)` or `("stmts", [s, ...])`. `{expr}`
unquotes a value of the caller's frame: a number or bool becomes a literal,
a string is parsed as an expression pattern.
"""

import ast
import functools
import re
import textwrap

from ..core.extern import Extern
from .source import ParseError


class PatternMatchError(Exception):
    """A pattern that matches anything (only holes)."""


_MATCH_NO = re.compile(r"^([^#]+)#(\d+)\s*$")

_BINARY = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "/",
    ast.Mod: "%",
}
_COMPARE = {ast.Lt: "<", ast.Gt: ">", ast.LtE: "<=", ast.GtE: ">=", ast.Eq: "=="}

HOLE = ("hole",)
# Stands for an Extern in the scope of a cached parse.
_EXTERN_MARK = object()


def split_match_no(pattern):
    """`(text, n)` for `text #n`, `(pattern, None)` otherwise."""
    if match := _MATCH_NO.search(pattern):
        return match[1], int(match[2])
    return pattern, None


_CALLED_NAME = re.compile(r"(\w+)\s*\(")


def parse_pattern(text, scope):
    """The description of a pattern (without its `#n`). `scope` maps the
    caller's names, for unquotes and for telling extern calls apart; it may
    be a function returning that mapping, called only for a pattern with an
    unquote or a call (finding the caller's frame costs more than parsing)."""
    if "{" in text:
        return _PatternParser(text, _mapping(scope)).parse()
    called = _CALLED_NAME.findall(text)
    if not called:
        return _parse_cached(text, frozenset())
    scope = _mapping(scope)
    externs = frozenset(name for name in called if isinstance(scope.get(name), Extern))
    return _parse_cached(text, externs)


def _mapping(scope):
    return scope() if callable(scope) else scope


@functools.lru_cache(maxsize=1024)
def _parse_cached(text, externs):
    """Patterns without unquotes depend only on which called names are
    externs, so their descriptions are cached."""
    return _PatternParser(text, {name: _EXTERN_MARK for name in externs}).parse()


class _PatternParser:
    def __init__(self, text, scope):
        self.text = text
        self.scope = scope

    def err(self, node, message):
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        raise ParseError(f"pattern:{line}:{col}: {message}")

    def parse(self):
        try:
            module = ast.parse(textwrap.dedent(self.text))
        except SyntaxError as e:
            raise ParseError(f"pattern:{e.lineno}:{e.offset}: {e.msg}") from None
        body = module.body
        if not body:
            self.err(module, "empty pattern")
        if len(body) == 1 and isinstance(body[0], ast.Expr):
            value = body[0].value
            is_statement = self.sync_kind(value) or (
                isinstance(value, ast.BinOp) and isinstance(value.op, ast.RShift)
            )
            if not is_statement and (
                not isinstance(value, ast.Call) or self.is_expression_call(value)
            ):
                return ("expr", self.expr(value))
        return ("stmts", self.stmts(body))

    def is_expression_call(self, call):
        if not isinstance(call.func, ast.Name):
            return False
        bound = self.scope.get(call.func.id)
        return (
            call.func.id == "stride"
            or isinstance(bound, Extern)
            or bound is _EXTERN_MARK
        )

    # --- statements --------------------------------------------------

    def stmts(self, body):
        return [self.stmt(s) for s in body]

    def stmt(self, s):
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Name) and s.value.id == "_":
                return HOLE
            if sync := self.sync_kind(s.value):
                return ("sync", sync)
            if isinstance(s.value, ast.Call):
                return ("call", self.callee_name(s.value))
            if isinstance(s.value, ast.BinOp) and isinstance(s.value.op, ast.RShift):
                # `f(_) >> _`: a call with trailing barriers.
                call = s.value
                while isinstance(call, ast.BinOp) and isinstance(call.op, ast.RShift):
                    call = call.left
                if isinstance(call, ast.Call):
                    return ("call", self.callee_name(call))
            self.err(s, "expected a statement")
        if isinstance(s, ast.With):
            return ("with", self.stmts(s.body))
        if isinstance(s, ast.Pass):
            return ("pass",)
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                self.err(s, "expected one assignment target")
            target = s.targets[0]
            if isinstance(target, ast.Attribute):
                return ("write_config", self.name_of(target.value), target.attr)
            name, idx = self.lvalue(target)
            return ("assign", name, idx, self.expr(s.value))
        if isinstance(s, ast.AugAssign):
            if not isinstance(s.op, ast.Add):
                self.err(s, "only += is supported")
            name, idx = self.lvalue(s.target)
            return ("reduce", name, idx, self.expr(s.value))
        if isinstance(s, ast.AnnAssign):
            name, idx = self.lvalue(s.target)
            if idx:
                self.err(s.target, "expected simple name in declaration")
            return ("alloc", name, self.alloc_sizes(s.annotation))
        if isinstance(s, ast.For):
            lo, hi = self.loop_bounds(s.iter)
            return ("for", self.name_of(s.target), lo, hi, self.stmts(s.body))
        if isinstance(s, ast.If):
            return ("if", self.expr(s.test), self.stmts(s.body), self.stmts(s.orelse))
        self.err(s, "unsupported statement in pattern")

    @staticmethod
    def sync_kind(value):
        """ "Fence" / "Arrive" / "Await" for the sync statement patterns
        `Fence(_, _)`, `Arrive(_) >> _` and `Await(_, _)`, else None."""
        while isinstance(value, ast.BinOp) and isinstance(value.op, ast.RShift):
            value = value.left
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in ("Fence", "Arrive", "Await")
        ):
            return value.func.id
        return None

    def callee_name(self, call):
        func = call.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
        self.err(call, "expected a procedure name")

    def name_of(self, node):
        if not isinstance(node, ast.Name):
            self.err(node, "expected a name")
        return node.id

    def lvalue(self, node):
        if isinstance(node, ast.Name):
            return node.id, []
        if isinstance(node, ast.Subscript):
            return self.name_of(node.value), self.indices(node.slice)
        self.err(node, "expected lhs of form 'x' or 'x[...]'")

    def indices(self, node):
        elts = node.elts if isinstance(node, ast.Tuple) else [node]
        out = []
        for e in elts:
            if isinstance(e, ast.Slice):
                self.err(e, "windows are not supported in patterns")
            out.append(self.expr(e))
        return out

    def alloc_sizes(self, annotation):
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.MatMult):
            annotation = annotation.left
        if isinstance(annotation, ast.Subscript):
            return self.indices(annotation.slice)
        return []

    def loop_bounds(self, node):
        if isinstance(node, ast.Name) and node.id == "_":
            return HOLE, HOLE
        if isinstance(node, ast.Call) and len(node.args) == 2:
            return self.expr(node.args[0]), self.expr(node.args[1])
        self.err(node, "expected loop bounds '_' or 'seq(lo, hi)'")

    # --- expressions -------------------------------------------------

    def expr(self, e):
        if isinstance(e, ast.Name):
            return HOLE if e.id == "_" else ("read", e.id, [])
        if isinstance(e, ast.Subscript):
            return ("read", self.name_of(e.value), self.indices(e.slice))
        if isinstance(e, ast.Constant):
            if isinstance(e.value, (bool, int, float)):
                return ("const", e.value)
            self.err(e, "unsupported literal")
        if isinstance(e, ast.UnaryOp):
            if not isinstance(e.op, ast.USub):
                self.err(e, "unsupported unary operator")
            return ("usub", self.expr(e.operand))
        if isinstance(e, ast.BinOp):
            if type(e.op) not in _BINARY:
                self.err(e, "unsupported binary operator")
            return ("binop", _BINARY[type(e.op)], self.expr(e.left), self.expr(e.right))
        if isinstance(e, ast.BoolOp):
            op = "and" if isinstance(e.op, ast.And) else "or"
            result = self.expr(e.values[0])
            for value in e.values[1:]:
                result = ("binop", op, result, self.expr(value))
            return result
        if isinstance(e, ast.Compare):
            operands = [e.left, *e.comparators]
            result = None
            for op, lhs, rhs in zip(e.ops, operands, operands[1:], strict=False):
                if type(op) not in _COMPARE:
                    self.err(e, "unsupported comparison")
                cmp = ("binop", _COMPARE[type(op)], self.expr(lhs), self.expr(rhs))
                result = cmp if result is None else ("binop", "and", result, cmp)
            return result
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Attribute):
            return ("config", self.name_of(e.value), e.attr)
        if isinstance(e, ast.Set) and len(e.elts) == 1:
            return self.unquote(e)
        self.err(e, "unsupported expression in pattern")

    def call(self, e):
        name = self.name_of(e.func)
        if name != "stride":
            return ("extern", name, [self.expr(a) for a in e.args])
        if len(e.args) != 2:
            self.err(e, "expected stride(name, dim)")
        buffer, dim = e.args
        if isinstance(dim, ast.Name) and dim.id == "_":
            return ("stride", self.name_of(buffer), None)
        if not isinstance(dim, ast.Constant) or not isinstance(dim.value, int):
            self.err(dim, "expected an integer dimension or _")
        return ("stride", self.name_of(buffer), dim.value)

    def unquote(self, e):
        source = ast.unparse(e.elts[0])
        try:
            value = eval(source, {}, dict(self.scope))  # noqa: S307
        except Exception as exc:  # the user's expression failed
            self.err(e, f"could not evaluate unquote {{{source}}}: {exc}")
        if isinstance(value, (bool, int, float)):
            return ("const", value)
        if isinstance(value, str):
            parsed = _PatternParser(value, self.scope).parse()
            if parsed[0] != "expr":
                self.err(e, f"unquoted string is not an expression: {value!r}")
            return parsed[1]
        self.err(e, f"cannot unquote a {type(value).__name__} in a pattern")
