"""Random chains of scheduling steps with random, often wrong, arguments.

`Chain(seed)` picks a corpus kernel and runs one to six steps. A step is a
primitive of `exo2.API_scheduling` (its arguments made from the argument
processors it declares, `argument_processors`) or a method of the procedure
or of one of its cursors. An argument is usually of the kind the parameter
expects (a cursor of the right class, a loop name, a small integer, a fresh
name, an expression in scope), often of a wrong kind or value: bools, huge
or negative integers, None, keywords, expressions of the wrong type,
cursors of other procedures, stale cursors of earlier versions, the invalid
cursor. A refused step (a documented error) leaves the procedure as it was
and the chain goes on; any other exception ends the case.

When a primitive step was accepted, the final procedure is JIT-compiled
and run on the same random inputs as the original kernel; every argument
must end up equal (steps that are trusted rather than checked, `unsafe_*`
and the like, skip this comparison).
"""

import inspect
import math
import random
import re

import corpus
import exo2.API_scheduling as S
import numpy as np
from exo2 import API_cursors as PC
from exo2 import Procedure
from exo2.API_types import ExoType
from exo2.libs.memories import AVX2, DRAM_STACK, DRAM_STATIC
from outcomes import ACCEPTED, DOCUMENTED, WRONG, classify

MAX_STEPS = 6
# Primitives whose result is trusted, not proven (docs/errors.md lists
# them): a chain using them is not compared with the original.
TRUSTED = {"add_unsafe_guard", "set_precision", "make_instr", "unsafe_assert_eq"}

PRIMITIVES = sorted(
    name
    for name in S.__all__
    if S.is_atomic_scheduling_op(getattr(S, name))
    and hasattr(getattr(S, name), "argument_processors")
)

_NUMPY = {
    ExoType.F16: np.float16,
    ExoType.F32: np.float32,
    ExoType.F64: np.float64,
    ExoType.R: np.float32,
    ExoType.I8: np.int8,
    ExoType.UI8: np.uint8,
    ExoType.UI16: np.uint16,
    ExoType.I32: np.int32,
}

WRONG_INTS = [0, -1, -7, 2**31, 2**63, 2**64, -(2**63) - 1, 10**30]
EXPRESSIONS = ["n", "n - 1", "0", "1", "2", "4", "i", "j", "n + 1", "n / 2",
               "n % 4", "m", "lo", "n > 1", "True", "x[0]", "1.5", "Knobs.k",
               "Knobs.scale", "Nope.s", "_", "n / 0", "((", "9223372036854775808",
               "2147483648", "-3", "stride(x, 0)", "io", "ii", "k", "p"]  # fmt: skip
NAMES = ["t", "tmp", "buf", "io", "ii", "jo", "ji", "k2", "x", "n", "i",
         "while", "None", "1abc", "a b", "", "_", "é", "int", "double",
         "malloc", "main"]  # fmt: skip
PATTERNS = ["for i in _: _", "for j in _: _", "i", "j", "x[_] = _", "y[_] += _",
            "x[_]", "_ + _", "tmp : _", "buf : _", "if _: _", "i #1", "nope",
            "for", "x = ", "_", "copy_one(_)", "helper(_)", "Knobs.scale = _",
            "n", "k", "p", "io", "acc"]  # fmt: skip


# The cursor classes of the processors that do not declare them.
_CURSOR_CLASSES = {
    "ExprCursorA": (PC.ExprCursor,),
    "StmtCursorA": (PC.StmtCursor,),
    "BlockCursorA": (PC.BlockCursor, PC.StmtCursor),
    "GapCursorA": (PC.GapCursor,),
    "ArgCursorA": (PC.ArgCursor,),
    "ArgOrAllocCursorA": (PC.ArgCursor, PC.AllocCursor),
}


