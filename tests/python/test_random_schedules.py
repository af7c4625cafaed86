"""Random schedules keep what kernels compute (issue #5).

Each test takes one kernel of a small corpus and applies random sequences of
scheduling primitives with random but well-formed arguments: cursors picked
by walking the procedure, factors, cut points and fresh names picked by a
seeded generator. A step that the primitive refuses (SchedulingError, or the
documented TypeError / ValueError / ParseFragmentError / UnificationError
for arguments that do not fit) is skipped, and so is a step whose result
code generation refuses for what it checks (races in `par` loops,
precisions, memories); every accepted step is checked by running the kernel
before and after on random inputs (schedule_check). To stay fast (compiling
dominates), the current procedure is compared with the original kernel every
`CHECK_EVERY` accepted steps and at the end of each sequence, each compiled
once for all sizes; on a mismatch the intermediate procedures are compared
one by one to name the first bad step. A failure prints the seed, the
sequence and the schedule so far.

Besides kernels, the corpus has what some primitives need as arguments: a
configuration (`Knobs`), no-op instructions (insert_noop_call) and small
procedures for replace. call_eqv calls a callee scheduled by a few random
steps; replace also uses procedures extracted from the kernel.

The primitives exercised are those of `GENERATORS` (how to make random
arguments for each) that `exo2.API_scheduling` exports, so primitives added
later are picked up once they have a generator; the summary printed at the
end (`pytest -s`) lists accepted and refused steps per primitive and the
exported primitives that have no generator.

    EXO2_RANDOM_SEED=7 python3 -m pytest tests/python/test_random_schedules.py -q -s
"""

from __future__ import annotations

import math
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field

import exo2.API_scheduling as S
import pytest
from exo2 import Procedure, SchedulingError, config, instr, proc
from exo2.API_cursors import (
    AllocCursor,
    AssignConfigCursor,
    AssignCursor,
    BinaryOpCursor,
    BlockCursor,
    CallCursor,
    ExprCursor,
    ExternFunctionCursor,
    ForCursor,
    GapCursor,
    IfCursor,
    LiteralCursor,
    ReadConfigCursor,
    ReadCursor,
    ReduceCursor,
    StmtCursor,
    UnaryMinusCursor,
    WindowStmtCursor,
)
from exo2.API_types import ExoType
from exo2.core.memory import DRAM, MemGenError
from exo2.errors import UnificationError
from exo2.frontend.parse_fragment import ParseFragmentError
from exo2.libs.memories import DRAM_STACK, DRAM_STATIC
from schedule_check import assert_same_results

SEED = int(os.environ.get("EXO2_RANDOM_SEED", "5"))
TOTAL_ACCEPTED = 5000  # accepted steps per run, over all kernels (issue #5)
STEPS_PER_SEQUENCE = 10  # accepted steps before starting again from the kernel
ATTEMPTS_PER_SEQUENCE = 40
MAX_SEQUENCES = 120  # per kernel, in case most steps are refused
CHECK_EVERY = 10  # accepted steps between two runs of the kernel
# Compiling dominates the run time: -O1 (the last -O wins) compiles in about
# half the time of the default -O3 and computes the same results.
JIT_OPTIONS = {"extra_cflags": ("-O1",)}
MAX_STATEMENTS = 80  # a sequence stops when the procedure grows past this
RTOL, ATOL = 1e-4, 1e-5  # reassociation changes float rounding

# What a primitive raises when it refuses a step or its arguments
# (NotImplementedError: lift_reduce_constant on a loop holding a call,
# primitives.md §10; UnificationError: replace).
REFUSALS = (
    SchedulingError,
    TypeError,
    ValueError,
    ParseFragmentError,
    NotImplementedError,
    UnificationError,
)

# Exported primitives that random testing does not exercise, and why.
NOT_RANDOMIZED = {
    "make_instr": "an instruction cannot be run",
    "add_unsafe_guard": "unchecked by design",
}

# Primitives whose result code generation checks (primitives.md §9): once
# one of them is accepted in a sequence, every later procedure goes through
# code generation first, and a step that code generation refuses is dropped.
CHECKED_WHEN_COMPILING = {"parallelize_loop", "set_memory", "set_precision", "call_eqv"}


# --------------------------------------------------------------------------
# Kernel corpus


