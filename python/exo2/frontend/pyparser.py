"""The kernel parser: Python `ast` of a `@proc` function → untyped core IR.

The parser resolves every name (Exo variables first, then the defining
frame's locals and globals), runs metaprogramming, reports syntax outside
the object language as `ParseError`, and builds the untyped procedure with
the builder functions of `exo2._core`
(docs/internals/frontend-to-core.md). Typing rules are the core
typechecker's business, not the parser's.
"""

import ast
import difflib
import inspect
from collections import ChainMap

from .. import _core
from ..API_types import ExoType, ProcedureBase
from ..core.configs import FIELD_TYPES, Config
from ..core.extensions import (
    BuiltinLoopMode,
    DimAnnotation,
    LoopMode,
    Timeline,
    WithContext,
)
from ..core.extern import Extern
from ..core.memory import DRAM, Memory
from . import metaprogramming as meta
from . import syntax as _syntax
from .metaprogramming import ExoExpression, ExoStatementList, ExoSymbol
from .source import ParseError, SourceContext

__all__ = ["ParseError", "Parser", "parse_procedure", "parse_config_class"]

_PRECISIONS = ("R", "f16", "bf16", "f32", "f64", "i8", "ui8", "ui16", "i32")


def _precision_of(value):
    """The precision a Python value stands for in a type position: its name
    (`"f32"`), the `exo2.frontend.syntax` class of that name (`f32`), or an
    `ExoType` of data (`ExoType.F32`); None for anything else."""
    if isinstance(value, str):
        return value if value in _PRECISIONS else None
    if isinstance(value, ExoType):
        name = "R" if value is ExoType.R else value.name.lower()
        return name if name in _PRECISIONS else None
    if isinstance(value, type) and value.__module__ == _syntax.__name__:
        return value.__name__ if value.__name__ in _PRECISIONS else None
    return None


# Element types of allocations only: barriers synchronise, they hold no data
# (docs/cuda.md).
_SYNC_TYPES = ("barrier",)
# The synchronisation statements, recognised by name like `seq` and `par`.
_SYNC_STATEMENTS = ("Fence", "Arrive", "Await")
_CONTROL_TYPES = ("size", "index", "bool", "stride")


def _unknown_type(node, control=()):
    """The message for an annotation that names no type: the token, the
    closest valid name, and the valid names (`control` types too, in a
    signature)."""
    token = ast.unparse(node)
    message = f"unrecognized type '{token}'"
    if isinstance(node, ast.Name):
        valid = control + _PRECISIONS
        close = difflib.get_close_matches(node.id, valid, n=1, cutoff=0.5)
        if close:
            message += f" (did you mean '{close[0]}'?)"
    kinds = f"{', '.join(control)} and " if control else ""
    return (
        f"{message}; the types are {kinds}the precisions "
        f"{', '.join(_PRECISIONS)}, with tensors `f32[n, m]` and windows "
        "`[f32][n, m]` of a precision"
    )


