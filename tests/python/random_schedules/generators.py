"""Random arguments for the scheduling primitives: one generator per
primitive (`GENERATORS`), picking cursors by walking the procedure, and
factors, cut points, expressions and fresh names with a seeded generator.

Arguments are well formed but not always safe: a generator sometimes asks
for a step that must be refused (a wrong rewrite, a config write before a
call whose callee asserts the field's value, a window that is only
conditionally written).
"""

import random
import re
from dataclasses import dataclass, field

import exo2.API_scheduling as S
from exo2.API_cursors import (
    AssignConfigCursor,
    AssignCursor,
    BinaryOpCursor,
    CallCursor,
    ForCursor,
    IfCursor,
    LiteralCursor,
    ReadCursor,
    ReduceCursor,
    WindowStmtCursor,
)
from exo2.API_types import ExoType
from exo2.core.memory import DRAM
from exo2.libs.memories import DRAM_STACK, DRAM_STATIC

from .corpus import (
    NOOPS,
    REPLACEMENTS,
    Knobs,
    Mode,
    noop,
    noop_at_least_four,
    noop_index,
    noop_scalar,
)
from .navigation import View, describe, expressions_of, is_control, text, walk
from .refusals import refusal_reason

# Exported primitives that random testing does not exercise, and why.
NOT_RANDOMIZED = {
    "make_instr": "an instruction's C is trusted, not checked",
    "add_unsafe_guard": "unchecked by design",
}

# Primitives whose result code generation checks (docs/compiling-and-calling.md):
# once one of them is accepted in a sequence, every later procedure goes
# through code generation first, and a step that code generation refuses is
# dropped.
CHECKED_WHEN_COMPILING = {"parallelize_loop", "set_memory", "set_precision", "call_eqv"}

# Names that C or the C library reserve: the C must not use them as they are.
C_RESERVED_NAMES = ["int", "float", "for", "malloc", "free", "exp", "ctxt"]


class CalleeCrash(Exception):
    """A primitive crashed while a generator scheduled a procedure to pass
    as an argument."""

    def __init__(self, step, proc):
        super().__init__(f"{step} crashed on\n{proc}")
        self.step = step


@dataclass
class Sequence:
    """The random choices of one sequence, and its counter of fresh names."""

    rng: random.Random
    tag: str = ""  # makes the names of new procedures unique in a run
    fresh_count: int = 0

    def name(self, base, view=None):
        """A fresh name, or (one time in ten) a name already in use, or
        one that C reserves."""
        if view is not None and self.rng.random() < 0.1:
            used = [s.name() for s in view.loops()] + view.size_params
            return self.rng.choice(used + C_RESERVED_NAMES)
        self.fresh_count += 1
        return f"{base}{self.fresh_count}"

    def proc_name(self, base):
        """A fresh name for a new procedure: procedures of several
        sequences are compiled together."""
        self.fresh_count += 1
        return f"{base}{self.tag}_{self.fresh_count}"

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


def gen_widen_loop(view, seq):
    loop = seq.choice(view.loops())
    if loop is None:
        return None
    lo, hi, k = text(loop.lo()), text(loop.hi()), seq.small_int(1, 3)
    new_lo = seq.choice([None, 0, f"{lo} - {k}", bound_text(view, loop, seq)])
    new_hi = seq.choice([None, f"{hi} + {k}", bound_text(view, loop, seq)])
    return Step("widen_loop", (loop, new_lo, new_hi))


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
    """A loop or if inside another (one at the top has nothing to leave)."""
    scope = seq.choice(
        [s for s in view.statements((ForCursor, IfCursor)) if view.depth(s)]
    )
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
    """Mostly an if (a loop is rarely dead), often one inside a loop, whose
    iterator's range may decide it."""
    ifs = view.statements(IfCursor)
    nested = [s for s in ifs if view.depth(s)]
    stmt = seq.choice(
        nested
        if nested and seq.rng.random() < 0.5
        else ifs
        if ifs and seq.rng.random() < 0.7
        else view.statements((ForCursor, IfCursor))
    )
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
    """Rewrites into an equal expression, or (one time in four) into one
    that may differ, which must be refused where it does. Integer identities
    include floor division and modulo (`(t - 4) % 4 + 4 * (t / 4)` is `t`):
    the C must compute them as the object language does."""
    picked = seq.choice(view.expressions())
    if picked is None:
        return None
    expr, _ = picked
    t = text(expr)
    m = seq.choice([2, 3, 4])
    if expr.type() == ExoType.Bool:
        options = [f"{t} and True", f"{t} or False", f"{t} or {t}"]
        wrong = [f"{t} and False"]
    elif is_control(expr):
        options = [
            f"{t} + 0",
            f"0 + {t}",
            f"{t} * 1",
            f"({t} + 1) - 1",
            f"({t} * {m}) / {m}",
            f"{t} / {m} * {m} + {t} % {m}",
            f"({t} - {m}) % {m} + {m} * ({t} / {m})",
        ]
        wrong = [f"{t} + 1", f"{t} % {m}", f"({t} + 1) / {m} * {m}"]
    else:
        options = [f"{t} + 0.0", f"{t} * 1.0", f"({t} * 2.0) * 0.5"]
        wrong = [f"{t} + 1.0"]
    if isinstance(expr, BinaryOpCursor) and expr.op() in ("+", "*"):
        options.append(f"{text(expr.rhs())} {expr.op()} {text(expr.lhs())}")
    new = seq.choice(wrong if seq.rng.random() < 0.25 else options)
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


def has_static_buffer(view):
    return "@ DRAM_STATIC" in str(view.proc)


def has_parallel_loop(view):
    return " in par(" in str(view.proc)


