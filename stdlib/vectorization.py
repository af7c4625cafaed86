"""Vectorizing a loop (docs/stdlib.md).

Part of exo2.stdlib.stdlib, which re-exports the public names.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from exo2.API_cursors import (
    AllocCursor,
    AssignConfigCursor,
    AssignCursor,
    CallCursor,
    ForCursor,
    IfCursor,
    InvalidCursorError,
    LiteralCursor,
    ReduceCursor,
    WindowStmtCursor,
)
from exo2.core.memory import Memory
from exo2.libs.memories import DRAM
from exo2.stdlib.binding import parallelize_and_lift_alloc
from exo2.stdlib.cleanup import dce
from exo2.stdlib.compute_staging import stage_compute
from exo2.stdlib.higher_order import (
    apply,
    attempt,
)
from exo2.stdlib.inspection import (
    get_symbols,
    nlr_stmts,
)
from exo2.stdlib.instruction_selection import replace_all_stmts
from exo2.stdlib.rc_wrappers import divide_loop_
from exo2.stdlib.reductions import parallelize_all_reductions
from exo2.stdlib.scheduling import (
    FormattedExprStr,
    SchedulingError,
    cut_loop,
    fission,
    lift_scope,
    reorder_loops,
    set_memory,
    shift_loop,
    simplify,
    unroll_loop,
    user_op,
    widen_loop,
)
from exo2.stdlib.statement_motion import fission_into_singles
from exo2.stdlib.vector_forms import (
    describe_vector_stmt,
    stmt_text,
    unmatched_vector_stmts,
)


@dataclass
class vectorize_cursors:
    loop: ForCursor

    def __iter__(self):
        yield self.loop


def _check_tail(tail):
    tails = {
        "cut_and_predicate",
        "predicate",
        "cut",
        "cut_and_guard",
        "guard",
        "perfect",
    }
    if tail not in tails:
        raise ValueError(f"tail must be one of {sorted(tails)}, not {tail!r}")


def _check_vectorizable(proc, loop, vec_width, mem_type):
    """`vectorize`'s preconditions on its arguments and on what the loop
    contains, checked before anything is rewritten: assignments,
    reductions, allocations, ifs and loops whose bounds do not depend on the
    vector loop's iterator (the vector loop moves inside them)."""
    if not isinstance(loop, ForCursor):
        raise SchedulingError(
            f"vectorize: expected a loop, got a {type(loop).__name__}"
        )
    if isinstance(vec_width, bool) or not isinstance(vec_width, int) or vec_width < 1:
        raise SchedulingError(
            f"vectorize: vec_width must be a positive int, not {vec_width!r}"
        )
    if not (isinstance(mem_type, type) and issubclass(mem_type, Memory)):
        raise SchedulingError(
            f"vectorize: mem_type must be a memory class such as AVX2, not {mem_type!r}"
        )
    name = loop.name()
    for s in nlr_stmts(proc, loop.body()):
        why = None
        if isinstance(s, CallCursor):
            why = (
                f"calls {s.subproc().name()}, which cannot be split into "
                "lanes (inline it first, or vectorize inside it)"
            )
        elif isinstance(s, WindowStmtCursor):
            why = "defines a window (inline_window it first)"
        elif isinstance(s, AssignConfigCursor):
            why = "writes a config field, which all lanes would share"
        elif isinstance(s, ForCursor) and name in set(
            [*get_symbols(proc, s.lo()), *get_symbols(proc, s.hi())]
        ):
            why = (
                f"has a loop whose bounds depend on '{name}': the vector loop "
                "moves inside inner loops, which needs bounds that do not"
            )
        if why:
            raise SchedulingError(
                f"vectorize: cannot vectorize the loop over '{name}': its body "
                f"{why}: {stmt_text(s)}"
            )


