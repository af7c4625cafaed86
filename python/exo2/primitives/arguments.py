"""Argument processing of scheduling operations (docs/reference/primitives.md).

`sched_op([processors...])` turns a function `op(proc, ...)` into a
scheduling operation: arguments bind like a Python call, then each is
converted by its processor; a bad argument raises `TypeError` (or
`ValueError`) `argument {i}, '{name}' to {op}: {detail}`. Cursor arguments
are forwarded into the procedure being scheduled (`proc.forward(c)`), so
cursors of an ancestor procedure may be passed directly.
"""

import functools
import inspect
import keyword
import re

from .. import API_cursors as PC
from .. import _core
from ..API import Procedure
from ..api_arguments import CONTROL_INTS, argument_binder
from ..errors import KernelCheckError, SchedulingError
from ..frontend.parse_fragment import ParseFragmentError
from . import operation_stack
from .new_expressions import FormattedExprStr, context_statement, parse_new_expr

# Names are ASCII identifiers (the generated C uses them) that are not
# Python keywords (printed procedures are Python).
_NAME = re.compile(r"^[a-zA-Z_]\w*$", re.ASCII)
_NAME_AND_COUNT = re.compile(r"^([a-zA-Z_]\w*)\s*(\#\s*[0-9]+)?$")
_TWO_NAMES_AND_COUNT = re.compile(r"^([a-zA-Z_]\w*)\s+([a-zA-Z_]\w*)\s*(\#\s*[0-9]+)?$")


class ArgumentProcessor:
    """Converts one argument; `all_args` holds the arguments converted so far
    (the procedure under `proc`'s parameter name, first)."""

    def setdata(self, index, name, op):
        self.index, self.name, self.op = index, name, op

    def err(self, detail, err_type=TypeError):
        raise err_type(f"argument {self.index}, '{self.name}' to {self.op}: {detail}")

    def __call__(self, arg, all_args):
        raise NotImplementedError


def _proc_of(all_args):
    return next(iter(all_args.values()))


class ProcA(ArgumentProcessor):
    def __call__(self, proc, all_args):
        if not isinstance(proc, Procedure):
            self.err("expected a Procedure object")
        return proc


class NameA(ArgumentProcessor):
    def __call__(self, name, all_args):
        if not isinstance(name, str) or not _NAME.match(name) or name == "_":
            self.err(f"expected a valid name, not {name!r}")
        if keyword.iskeyword(name):
            self.err(f"expected a valid name, not the Python keyword {name!r}")
        return name


class PosIntA(ArgumentProcessor):
    def __call__(self, value, all_args):
        if not _is_int(value) or value < 1:
            self.err("expected a positive integer")
        if value not in CONTROL_INTS:
            self.err(f"expected a positive integer below 2**31, not {value}")
        return value


class IntA(ArgumentProcessor):
    def __call__(self, value, all_args):
        if not _is_int(value):
            self.err("expected an integer")
        if value not in CONTROL_INTS:
            self.err(f"expected an integer in [-2**31, 2**31), not {value}")
        return value


class BoolA(ArgumentProcessor):
    def __call__(self, value, all_args):
        if not isinstance(value, bool):
            self.err("expected a bool")
        return value


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class EnumA(ArgumentProcessor):
    def __init__(self, values):
        self.values = list(values)

    def __call__(self, value, all_args):
        if value not in self.values:
            self.err(
                "expected one of the following values: " + ", ".join(self.values),
                ValueError,
            )
        return value


class ListA(ArgumentProcessor):
    """A list or tuple of `elem`-processed values, of `length` if given."""

    def __init__(self, elem, length=None):
        self.elem = elem() if isinstance(elem, type) else elem
        self.length = length

    def setdata(self, index, name, op):
        super().setdata(index, name, op)
        self.elem.setdata(index, name, op)

    def __call__(self, values, all_args):
        if not isinstance(values, (list, tuple)):
            self.err("expected a list or tuple")
        if self.length is not None and len(values) != self.length:
            self.err(f"expected a list of length {self.length}")
        return [self.elem(v, all_args) for v in values]


class ListOrElemA(ListA):
    """Like `ListA`, also accepting a single value as a list of one."""

    def __call__(self, values, all_args):
        if not isinstance(values, (list, tuple)):
            values = [values]
        return super().__call__(values, all_args)


# ---------------------------------------------------------------------------
# Cursors


class _CursorA(ArgumentProcessor):
    """Shared by cursor processors: forwarding and pattern search."""

    def forward(self, cursor, all_args):
        return _proc_of(all_args).forward(cursor)

    def find(self, pattern, all_args, many=False):
        return _proc_of(all_args).find(pattern, many=many)