class Chain:
    """One case: a kernel and the random steps applied to it."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.module = corpus.load()
        names = corpus.kernel_names()
        self.original = getattr(self.module, self.rng.choice(names))
        self.other = getattr(self.module, self.rng.choice(names))
        self.proc = self.original
        self.history = [self.original]  # every version, for stale cursors
        self.steps = []  # descriptions, for reports
        self.accepted = 0
        self.trusted = False
        self.errors = []  # the classes of the documented errors steps raised

    # ----------------------------------------------------------------- #
    # running

    def run(self):
        """`(outcome, detail)`; exceptions other than documented errors
        propagate to the caller, which classifies them."""
        for _ in range(self.rng.randint(1, MAX_STEPS)):
            if self.rng.random() < 0.75:
                self.primitive_step()
            else:
                self.method_step()
        if self.accepted and not self.trusted:
            return compare(self.original, self.proc, self.rng)
        return (ACCEPTED if self.accepted else DOCUMENTED), ""

    def primitive_step(self):
        name = self.rng.choice(PRIMITIVES)
        op = getattr(S, name)
        args = {}
        for param, processor in list(op.argument_processors.items())[1:]:
            default = inspect.signature(op).parameters[param].default
            if default is not inspect.Parameter.empty and self.rng.random() < 0.4:
                continue  # leave the default
            args[param] = self.value_for(processor)
        trusted = name in TRUSTED or any(
            p.startswith("unsafe") and v is True for p, v in args.items()
        )
        self.steps.append(f"{name}(p, {_show(args)})")
        result = self.attempt(lambda: op(self.proc, **args))
        if result is None:
            return
        if isinstance(result, tuple):
            result = next(r for r in result if isinstance(r, Procedure))
        self.proc = result
        self.history.append(result)
        self.accepted += 1
        self.trusted |= trusted

    def method_step(self):
        """A Procedure or cursor method with random arguments."""
        target = self.proc if self.rng.random() < 0.3 else self.any_cursor()
        methods = [
            m
            for m in dir(target)
            if not m.startswith("_") and callable(getattr(target, m, None))
        ] + ["__getitem__", "__len__", "__str__", "__iter__"]
        method = self.rng.choice(methods)
        if method in ("unsafe_assert_eq", "jit", "compile_c", "INTERNAL_proc"):
            return
        fn = getattr(target, method, None)
        if fn is None:
            return
        try:
            params = [
                p
                for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
        except (TypeError, ValueError):
            params = []
        # Every required argument, some optional ones: a call with the wrong
        # number of arguments is Python's own error, not exo2's.
        args = []
        for p in params:
            if p.default is not p.empty and self.rng.random() < 0.5:
                break
            args.append(self.random_value())
        if method == "partial_eval":
            args = [self.rng.choice([1, 4, 0, -3, 2**40, True, 2.5, None])]
        self.steps.append(f"{type(target).__name__}.{method}({_show_list(args)})")
        self.attempt(lambda: _consume(fn(*args)))

    def attempt(self, thunk):
        """The result of `thunk()`, or None when it raised a documented
        error; other exceptions propagate."""
        try:
            return thunk()
        except Exception as e:
            outcome, name, _ = classify(e)
            if outcome == DOCUMENTED:
                self.errors.append(name)
                return None
            raise

    # ----------------------------------------------------------------- #
    # argument values

    def value_for(self, processor):
        """A value for a parameter, mostly of the kind its processor takes."""
        if self.rng.random() < 0.15:
            return self.random_value()
        kind = type(processor).__name__
        rng = self.rng
        if kind in ("ListA", "ListOrElemA"):
            length = processor.length or rng.randint(1, 3)
            if rng.random() < 0.1:
                length = rng.choice([0, 1, 3])
            values = [self.value_for(processor.elem) for _ in range(length)]
            if kind == "ListOrElemA" and values and rng.random() < 0.5:
                return values[0]
            return values
        if kind == "BoolA":
            return rng.random() < 0.3
        if kind in ("PosIntA", "OptionalPosIntA", "IntA"):
            return rng.choice([1, 2, 3, 4, 8, 0, 1, 2, -1, 16, 5])
        if kind == "NameA":
            return rng.choice(NAMES[:10]) + (
                str(rng.randint(0, 9)) if rng.random() < 0.5 else ""
            )
        if kind == "EnumA":
            return rng.choice(processor.values)
        if kind in ("NewExprA", "WindowStrA"):
            return self.expression(kind == "WindowStrA")
        if kind == "ProcA":
            return rng.choice(
                [
                    self.module.copy_one,
                    self.module.noop,
                    self.other,
                    self.module.helper,
                    self.proc,
                ]
            )
        if kind == "ConfigA":
            return self.module.Knobs
        if kind == "ConfigFieldA":
            return rng.choice(["k", "scale", "flag", "nope"])
        if kind == "MemoryA":
            return rng.choice([DRAM_STATIC, DRAM_STACK, AVX2, self.module.DRAM])
        if kind == "TypeAbbrevA":
            return rng.choice(
                ["f32", "f64", "i8", "i32", "R", "ui8", ExoType.F64, "bad"]
            )
        if kind == "InstrStrA":
            return rng.choice(["/* {n} */", "{x_data}[0] = 0;", "{zz}", "{", "x"])
        if kind.endswith("CursorA") or kind == "ArgOrAllocCursorA":
            return self.cursor_for(processor)
        return self.random_value()

    def cursor_for(self, processor):
        """A cursor of the classes the processor takes, or a name/pattern."""
        rng = self.rng
        classes = getattr(processor, "classes", None) or _CURSOR_CLASSES.get(
            type(processor).__name__, ()
        )
        cursors = all_cursors(self.proc)
        matching = [c for c in cursors if classes and isinstance(c, classes)]
        roll = rng.random()
        if matching and roll < 0.65:
            return rng.choice(matching)
        if roll < 0.8:
            return rng.choice(PATTERNS)
        if roll < 0.9 and len(self.history) > 1:
            return rng.choice(all_cursors(rng.choice(self.history[:-1])) or [None])
        return rng.choice(cursors)

    def any_cursor(self):
        cursors = all_cursors(self.proc)
        return self.rng.choice(cursors) if cursors else PC.InvalidCursor()

    def expression(self, window):
        rng = self.rng
        if window:
            return rng.choice(["x", "y", "x[0:4]", "x[i]", "a[i, 0:n]", "buf[0:8]",
                               "x[0:n]", "y[i:i+1]", "x[", "3", "x[0:]", "tmp"])  # fmt: skip
        roll = rng.random()
        if roll < 0.25:
            return rng.choice([0, 1, 4, -2, True, 2.5, 2**63])
        if roll < 0.35:
            # `_` holes filled by copies of expressions of (any) procedure.
            holes = [
                c
                for c in all_cursors(rng.choice([self.proc, self.other]))
                if isinstance(c, PC.ExprCursor)
            ]
            text = rng.choice(["_", "_ + 1", "_ * _", "_ > 0", "n - _", "_ + _ + _"])
            return S.FormattedExprStr(text, *rng.sample(holes, min(len(holes), 2)))
        return rng.choice(EXPRESSIONS)

    def random_value(self):
        """A value of any kind: the wrong kind for most parameters."""
        rng = self.rng
        pools = [
            lambda: rng.choice([True, False, None, 1.5, float("nan"), "", b"x"]),
            lambda: rng.choice(WRONG_INTS),
            lambda: rng.choice(NAMES + PATTERNS + EXPRESSIONS),
            lambda: rng.choice([self.other, self.module.copy_one, self.proc]),
            lambda: rng.choice(all_cursors(self.other) or [None]),
            lambda: rng.choice(all_cursors(rng.choice(self.history)) or [None]),
            lambda: PC.InvalidCursor(),
            lambda: rng.choice([[], [1, 2], (0,), {"a": 1}, object(), DRAM_STATIC]),
            lambda: self.module.Knobs,
        ]
        return rng.choice(pools)()


# --------------------------------------------------------------------------- #
# Walking a procedure


def all_cursors(proc):
    """Every statement, block, gap, expression and argument cursor of
    `proc`."""
    out = list(proc.args())
    todo = [proc.body()]
    while todo:
        block = todo.pop()
        out.append(block)
        for stmt in block:
            out += [stmt, stmt.before(), stmt.after()]
            for child in ("body", "orelse"):
                if hasattr(stmt, child):
                    sub = getattr(stmt, child)()
                    if sub:
                        todo.append(sub)
            out += _expressions(stmt)
    return out


def _expressions(stmt):
    out, todo = [], []
    for accessor in ("rhs", "cond", "lo", "hi"):
        if hasattr(stmt, accessor):
            todo.append(getattr(stmt, accessor)())
    for accessor in ("idx", "args"):
        if hasattr(stmt, accessor) and not isinstance(stmt, PC.WindowStmtCursor):
            todo.extend(getattr(stmt, accessor)())
    while todo:
        e = todo.pop()
        out.append(e)
        for accessor in ("lhs", "rhs", "arg"):
            if hasattr(e, accessor):
                todo.append(getattr(e, accessor)())
        if isinstance(e, (PC.ReadCursor, PC.ExternFunctionCursor)):
            todo.extend(e.idx() if isinstance(e, PC.ReadCursor) else e.args())
    return out


# --------------------------------------------------------------------------- #
# Comparing results


def compare(original, scheduled, rng):
    """Runs both procedures on the same random inputs: `(ACCEPTED, "")`
    when every argument ends equal, `(WRONG, detail)` otherwise. Errors
    from compiling or calling propagate (the caller classifies them)."""
    if has_large_numbers(str(scheduled)):
        return ACCEPTED, "not run: large numbers"
    k_before = original.jit(extra_cflags=("-O0",))
    k_after = scheduled.jit(extra_cflags=("-O0",))
    for _ in range(8):
        args = random_arguments(original, rng)
        if args is None:
            continue
        before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        after = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        try:
            k_before(*before)
        except ValueError as e:
            if "precondition" in str(e):
                continue  # sizes the kernel does not accept; try others
            raise
        k_after(*after)
        for arg, x, y in zip(original.args(), before, after, strict=True):
            if isinstance(x, np.ndarray) and not np.allclose(
                x.astype(np.float64), y.astype(np.float64), rtol=1e-4, atol=1e-5,
                equal_nan=True,
            ):  # fmt: skip
                return (
                    WRONG,
                    f"argument {arg.name()} differs with {_sizes(original, args)}",
                )
        return ACCEPTED, ""
    return ACCEPTED, "not run: no inputs satisfied the preconditions"


# Code with larger numbers may loop or allocate for too long when run.
RUNNABLE_LIMIT = 10_000
_NUMBER = re.compile(r"\b\d+(?:\.\d*)?(?:e\d+)?\b")


def has_large_numbers(text):
    return any(float(n) > RUNNABLE_LIMIT for n in _NUMBER.findall(text))


def random_arguments(proc, rng):
    """Random NumPy arguments for `proc`: sizes 1-9, indices 0-3."""
    values, args = {}, []
    for arg in proc.args():
        typ = arg.type()
        if typ == ExoType.Size:
            values[arg.name()] = rng.choice([1, 2, 3, 4, 5, 7, 8, 9])
            args.append(values[arg.name()])
        elif typ in (ExoType.Index, ExoType.Int):
            values[arg.name()] = rng.randint(0, 3)
            args.append(values[arg.name()])
        elif typ == ExoType.Bool:
            args.append(rng.random() < 0.5)
        elif typ == ExoType.Stride:
            return None
        else:
            dtype = _NUMPY.get(typ)
            if dtype is None:
                return None
            shape = (
                [_evaluate(e, values) for e in arg.shape()] if arg.is_tensor() else []
            )
            if any(s is None or s < 0 for s in shape):
                return None
            data = np.asarray(
                [rng.uniform(-4, 4) for _ in range(math.prod(shape))], dtype=np.float64
            ).reshape(shape)
            if np.issubdtype(dtype, np.integer):
                data = np.round(np.abs(data))
            args.append(np.asarray(data).astype(dtype) if shape else dtype(data))
    return args


def _evaluate(expr, values):
    if isinstance(expr, PC.LiteralCursor):
        return expr.value()
    if isinstance(expr, PC.ReadCursor):
        return values.get(expr.name())
    if isinstance(expr, PC.BinaryOpCursor):
        a, b = _evaluate(expr.lhs(), values), _evaluate(expr.rhs(), values)
        if a is None or b is None:
            return None
        ops = {"+": a + b, "-": a - b, "*": a * b}
        if expr.op() in ops:
            return ops[expr.op()]
        if b == 0:
            return None
        return a // b if expr.op() == "/" else a % b
    return None


def _sizes(proc, args):
    return ", ".join(
        f"{a.name()}={v}"
        for a, v in zip(proc.args(), args, strict=True)
        if not isinstance(v, np.ndarray)
    )


def _consume(result):
    """Forces lazy results (iterators) so that their errors surface."""
    if inspect.isgenerator(result) or hasattr(result, "__next__"):
        return list(result)
    return result


def _show(args):
    return ", ".join(f"{k}={_short(v)}" for k, v in args.items())


def _show_list(args):
    return ", ".join(_short(v) for v in args)


def _short(value):
    if isinstance(value, Procedure):
        return f"<proc {value.name()}>"
    if isinstance(value, PC.Cursor):
        try:
            return f"<{type(value).__name__} of {value.proc().name()}>"
        except Exception:
            return f"<{type(value).__name__}>"
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."