def _lane_loops(proc, loop, lifted=None):
    """Moves the vector loop `loop` inside the scopes of its body until each
    copy holds one statement that is not a loop (under the ifs of a guard):
    allocations of the body get a copy per lane (their names are added to
    `lifted`), the body is fissioned into one loop per statement, a loop
    whose body is one loop is reordered with it, and one whose body is an
    `if` around a loop lifts that loop above the if. Returns `(proc,
    loops)`, the copies of the vector loop."""
    lifted = [] if lifted is None else lifted
    loop = proc.forward(loop)
    allocs = [s for s in loop.body() if isinstance(s, AllocCursor)]
    if allocs and len(loop.body()) > 1:
        lifted += [a.name() for a in allocs]
        proc = apply(parallelize_and_lift_alloc)(proc, allocs)
        loop = proc.forward(loop)
    body = list(loop.body())
    if len(body) > 1:
        proc = apply(fission)(proc, [s.after() for s in body[:-1]])
        loops = []
        for s in body:
            proc, inner = _lane_loops(proc, proc.forward(s).parent(), lifted)
            loops += inner
        return proc, loops
    child = body[0]
    if isinstance(child, ForCursor):
        proc = reorder_loops(proc, loop)  # the cursor follows the lane loop
        return _lane_loops(proc, loop, lifted)
    if isinstance(child, IfCursor) and not child.orelse():
        guarded = list(child.body())
        allocs = [s for s in guarded if isinstance(s, AllocCursor)]
        if allocs and len(guarded) > 1:
            # out of the guard and the lane loop: a copy per lane
            lifted += [a.name() for a in allocs]
            lift = functools.partial(parallelize_and_lift_alloc, n_lifts=2)
            proc = apply(lift)(proc, allocs)
            guarded = list(proc.forward(loop).body()[0].body())
        if len(guarded) > 1:
            proc = apply(fission)(proc, [s.after() for s in guarded[:-1]], n_lifts=2)
            loops = []
            for s in guarded:
                proc, inner = _lane_loops(
                    proc, proc.forward(s).parent().parent(), lifted
                )
                loops += inner
            return proc, loops
        if isinstance(guarded[0], ForCursor):
            proc = lift_scope(proc, guarded[0])
            return _lane_loops(proc, loop, lifted)
    return proc, [loop]


def _is_flat(lane_loop):
    """Whether the body of the lane loop holds several statements, all
    assignments, reductions or allocations (no loop or if to move the lane
    loop into)."""
    body = list(lane_loop.body())
    return len(body) > 1 and all(
        isinstance(s, (AssignCursor, ReduceCursor, AllocCursor)) for s in body
    )


def _vectorize_lanes(proc, vector_loop, loops, lifted, precision, mem_type, rules):
    """Stages the computation of each lane loop into `mem_type` vectors and
    fissions it into one loop per statement. The per-lane copies of the
    body's allocations (`lifted`, their names) are vectors too: a value
    private to one iteration never goes through memory."""
    allocs = [
        s
        for s in nlr_stmts(proc, proc.forward(vector_loop).body())
        if isinstance(s, AllocCursor) and s.name() in lifted and s.mem() is DRAM
    ]
    proc = apply(set_memory)(proc, allocs, mem_type)
    for lane_loop in loops:
        proc = stage_compute(proc, lane_loop, precision, mem_type, list(rules))
        proc = fission_into_singles(proc, lane_loop)
    return proc


def _vector_stmts(proc, mem_type, outside=None):
    """The statements of `proc` on `mem_type` vectors, which C cannot access
    directly (none when it can), except those inside the loop `outside`."""
    if mem_type.can_read():
        return []
    stmts = unmatched_vector_stmts(proc, mem_type)
    return [s for s in stmts if not (outside and outside.is_ancestor_of(s))]


def _vector_stmts_before(proc, mem_type, outside=None):
    """`_vector_stmts` of `proc`, the procedure before a rewrite, found
    only when asked (`_left_on_vectors`): when the rewrite leaves no
    statement on vectors, which is the rule, nobody asks."""
    return functools.cache(lambda: _vector_stmts(proc, mem_type, outside))


def _left_on_vectors(proc, before, mem_type):
    """The statements on `mem_type` vectors not among `before()` (cursors
    into an ancestor of `proc`, from `_vector_stmts_before`)."""
    left = _vector_stmts(proc, mem_type)
    if not left:
        return []
    kept = set()
    for s in before():
        try:
            kept.add(proc.forward(s))
        except InvalidCursorError:
            pass
    return [s for s in left if s not in kept]


def _replace_lanes(proc, before, instructions, mem_type):
    """`replace_all_stmts`; when statements are left, once more after
    `simplify`, which puts indices such as `(8 * i + l) / 8` (left by
    `divide_dim`) into the form an instruction's window unifies with.
    Returns the procedure and the statements left on vectors (for
    `_check_all_replaced`)."""
    proc = replace_all_stmts(proc, list(instructions))
    if _left_on_vectors(proc, before, mem_type):
        proc = replace_all_stmts(simplify(proc), list(instructions))
        return proc, _left_on_vectors(proc, before, mem_type)
    return proc, []


def _check_all_replaced(proc, left, mem_type, vec_width, op="vectorize"):
    """Raises SchedulingError naming every statement of `left` (those on
    `mem_type` vectors that vectorizing left, `_left_on_vectors`) and the
    instruction form it needs: the C code generator would refuse them."""
    if not left:
        return
    lines = []
    for s in left:
        text, need = describe_vector_stmt(proc, s, mem_type)
        lines.append(f"  {text}\n    needs {need}")
    count = f"{len(left)} statement{'s' if len(left) > 1 else ''}"
    message = (
        f"{op}: no instruction given matches {count} on "
        f"{mem_type.name()} vectors, which C cannot access directly; each "
        f"needs an instruction of {vec_width} lanes of the form named:\n"
        + "\n".join(lines)
    )
    if any("needs a masked" in line for line in lines):
        message += (
            "\nA masked instruction whose precondition bounds its lane count "
            "(`N <= 8`) matches only where that is provable: with "
            'tail="cut_and_predicate", the last vector iteration.'
        )
    raise SchedulingError(message)