_BINARY_OPERATORS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.MatMult: "@",
}
_COMPARISONS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_UNARY_OPERATORS = {ast.UAdd: "+", ast.Not: "not", ast.Invert: "~"}
# The operators of the object language; the others parse but are rejected.
_FRONT_OPS = {"+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "and", "or"}

_BAD_ARGUMENTS = """
    Exo expects function arguments to not use these python features:
      - position-only arguments
      - unnamed (position or keyword) arguments (i.e. *varargs, **kwargs)
      - keyword-only arguments
      - default argument values
    """
_BAD_LOOP = (
    "expected for loop condition to be in the form 'par(...,...)' or 'seq(...,...)'"
)
_BAD_STRIDE = (
    "expected stride(...) to have exactly 2 arguments: the identifier for the "
    "buffer we are talking about and an integer specifying which dimension"
)
_BAD_WINDOW_STEP = (
    "expected windowing to have the form x[:], x[i:], x[:j], or x[i:j], "
    "but not x[i:j:k]"
)


# Integer literals are held as 64-bit integers by the core.
_INT64 = range(-(2**63), 2**63)


def literal_problem(value):
    """Why the Python number `value` cannot be an object-language literal,
    or None when it can."""
    if isinstance(value, bool) or not isinstance(value, int) or value in _INT64:
        return None
    problem = f"integer literal {value} does not fit in 64 bits"
    if abs(value) < 2**1023:
        problem += f"; write it as a float ({float(value)!r}) for a data value"
    return problem


def parse_procedure(fdef, source, scope, instr=None):
    """The untyped core procedure of the function definition `fdef`.

    `instr` is `None` or the `(c_instr, c_global)` of an `@instr`.
    """
    return Parser(source, scope).parse_function(fdef, instr)


def parse_config_class(cls, source):
    """`(name, [(field, type name)])` of a `@config` class definition."""
    if cls.bases:
        source.error(cls, "expected no base classes in a config definition")
    basic_error = "expected config field definition of the form: name : type"
    fields = []
    for stmt in cls.body:
        if not isinstance(stmt, ast.AnnAssign) or stmt.value is not None:
            source.error(stmt, basic_error)
        if not isinstance(stmt.target, ast.Name):
            source.error(stmt, basic_error)
        annotation = stmt.annotation
        if not (isinstance(annotation, ast.Name) and annotation.id in FIELD_TYPES):
            source.error(
                annotation,
                "expected one of the following types: " + ", ".join(FIELD_TYPES),
            )
        fields.append((stmt.target.id, annotation.id))
    return cls.name, fields


class Parser:
    """Parses kernel statements and expressions in one Python scope.

    `exo_locals` maps the Exo variables in scope to `ExoSymbol`s; blocks
    push and pop a child map. Quoted fragments get a parser of their own
    (`metaprogramming`), whose Python scope holds the values the fragment
    captured.
    """

    def __init__(self, source: SourceContext, scope):
        self.source = source
        self.scope = scope
        self.exo_locals = ChainMap()
        # Literal values of the literal expressions built so far, by id(),
        # for folding `-3` into one literal.
        self._literals = {}
        # The procedure being parsed (None for fragments).
        self.function_name = None

    # ----------------------------------------------------------------- #
    # helpers

    def srcinfo(self, node):
        return self.source.srcinfo(node)

    def err(self, node, text):
        self.source.error(node, text)

    def eval_python(self, node):
        """The value of the Python expression `node`; a ParseError at `node`
        when evaluating it fails (a name that is not defined, ...)."""
        try:
            return self.scope.eval(node, self.source)
        except Exception as e:
            text = ast.unparse(node)
            self.err(node, f"could not evaluate '{text}': {type(e).__name__}: {e}")

    def push(self):
        self.exo_locals = self.exo_locals.new_child()

    def pop(self):
        self.exo_locals = self.exo_locals.parents

    def bind(self, name, is_size=False):
        """A fresh Exo variable `name` in the current scope."""
        sym = _core.Sym(name)
        self.exo_locals[name] = ExoSymbol(sym, is_size)
        return sym

    def meta_context(self):
        return meta.MetaContext(
            self.source,
            self.scope,
            dict(self.exo_locals),
            lambda scope: Parser(self.source, scope),
        )

    def literal(self, value, node):
        if problem := literal_problem(value):
            self.err(node, problem)
        expr = _core.const(value, self.srcinfo(node))
        self._literals[id(expr)] = (expr, value)
        return expr

    def literal_value(self, expr):
        """The number `expr` was built from, or None."""
        entry = self._literals.get(id(expr))
        return entry[1] if entry is not None and entry[0] is expr else None

    # ----------------------------------------------------------------- #
    # procedures

    def parse_function(self, fdef, instr):
        self.function_name = fdef.name
        arguments = fdef.args
        if (
            arguments.posonlyargs
            or arguments.vararg is not None
            or arguments.kwonlyargs
            or arguments.kw_defaults
            or arguments.kwarg is not None
            or arguments.defaults
        ):
            self.err(fdef, _BAD_ARGUMENTS)

        args = []
        for arg in arguments.args:
            if arg.annotation is None:
                self.err(arg, "expected argument to be typed, i.e. 'x : T'")
            typ, mem = self.parse_arg_type(arg.annotation)
            if arg.arg in self.exo_locals:
                self.err(arg, f"repeated argument name: '{arg.arg}'")
            sym = self.bind(arg.arg, is_size=str(typ) == "size")
            args.append((sym, typ, mem, self.srcinfo(arg)))

        if fdef.returns is not None:
            self.err(fdef, "Exo does not support function return types")

        n_asserts = 0
        while n_asserts < len(fdef.body) and isinstance(
            fdef.body[n_asserts], ast.Assert
        ):
            n_asserts += 1
        preds = []
        for assertion in fdef.body[:n_asserts]:
            if assertion.msg is not None:
                self.err(assertion, "Exo procedure assertions should not have messages")
            preds.append(self.parse_expr(assertion.test))

        body = self.parse_block(fdef.body[n_asserts:])
        if not body and instr is None:
            self.err(fdef, "expected the procedure body to contain a statement")
        return _core.make_proc(fdef.name, args, preds, body, instr, self.srcinfo(fdef))

    def parse_arg_type(self, node):
        """`(type, memory)` of a parameter annotation `T` or `T @ M`."""
        typ_node, mem_node = node, None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            typ_node, mem_node = node.left, node.right
        if isinstance(typ_node, ast.Name) and typ_node.id in _CONTROL_TYPES:
            if mem_node is not None:
                kind = "stride" if typ_node.id == "stride" else "size"
                self.err(
                    node, f"{kind} types should not be annotated with memory locations"
                )
            mem = None if typ_node.id in ("size", "index") else DRAM
            return _core.Type.scalar(typ_node.id), mem
        typ = self.parse_data_type(typ_node, is_arg=True)
        return typ, self.parse_memory(mem_node)

    def parse_memory(self, node):
        """The memory class after `@`, or DRAM when there is none."""
        if node is None:
            return DRAM
        mem = self.eval_python(node)
        if not (inspect.isclass(mem) and issubclass(mem, Memory)):
            self.err(node, f"expected a Memory subclass after '@', got {mem!r}")
        return mem

    def parse_data_type(self, node, is_arg):
        """A precision, tensor `T[...]` or (in signatures) window `[T][...]`."""
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.List):
                if not is_arg:
                    self.err(
                        node,
                        "Window expression such as [R] should only be used in "
                        "the function signature",
                    )
                if len(node.value.elts) != 1:
                    self.err(
                        node,
                        "Window expression should annotate only one type, e.g. [R]",
                    )
                elem = self.parse_precision(
                    node.value.elts[0],
                    node,
                    "expected window type to be of the form "
                    "'[R][...]', '[f32][...]', etc.",
                )
                is_window = True
            else:
                elem = self.parse_precision(
                    node.value,
                    node,
                    "expected tensor type to be of the form 'R[...]', 'f32[...]', etc.",
                )
                is_window = False
            if isinstance(node.slice, ast.Slice):
                self.err(node, "index-slicing not allowed")
            dims = (
                node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            )
            extents = [self.parse_dim(dim, is_arg) for dim in dims]
            shape = [extent for extent, _ in extents]
            annotations = [annotation for _, annotation in extents]
            if all(annotation is None for annotation in annotations):
                annotations = []
            return _core.Type.tensor(elem, shape, is_window, annotations)
        if isinstance(node, ast.Name) and node.id in _PRECISIONS + _SYNC_TYPES:
            return _core.Type.scalar(node.id)
        if isinstance(node, ast.Set):
            return self.unquote_type(node)
        if (name := self.python_precision(node)) is not None:
            return _core.Type.scalar(name)
        if isinstance(node, ast.Name) and node.id in _CONTROL_TYPES:
            self.err(node, f"Cannot allocate an intermediate value of type {node.id}")
        self.err(node, _unknown_type(node, _CONTROL_TYPES if is_arg else ()))

    def parse_dim(self, node, is_arg):
        """`(extent, annotation or None)` of one dimension of a shape: `e`,
        or in an allocation `e @ A` with `A` a `DimAnnotation` (cuda.md
        §2.4: `K / 64 @ ring(4)`)."""
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)):
            return self.parse_expr(node), None
        if is_arg:
            self.err(node, "dimension annotations are only allowed on allocations")
        annotation = self.eval_python(node.right)
        if not isinstance(annotation, DimAnnotation):
            self.err(
                node.right,
                f"expected a dimension annotation after '@', got {annotation!r}",
            )
        return self.parse_expr(node.left), annotation

    def parse_precision(self, node, outer, message):
        if isinstance(node, ast.Name) and node.id in _PRECISIONS + _SYNC_TYPES:
            return _core.Type.scalar(node.id)
        if isinstance(node, ast.Set):
            return self.unquote_type(node)
        if (name := self.python_precision(node)) is not None:
            return _core.Type.scalar(name)
        if isinstance(node, ast.Name):  # a misspelt precision, `f23[n]`
            self.err(node, _unknown_type(node))
        self.err(outer, message)

    # ----------------------------------------------------------------- #
    # statements

    def parse_block(self, stmts):
        """The core statements of a list of `ast` statements."""
        out = []
        for s in stmts:
            if isinstance(s, ast.AnnAssign):
                out.append(self.parse_alloc(s))
            elif isinstance(s, (ast.Assign, ast.AugAssign)):
                out.append(self.parse_assign(s))
            elif isinstance(s, ast.For):
                out.append(self.parse_for(s))
            elif isinstance(s, ast.If):
                cond = self.parse_expr(s.test)
                self.push()
                body = self.parse_block(s.body)
                self.pop()
                self.push()
                orelse = self.parse_block(s.orelse)
                self.pop()
                out.append(_core.if_(cond, body, orelse, self.srcinfo(s)))
            elif isinstance(s, ast.Expr) and self.sync_kind(s.value):
                out.append(self.parse_sync(s.value))
            elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
                out.append(self.parse_call_stmt(s.value))
            elif (
                isinstance(s, ast.Expr)
                and isinstance(s.value, ast.BinOp)
                and isinstance(s.value.op, ast.RShift)
            ):
                call, barriers = self.split_trailing_barriers(s.value)
                if not isinstance(call, ast.Call):
                    self.err(s, "expected 'f(args) >> barrier[i]'")
                out.append(self.parse_call_stmt(call, barriers))
            elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Set):
                value = self.evaluate_unquote(s.value)
                if not isinstance(value, ExoStatementList):
                    self.err(
                        s,
                        "Statement-level unquote expression must return Exo statements",
                    )
                out.extend(value.stmts)
            elif isinstance(s, ast.With):
                out.extend(self.parse_with(s))
            elif isinstance(s, ast.Pass):
                out.append(_core.pass_(self.srcinfo(s)))
            elif isinstance(s, ast.Assert):
                self.err(
                    s, "predicate assert should happen at the beginning of a function"
                )
            else:
                self.err(s, "unsupported type of statement")
        return out

    def parse_alloc(self, s):
        """`x : T @ M`."""
        if s.value is not None:
            self.err(s, "Variable declaration should not have value assigned")
        name_node, accesses = self.parse_lvalue(s.target)
        if accesses:
            self.err(s.target, "expected simple name in declaration")
        typ_node, mem_node = s.annotation, None
        if isinstance(typ_node, ast.BinOp) and isinstance(typ_node.op, ast.MatMult):
            typ_node, mem_node = typ_node.left, typ_node.right
        mem = self.parse_memory(mem_node)
        typ = self.parse_data_type(typ_node, is_arg=False)
        sym = self.bind(name_node.id)
        return _core.alloc(sym, typ, mem, self.srcinfo(s))

    def parse_assign(self, s):
        """`x[i] = e`, `x[i] += e`, `Cfg.f = e`, or the window statement
        `y = x[...]` for a name not yet defined."""
        if isinstance(s, ast.Assign) and len(s.targets) > 1:
            self.err(s, "expected only one expression on the left of an assignment")
        target = s.targets[0] if isinstance(s, ast.Assign) else s.target
        value, window_mem = s.value, None
        if (
            isinstance(s, ast.Assign)
            and isinstance(value, ast.BinOp)
            and isinstance(value.op, ast.MatMult)
        ):
            # A special window `y = x[...] @ M` (cuda.md §2.5).
            value, window_mem = value.left, self.parse_memory(value.right)
        rhs = self.parse_expr(value)
        if isinstance(target, ast.Attribute) and isinstance(s, ast.Assign):
            if not isinstance(target.value, ast.Name):
                self.err(
                    target,
                    "expected configuration writes of the form 'config.field = ...'",
                )
            config = self.parse_config(target.value)
            return _core.write_config(config, target.attr, rhs, self.srcinfo(s))

        name_node, accesses = self.parse_lvalue(target)
        if any(access[0] == "interval" for access in accesses):
            self.err(
                target, "cannot perform windowing on left-hand-side of an assignment"
            )
        idx = [access[1] for access in accesses]
        fresh_allowed = isinstance(s, ast.Assign) and not idx
        sym = self.resolve_lvalue(name_node, fresh_allowed)
        if sym is None:
            sym = self.bind(name_node.id)
            return _core.window_stmt(sym, rhs, self.srcinfo(s), window_mem)
        if window_mem is not None:
            self.err(s.value, "only a new window name may be given a memory")
        if isinstance(s, ast.Assign):
            return _core.assign(sym, idx, rhs, self.srcinfo(s))
        if not isinstance(s.op, ast.Add):
            self.err(s, "only += reductions currently supported")
        return _core.reduce(sym, idx, rhs, self.srcinfo(s))

    def parse_lvalue(self, node):
        """`(name node, accesses)` of `x` or `x[...]`."""
        if not isinstance(node, (ast.Name, ast.Subscript)):
            self.err(node, "expected lhs of form 'x' or 'x[...]'")
        return self.parse_access_syntax(node)

    def resolve_lvalue(self, name_node, fresh_allowed):
        """The symbol written by an assignment, or None for a fresh name."""
        name = name_node.id
        var = self.exo_locals.get(name)
        if var is None:
            found, value = self.scope.lookup(name)
            if found and isinstance(value, ExoSymbol):
                var = value
            elif fresh_allowed:
                return None
            elif found:
                self.err(name_node, f"expected '{name}' to refer to a local variable")
            else:
                self.err(name_node, f"variable '{name}' undefined")
        if var.is_size:
            self.err(name_node, f"cannot write to size variable '{name}'")
        return var.sym

    def parse_for(self, s):
        if s.orelse:
            self.err(s, "else clause on for-loops unsupported")
        if not isinstance(s.target, ast.Name):
            self.err(s.target, "expected simple name for iterator variable")
        lo, hi, mode = self.parse_loop_range(s.iter)
        self.push()
        iterator = self.bind(s.target.id)
        body = self.parse_block(s.body)
        self.pop()
        return _core.for_(iterator, lo, hi, body, mode, self.srcinfo(s))

    def parse_loop_range(self, node):
        """`(lo, hi, mode)` of `seq(lo, hi)`, `par(lo, hi)` or a loop mode
        `Mode(lo, hi, **params)`."""
        if not isinstance(node, ast.Call):
            self.err(node, _BAD_LOOP)
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("seq", "par"):
            mode = self.builtin_loop_mode(node, func.id)
        else:
            mode = self.custom_loop_mode(node)
        lo = self.parse_expr(node.args[0])
        hi = self.parse_expr(node.args[1])
        return lo, hi, mode

    def custom_loop_mode(self, node):
        """The mode of `for i in f(lo, hi, ...)` where `f` evaluates to a
        `LoopMode` subclass (called with the keywords) or instance."""
        try:
            factory = self.eval_python(node.func)
        except Exception as e:
            raise self.source.make_error(node, _BAD_LOOP) from e
        if isinstance(factory, BuiltinLoopMode):
            return self.builtin_loop_mode(node, factory.name())
        if isinstance(factory, LoopMode):
            if node.keywords:
                self.err(node, f"{factory.name()}() does not support named arguments")
            mode = factory
        elif inspect.isclass(factory) and issubclass(factory, LoopMode):
            mode = factory(**self.python_keywords(node))
        else:
            self.err(node, _BAD_LOOP)
        if len(node.args) != 2:
            self.err(node, f"{mode.name()}() expects exactly 2 positional arguments")
        return mode

    def builtin_loop_mode(self, node, name):
        if node.keywords:
            self.err(node, "par() and seq() does not support named arguments")
        if len(node.args) != 2:
            self.err(node, "par() and seq() expects exactly 2 arguments")
        return _core.loop_mode_seq() if name == "seq" else _core.loop_mode_par()

    def python_keywords(self, call):
        """The keyword arguments of `call`, evaluated as Python."""
        keywords = {}
        for keyword in call.keywords:
            if keyword.arg is None:
                self.err(call, "** arguments are not supported here")
            keywords[keyword.arg] = self.eval_python(keyword.value)
        return keywords

    def parse_call_stmt(self, call, barriers=()):
        """`f(a1, a2, ...)`: a call of another procedure; `barriers` are the
        trailing barrier nodes of `f(...) >> bar[i]` (docs/cuda.md)."""
        func = call.func
        if (
            isinstance(func, ast.Name)
            and func.id == self.function_name
            and not self.scope.lookup(func.id)[0]
        ):
            self.err(
                call,
                f"procedure '{func.id}' cannot call itself: the object language "
                "has no recursion",
            )
        callee = self.eval_python(func)
        if not isinstance(callee, ProcedureBase):
            self.err(call.func, "expected called object to be a procedure")
        if call.keywords:
            self.err(call, "cannot call procedure() with keyword arguments")
        args = [self.parse_expr(arg) for arg in call.args]
        return _core.call(
            callee.INTERNAL_proc(),
            args,
            self.srcinfo(call),
            [self.parse_barrier(b) for b in barriers],
        )

    @staticmethod
    def split_trailing_barriers(node):
        """`(head, [b1, b2])` of `head >> b1 >> b2`."""
        barriers = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.RShift):
            barriers.append(node.right)
            node = node.left
        return node, barriers[::-1]

    @classmethod
    def sync_kind(cls, node):
        """ "Fence", "Arrive" or "Await" when `node` is a sync statement."""
        head, _ = cls.split_trailing_barriers(node)
        if (
            isinstance(head, ast.Call)
            and isinstance(head.func, ast.Name)
            and head.func.id in _SYNC_STATEMENTS
        ):
            return head.func.id
        return None

    def parse_sync(self, node):
        """`Fence(pre, post)`, `Arrive(pre) >> bar[i] >> ...` or
        `Await(bar[i], post)` (docs/cuda.md). Timelines are Python
        expressions evaluating to `Timeline` objects; barriers are elements
        of barrier buffers."""
        head, barriers = self.split_trailing_barriers(node)
        kind = head.func.id
        if head.keywords:
            self.err(head, f"{kind}() does not take keyword arguments")
        arity = {"Fence": 2, "Arrive": 1, "Await": 2}[kind]
        if len(head.args) != arity:
            self.err(head, f"{kind}() expects exactly {arity} arguments")
        srcinfo = self.srcinfo(head)
        if kind == "Arrive":
            if not barriers:
                self.err(head, "expected 'Arrive(pre) >> barrier[i]'")
            pre = self.parse_timeline(head.args[0])
            targets = [self.parse_barrier(b) for b in barriers]
            return _core.sync("Arrive", pre, None, targets, srcinfo)
        if barriers:
            self.err(node, f"{kind}() cannot signal barriers with '>>'")
        if kind == "Fence":
            pre = self.parse_timeline(head.args[0])
            post = self.parse_timeline(head.args[1])
            return _core.sync("Fence", pre, post, [], srcinfo)
        target = self.parse_barrier(head.args[0])
        post = self.parse_timeline(head.args[1])
        return _core.sync("Await", None, post, [target], srcinfo)

    def parse_timeline(self, node):
        try:
            timeline = self.eval_python(node)
        except Exception as e:
            raise self.source.make_error(
                node, "expected a timeline such as cuda_in_order"
            ) from e
        if not isinstance(timeline, Timeline):
            self.err(
                node, f"expected a timeline such as cuda_in_order, got {timeline!r}"
            )
        return timeline

    def parse_barrier(self, node):
        """One barrier element `bar[i, j]` (the typechecker checks that
        `bar` is a barrier buffer)."""
        if not isinstance(node, (ast.Name, ast.Subscript)):
            self.err(
                node, "expected one element of a barrier buffer, such as 'full[k]'"
            )
        return self.parse_expr(node)

    def parse_with(self, s):
        """`with python:` (statements it emits) or `with <WithContext>:`."""
        item = s.items[0] if len(s.items) == 1 else None
        if item is not None and item.optional_vars is None:
            ctx = item.context_expr
            if isinstance(ctx, ast.Name) and ctx.id == "python":
                emitted = []
                defined = meta.run_block(s.body, self.meta_context(), emitted)
                self.scope.define(defined)
                return emitted
            try:
                context = self.eval_python(ctx)
            except Exception as e:
                raise self.source.make_error(s, "Expected unquote") from e
            if isinstance(context, WithContext):
                self.push()
                body = self.parse_block(s.body)
                self.pop()
                return [_core.with_(context, body, self.srcinfo(s))]
        self.err(s, "Expected unquote")

    # ----------------------------------------------------------------- #
    # expressions

    def parse_expr(self, e):
        if isinstance(e, (ast.Name, ast.Subscript)):
            return self.parse_access(e)
        if isinstance(e, ast.Attribute):
            if not isinstance(e.value, ast.Name):
                self.err(e, "expected configuration reads of the form 'config.field'")
            config = self.parse_config(e.value)
            return _core.read_config(config, e.attr, self.srcinfo(e))
        if isinstance(e, ast.Constant):
            if isinstance(e.value, (bool, int, float)):
                return self.literal(e.value, e)
            self.err(e, "unsupported form of expression")
        if isinstance(e, ast.UnaryOp):
            return self.parse_unary(e)
        if isinstance(e, ast.BinOp):
            lhs = self.parse_expr(e.left)
            rhs = self.parse_expr(e.right)
            op = _BINARY_OPERATORS[type(e.op)]
            if op not in _FRONT_OPS:
                self.err(e, f"unsupported binary operator: {op}")
            return _core.binop(op, lhs, rhs, self.srcinfo(e))
        if isinstance(e, ast.BoolOp):
            op = "and" if isinstance(e.op, ast.And) else "or"
            result = self.parse_expr(e.values[0])
            for value in e.values[1:]:
                result = _core.binop(
                    op, result, self.parse_expr(value), self.srcinfo(e)
                )
            return result
        if isinstance(e, ast.Compare):
            return self.parse_compare(e)
        if isinstance(e, ast.Call):
            return self.parse_call_expr(e)
        if isinstance(e, ast.Set):
            return self.unquoted_expr(self.evaluate_unquote(e), e)
        self.err(e, "unsupported form of expression")

    def parse_unary(self, e):
        if not isinstance(e.op, ast.USub):
            self.err(e, f"unsupported unary operator: {_UNARY_OPERATORS[type(e.op)]}")
        arg = self.parse_expr(e.operand)
        value = self.literal_value(arg)
        if value is not None and not isinstance(value, bool):
            return self.literal(-value, e)
        return _core.usub(arg, self.srcinfo(e))

    def parse_compare(self, e):
        """A comparison; chains `a < b < c` become `a < b and b < c`."""
        operands = [self.parse_expr(e.left)] + [
            self.parse_expr(c) for c in e.comparators
        ]
        srcinfo = self.srcinfo(e)
        result = None
        for op_node, lhs, rhs in zip(e.ops, operands[:-1], operands[1:], strict=False):
            op = _COMPARISONS[type(op_node)]
            if op not in _FRONT_OPS:
                self.err(e, f"unsupported binary operator: {op}")
            comparison = _core.binop(op, lhs, rhs, srcinfo)
            result = (
                comparison
                if result is None
                else _core.binop("and", result, comparison, srcinfo)
            )
        return result

    def parse_call_expr(self, e):
        """`stride(x, d)` or an extern call."""
        if isinstance(e.func, ast.Name) and e.func.id == "stride":
            if (
                e.keywords
                or len(e.args) != 2
                or not isinstance(e.args[0], ast.Name)
                or not isinstance(e.args[1], ast.Constant)
                or not isinstance(e.args[1].value, int)
                or isinstance(e.args[1].value, bool)
            ):
                self.err(e, _BAD_STRIDE)
            if e.args[1].value not in range(2**31):
                self.err(e.args[1], f"stride dimension {e.args[1].value} out of range")
            sym = self.resolve_read(e.args[0], has_indices=True)
            return _core.stride_expr(sym, e.args[1].value, self.srcinfo(e))
        function = self.eval_python(e.func)
        if not isinstance(function, Extern):
            self.err(e.func, "expected called object to be a extern function")
        if e.keywords:
            self.err(e, "cannot call a extern function with keyword arguments")
        args = [self.parse_expr(arg) for arg in e.args]
        return _core.extern_call(function, args, self.srcinfo(e))

    def parse_config(self, node):
        """The core config that the name `node` evaluates to."""
        if node.id in self.exo_locals:
            self.err(
                node,
                f"expected indexed object to be a Config, but '{node.id}' is a "
                "variable of the kernel (configuration fields are read and "
                "written as 'Config.field')",
            )
        config = self.eval_python(node)
        if not isinstance(config, Config):
            self.err(node, "expected indexed object to be a Config")
        return config.INTERNAL_core()

    def parse_access(self, e):
        """A read `x`, `x[i, j]`, or a window `x[a:b, i]`."""
        name_node, accesses = self.parse_access_syntax(e)
        target = self.resolve_read(name_node, has_indices=bool(accesses))
        if not isinstance(target, _core.Sym):
            return target
        if any(access[0] == "interval" for access in accesses):
            return _core.window_expr(target, accesses, self.srcinfo(e))
        return _core.read(target, [access[1] for access in accesses], self.srcinfo(e))

    def parse_access_syntax(self, node):
        """`(name node, accesses)` where each access is `("point", e)` or
        `("interval", lo or None, hi or None)`."""
        if isinstance(node, ast.Name):
            return node, []
        if not isinstance(node.value, ast.Name):
            self.err(node, "expected access to have form 'x' or 'x[...]'")
        dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        accesses = []
        for dim in dims:
            if isinstance(dim, ast.Slice):
                if dim.step is not None:
                    self.err(dim, _BAD_WINDOW_STEP)
                lo = None if dim.lower is None else self.parse_expr(dim.lower)
                hi = None if dim.upper is None else self.parse_expr(dim.upper)
                accesses.append(("interval", lo, hi))
            elif isinstance(dim, ast.Set):
                accesses.extend(self.unquote_indices(dim))
            else:
                accesses.append(("point", self.parse_expr(dim)))
        return node.value, accesses

    def resolve_read(self, name_node, has_indices):
        """The symbol a name reads, or the expression an implicit unquote
        of a Python value gives."""
        name = name_node.id
        var = self.exo_locals.get(name)
        if var is not None:
            return var.sym
        found, value = self.scope.lookup(name)
        if not found:
            self.err(name_node, f"variable '{name}' undefined")
        if isinstance(value, ExoSymbol):
            return value.sym
        if isinstance(value, ExoExpression) and not has_indices:
            return value.expr
        if isinstance(value, (bool, int, float)):
            if has_indices:
                self.err(
                    name_node,
                    f"cannot index '{name}' because it is the constant {value}",
                )
            return self.literal(value, name_node)
        self.err(name_node, f"variable '{name}' has unsupported type {type(value)}")

    # ----------------------------------------------------------------- #
    # quotes and unquotes

    def quote_expression(self, node):
        """The value of `~{node}`: an Exo symbol for a bare Exo variable,
        otherwise an opaque quoted expression."""
        if isinstance(node, ast.Name):
            var = self.exo_locals.get(node.id)
            found, value = self.scope.lookup(node.id)
            if var is None and found and isinstance(value, ExoSymbol):
                var = value
            if var is not None:
                return var
        return ExoExpression(self.parse_expr(node))

    def evaluate_unquote(self, node):
        """The Python value of the unquote `{expr}` (an `ast.Set`)."""
        if len(node.elts) != 1:
            self.err(node, "Unquote must take 1 argument")
        return meta.evaluate(node.elts[0], self.meta_context())

    def unquoted_expr(self, value, node):
        """The Exo expression an unquoted Python value stands for."""
        if isinstance(value, ExoExpression):
            return value.expr
        if isinstance(value, ExoSymbol):
            return _core.read(value.sym, [], self.srcinfo(node))
        if isinstance(value, (bool, int, float)):
            return self.literal(value, node)
        self.err(node, "Unquote received input that couldn't be unquoted")

    def unquote_indices(self, node):
        """Accesses given by an unquote in an index position: an expression,
        a number, a slice, or a tuple of them."""
        value = self.evaluate_unquote(node)
        items = value if isinstance(value, tuple) else (value,)
        accesses = []
        for item in items:
            if isinstance(item, slice):
                if item.step is not None:
                    self.err(node, "Unquote returned slice index with step")
                lo = (
                    None if item.start is None else self.unquoted_expr(item.start, node)
                )
                hi = None if item.stop is None else self.unquoted_expr(item.stop, node)
                accesses.append(("interval", lo, hi))
            else:
                accesses.append(("point", self.unquoted_expr(item, node)))
        return accesses

    def unquote_type(self, node):
        """The precision an unquote `{T}` yields (see `_precision_of`)."""
        name = _precision_of(self.evaluate_unquote(node))
        if name is None:
            self.err(node, "Unquote computation did not yield valid type")
        return _core.Type.scalar(name)

    def python_precision(self, node):
        """The precision a Python name bound in the kernel's scope stands for
        (`T = "f32"`, then `x: T[n]`), or None."""
        if not isinstance(node, ast.Name):
            return None
        found, value = self.scope.lookup(node.id)
        return _precision_of(value) if found else None
