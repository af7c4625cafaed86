"""Flop and byte counts of a procedure, read through its cursors.

`count(proc, sizes)` walks the procedure's body with the public cursor API
and returns a `Counts`:

- **flops**: every `+ - * /` on data (not on indices), plus one per `+=`,
  times the trip counts of the loops around it; a call of an instruction
  or a sub-procedure counts the operations of its body with its size
  arguments bound (`mm256_fmadd_ps` counts 16). Loop bounds are evaluated
  with the size arguments (and the outer loop variables where a bound
  depends on them: triangular loops are summed iteration by iteration).
  An `if` whose condition reads data counts its larger branch, and
  `Counts.exact` is False.
- **bytes**: the compulsory traffic of the tensor arguments -- each one
  read counts its size once, each one written once more (GEMM:
  s (MK + KN + 2MN)).

Counting the scheduled procedure counts what it does (a schedule that
recomputes counts more); pass `flops=` to `exo2.bench.measure` for the
algorithm's own count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..API_cursors import (
    AssignCursor,
    BinaryOpCursor,
    CallCursor,
    ExternFunctionCursor,
    ForCursor,
    IfCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    UnaryMinusCursor,
    WindowExprCursor,
)

_ITEMSIZE = {
    "F16": 2,
    "BF16": 2,
    "F32": 4,
    "F64": 8,
    "I8": 1,
    "UI8": 1,
    "UI16": 2,
    "I32": 4,
    "R": 4,
}


class CountError(ValueError):
    """A count that cannot be made (a bound that reads data or a config)."""


@dataclass(frozen=True)
class Counts:
    flops: int
    bytes: int
    reads: frozenset  # tensor arguments read
    writes: frozenset  # tensor arguments written
    exact: bool = True


def _value(expr, env):
    """The integer value of a control expression in `env`."""
    if isinstance(expr, LiteralCursor):
        return expr.value()
    if isinstance(expr, ReadCursor) and len(expr.idx()) == 0:
        if expr.name() in env:
            return env[expr.name()]
        raise CountError(f"cannot count: '{expr.name()}' has no known value")
    if isinstance(expr, UnaryMinusCursor):
        return -_value(expr.arg(), env)
    if isinstance(expr, BinaryOpCursor):
        a, b = _value(expr.lhs(), env), _value(expr.rhs(), env)
        op = expr.op()
        ops = {
            "+": lambda: a + b,
            "-": lambda: a - b,
            "*": lambda: a * b,
            "/": lambda: a // b,  # floor division in the object language
            "%": lambda: a % b,
            "<": lambda: a < b,
            ">": lambda: a > b,
            "<=": lambda: a <= b,
            ">=": lambda: a >= b,
            "==": lambda: a == b,
            "and": lambda: a and b,
            "or": lambda: a or b,
        }
        if op in ops:
            return ops[op]()
    raise CountError(
        "cannot count: a loop bound or condition is not a control expression"
    )


def _expr_flops(expr):
    if isinstance(expr, BinaryOpCursor):
        own = 1 if expr.op() in "+-*/" and expr.type().is_numeric() else 0
        return own + _expr_flops(expr.lhs()) + _expr_flops(expr.rhs())
    if isinstance(expr, UnaryMinusCursor):
        return _expr_flops(expr.arg())
    if isinstance(expr, ExternFunctionCursor):
        return 1 + sum(_expr_flops(a) for a in expr.args())
    return 0


def _control_names(expr, out):
    """Adds the names of the control variables `expr` reads to `out`."""
    if isinstance(expr, ReadCursor):
        if len(expr.idx()) == 0:
            out.add(expr.name())
        for i in expr.idx():
            _control_names(i, out)
    elif isinstance(expr, BinaryOpCursor):
        _control_names(expr.lhs(), out)
        _control_names(expr.rhs(), out)
    elif isinstance(expr, UnaryMinusCursor):
        _control_names(expr.arg(), out)
    elif isinstance(expr, ExternFunctionCursor):
        for a in expr.args():
            _control_names(a, out)


class _Counter:
    def __init__(self):
        self.exact = True
        self._depends = {}  # loop cursor -> control names its body's counts read

    def _body_names(self, block):
        """Control names that the counts of `block` depend on: loop bounds,
        conditions and call arguments."""
        names = set()
        for s in block:
            if isinstance(s, ForCursor):
                _control_names(s.lo(), names)
                _control_names(s.hi(), names)
                names |= self._body_names(s.body()) - {s.name()}
            elif isinstance(s, IfCursor):
                _control_names(s.cond(), names)
                names |= self._body_names(s.body())
                if s.orelse():
                    names |= self._body_names(s.orelse())
            elif isinstance(s, CallCursor):
                for a in s.args():
                    if not isinstance(a, WindowExprCursor):
                        _control_names(a, names)
        return names

    def block(self, block, env):
        total = 0
        for s in block:
            if isinstance(s, (AssignCursor, ReduceCursor)):
                total += _expr_flops(s.rhs()) + isinstance(s, ReduceCursor)
            elif isinstance(s, ForCursor):
                total += self.loop(s, env)
            elif isinstance(s, IfCursor):
                total += self.branch(s, env)
            elif isinstance(s, CallCursor):
                total += self.call(s, env)
        return total

    def loop(self, s, env):
        lo, hi = _value(s.lo(), env), _value(s.hi(), env)
        if hi <= lo:
            return 0
        if s not in self._depends:
            self._depends[s] = s.name() in self._body_names(s.body())
        if not self._depends[s]:
            return (hi - lo) * self.block(s.body(), env)
        total = 0
        for v in range(lo, hi):
            total += self.block(s.body(), {**env, s.name(): v})
        return total

    def branch(self, s, env):
        try:
            taken = _value(s.cond(), env)
        except CountError:  # the condition reads data: the larger branch
            self.exact = False
            other = self.block(s.orelse(), env) if s.orelse() else 0
            return max(self.block(s.body(), env), other)
        if taken:
            return self.block(s.body(), env)
        return self.block(s.orelse(), env) if s.orelse() else 0

    def call(self, s, env):
        callee = s.subproc()
        inner = {}
        for param, arg in zip(callee.args(), s.args(), strict=False):
            if param.type().is_indexable() and not isinstance(arg, WindowExprCursor):
                inner[param.name()] = _value(arg, env)
        return self.block(callee.body(), inner)


def _accesses(proc, reads, writes):
    """Names of the buffers `proc`'s body reads and writes (through calls:
    the caller's buffers passed to parameters the callee reads or writes)."""

    def expr(e):
        if isinstance(e, ReadCursor):
            if len(e.idx()) or not e.type().is_indexable():
                reads.add(e.name())
            for i in e.idx():
                expr(i)
        elif isinstance(e, BinaryOpCursor):
            expr(e.lhs())
            expr(e.rhs())
        elif isinstance(e, UnaryMinusCursor):
            expr(e.arg())
        elif isinstance(e, ExternFunctionCursor):
            for a in e.args():
                expr(a)

    def block(b):
        for s in b:
            if isinstance(s, (AssignCursor, ReduceCursor)):
                writes.add(s.name())
                if isinstance(s, ReduceCursor):
                    reads.add(s.name())
                expr(s.rhs())
            elif isinstance(s, ForCursor):
                block(s.body())
            elif isinstance(s, IfCursor):
                expr(s.cond())
                block(s.body())
                if s.orelse():
                    block(s.orelse())
            elif isinstance(s, CallCursor):
                inner_reads, inner_writes = set(), set()
                callee = s.subproc()
                _accesses(callee, inner_reads, inner_writes)
                for param, arg in zip(callee.args(), s.args(), strict=False):
                    if isinstance(arg, (WindowExprCursor, ReadCursor)):
                        if param.name() in inner_reads:
                            reads.add(arg.name())
                        if param.name() in inner_writes:
                            writes.add(arg.name())

    block(proc.body())


def count(proc, sizes):
    """The `Counts` of `proc` with its size and index arguments taking the
    values in `sizes` (a dict by parameter name)."""
    env = dict(sizes)
    counter = _Counter()
    flops = counter.block(proc.body(), env)
    reads, writes = set(), set()
    _accesses(proc, reads, writes)
    total = 0
    for arg in proc.args():
        if not arg.type().is_numeric():
            continue
        elements = 1
        if arg.is_tensor():
            elements = math.prod(_value(e, env) for e in arg.shape())
        itemsize = _ITEMSIZE[arg.type().name]
        total += elements * itemsize * ((arg.name() in reads) + (arg.name() in writes))
    tensors = {a.name() for a in proc.args() if a.type().is_numeric()}
    return Counts(
        flops=flops,
        bytes=total,
        reads=frozenset(reads & tensors),
        writes=frozenset(writes & tensors),
        exact=counter.exact,
    )