def _vector_loop(proc, outer, name, vec_width):
    """The loop over vectors `outer` (or its loop over lanes) in `proc`; a
    SchedulingError where the cleanups proved it empty and removed it (the
    loop over `name` never runs `vec_width` iterations, as in code whose
    conditions contradict each other)."""
    try:
        return proc.forward(outer)
    except InvalidCursorError:
        raise SchedulingError(
            f"vectorize: the loop over {name} never runs {vec_width} "
            f"iterations here: its bounds make the loop over whole vectors "
            f"empty, and it was removed; leave this loop scalar, or "
            f"vectorize one that can run a whole vector"
        ) from None


def _check_no_scalar_lanes(proc, outer, lane, mem_type):
    """Raises SchedulingError naming every lane loop (named `lane`) left in
    the vector loop `outer`: staging its statements into
    `mem_type` vectors did not apply (a reduction `unfold_reduce` could not
    unfold, say), and the loop would run it lane by lane, silently. With
    vectors C can read, lane loops are the code's intended form."""
    if mem_type.can_read():
        return
    outer = proc.forward(outer)
    left = [
        loop
        for loop in nlr_stmts(proc, outer.body())
        if isinstance(loop, ForCursor) and loop.name() == lane
    ]
    if not left:
        return
    lines = "\n".join(f"  {stmt_text(loop)}" for loop in left)
    raise SchedulingError(
        f"vectorize: the vector loop {outer.name()} keeps {len(left)} lane "
        f"loop{'s' if len(left) > 1 else ''} whose statements could not be "
        f"staged into {mem_type.name()} vectors; they would run one lane "
        f"at a time:\n{lines}"
    )


@user_op
def vectorize_predicate_tail(
    proc,
    loop,
    vec_width,
    precision,
    mem_type,
    instructions=(),
    rules=(),
    tail="cut_and_predicate",
    rc=False,
):
    """`vectorize` with a predicated tail: the loop is divided with a guard
    (`i < n` in every vector iteration), which masked (prefix) instructions
    absorb; with `cut_and_predicate`, the last vector iteration is cut off
    so that only it runs the masked instructions."""
    if tail not in {"predicate", "cut_and_predicate"}:
        raise ValueError(f"expected tail predicate or cut_and_predicate, not {tail!r}")
    loop = proc.forward(loop)
    name = loop.name()
    _check_vectorizable(proc, loop, vec_width, mem_type)
    before = _vector_stmts_before(proc, mem_type, outside=loop)
    proc = parallelize_all_reductions(proc, loop, factor=vec_width, memory=mem_type)
    proc, (outer, inner, _) = divide_loop_(proc, loop, vec_width, rc=True)
    lane = inner.name()
    proc = simplify(proc)
    inner = _vector_loop(proc, inner, name, vec_width)
    lifted = []
    proc, lane_loops = _lane_loops(proc, inner, lifted)
    proc = _vectorize_lanes(proc, outer, lane_loops, lifted, precision, mem_type, rules)
    if tail == "cut_and_predicate":
        outer = proc.forward(outer)
        cut = FormattedExprStr("_ - 1", outer.hi())
        proc = attempt(cut_loop)(proc, outer, cut)
        proc = dce(proc, proc.forward(outer).body())
    proc, left = _replace_lanes(proc, before, instructions, mem_type)
    _check_all_replaced(proc, left, mem_type, vec_width)
    outer = _vector_loop(proc, outer, name, vec_width)
    _check_no_scalar_lanes(proc, outer, lane, mem_type)
    if not rc:
        return proc
    return proc, vectorize_cursors(proc.forward(outer))


