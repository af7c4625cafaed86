"""Loop bounds and trip counts: guarding a loop by an if, recursive
division, binary specialization, rounding, cutting and unrolling
(docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from exo2.API_cursors import (
    ExprCursor,
    ForCursor,
    IfCursor,
    InvalidCursor,
    InvalidCursorError,
    PassCursor,
    ReadCursor,
)
from exo2.stdlib.higher_order import attempt
from exo2.stdlib.inspection import (
    expr_to_string,
    get_conjuncts,
    is_binop,
)
from exo2.stdlib.rc_wrappers import (
    cut_loop_,
    divide_loop_,
    specialize_,
)
from exo2.stdlib.scheduling import (
    FormattedExprStr,
    SchedulingError,
    cut_loop,
    delete_pass,
    eliminate_dead_code,
    mult_loops,
    shift_loop,
    simplify,
    unroll_loop,
    user_op,
)


@user_op
def bound_loop_by_if(proc, loop):
    """`for i in seq(lo, hi): if i < e: s` → `for i in seq(lo, lo + e): s`
    (a `cut_loop` at `lo + e`, then dead-code elimination of the ifs that
    became constant and of the second loop; `pass` statements elsewhere in
    the procedure are deleted too)."""
    loop = proc.forward(loop)
    err = (
        "Expected loop to be of the following structure:\n"
        "for iter in seq(lo, hi):\n\t if iter < e:"
    )
    if len(loop.body()) != 1 or not isinstance(loop.body()[0], IfCursor):
        raise SchedulingError(err)
    if_c = loop.body()[0]
    cond = if_c.cond()
    if (
        not isinstance(if_c.orelse(), InvalidCursor)
        or not is_binop(proc, cond)
        or cond.op() != "<"
        or not isinstance(cond.lhs(), ReadCursor)
        or cond.lhs().name() != loop.name()
    ):
        raise SchedulingError(err)
    proc = cut_loop(proc, loop, FormattedExprStr("_ + _", loop.lo(), cond.rhs()))
    loop1 = proc.forward(loop)
    loop2 = loop1.next()
    proc = eliminate_dead_code(proc, loop1.body()[0])
    proc, success = attempt(eliminate_dead_code)(proc, loop2, rs=True)
    if success:
        return proc
    # the second loop may run: its if is always false, leaving a loop of
    # `pass`, which `delete_pass` deletes (with every other `pass`)
    proc = eliminate_dead_code(proc, proc.forward(loop2).body()[0])
    return delete_pass(proc)


def _cut_point(comparison, name):
    """`(cut, lower)` for a comparison `name + e op r` (the iterator `name`
    with coefficient 1 on the left): it holds exactly for `name >= cut`
    (`lower`) or `name < cut`; None for another form."""
    op = comparison.op()
    lhs = expr_to_string(comparison.lhs())  # fully parenthesised: `(i)`
    if op not in (">=", ">", "<", "<=") or lhs.count(f"({name})") != 1:
        return None
    if re.search(rf"[-*/%]\({name}\)|\({name}\)[*/%]", lhs):
        return None  # not the iterator itself, with coefficient 1
    rest = expr_to_string(comparison.lhs(), {name: 0})
    cut = f"{expr_to_string(comparison.rhs())} - ({rest})"
    if op in (">", "<="):
        cut += " + 1"
    return cut, op in (">=", ">")


@dataclass
class clip_loop_to_guard_cursors:
    loop: ForCursor

    def __iter__(self):
        yield self.loop


@user_op
def clip_loop_to_guard(proc, loop, rc=False):
    """`for i in seq(lo, hi): if c1 and c2 ...: s` → the loop cut where each
    comparison `i + e op r` (`op` one of `<`, `<=`, `>`, `>=`) changes truth,
    the parts where it is false emptied (a loop of `pass`, which
    `delete_pass` deletes), and the guard of the part where all hold dropped:
    `for i in seq(a, b): s`, without a guard. A comparison of another form,
    or whose cut point `cut_loop` refuses (it may lie outside the loop), is
    left for the last step, which drops the guard only where the remaining
    comparisons hold throughout the part (SchedulingError otherwise). rc:
    `(loop,)`, the clipped loop."""
    loop = proc.forward(loop)
    if not isinstance(loop, ForCursor):
        raise SchedulingError(f"expected a loop, not {type(loop).__name__}")
    body = loop.body()
    if len(body) != 1 or not isinstance(body[0], IfCursor) or body[0].orelse():
        raise SchedulingError("expected a loop whose body is one if without else")
    for comparison in get_conjuncts(proc, body[0].cond()):
        cut = _cut_point(comparison, loop.name())
        if cut is None:
            continue
        try:
            proc, (before, after) = cut_loop_(proc, loop, cut[0], rc=True)
        except SchedulingError:
            continue
        live, dead = (after, before) if cut[1] else (before, after)
        proc = eliminate_dead_code(proc, proc.forward(dead).body()[0])
        loop = proc.forward(live)
    proc = eliminate_dead_code(proc, loop.body()[0])
    if not rc:
        return proc
    return proc, clip_loop_to_guard_cursors(proc.forward(loop))


@user_op
def undo_divide_and_guard_loop(proc, loop):
    """Undoes `divide_loop(..., tail="guard")` on the outer loop `loop`:
    `mult_loops`, `simplify`, `bound_loop_by_if`."""
    loop = proc.forward(loop)
    proc = mult_loops(proc, loop, loop.name()[:-1])
    proc = simplify(proc)
    return bound_loop_by_if(proc, loop)


@dataclass
class divide_loop_recursive_cursors:
    outer_loops: list
    inner_loops: list
    tail_loop: ForCursor

    def __iter__(self):
        yield self.outer_loops
        yield self.inner_loops
        yield self.tail_loop


@user_op
def divide_loop_recursive(proc, loop, factor, tail="cut", rc=False):
    """Divides `loop` by `factor`, its tail by `factor // 2`, and so on
    down to 2. rc: `(outer_loops, inner_loops, tail_loop)`."""
    if tail not in {"cut", "cut_and_guard"}:
        raise SchedulingError("tail strategy must be cut or cut_and_guard")
    outer_loops, inner_loops = [], []
    tail_loop = loop
    while factor > 1:
        proc, (outer, inner, tail_loop) = divide_loop_(
            proc, tail_loop, factor, tail=tail, rc=True
        )
        outer_loops.append(outer)
        inner_loops.append(inner)
        factor //= 2
    if not rc:
        return proc
    return proc, divide_loop_recursive_cursors(
        [proc.forward(c) for c in outer_loops],
        [proc.forward(c) for c in inner_loops],
        proc.forward(tail_loop),
    )


@dataclass
class binary_specialize_cursors:
    stmts: list

    def __iter__(self):
        yield self.stmts


def _binary_specialize(proc, stmt, expr, values):
    """`binary_specialize`, returning the new procedure and the leaves
    `[(value, stmt), ...]` (`value` None for the general else branches)."""
    stmt = proc.forward(stmt)
    if isinstance(expr, ExprCursor):
        expr = expr_to_string(proc.forward(expr))
    if len(values) == 1:
        raise SchedulingError("Cannot specialize given one value!")
    leaves = []

    def rewrite(proc, stmt, values):
        if len(values) == 1:
            proc, (if_stmt,) = specialize_(
                proc, stmt, f"{expr} == {values[0]}", rc=True
            )
            proc = simplify(proc)
            if_stmt = proc.forward(if_stmt)
            leaves.append((values[0], if_stmt.body()[0]))
            leaves.append((None, if_stmt.orelse()[0]))
            # the context decides the test when `values` cover the range
            return eliminate_dead_code(proc, if_stmt)
        md = len(values) // 2
        proc, (if_stmt,) = specialize_(proc, stmt, f"{expr} < {values[md]}", rc=True)
        proc = rewrite(proc, if_stmt.body()[0], values[:md])
        if_stmt = proc.forward(if_stmt)
        return rewrite(proc, if_stmt.orelse()[0], values[md:])

    proc = rewrite(proc, stmt, sorted(values))
    live = []
    for value, leaf in leaves:
        try:
            leaf = proc.forward(leaf)
        except InvalidCursorError:
            continue
        if not isinstance(leaf, PassCursor):
            live.append((value, leaf))
    return proc, live


@user_op
def binary_specialize(proc, stmt, expr, values, rc=False):
    """Specializes `stmt` with a binary tree of `if expr < v` ending in
    `if expr == v` tests, so that each leaf sees one value of `values`;
    the values must cover every value `expr` can take (the last test is
    then decided by the context and removed), else `eliminate_dead_code`
    refuses. rc: `(stmts,)`, the specialized copies."""
    proc, leaves = _binary_specialize(proc, stmt, expr, values)
    if not rc:
        return proc
    return proc, binary_specialize_cursors([leaf for _, leaf in leaves])


@user_op
def round_loop(proc, loop, factor, up=True):
    """Rounds the trip count of `loop` up (a guarded division) or down (a
    cut one, the remainder in a tail loop) to a multiple of `factor`."""
    tail = "guard" if up else "cut"
    proc, (loop, _, _) = divide_loop_(proc, loop, factor, tail=tail, rc=True)
    return mult_loops(proc, loop, loop.name()[:-1])


@dataclass
class cut_loop_and_unroll_cursors:
    loop: ForCursor

    def __iter__(self):
        yield self.loop


@user_op
def cut_loop_and_unroll(proc, loop, const, front=True, rc=False):
    """Peels the first (`front`) or last iteration off `loop` and unrolls
    it; the rest of the loop starts at 0. rc: `(loop,)`, the rest."""
    loop = proc.forward(loop)
    cut = (
        FormattedExprStr("_ + 1", loop.lo())
        if front
        else FormattedExprStr("_ - 1", loop.hi())
    )
    proc, (const_loop, loop) = cut_loop_(proc, loop, cut, rc=True)
    if not front:
        const_loop, loop = loop, const_loop
    proc = shift_loop(proc, const_loop, 0)
    proc = simplify(proc)
    proc = unroll_loop(proc, const_loop)
    proc = shift_loop(proc, loop, 0)
    if not rc:
        return proc
    return proc, cut_loop_and_unroll_cursors(proc.forward(loop))