def gen_parallelize_loop(view, seq):
    loop = seq.choice(view.loops())
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
    alloc = seq.choice(view.allocs())
    if alloc is None:
        return None
    return Step(
        "autolift_alloc",
        (alloc,),
        {
            "n_lifts": seq.small_int(1, max(1, view.depth(alloc))),
            "mode": seq.choice(["row", "col"]),
            "keep_dims": seq.rng.random() < 0.5,
        },
    )


def gen_sink_alloc(view, seq):
    alloc = seq.choice(view.allocs())
    return None if alloc is None else Step("sink_alloc", (alloc,))


def gen_delete_buffer(view, seq):
    alloc = seq.choice(view.allocs())
    return None if alloc is None else Step("delete_buffer", (alloc,))


def buffer_type(alloc):
    shape = [text(e) for e in alloc.shape()] if alloc.is_tensor() else []
    return alloc.type(), shape


def gen_reuse_buffer(view, seq):
    """Mostly a buffer and one of the same type allocated after it in its
    scope."""
    allocs = view.allocs()
    if len(allocs) < 2:
        return None
    first, second = seq.rng.sample(allocs, 2)
    later = [
        (a, b)
        for k, a in enumerate(allocs)
        for b in allocs[k + 1 :]
        if (not a.parent() or a.parent().is_ancestor_of(b))  # in its scope
        and buffer_type(a) == buffer_type(b)
    ]
    if later and seq.rng.random() < 0.8:
        first, second = seq.choice(later)
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
    """A window string over a buffer accessed in `stmt` or inside it: each
    index kept as a point (when it names no iterator of a loop inside) or
    widened to the whole dimension."""
    accesses, inner = [], set()
    for s, iters in walk([stmt]):
        inner.update(iters)
        accesses += [
            e for e in expressions_of(s) if isinstance(e, ReadCursor) and len(e.idx())
        ]
        if isinstance(s, (AssignCursor, ReduceCursor)) and len(s.idx()):
            accesses.append(s)
    access = seq.choice(accesses)
    if access is None:
        return None
    shapes = {a.name(): a.shape() for a in view.proc.args() if a.is_tensor()}
    shapes.update({a.name(): a.shape() for a in tensor_allocs(view)})
    if access.name() not in shapes:
        return None
    entries = []
    for i, extent in zip(access.idx(), shapes[access.name()], strict=True):
        point = text(i)
        names = set(re.findall(r"[A-Za-z_]\w*", point))
        if names & inner or seq.rng.random() < 0.5:
            entries.append(f"0:{text(extent)}")
        else:
            entries.append(point)
    return f"{access.name()}[{', '.join(entries)}]"


def gen_stage_mem(view, seq):
    """Stages around one statement, a loop or an if (whose writes may be
    conditional, or in a loop that runs zero times)."""
    stmt = seq.choice(
        view.statements((AssignCursor, ReduceCursor, ForCursor, IfCursor))
    )
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
    return Step(
        "extract_subproc",
        (stmt, seq.proc_name("sub")),
        {"include_asserts": seq.rng.random() < 0.7},
    )


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
    memories = [DRAM, DRAM_STACK, DRAM_STATIC]
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
    elif instr_ in (noop_index, noop_at_least_four):
        args = [str(bound_text(view, stmt, seq))]
    elif instr_ is noop_scalar:
        args = [seq.choice(scalar_data_names(view) or ["1.0"])]
    else:
        tensor = seq.choice([a for a in view.proc.args() if a.is_tensor()])
        if tensor is None:
            return None
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
    if expr.type() == ExoType.Bool:
        fields = [(Knobs, "on"), (Mode, "on")]
    else:
        fields = [(Knobs, "gain"), (Knobs, "bias")]
    if seq.rng.random() < 0.15:  # maybe a field of another type: refused
        fields = [(Knobs, "gain"), (Mode, "on"), (Mode, "k")]
    return Step("bind_config", (expr, *seq.choice(fields)))


def gen_write_config(view, seq):
    """Writes a field that conditions, bounds or preconditions may read."""
    gap = random_gap(view, seq)
    if gap is None:
        return None
    config_, field_ = seq.choice(
        [(Knobs, "gain"), (Knobs, "bias"), (Knobs, "on"), (Mode, "k"), (Mode, "m")]
        + [(Mode, "on")]
    )
    if field_ == "on":
        rhs = seq.choice(["True", "False"])
    elif field_ == "k":
        rhs = seq.choice(["0", "1", "2", *view.size_params])
    elif field_ == "m":
        rhs = seq.choice(["1", "2", "4", *view.size_params])
    else:
        rhs = seq.choice([*scalar_data_names(view), "0.5", "2.0"])
    return Step("write_config", (gap, config_, field_, rhs))


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
                view.proc, block, seq.proc_name("r"), seq.rng.random() < 0.5
            )
        except Exception as e:
            if refusal_reason("extract_subproc", e) is None:
                raise CalleeCrash(Step("extract_subproc", (block,)), view.proc) from e
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
    callee = call.subproc()
    eqv, steps = callee, []
    for _ in range(seq.small_int(1, 3)):
        name = seq.choice(CALLEE_PRIMITIVES)
        step = GENERATORS[name](View(eqv), seq)
        if step is None:
            continue
        try:
            eqv = step.apply(eqv)
        except Exception as e:
            if refusal_reason(step.primitive, e) is None:
                raise CalleeCrash(step, eqv) from e
            continue
        steps.append(step)
    if steps:  # two different procedures of one name cannot be compiled
        steps.append(Step("rename", (seq.proc_name(callee.name()),)))
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
    "widen_loop": gen_widen_loop,
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