class ExprCursorA(_CursorA):
    def __init__(self, many=False):
        self.many = many

    def __call__(self, arg, all_args):
        if self.many:
            if isinstance(arg, str):
                found = self.find(arg, all_args, many=True)
                if not all(isinstance(c, PC.ExprCursor) for c in found):
                    self.err("expected pattern to match only expressions")
                return found
            if isinstance(arg, PC.ExprCursor):
                arg = [arg]
            if not isinstance(arg, (list, tuple)) or not all(
                isinstance(c, PC.ExprCursor) for c in arg
            ):
                self.err(f"expected a list of ExprCursor, not {type(arg)}")
            return [self.forward(c, all_args) for c in arg]
        if isinstance(arg, PC.ExprCursor):
            return self.forward(arg, all_args)
        if isinstance(arg, str):
            found = self.find(arg, all_args)
            if not isinstance(found, PC.ExprCursor):
                self.err(f"expected pattern to match an ExprCursor, not {type(found)}")
            return found
        self.err(f"expected an ExprCursor, not {type(arg)}")


class StmtCursorA(_CursorA):
    def __call__(self, arg, all_args):
        if isinstance(arg, PC.StmtCursor):
            return self.forward(arg, all_args)
        if isinstance(arg, str):
            found = self.find(arg, all_args)
            if isinstance(found, PC.StmtCursor):
                return found
        self.err("expected a StmtCursor or pattern string")


class BlockCursorA(_CursorA):
    def __init__(self, block_size=None):
        self.block_size = block_size

    def __call__(self, arg, all_args):
        if isinstance(arg, PC.BlockCursor):
            block = self.forward(arg, all_args)
        elif isinstance(arg, PC.StmtCursor):
            block = self.forward(arg, all_args).as_block()
        elif isinstance(arg, str):
            found = self.find(arg, all_args)
            if not isinstance(found, (PC.StmtCursor, PC.BlockCursor)):
                self.err(f"expected a BlockCursor, not {type(found)}")
            block = found.as_block()
        else:
            self.err(f"expected a Cursor, not {type(arg)}")
        if self.block_size is not None and len(block) != self.block_size:
            self.err(
                f"expected a block of size {self.block_size}, "
                f"but got a block of size {len(block)}",
                ValueError,
            )
        return block


class GapCursorA(_CursorA):
    def __call__(self, arg, all_args):
        if not isinstance(arg, PC.GapCursor):
            self.err("expected a GapCursor")
        return self.forward(arg, all_args)


class _KindCursorA(_CursorA):
    """A cursor of some classes, a pattern, or a name shorthand that
    `shorthand(match)` turns into a pattern."""

    classes = ()
    expected = ""

    def shorthand(self, match):
        return None

    def __call__(self, arg, all_args):
        if isinstance(arg, self.classes):
            return self.forward(arg, all_args)
        if isinstance(arg, str):
            match = _NAME_AND_COUNT.match(arg)
            pattern = (match and self.shorthand(match)) or arg
            found = self.find(pattern, all_args)
            if isinstance(found, self.classes):
                return found
            arg = found
        self.err(f"expected {self.expected}, not {type(arg)}")


class AllocCursorA(_KindCursorA):
    classes = (PC.AllocCursor,)
    expected = "an AllocCursor"

    def shorthand(self, match):
        return f"{match[1]} : _{match[2] or ''}"


class ForCursorA(_KindCursorA):
    classes = (PC.ForCursor,)
    expected = "a ForCursor"

    def shorthand(self, match):
        return f"for {match[1]} in _: _{match[2] or ''}"


class ForOrIfCursorA(ForCursorA):
    classes = (PC.ForCursor, PC.IfCursor)
    expected = "a ForCursor or IfCursor"


class CallCursorA(_KindCursorA):
    classes = (PC.CallCursor,)
    expected = "a CallCursor"

    def shorthand(self, match):
        return f"{match[1]}(_){match[2] or ''}"

    def __call__(self, arg, all_args):
        if isinstance(arg, Procedure):
            arg = f"{arg.name()}(_)"
        return super().__call__(arg, all_args)


class NestedForLoopCursorA(ForCursorA):
    """A loop whose body is exactly one loop; `"i j"` finds the pair."""

    def __call__(self, arg, all_args):
        if isinstance(arg, str) and (match := _TWO_NAMES_AND_COUNT.match(arg)):
            arg = f"for {match[1]} in _:\n    for {match[2]} in _: _{match[3] or ''}"
        loop = super().__call__(arg, all_args)
        body = loop.body()
        if len(body) != 1 or not isinstance(body[0], PC.ForCursor):
            self.err(
                "expected the body of the outer loop to be a single loop, "
                f"but it was a {body[0]}",
                ValueError,
            )
        return loop


class ArgCursorA(_CursorA):
    def __call__(self, arg, all_args):
        if isinstance(arg, PC.ArgCursor):
            return self.forward(arg, all_args)
        for candidate in _proc_of(all_args).args():
            if candidate.name() == arg:
                return candidate
        self.err(f"no argument {arg} found")