@user_op
def vectorize(
    proc,
    loop,
    vec_width,
    precision,
    mem_type,
    instructions=(),
    rules=(),
    tail="cut_and_predicate",
    rc=False,
):
    """Vectorizes `loop` by `vec_width` lanes: divides it, gives reductions
    over it `vec_width` partial sums, moves the lane loop inside the loops
    of the body, stages every computation into `mem_type` vectors of
    `precision` (operand groups chosen by `rules` such as `fma_rule`),
    fissions into single statements and replaces each by one of
    `instructions`; a statement no instruction matches is a SchedulingError
    naming the form it needs. `tail`: `cut_and_predicate` / `predicate`
    (masked instructions, `vectorize_predicate_tail`), or a `divide_loop`
    tail (`cut`, `cut_and_guard`, `guard`, `perfect`). rc: `(loop,)`, the
    vector loop."""
    _check_tail(tail)
    loop = proc.forward(loop)
    name = loop.name()
    _check_vectorizable(proc, loop, vec_width, mem_type)
    if tail in {"predicate", "cut_and_predicate"}:
        return vectorize_predicate_tail(
            proc, loop, vec_width, precision, mem_type, instructions, rules, tail, rc
        )
    before = _vector_stmts_before(proc, mem_type, outside=loop)
    proc, (outer, inner, _) = divide_loop_(proc, loop, vec_width, tail=tail, rc=True)
    lane = inner.name()
    proc = parallelize_all_reductions(proc, outer, memory=mem_type)
    lane_loop = proc.forward(outer).body()[0]
    if _is_flat(lane_loop):
        # Exo's order: the whole body staged at once, then fissioned, so
        # that the vectors of all its statements are declared first
        proc = stage_compute(proc, lane_loop, precision, mem_type, list(rules))
        proc = fission_into_singles(proc, lane_loop)
    else:
        lifted = []
        proc, lane_loops = _lane_loops(proc, lane_loop, lifted)
        proc = _vectorize_lanes(
            proc, outer, lane_loops, lifted, precision, mem_type, rules
        )
    proc, left = _replace_lanes(proc, before, instructions, mem_type)
    _check_all_replaced(proc, left, mem_type, vec_width)
    outer = _vector_loop(proc, outer, name, vec_width)
    _check_no_scalar_lanes(proc, outer, lane, mem_type)
    if not rc:
        return proc
    return proc, vectorize_cursors(proc.forward(outer))


@user_op
def vectorize_predicate_head(
    proc,
    loop,
    vec_width,
    precision,
    mem_type,
    instructions=(),
    rules=(),
    rc=False,
):
    """**[exo2]** `vectorize` with the whole vectors aligned to the end of
    `loop` (`for i in seq(0, n)`, which must run at least one iteration)
    and its first `(n - 1) % vec_width + 1` iterations, 1 to `vec_width`,
    run first as the last lanes of one vector that ends where the whole
    vectors begin: masked instructions whose guard reads `L - N <= i`
    (the suffix of the lanes). The loop is cut after those iterations; they
    are shifted to end at `vec_width` and widened to start at 0
    (`widen_loop`), which guards them. A loop whose other end is the one
    that lies on a vector boundary (a row of a triangle that ends at the
    row's end) keeps its whole vectors aligned, and its masked vector
    overlaps none of them. No reductions over the loop (their partial sums
    would start in the masked vector). rc: `(loop,)`, the loop over whole
    vectors."""
    loop = proc.forward(loop)
    name = loop.name()
    _check_vectorizable(proc, loop, vec_width, mem_type)
    if not (isinstance(loop.lo(), LiteralCursor) and loop.lo().value() == 0):
        raise SchedulingError(
            f"vectorize_predicate_head: the loop over {name} must start at 0"
        )
    reductions = [
        s
        for s in nlr_stmts(proc, loop.body())
        if isinstance(s, ReduceCursor)
        and name not in {str(v) for i in s.idx() for v in get_symbols(proc, i)}
    ]
    if reductions:
        raise SchedulingError(
            f"vectorize_predicate_head: the loop over {name} sums into "
            f"{reductions[0].name()} across its iterations; vectorize it with "
            "a predicated tail instead"
        )
    head_length = FormattedExprStr(f"(_ - 1) % {vec_width} + 1", loop.hi())
    try:
        proc = cut_loop(proc, loop, head_length)
    except SchedulingError:
        header = stmt_text(loop).split("): ", 1)[0] + "):"
        raise SchedulingError(
            f"vectorize_predicate_head: `{header}` may run no iteration, and "
            "its first vector would have no lane; specialize the loop on its "
            "upper bound being at least 1 first"
        ) from None
    head = proc.forward(loop)
    rest = head.next()
    proc = shift_loop(proc, rest, 0)
    proc, (vector_loop,) = vectorize(
        proc, rest, vec_width, precision, mem_type, instructions, rules,
        tail="perfect", rc=True,
    )  # fmt: skip
    head = proc.forward(head)
    proc = shift_loop(proc, head, FormattedExprStr(f"{vec_width} - _", head.hi()))
    proc = simplify(proc)
    proc = widen_loop(proc, proc.forward(head), 0)
    proc, (masked,) = vectorize(
        proc, proc.forward(head), vec_width, precision, mem_type, instructions,
        rules, tail="perfect", rc=True,
    )  # fmt: skip
    proc = simplify(unroll_loop(proc, masked))  # its one iteration
    if not rc:
        return proc
    return proc, vectorize_cursors(proc.forward(vector_loop))