@proc
def scale(n: size, x: f32[n]):
    assert n % 4 == 0
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def axpy(n: size, a: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = y[i] + a * x[i]


@proc
def row_sums(n: size, m: size, a: f32[n, m], y: f32[n]):
    for i in seq(0, n):
        y[i] = 0.0
        for j in seq(0, m):
            y[i] += a[i, j]


@proc
def matmul(n: size, A: f32[n, 8], B: f32[8, 4], C: f32[n, 4]):
    assert n % 2 == 0
    for i in seq(0, n):
        for j in seq(0, 4):
            for k in seq(0, 8):
                C[i, j] += A[i, k] * B[k, j]


@proc
def guarded(n: size, m: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        if i < m:
            y[i] = x[i] * 3.0
        else:
            y[i] = x[i] + 1.0


@proc
def two_stages(n: size, x: f32[n], y: f32[n], z: f32[n]):
    for i in seq(0, n):
        x[i] = y[i] + 1.0
        z[i] = x[i] * y[i]
    for j in seq(0, n):
        y[j] = z[j] + x[j]


@proc
def blur(n: size, x: f32[n + 2], y: f32[n]):
    assert n % 4 == 0
    for i in seq(0, n):
        y[i] = x[i] + x[i + 1] + x[i + 2]


@proc
def windowed(n: size, m: size, a: f32[n, m + 2], y: f32[n, m]):
    for i in seq(0, n):
        row = a[i, 1 : m + 1]
        for j in seq(0, m):
            y[i, j] = row[j] * 0.5 + y[i, j]


@proc
def dot(n: size, x: f32[n], y: f32[n], out: f32[1]):
    acc: f32
    acc = 0.0
    for i in seq(0, n):
        acc += 2.0 * (x[i] * y[i])
    out[0] = acc


@proc
def staged(n: size, x: f32[n], y: f32[n]):
    assert n % 2 == 0
    tmp: f32[n]
    for i in seq(0, n):
        tmp[i] = x[i] * x[i]
    for i in seq(0, n):
        y[i] = tmp[i] + 1.0


@proc
def scale_row(m: size, row: [f32][m]):
    for j in seq(0, m):
        row[j] = 2.0 * row[j] + 1.0


@proc
def calls(n: size, m: size, a: f32[n, m], b: f32[n]):
    for i in seq(0, n):
        scale_row(m, a[i, :])
        b[i] = a[i, 0]


@proc
def constant_tiles(x: f32[8, 4], y: f32[8]):
    for i in seq(0, 8):
        for j in seq(0, 4):
            y[i] += x[i, j]


@proc
def writes(n: size, a: f32[n], b: f32[n], c: f32[n]):
    for i in seq(0, n):
        t: f32
        t = a[i] + b[i]
        c[i] = t * t
        c[i] += a[i]
        b[i] = b[i] + 1.0


@proc
def offset_loop(n: size, x: f32[n + 3]):
    assert n >= 2
    for i in seq(2, n + 2):
        x[i + 1] = x[i - 2] * 0.5


@config
class Knobs:
    gain: f32
    bias: f32
    on: bool


@proc
def configured(n: size, a: f32, b: f32, x: f32[n], y: f32[n]):
    Knobs.bias = 0.0
    Knobs.gain = a
    Knobs.on = True
    for i in seq(0, n):
        y[i] = Knobs.gain * x[i] + y[i]
    Knobs.gain = 2.0
    Knobs.bias = b
    for i in seq(0, n):
        if Knobs.on:
            x[i] = Knobs.gain * x[i] + Knobs.bias


@proc
def transposed(n: size, x: f32[n, 4, 4], y: f32[n, 4, 4]):
    for k in seq(0, n):
        t: f32[4, 4]
        for i in seq(0, 4):
            for j in seq(0, 4):
                t[j, i] = x[k, i, j]
        for i in seq(0, 4):
            for j in seq(0, 4):
                y[k, i, j] = t[i, j] * 2.0


# Targets for primitives that need a particular shape of code: an unused
# buffer, a repeated idempotent loop, writes to merge, a constant to lift out
# of a reduction, a sum to reassociate, a buffer to unroll.
@proc
def patterns(n: size, x: f32[n], y: f32[n], out: f32[1]):
    assert n >= 1
    unused: f32[n]
    for r in seq(0, 3):  # noqa: B007
        for i in seq(0, n):
            y[i] = x[i] * 2.0
    s: f32
    s = 0.0
    for i in seq(0, n):
        s += 3.0 * (y[i] + (x[i] + 1.0))
    pair: f32[2]
    pair[0] = x[0]
    pair[0] += s
    pair[1] = s
    out[0] = pair[0] + pair[1]


# Instructions for insert_noop_call: a body of `pass`, a C comment.
@instr("// noop")
def noop():
    pass


@instr("// noop {i}")
def noop_index(i: index):
    pass


@instr("// noop {x}")
def noop_scalar(x: f32):
    pass


@instr("// noop {m} {row}")
def noop_window(m: size, row: [f32][m]):
    pass


NOOPS = [noop, noop_index, noop_scalar, noop_window]


# Procedures for replace to unify with statements of the kernels (one
# element windows stand for scalars: a scalar parameter unifies only with
# a scalar).
@proc
def double_all(n: size, x: [f32][n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def axpy_row(n: size, a: f32, x: [f32][n], y: [f32][n]):
    for i in seq(0, n):
        y[i] = y[i] + a * x[i]


@proc
def sum_into(m: size, row: [f32][m], out: [f32][1]):
    for j in seq(0, m):
        out[0] += row[j]


@proc
def sum3(x: [f32][3], y: [f32][1]):
    y[0] = x[0] + x[1] + x[2]


@proc
def mac(a: [f32][1], b: [f32][1], c: [f32][1]):
    c[0] += a[0] * b[0]


@proc
def set_zero(x: [f32][1]):
    x[0] = 0.0


@proc
def copy_row(n: size, dst: [f32][n], src: [f32][n]):
    for i in seq(0, n):
        dst[i] = src[i]


REPLACEMENTS = [
    double_all,
    axpy_row,
    sum_into,
    sum3,
    mac,
    set_zero,
    copy_row,
    scale_row,
]


@dataclass
class Kernel:
    proc: object
    sizes: list  # size arguments of the runs that compare two procedures
    compiled: object = None  # the JitKernel of `proc`, once compiled


KERNELS = [
    Kernel(scale, [{"n": 8}, {"n": 12}]),
    Kernel(axpy, [{"n": 7}, {"n": 12}]),
    Kernel(row_sums, [{"n": 5, "m": 6}, {"n": 8, "m": 3}]),
    Kernel(matmul, [{"n": 4}, {"n": 6}]),
    Kernel(guarded, [{"n": 9, "m": 4}, {"n": 6, "m": 10}]),
    Kernel(two_stages, [{"n": 5}, {"n": 8}]),
    Kernel(blur, [{"n": 8}, {"n": 12}]),
    Kernel(windowed, [{"n": 3, "m": 5}, {"n": 4, "m": 8}]),
    Kernel(dot, [{"n": 6}, {"n": 9}]),
    Kernel(staged, [{"n": 6}, {"n": 8}]),
    Kernel(calls, [{"n": 3, "m": 4}, {"n": 5, "m": 7}]),
    Kernel(constant_tiles, [{}]),
    Kernel(writes, [{"n": 5}, {"n": 8}]),
    Kernel(offset_loop, [{"n": 2}, {"n": 7}]),
    Kernel(configured, [{"n": 5}, {"n": 8}]),
    Kernel(transposed, [{"n": 1}, {"n": 3}]),
    Kernel(patterns, [{"n": 1}, {"n": 6}]),
]
ACCEPTED_PER_KERNEL = math.ceil(TOTAL_ACCEPTED / len(KERNELS))


# --------------------------------------------------------------------------
# Navigation: statements with the iterators around them, expressions


def walk(block, iters=()):
    """(statement, enclosing loop iterators) for every statement of
    `block`, in program order."""
    for stmt in block:
        yield stmt, iters
        if isinstance(stmt, ForCursor):
            yield from walk(stmt.body(), (*iters, stmt.name()))
        elif isinstance(stmt, IfCursor):
            yield from walk(stmt.body(), iters)
            if stmt.orelse():
                yield from walk(stmt.orelse(), iters)


def sub_expressions(expr):
    yield expr
    if isinstance(expr, BinaryOpCursor):
        yield from sub_expressions(expr.lhs())
        yield from sub_expressions(expr.rhs())
    elif isinstance(expr, UnaryMinusCursor):
        yield from sub_expressions(expr.arg())
    elif isinstance(expr, (ReadCursor, ExternFunctionCursor)):
        for e in expr.idx() if isinstance(expr, ReadCursor) else expr.args():
            yield from sub_expressions(e)


def expressions_of(stmt):
    """The expressions of a statement that a primitive may point at (window
    expressions excluded)."""
    if isinstance(stmt, (AssignCursor, ReduceCursor)):
        roots = [*stmt.idx(), stmt.rhs()]
    elif isinstance(stmt, IfCursor):
        roots = [stmt.cond()]
    elif isinstance(stmt, ForCursor):
        roots = [stmt.lo(), stmt.hi()]
    elif isinstance(stmt, AssignConfigCursor):
        roots = [stmt.rhs()]
    else:
        roots = []
    for root in roots:
        yield from sub_expressions(root)


def text(expr):
    """Source text of an expression (cursors print statements only)."""
    if isinstance(expr, LiteralCursor):
        return repr(expr.value())
    if isinstance(expr, ReadCursor):
        idx = [text(e) for e in expr.idx()]
        return f"{expr.name()}[{', '.join(idx)}]" if idx else expr.name()
    if isinstance(expr, BinaryOpCursor):
        return f"({text(expr.lhs())} {expr.op()} {text(expr.rhs())})"
    if isinstance(expr, UnaryMinusCursor):
        return f"-{text(expr.arg())}"
    if isinstance(expr, ExternFunctionCursor):
        return f"{expr.name()}({', '.join(text(e) for e in expr.args())})"
    if isinstance(expr, ReadConfigCursor):
        return f"{expr.config().name()}.{expr.field()}"
    raise TypeError(f"no source text for {type(expr).__name__}")


def stmt_text(stmt):
    """The first line of a statement, for reports."""
    if isinstance(stmt, (AssignCursor, ReduceCursor)):
        idx = [text(e) for e in stmt.idx()]
        lhs = f"{stmt.name()}[{', '.join(idx)}]" if idx else stmt.name()
        op = "=" if isinstance(stmt, AssignCursor) else "+="
        return f"{lhs} {op} {text(stmt.rhs())}"
    if isinstance(stmt, ForCursor):
        return f"for {stmt.name()} in seq({text(stmt.lo())}, {text(stmt.hi())}):"
    if isinstance(stmt, IfCursor):
        return f"if {text(stmt.cond())}:"
    if isinstance(stmt, (AllocCursor, WindowStmtCursor)):
        return f"{stmt.name()} {'=' if isinstance(stmt, WindowStmtCursor) else ':'} ..."
    if isinstance(stmt, CallCursor):
        return f"{stmt.subproc().name()}(...)"
    if isinstance(stmt, AssignConfigCursor):
        return f"{stmt.config().name()}.{stmt.field()} = {text(stmt.rhs())}"
    return type(stmt).__name__


def is_control(expr):
    typ = expr.type()
    return typ.is_indexable() or typ == ExoType.Bool


class View:
    """What generators pick from: the statements of one procedure."""

    def __init__(self, p):
        self.proc = p
        self.sites = list(walk(p.body()))
        self.size_params = [a.name() for a in p.args() if a.type().is_indexable()]

    def statements(self, kind=StmtCursor):
        return [s for s, _ in self.sites if isinstance(s, kind)]

    def loops(self):
        return self.statements(ForCursor)

    def allocs(self):
        return self.statements(AllocCursor)

    def iterators_at(self, stmt):
        return next(iters for s, iters in self.sites if s == stmt)

    def pairs(self, first=StmtCursor, second=StmtCursor):
        """Adjacent statements (s, s.next()) of the given kinds."""
        return [
            (s, s.next())
            for s in self.statements(first)
            if s.next() and isinstance(s.next(), second)
        ]

    def expressions(self, keep=lambda e: True):
        return [(e, s) for s, _ in self.sites for e in expressions_of(s) if keep(e)]

    def depth(self, stmt):
        """The number of loops and ifs around `stmt`."""
        depth, parent = 0, stmt.parent()
        while isinstance(parent, (ForCursor, IfCursor)):
            depth, parent = depth + 1, parent.parent()
        return depth


# --------------------------------------------------------------------------
# Random arguments, one generator per primitive


@dataclass
class Sequence:
    """The random choices of one sequence, and its counter of fresh names."""

    rng: random.Random
    fresh_count: int = 0
    accepted: set = field(default_factory=set)  # primitives accepted so far
    static_memory: bool = False  # a buffer is in DRAM_STATIC

    def name(self, base, view=None):
        """A fresh name, or (one time in ten) a name already in use."""
        if view is not None and self.rng.random() < 0.1:
            used = [s.name() for s in view.loops()] + view.size_params
            if used:
                return self.rng.choice(used)
        self.fresh_count += 1
        return f"{base}{self.fresh_count}"

    def choice(self, items):
        return self.rng.choice(items) if items else None

    def small_int(self, lo=0, hi=4):
        return self.rng.randint(lo, hi)


@dataclass
class Step:
    primitive: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    note: str = ""  # how a procedure argument was made, for reports

    def apply(self, p):
        result = getattr(S, self.primitive)(p, *self.args, **self.kwargs)
        if isinstance(result, tuple):  # extract_subproc: (proc, subproc)
            result = result[0]
        return result

    def __str__(self):
        args = [describe(a) for a in self.args]
        args += [f"{k}={describe(v)}" for k, v in self.kwargs.items()]
        note = f"  # {self.note}" if self.note else ""
        return f"{self.primitive}(p, {', '.join(args)}){note}"


def describe(value):
    if isinstance(value, Procedure):
        return f"<proc {value.name()}>"
    if value is Knobs:
        return "Knobs"
    if isinstance(value, type):  # a memory
        return value.__name__
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    if isinstance(value, BlockCursor):
        return f"<block of {len(value)} at {describe(value[0])}>"
    if isinstance(value, GapCursor):
        return f"<gap {value.type().name} {describe(value.anchor())}>"
    if isinstance(value, StmtCursor):
        return f"<{stmt_text(value)}>"
    if isinstance(value, ExprCursor):
        return f"<expr {text(value)}>"
    return repr(value)


def bound_text(view, stmt, seq):
    """A control expression in scope at `stmt`: a literal, a size
    parameter or an enclosing iterator, maybe plus a literal."""
    names = view.size_params + list(view.iterators_at(stmt))
    base = seq.choice(names)
    if base is None or seq.rng.random() < 0.4:
        return seq.small_int(0, 6)
    return base if seq.rng.random() < 0.5 else f"{base} + {seq.small_int(1, 3)}"


def gen_divide_loop(view, seq):
    loop = seq.choice(view.loops())
    if loop is None:
        return None
    kwargs = {"tail": seq.choice(["guard", "cut", "cut_and_guard"])}
    if seq.rng.random() < 0.3:
        kwargs["perfect"] = True
    factor = seq.choice([2, 3, 4, 8])
    return Step(
        "divide_loop",
        (loop, factor, [seq.name("o", view), seq.name("n", view)]),
        kwargs,
    )


def gen_divide_with_recompute(view, seq):
    loop = seq.choice(view.loops())
    if loop is None:
        return None
    stride = seq.choice([2, 3, 4])
    hi = text(loop.hi())
    outer_hi = seq.choice([f"{hi} / {stride}", f"({hi} - 1) / {stride}", 1])
    return Step(
        "divide_with_recompute",
        (loop, outer_hi, stride, [seq.name("o", view), seq.name("n", view)]),
    )


def nested_loops(view):
    return [
        loop
        for loop in view.loops()
        if len(loop.body()) == 1 and isinstance(loop.body()[0], ForCursor)
    ]


def gen_reorder_loops(view, seq):
    loop = seq.choice(nested_loops(view))
    return None if loop is None else Step("reorder_loops", (loop,))


def gen_mult_loops(view, seq):
    loop = seq.choice(nested_loops(view))
    return None if loop is None else Step("mult_loops", (loop, seq.name("k", view)))


def gen_unroll_loop(view, seq):
    """Prefers short loops with literal bounds (unrolling others is refused)."""
    loops = view.loops()
    short = [
        loop
        for loop in loops
        if isinstance(loop.lo(), LiteralCursor)
        and isinstance(loop.hi(), LiteralCursor)
        and loop.hi().value() - loop.lo().value() <= 4
    ]
    loop = seq.choice(short if short and seq.rng.random() < 0.8 else loops)
    return None if loop is None else Step("unroll_loop", (loop,))


def gen_cut_loop(view, seq):
    loop = seq.choice(view.loops())
    if loop is None:
        return None
    lo, hi, k = text(loop.lo()), text(loop.hi()), seq.small_int(1, 3)
    cut = seq.choice(
        [seq.small_int(0, 6), f"{lo} + {k}", f"{hi} - {k}", f"{hi} / 2", hi, lo]
    )
    return Step("cut_loop", (loop, cut))


def gen_shift_loop(view, seq):
    loop = seq.choice(view.loops())
    if loop is None:
        return None
    return Step("shift_loop", (loop, bound_text(view, loop, seq)))


def gen_join_loops(view, seq):
    pair = seq.choice(view.pairs(ForCursor, ForCursor))
    return None if pair is None else Step("join_loops", pair)


def gen_remove_loop(view, seq):
    loop = seq.choice(view.loops())
    return None if loop is None else Step("remove_loop", (loop,))


def gen_fission(view, seq):
    stmt = seq.choice([s for s in view.statements() if s.next() and view.depth(s)])
    if stmt is None:
        return None
    n_lifts = seq.small_int(1, view.depth(stmt))
    return Step("fission", (stmt.after(),), {"n_lifts": n_lifts})


def gen_autofission(view, seq):
    step = gen_fission(view, seq)
    return step and Step("autofission", step.args, step.kwargs)


def gen_fuse(view, seq):
    pairs = view.pairs(ForCursor, ForCursor) + view.pairs(IfCursor, IfCursor)
    pair = seq.choice(pairs)
    return None if pair is None else Step("fuse", pair)


def gen_lift_scope(view, seq):
    scope = seq.choice(view.statements((ForCursor, IfCursor)))
    return None if scope is None else Step("lift_scope", (scope,))


def gen_add_loop(view, seq):
    stmt = seq.choice(view.statements())
    if stmt is None:
        return None
    hi = bound_text(view, stmt, seq)
    if hi == 0:
        hi = 1
    return Step(
        "add_loop",
        (stmt, seq.name("r", view), hi),
        {"guard": seq.rng.random() < 0.5},
    )


def gen_eliminate_dead_code(view, seq):
    stmt = seq.choice(view.statements((ForCursor, IfCursor)))
    return None if stmt is None else Step("eliminate_dead_code", (stmt,))


def gen_specialize(view, seq):
    stmt = seq.choice(view.statements())
    if stmt is None:
        return None
    conds = [
        f"{bound_text(view, stmt, seq)} < {bound_text(view, stmt, seq)}"
        for _ in range(seq.small_int(1, 2))
    ]
    return Step("specialize", (stmt, conds))


def gen_simplify(view, seq):
    return Step("simplify")


def gen_delete_pass(view, seq):
    return Step("delete_pass")


def gen_rename(view, seq):
    return Step("rename", (seq.name("kernel"),))


def gen_insert_pass(view, seq):
    stmt = seq.choice(view.statements())
    if stmt is None:
        return None
    return Step(
        "insert_pass", (stmt.before() if seq.rng.random() < 0.5 else stmt.after(),)
    )


def gen_reorder_stmts(view, seq):
    pair = seq.choice(view.pairs())
    return None if pair is None else Step("reorder_stmts", (pair[0].expand(0, 1),))


def gen_merge_writes(view, seq):
    writes = (AssignCursor, ReduceCursor)
    pair = seq.choice(view.pairs(writes, writes))
    return None if pair is None else Step("merge_writes", (pair[0].expand(0, 1),))


def gen_lift_reduce_constant(view, seq):
    pair = seq.choice(view.pairs(AssignCursor, ForCursor))
    return (
        None if pair is None else Step("lift_reduce_constant", (pair[0].expand(0, 1),))
    )


def gen_commute_expr(view, seq):
    """One expression, or two (possibly one inside the other)."""
    exprs = view.expressions(
        lambda e: (
            isinstance(e, BinaryOpCursor) and e.op() in ("+", "*") and not is_control(e)
        )
    )
    if not exprs:
        return None
    first, stmt = seq.choice(exprs)
    others = [e for e, _ in exprs if e != first]
    if others and seq.rng.random() < 0.3:
        return Step("commute_expr", ([first, seq.choice(others)],))
    return Step("commute_expr", ([first],))


def gen_left_reassociate_expr(view, seq):
    candidates = view.expressions(
        lambda e: (
            isinstance(e, BinaryOpCursor)
            and e.op() in ("+", "*")
            and isinstance(e.rhs(), BinaryOpCursor)
            and e.rhs().op() == e.op()
        )
    )
    picked = seq.choice(candidates)
    return None if picked is None else Step("left_reassociate_expr", (picked[0],))


def gen_rewrite_expr(view, seq):
    """Rewrites into an equal expression, or (one time in four) into a
    different one, which must be refused."""
    picked = seq.choice(view.expressions())
    if picked is None:
        return None
    expr, _ = picked
    t = text(expr)
    if expr.type() == ExoType.Bool:
        options = [f"{t} and True", f"{t} or False", f"{t} or {t}"]
        wrong = f"{t} and False"
    elif is_control(expr):
        options = [f"{t} + 0", f"0 + {t}", f"{t} * 1", f"({t} + 1) - 1"]
        wrong = f"{t} + 1"
    else:
        options = [f"{t} + 0.0", f"{t} * 1.0"]
        wrong = f"{t} + 1.0"
    if isinstance(expr, BinaryOpCursor) and expr.op() in ("+", "*"):
        options.append(f"{text(expr.rhs())} {expr.op()} {text(expr.lhs())}")
    new = wrong if seq.rng.random() < 0.25 else seq.choice(options)
    return Step("rewrite_expr", (expr, new))


def gen_bind_expr(view, seq):
    picked = seq.choice(view.expressions(lambda e: not is_control(e)))
    if picked is None:
        return None
    return Step("bind_expr", ([picked[0]], seq.name("b", view)))


def gen_split_write(view, seq):
    stmt = seq.choice(view.statements((AssignCursor, ReduceCursor)))
    return None if stmt is None else Step("split_write", (stmt,))


def gen_fold_into_reduce(view, seq):
    stmt = seq.choice(view.statements(AssignCursor))
    return None if stmt is None else Step("fold_into_reduce", (stmt,))


def gen_inline_assign(view, seq):
    stmt = seq.choice(view.statements(AssignCursor))
    return None if stmt is None else Step("inline_assign", (stmt,))


def gen_parallelize_loop(view, seq):
    # A DRAM_STATIC buffer in a parallel loop is shared by the threads.
    loop = None if seq.static_memory else seq.choice(view.loops())
    return None if loop is None else Step("parallelize_loop", (loop,))


def tensor_allocs(view, rank=1):
    return [a for a in view.allocs() if a.is_tensor() and len(a.shape()) >= rank]


def gen_lift_alloc(view, seq):
    alloc = seq.choice(view.allocs())
    if alloc is None:
        return None
    return Step(
        "lift_alloc", (alloc,), {"n_lifts": seq.small_int(1, max(1, view.depth(alloc)))}
    )


def gen_autolift_alloc(view, seq):
    # Not the only statement of its block: the loop left would have an
    # empty body (see test_autolift_alloc_of_the_only_statement_of_a_loop).
    alloc = seq.choice([a for a in view.allocs() if a.prev() or a.next()])
    if alloc is None:
        return None
    # Not keeping dimensions of a buffer passed whole to a call: the result
    # passes a window where the callee expects a tensor (see
    # test_autolift_alloc_keeping_dims_of_a_buffer_passed_to_a_call).
    passed = any(
        isinstance(arg, ReadCursor) and arg.name() == alloc.name()
        for call in view.statements(CallCursor)
        for arg in call.args()
    )
    return Step(
        "autolift_alloc",
        (alloc,),
        {
            "n_lifts": seq.small_int(1, max(1, view.depth(alloc))),
            "mode": seq.choice(["row", "col"]),
            "keep_dims": not passed and seq.rng.random() < 0.5,
        },
    )


def gen_sink_alloc(view, seq):
    # Not into an if with an else: the copy in the else is not renamed and
    # its buffer is freed before its uses (see
    # test_sink_alloc_into_an_else_renames_the_copy).
    alloc = seq.choice(
        [
            a
            for a in view.allocs()
            if not (isinstance(a.next(), IfCursor) and a.next().orelse())
        ]
    )
    return None if alloc is None else Step("sink_alloc", (alloc,))


def gen_delete_buffer(view, seq):
    alloc = seq.choice(view.allocs())
    return None if alloc is None else Step("delete_buffer", (alloc,))


def gen_reuse_buffer(view, seq):
    allocs = view.allocs()
    if len(allocs) < 2:
        return None
    first, second = seq.rng.sample(allocs, 2)
    return Step("reuse_buffer", (first, second))


def gen_expand_dim(view, seq):
    alloc = seq.choice(view.allocs())
    if alloc is None:
        return None
    extent = seq.small_int(1, 4)
    iters = view.iterators_at(alloc)
    index = seq.choice([*iters, 0, extent - 1])
    return Step("expand_dim", (alloc, extent, index))


def gen_divide_dim(view, seq):
    alloc = seq.choice(tensor_allocs(view))
    if alloc is None:
        return None
    dim = seq.small_int(0, len(alloc.shape()) - 1)
    return Step("divide_dim", (alloc, dim, seq.choice([2, 3, 4])))


def gen_mult_dim(view, seq):
    alloc = seq.choice(tensor_allocs(view, rank=2))
    if alloc is None:
        return None
    hi, lo = seq.rng.sample(range(len(alloc.shape())), 2)
    return Step("mult_dim", (alloc, hi, lo))


def gen_rearrange_dim(view, seq):
    alloc = seq.choice(tensor_allocs(view, rank=2))
    if alloc is None:
        return None
    permutation = list(range(len(alloc.shape())))
    seq.rng.shuffle(permutation)
    return Step("rearrange_dim", (alloc, permutation))


def gen_resize_dim(view, seq):
    alloc = seq.choice(tensor_allocs(view))
    if alloc is None:
        return None
    dim = seq.small_int(0, len(alloc.shape()) - 1)
    extent = text(alloc.shape()[dim])
    if seq.rng.random() < 0.2:
        return Step("resize_dim", (alloc, dim, seq.small_int(1, 8), 0), {"fold": True})
    size = seq.choice([extent, f"{extent} + 1", f"{extent} - 1"])
    return Step("resize_dim", (alloc, dim, size, seq.small_int(0, 1)))


def gen_unroll_buffer(view, seq):
    alloc = seq.choice(tensor_allocs(view))
    if alloc is None:
        return None
    return Step("unroll_buffer", (alloc, seq.small_int(0, len(alloc.shape()) - 1)))


def window_of_access(view, stmt, seq):
    """A window string over a buffer accessed in `stmt`: each index kept as
    a point or widened to the whole dimension."""
    accesses = [
        e for e in expressions_of(stmt) if isinstance(e, ReadCursor) and len(e.idx())
    ]
    if isinstance(stmt, (AssignCursor, ReduceCursor)) and len(stmt.idx()):
        accesses.append(stmt)
    access = seq.choice(accesses)
    if access is None:
        return None
    shapes = {a.name(): a.shape() for a in view.proc.args() if a.is_tensor()}
    shapes.update({a.name(): a.shape() for a in tensor_allocs(view)})
    if access.name() not in shapes:
        return None
    entries = [
        text(i) if seq.rng.random() < 0.5 else f"0:{text(extent)}"
        for i, extent in zip(access.idx(), shapes[access.name()], strict=True)
    ]
    return f"{access.name()}[{', '.join(entries)}]"


def gen_stage_mem(view, seq):
    stmt = seq.choice(view.statements((AssignCursor, ReduceCursor)))
    if stmt is None:
        return None
    window = window_of_access(view, stmt, seq)
    if window is None:
        return None
    return Step(
        "stage_mem",
        (stmt, window, seq.name("s")),
        {"accum": seq.rng.random() < 0.2},
    )


def gen_inline(view, seq):
    call = seq.choice(view.statements(CallCursor))
    return None if call is None else Step("inline", (call,))


def gen_extract_subproc(view, seq):
    stmt = seq.choice(view.statements())
    if stmt is None:
        return None
    return Step("extract_subproc", (stmt, seq.name("sub")))


def gen_inline_window(view, seq):
    window = seq.choice(view.statements(WindowStmtCursor))
    return None if window is None else Step("inline_window", (window,))


def gen_set_window(view, seq):
    tensors = [a.name() for a in view.proc.args() if a.is_tensor()]
    name = seq.choice(tensors)
    return None if name is None else Step("set_window", (name,))


def gen_set_precision(view, seq):
    """Raises the precision of a buffer (results stay within tolerance), or
    sets the one it has."""
    alloc = seq.choice(view.allocs())
    if alloc is None:
        return None
    return Step("set_precision", (alloc, seq.choice(["f64", "f64", "f32"])))


def gen_set_memory(view, seq):
    """DRAM_STACK and DRAM_STATIC need literal extents, which code
    generation checks."""
    alloc = seq.choice(view.allocs())
    if alloc is None:
        return None
    memories = [DRAM, DRAM_STACK]
    if "parallelize_loop" not in seq.accepted:
        memories.append(DRAM_STATIC)
    if alloc.is_tensor():
        return Step("set_memory", (alloc, seq.choice(memories)))
    return Step("set_memory", (alloc, DRAM))


def scalar_data_names(view):
    """The scalar data parameters and allocations of the procedure."""
    return [
        a.name()
        for a in [*view.proc.args(), *view.allocs()]
        if not a.is_tensor() and not is_control_type(a.type())
    ]


def is_control_type(typ):
    return typ.is_indexable() or typ == ExoType.Bool


def random_gap(view, seq):
    stmt = seq.choice(view.statements())
    if stmt is None:
        return None
    return stmt.before() if seq.rng.random() < 0.5 else stmt.after()


def gen_insert_noop_call(view, seq):
    gap = random_gap(view, seq)
    if gap is None:
        return None
    stmt = gap.anchor()
    instr_ = seq.choice(NOOPS)
    if instr_ is noop:
        args = []
    elif instr_ is noop_index:
        args = [str(bound_text(view, stmt, seq))]
    elif instr_ is noop_scalar:
        args = [seq.choice(scalar_data_names(view) or ["1.0"])]
    else:
        tensors = [a for a in view.proc.args() if a.is_tensor()]
        tensor = seq.choice(tensors)
        *outer, last = tensor.shape()
        points = ["0"] * len(outer)
        args = [
            text(last),
            f"{tensor.name()}[{', '.join([*points, f'0:{text(last)}'])}]",
        ]
    return Step("insert_noop_call", (gap, instr_, args))


def gen_bind_config(view, seq):
    picked = seq.choice(
        view.expressions(
            lambda e: (
                isinstance(e, ReadCursor)
                and len(e.idx()) == 0
                and (e.type() == ExoType.Bool or not is_control(e))
            )
        )
    )
    if picked is None:
        return None
    expr = picked[0]
    fields = ["on"] if expr.type() == ExoType.Bool else ["gain", "bias"]
    if seq.rng.random() < 0.15:  # a field of another type: refused
        fields = ["gain", "bias", "on"]
    return Step("bind_config", (expr, Knobs, seq.choice(fields)))


def gen_write_config(view, seq):
    gap = random_gap(view, seq)
    if gap is None:
        return None
    field_ = seq.choice(["gain", "bias", "on"])
    if field_ == "on":
        rhs = seq.choice(["True", "False"])
    else:
        rhs = seq.choice([*scalar_data_names(view), "0.5", "2.0"])
    return Step("write_config", (gap, Knobs, field_, rhs))


def gen_delete_config(view, seq):
    stmt = seq.choice(view.statements(AssignConfigCursor))
    return None if stmt is None else Step("delete_config", (stmt,))


def gen_replace(view, seq):
    """Half of the time, a procedure extracted from one or two statements of
    the procedure replaces them or others of the same kinds; otherwise, one
    of REPLACEMENTS replaces a statement of the kind it starts with."""
    stmts = view.statements()
    if not stmts:
        return None
    if seq.rng.random() < 0.5:
        source = seq.choice(stmts)
        length = 2 if source.next() and seq.rng.random() < 0.3 else 1
        block = source.expand(0, length - 1)
        try:
            _, sub = S.extract_subproc(
                view.proc, block, seq.name("r"), seq.rng.random() < 0.5
            )
        except REFUSALS:
            return None
        kinds = [type(s) for s in block]
        note = f"the sub-procedure extracted from {describe(block)}"
    else:
        sub = seq.choice(REPLACEMENTS)
        kinds, note = [type(s) for s in sub.body()], ""
    targets = [
        s
        for s in stmts
        if isinstance(s, kinds[0])
        and (len(kinds) == 1 or (s.next() and isinstance(s.next(), kinds[1])))
    ]
    target = seq.choice(targets)
    if target is None:
        return None
    return Step(
        "replace", (target.expand(0, len(kinds) - 1), sub), {"quiet": True}, note
    )


def gen_call_eqv(view, seq):
    """Schedules the callee with a few random steps (derived procedures are
    equivalent to it) and calls the result instead; one time in ten, calls
    a procedure that is not equivalent, which must be refused."""
    call = seq.choice(view.statements(CallCursor))
    if call is None:
        return None
    if seq.rng.random() < 0.1:
        return Step("call_eqv", (call, seq.choice(REPLACEMENTS)))
    eqv, steps = call.subproc(), []
    for _ in range(seq.small_int(1, 3)):
        name = seq.choice(CALLEE_PRIMITIVES)
        step = GENERATORS[name](View(eqv), seq)
        if step is None:
            continue
        try:
            eqv = step.apply(eqv)
        except REFUSALS:
            continue
        steps.append(step)
    if steps:  # two different procedures of one name cannot be compiled
        steps.append(Step("rename", (seq.name(f"{eqv.name()}_"),)))
        eqv = steps[-1].apply(eqv)
    note = f"callee scheduled by {', '.join(map(str, steps)) or 'no step'}"
    return Step("call_eqv", (call, eqv), {}, note)


GENERATORS = {
    # loops and scopes
    "divide_loop": gen_divide_loop,
    "divide_with_recompute": gen_divide_with_recompute,
    "mult_loops": gen_mult_loops,
    "join_loops": gen_join_loops,
    "cut_loop": gen_cut_loop,
    "shift_loop": gen_shift_loop,
    "reorder_loops": gen_reorder_loops,
    "fission": gen_fission,
    "autofission": gen_autofission,
    "remove_loop": gen_remove_loop,
    "add_loop": gen_add_loop,
    "unroll_loop": gen_unroll_loop,
    "lift_scope": gen_lift_scope,
    "fuse": gen_fuse,
    "specialize": gen_specialize,
    "eliminate_dead_code": gen_eliminate_dead_code,
    # buffers
    "bind_expr": gen_bind_expr,
    "stage_mem": gen_stage_mem,
    "lift_alloc": gen_lift_alloc,
    "autolift_alloc": gen_autolift_alloc,
    "sink_alloc": gen_sink_alloc,
    "delete_buffer": gen_delete_buffer,
    "reuse_buffer": gen_reuse_buffer,
    "expand_dim": gen_expand_dim,
    "divide_dim": gen_divide_dim,
    "mult_dim": gen_mult_dim,
    "rearrange_dim": gen_rearrange_dim,
    "resize_dim": gen_resize_dim,
    "unroll_buffer": gen_unroll_buffer,
    # sub-procedures and windows
    "inline": gen_inline,
    "extract_subproc": gen_extract_subproc,
    "inline_window": gen_inline_window,
    "set_window": gen_set_window,
    "replace": gen_replace,
    "call_eqv": gen_call_eqv,
    "insert_noop_call": gen_insert_noop_call,
    # backend annotations
    "parallelize_loop": gen_parallelize_loop,
    "set_precision": gen_set_precision,
    "set_memory": gen_set_memory,
    # configurations
    "bind_config": gen_bind_config,
    "write_config": gen_write_config,
    "delete_config": gen_delete_config,
    # statements and expressions
    "simplify": gen_simplify,
    "rename": gen_rename,
    "insert_pass": gen_insert_pass,
    "delete_pass": gen_delete_pass,
    "reorder_stmts": gen_reorder_stmts,
    "commute_expr": gen_commute_expr,
    "left_reassociate_expr": gen_left_reassociate_expr,
    "rewrite_expr": gen_rewrite_expr,
    "merge_writes": gen_merge_writes,
    "split_write": gen_split_write,
    "fold_into_reduce": gen_fold_into_reduce,
    "inline_assign": gen_inline_assign,
    "lift_reduce_constant": gen_lift_reduce_constant,
}

PRIMITIVES = sorted(name for name in GENERATORS if hasattr(S, name))
# What schedules a callee for call_eqv: no primitive checked only when
# compiling (the step is dropped when code generation refuses the caller).
CALLEE_PRIMITIVES = [name for name in PRIMITIVES if name not in CHECKED_WHEN_COMPILING]


# --------------------------------------------------------------------------
# Running sequences


@dataclass
class Statistics:
    accepted: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)
    no_target: Counter = field(default_factory=Counter)
    checks: int = 0
    started: float = field(default_factory=time.perf_counter)


@pytest.fixture(scope="module")
def statistics(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    stats = Statistics()
    yield stats
    mp.undo()
    print_summary(stats)


def print_summary(stats):
    elapsed = time.perf_counter() - stats.started
    print(f"\nrandom schedules (EXO2_RANDOM_SEED={SEED}): {elapsed:.1f} s")
    print(f"{'primitive':<24}{'accepted':>10}{'refused':>10}{'no target':>11}")
    for name in PRIMITIVES:
        print(
            f"{name:<24}{stats.accepted[name]:>10}{stats.refused[name]:>10}"
            f"{stats.no_target[name]:>11}"
        )
    accepted, refused = stats.accepted.total(), stats.refused.total()
    print(f"{'total':<24}{accepted:>10}{refused:>10}{stats.no_target.total():>11}")
    print(f"kernel runs comparing procedures: {stats.checks}")
    exported = {
        name for name in S.__all__ if S.is_atomic_scheduling_op(getattr(S, name, None))
    }
    missing = sorted(exported - set(GENERATORS) - set(NOT_RANDOMIZED))
    if missing:
        print(f"exported primitives without a generator: {', '.join(missing)}")


def allocations(p, seen=None):
    """The allocations of `p` and of the procedures it calls."""
    seen = set() if seen is None else seen
    seen.add(p.name())
    for stmt, _ in walk(p.body()):
        if isinstance(stmt, AllocCursor):
            yield stmt
        elif isinstance(stmt, CallCursor) and stmt.subproc().name() not in seen:
            yield from allocations(stmt.subproc(), seen)


def refused_when_compiling(p):
    """Whether code generation refuses `p` for what it checks: a data race
    in a `par` loop, precisions, a memory's constraints."""
    # As in Exo, these memories declare a scalar as `float x[];`, which
    # the C compiler refuses.
    if any(
        not a.is_tensor() and a.mem() in (DRAM_STACK, DRAM_STATIC)
        for a in allocations(p)
    ):
        return True
    try:
        p.c_code_str()
    except MemGenError:
        return True
    except TypeError as e:
        # Other errors are left to the run, which reports them with the
        # schedule that led there.
        return any(
            message in str(e)
            for message in (
                "not parallelizable because of potential data races",
                "Errors occurred during precision checking",
                # set_memory: a call's argument no longer in the callee's
                # memory (procedure-and-codegen.md §5).
                "expected argument in ",
            )
        )
    return False


def mismatch(kernel, candidate, stats):
    """Why `candidate` does not compute what the kernel does, or None. Each
    procedure is compiled once for all the sizes."""
    stats.checks += 1
    try:
        if kernel.compiled is None:
            kernel.compiled = kernel.proc.jit(**JIT_OPTIONS)
        compiled = candidate.jit(**JIT_OPTIONS)
    except Exception as e:  # code that does not compile
        return f"{type(e).__name__}: {e}"
    for run, sizes in enumerate(kernel.sizes):
        try:
            assert_same_results(kernel.compiled, compiled, sizes, run, RTOL, ATOL)
        except Exception as e:  # a wrong result, or code that does not run
            return f"sizes {sizes}: {type(e).__name__}: {e}"
    return None


def failure_report(kernel, sequence_id, steps, before, after, why):
    lines = [
        f"EXO2_RANDOM_SEED={SEED}, kernel {kernel.proc.name()}, "
        f"sequence {sequence_id}: step {len(steps)} breaks the kernel",
        why,
        "schedule:",
        *(f"  {k + 1}. {step}" for k, step in enumerate(steps)),
        "before the last step:",
        str(before),
        "after:",
        str(after),
    ]
    return "\n".join(lines)


def first_bad_step(kernel, history, checked, stats):
    """The index in `history` of the first procedure after `checked` that
    differs from the kernel, and why."""
    for index in range(checked + 1, len(history)):
        why = mismatch(kernel, history[index], stats)
        if why:
            return index, why
    raise AssertionError("a mismatch that no intermediate procedure shows")


def run_sequence(kernel, sequence_id, stats):
    """Applies up to STEPS_PER_SEQUENCE accepted random steps; returns the
    number accepted, or raises AssertionError with a failure report."""
    seq = Sequence(random.Random(f"{SEED}:{kernel.proc.name()}:{sequence_id}"))
    history, steps = [kernel.proc], []
    checked = 0  # history[:checked + 1] is known to match the kernel

    def check():
        nonlocal checked
        if mismatch(kernel, history[-1], stats):
            index, why = first_bad_step(kernel, history, checked, stats)
            raise AssertionError(
                failure_report(
                    kernel,
                    sequence_id,
                    steps[:index],
                    history[index - 1],
                    history[index],
                    why,
                )
            )
        checked = len(history) - 1

    for _ in range(ATTEMPTS_PER_SEQUENCE):
        if len(steps) == STEPS_PER_SEQUENCE:
            break
        name = seq.choice(PRIMITIVES)
        view = View(history[-1])
        step = GENERATORS[name](view, seq)
        if step is None:
            stats.no_target[name] += 1
            continue
        try:
            after = step.apply(history[-1])
        except REFUSALS:
            stats.refused[name] += 1
            continue
        except Exception as e:
            raise AssertionError(
                failure_report(
                    kernel,
                    sequence_id,
                    [*steps, step],
                    history[-1],
                    "(none: the primitive crashed)",
                    f"{type(e).__name__}: {e}",
                )
            ) from e
        if CHECKED_WHEN_COMPILING & (seq.accepted | {name}) and refused_when_compiling(
            after
        ):
            # `par`, precisions and memories are checked when compiling, not
            # when scheduling (procedure-and-codegen.md §6, primitives.md
            # §9): a procedure refused then is dropped.
            stats.refused[name] += 1
            continue
        stats.accepted[name] += 1
        seq.accepted.add(name)
        if name == "set_memory" and step.args[1] is DRAM_STATIC:
            seq.static_memory = True
        history.append(after)
        steps.append(step)
        if len(history) - 1 - checked == CHECK_EVERY:
            check()
        if len(View(after).sites) > MAX_STATEMENTS:
            break
    if checked < len(history) - 1:
        check()
    return len(steps)


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.proc.name() for k in KERNELS])
def test_random_schedules_keep_results(kernel, statistics):
    accepted = 0
    for sequence_id in range(MAX_SEQUENCES):
        if accepted >= ACCEPTED_PER_KERNEL:
            break
        accepted += run_sequence(kernel, sequence_id, statistics)
    assert accepted >= ACCEPTED_PER_KERNEL, (
        f"only {accepted} accepted steps in {MAX_SEQUENCES} sequences"
    )


# --------------------------------------------------------------------------
# Bugs found by random schedules


def test_commute_expr_of_nested_expressions():
    """Found by a random schedule: commuting an expression and one inside it
    crashed. Both swap, innermost first."""

    @proc
    def blur(n: size, x: f32[n + 2], y: f32[n]):
        for i in seq(0, n):
            y[i] = x[i] + x[i + 1] + x[i + 2]

    outer = blur.find("y[_] = _").rhs()
    swapped = S.commute_expr(blur, [outer, outer.lhs()])
    assert "y[i] = x[i + 2] + (x[i + 1] + x[i])" in str(swapped)
    assert_same_results(blur, swapped, {"n": 7})


def test_specialize_of_a_window_statement():
    """Found by a random schedule: specialize copied a window statement into
    the branches, out of reach of its later uses."""

    @proc
    def windowed(n: size, m: size, a: f32[n, m + 2], y: f32[n, m]):
        for i in seq(0, n):
            row = a[i, 1 : m + 1]
            for j in seq(0, m):
                y[i, j] = row[j] * 0.5

    with pytest.raises(SchedulingError):
        S.specialize(windowed, windowed.find("row = _"), "m < 4")


def test_reorder_stmts_of_a_window_statement():
    """Found by a random schedule: a use of a window moved before it."""

    @proc
    def windowed(n: size, a: f32[n, 4], y: f32[n, 4]):
        for i in seq(0, n):
            row = a[i, 0:4]
            y[i, 0] = row[0]

    with pytest.raises(SchedulingError):
        S.reorder_stmts(windowed, windowed.find("row = _").expand(0, 1))


def test_fission_after_a_window_statement():
    """Found by a random schedule: fission split a window statement from a
    later use."""

    @proc
    def windowed(n: size, a: f32[n, 4], y: f32[n, 4]):
        for i in seq(0, n):
            row = a[i, 0:4]
            y[i, 0] = row[0]

    with pytest.raises(SchedulingError):
        S.fission(windowed, windowed.find("row = _").after())


def test_sink_alloc_into_an_else_renames_the_copy():
    """Found by a random schedule: after sinking an allocation into an if
    with an else, the C code of the else branch freed the buffer right after
    allocating it (a use after free, which corrupted the heap)."""

    @proc
    def branches(n: size, x: f32[n], y: f32[n]):
        s: f32[n]
        if n < 2:
            y[0] = 1.0
        else:
            for i in seq(0, n):
                s[i] = x[i]
            for i in seq(0, n):
                y[i] = s[i]

    sunk = S.sink_alloc(branches, branches.find("s : _"))
    code = sunk.c_code_str()
    orelse = code[code.index("} else {") :]
    assert orelse.index("free(s);") > orelse.index("y[i] = s[i];")
    assert_same_results(branches, sunk, {"n": 5})


def test_autolift_alloc_of_the_only_statement_of_a_loop():
    """Found by a random schedule: walking the loop's body afterwards raised
    a TypeError from the cursor API."""

    @proc
    def alone(n: size, y: f32[n]):
        for i in seq(0, n):  # noqa: B007
            tmp: f32[n]
        for i in seq(0, n):
            y[i] = 1.0

    lifted = S.autolift_alloc(alone, alone.find("tmp : _"))
    assert len(lifted.body()[1].body()) == 1
    assert "for i in seq(0, n):\n        pass" in str(lifted)


def test_bind_expr_buffer_passed_to_a_call():
    """Found by a random schedule: code generation refused the call with
    `expected argument in DRAM but got an argument in DRAM`."""

    @proc
    def twice(x: f32[4]):
        x[0] = 2.0 * x[1]

    bound = S.bind_expr(twice, [twice.find("x[0] = _").rhs().lhs()], "b")
    called = S.insert_noop_call(
        bound, bound.find("x[0] = _").before(), noop_scalar, ["b"]
    )
    assert "noop_scalar(b)" in str(called)
    called.c_code_str()


def test_autolift_alloc_keeping_dims_of_a_buffer_passed_to_a_call():
    """Found by a random schedule: the result did not compile (`expected a
    non-window tensor`). A buffer whose values depend on the lifted loop and
    that is passed whole to a tensor parameter is refused; one holding the
    same values in every iteration gets no dimension and stays passable."""

    @proc
    def fill(t: f32[4]):
        for j in seq(0, 4):
            t[j] = 1.0

    @proc
    def rows(n: size, y: f32[n, 4]):
        for i in seq(0, n):
            t: f32[4]
            fill(t)
            t[0] = y[i, 0]
            for j in seq(0, 4):
                y[i, j] = t[j]

    with pytest.raises(SchedulingError, match="buffer is passed as an argument"):
        S.autolift_alloc(rows, rows.find("t : _"), keep_dims=True)

    @proc
    def same_rows(n: size, y: f32[n, 4]):
        for i in seq(0, n):
            t: f32[4]
            fill(t)
            for j in seq(0, 4):
                y[i, j] = t[j]

    lifted = S.autolift_alloc(same_rows, same_rows.find("t : _"), keep_dims=True)
    assert "    t: f32[4] @ DRAM\n" in str(lifted)
    assert_same_results(same_rows, lifted, {"n": 3})