class ArgOrAllocCursorA(_CursorA):
    def __call__(self, arg, all_args):
        if isinstance(arg, (PC.ArgCursor, PC.AllocCursor)):
            return self.forward(arg, all_args)
        if not isinstance(arg, str):
            self.err(f"expected an ArgCursor, AllocCursor or name, not {type(arg)}")
        proc = _proc_of(all_args)
        try:
            return proc.find(arg if not _NAME.match(arg) else f"{arg} : _")
        except SchedulingError:
            for candidate in proc.args():
                if candidate.name() == arg:
                    return candidate
        self.err(
            f"could not find a cursor matching {arg} : _, nor an arg cursor "
            f"with name {arg}"
        )


class InstrStrA(ArgumentProcessor):
    """An instruction template (a string with `{}` escapes)."""

    def __call__(self, value, all_args):
        if not isinstance(value, str):
            self.err("expected an instruction macro (i.e. a string with {} escapes)")
        return value


class AssignCursorA(_KindCursorA):
    """An assignment: a cursor or a pattern."""

    classes = (PC.AssignCursor,)
    expected = "an AssignCursor"


class AssignOrReduceCursorA(_KindCursorA):
    """An assignment or reduction: a cursor or a pattern."""

    classes = (PC.AssignCursor, PC.ReduceCursor)
    expected = "an AssignCursor or ReduceCursor"


class NewExprA(ArgumentProcessor):
    """A new expression (text, number or bool), parsed in the scope before
    the statement of the argument named `cursor_arg`
    (docs/reference/primitives.md, "New expressions") and typed there:
    `category` says what it must be, "control" (an index or size), "bool",
    "data", "same" (what the expression at `cursor_arg` is),
    "any" (the primitive checks it) or "condition" (parsed only: the
    primitive types each comparison's operands itself, so that a comparison
    of data is refused in its own words). The untyped expression goes to the
    core, which types and checks it again. With `optional`, None is passed
    on as None (the primitive's default)."""

    def __init__(self, cursor_arg, category, optional=False):
        self.cursor_arg = cursor_arg
        self.category = category
        self.optional = optional  # None passes as None

    def __call__(self, arg, all_args):
        if arg is None and self.optional:
            return None
        if not isinstance(arg, (str, FormattedExprStr, bool, int, float)):
            self.err(f"expected an expression string or a number, not {type(arg)}")
        cursor = all_args[self.cursor_arg]
        try:
            expr = parse_new_expr(arg, cursor)
        except ParseFragmentError as e:
            raise ParseFragmentError(self.message(e)) from None
        category = self.category
        if category == "condition":
            return expr
        if category == "same":
            category = _core.expr_category(cursor._impl)
        try:
            _core.check_new_expr(context_statement(cursor)._impl, expr, category)
        except KernelCheckError as e:
            raise KernelCheckError(
                self.message(e.diagnostics[0][3]), e.heading, e.diagnostics
            ) from None
        return expr

    def message(self, detail):
        return f"argument {self.index}, '{self.name}' to {self.op}: {detail}"


# ---------------------------------------------------------------------------
# Operations


def sched_op(arg_procs):
    """Decorator making `op(proc, ...)` a scheduling operation whose
    arguments after `proc` are converted by `arg_procs` (processor classes
    or instances), in order."""

    def decorator(op):
        signature = inspect.signature(op)
        processors = [p() if isinstance(p, type) else p for p in [ProcA, *arg_procs]]
        if len(processors) != len(signature.parameters):
            raise TypeError(
                f"sched_op: {op.__name__} has {len(signature.parameters)} "
                f"parameters but {len(processors)} argument processors"
            )
        for i, (name, processor) in enumerate(
            zip(signature.parameters, processors, strict=True)
        ):
            processor.setdata(i, name, op.__name__)

        bind = argument_binder(signature, defaults=True)

        @functools.wraps(op)
        def wrapper(*args, **kwargs):
            site = operation_stack.call_site()
            arguments = bind(args, kwargs)
            if arguments is None:
                try:
                    bound = signature.bind(*args, **kwargs)
                except TypeError as e:
                    raise TypeError(f"{op.__name__}: {e}") from None
                bound.apply_defaults()
                arguments = bound.arguments.items()
            with operation_stack.running(op.__name__, site):
                converted = {}
                try:
                    for processor, (name, arg) in zip(
                        processors, arguments, strict=True
                    ):
                        converted[name] = processor(arg, converted)
                    return op(**converted)
                except SchedulingError as e:
                    if e.op is None:
                        e._set_operation(
                            op.__name__,
                            operation_stack.current_stack(),
                            converted.get("proc"),
                        )
                    raise

        wrapper._exo2_scheduling_op = True
        # For tools that generate arguments (tests/fuzz): the processor of
        # each parameter, by name.
        wrapper.argument_processors = dict(
            zip(signature.parameters, processors, strict=True)
        )
        return wrapper

    return decorator


def is_atomic_scheduling_op(x):
    """Whether `x` is a primitive or an operation built with `sched_op`."""
    return getattr(x, "_exo2_scheduling_op", False)
