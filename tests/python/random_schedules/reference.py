"""Running a procedure by the object language's meaning, in Python.

The randomized schedule test compares every scheduled procedure with what
its kernel *means*, not only with the kernel's own compiled C: a code
generation hole shared by both (C's truncating `%`, a loop bound read again
after the body wrote it) would otherwise go unseen. The semantics are those
of docs/writing-kernels.md ("What the object language means"): integer `/` and `%` are floor division and
floor modulo, a loop's bounds are evaluated once before its first
iteration, `par` loops run in order, windows alias their buffer, config
fields are global state, and a read of an element never written reads the
value of a fresh allocation (NaN here, so that it shows). Data arithmetic is
done in double precision and rounded when stored: results agree with the C
within the test's tolerance.

Every access is bounds checked and every precondition (`assert`) checked,
the callee's at each call: `ReferenceError` says which failed.
"""

import re
from types import SimpleNamespace

import numpy as np
from exo2 import _core
from exo2.API_cursors import (
    AllocCursor,
    AssignConfigCursor,
    AssignCursor,
    BinaryOpCursor,
    CallCursor,
    ForCursor,
    IfCursor,
    LiteralCursor,
    PassCursor,
    ReadConfigCursor,
    ReadCursor,
    ReduceCursor,
    StrideExprCursor,
    UnaryMinusCursor,
    WindowExprCursor,
    WindowStmtCursor,
)
from exo2.API_types import ExoType

_DTYPES = {
    ExoType.F32: np.float32,
    ExoType.R: np.float32,
    ExoType.F64: np.float64,
    ExoType.I32: np.int32,
    ExoType.I8: np.int8,
}


class ReferenceError(Exception):
    """The procedure does something the object language forbids."""


def run_reference(proc, args, configs):
    """Runs `proc` on `args` (ints and bools for control parameters, NumPy
    arrays and 0-d arrays for data, written in place) with `configs`, a
    `{(config name, field): value}` dict updated in place."""
    env = dict(zip((a.name() for a in proc.args()), args, strict=True))
    _check_preconditions(proc, env, configs)
    _Interpreter(configs).block(proc.body(), env)


def _check_preconditions(proc, env, configs):
    for text in _core.proc_preconditions(proc.INTERNAL_proc()):
        names = {k: v for k, v in env.items() if not isinstance(v, np.ndarray)}
        for (config, field), value in configs.items():
            names.setdefault(config, SimpleNamespace())
            setattr(names[config], field, value)
        names["stride"] = lambda buf, dim: _stride(env[buf], dim)
        source = re.sub(r"(?<![/])/(?![/])", "//", text)
        source = re.sub(r"stride\((\w+),", r"stride('\1',", source)
        if not eval(source, {}, names):
            raise ReferenceError(f"{proc.name()}: precondition {text} is false")


def _stride(array, dim):
    return array.strides[dim] // array.itemsize


class _Interpreter:
    def __init__(self, configs):
        self.configs = configs

    # ---- statements --------------------------------------------------------
    def block(self, stmts, env):
        env = dict(env)  # names bound in a block are local to it
        for stmt in stmts:
            self.stmt(stmt, env)

    def stmt(self, s, env):
        if isinstance(s, (AssignCursor, ReduceCursor)):
            array, idx = env[s.name()], self.indices(s, env)
            value = self.expr(s.rhs(), env)
            if isinstance(s, ReduceCursor):
                value = array[idx].item() + value
            array[idx] = value
        elif isinstance(s, AssignConfigCursor):
            self.configs[(s.config().name(), s.field())] = self.expr(s.rhs(), env)
        elif isinstance(s, ForCursor):
            lo, hi = self.expr(s.lo(), env), self.expr(s.hi(), env)
            for value in range(lo, hi):
                self.block(s.body(), {**env, s.name(): value})
        elif isinstance(s, IfCursor):
            if self.expr(s.cond(), env):
                self.block(s.body(), env)
            elif s.orelse():
                self.block(s.orelse(), env)
        elif isinstance(s, AllocCursor):
            shape = [self.expr(e, env) for e in s.shape()] if s.is_tensor() else []
            env[s.name()] = np.full(shape, np.nan, _DTYPES[s.type()])
        elif isinstance(s, WindowStmtCursor):
            env[s.name()] = self.window(s.winexpr(), env)
        elif isinstance(s, CallCursor):
            self.call(s, env)
        elif not isinstance(s, PassCursor):
            raise NotImplementedError(f"reference: statement {type(s).__name__}")

    def call(self, s, env):
        callee = s.subproc()
        values = [self.argument(a, env) for a in s.args()]
        callee_env = dict(zip((a.name() for a in callee.args()), values, strict=True))
        _check_preconditions(callee, callee_env, self.configs)
        self.block(callee.body(), callee_env)

    def argument(self, a, env):
        """A window or whole buffer argument aliases the caller's data."""
        if isinstance(a, WindowExprCursor):
            return self.window(a, env)
        if isinstance(a, ReadCursor) and len(a.idx()) == 0:
            return env[a.name()]
        return self.expr(a, env)

    # ---- accesses ----------------------------------------------------------
    def indices(self, access, env):
        array = env[access.name()]
        idx = tuple(self.expr(e, env) for e in access.idx())
        if len(idx) != array.ndim or any(
            not 0 <= i < n for i, n in zip(idx, array.shape, strict=True)
        ):
            raise ReferenceError(
                f"{access.name()}{list(idx)} is out of bounds (shape {array.shape})"
            )
        return idx

    def window(self, w, env):
        array, entries = env[w.name()], []
        for entry, extent in zip(w.idx(), array.shape, strict=True):
            if isinstance(entry, tuple):
                lo, hi = (self.expr(e, env) for e in entry)
                ok = 0 <= lo <= hi <= extent
                entries.append(slice(lo, hi))
            else:
                point = self.expr(entry, env)
                ok = 0 <= point < extent
                entries.append(point)
            if not ok:
                raise ReferenceError(f"window of {w.name()} out of bounds")
        return array[tuple(entries)]

    # ---- expressions -------------------------------------------------------
    def expr(self, e, env):
        if isinstance(e, LiteralCursor):
            return e.value()
        if isinstance(e, ReadCursor):
            value = env[e.name()]
            if isinstance(value, np.ndarray):
                return value[self.indices(e, env)].item()
            return value
        if isinstance(e, ReadConfigCursor):
            return self.configs[(e.config().name(), e.field())]
        if isinstance(e, UnaryMinusCursor):
            return -self.expr(e.arg(), env)
        if isinstance(e, StrideExprCursor):
            return _stride(env[e.name()], e.dim())
        if isinstance(e, BinaryOpCursor):
            return self.binary(e, env)
        raise NotImplementedError(f"reference: expression {type(e).__name__}")

    def binary(self, e, env):
        op = e.op()
        if op == "and":
            return self.expr(e.lhs(), env) and self.expr(e.rhs(), env)
        if op == "or":
            return self.expr(e.lhs(), env) or self.expr(e.rhs(), env)
        a, b = self.expr(e.lhs(), env), self.expr(e.rhs(), env)
        integer = isinstance(a, int) and isinstance(b, int)
        if op == "/":
            return a // b if integer else a / b  # floor division on integers
        if op == "%":
            return a % b  # floor modulo
        return _BINARY[op](a, b)


_BINARY = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "==": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
