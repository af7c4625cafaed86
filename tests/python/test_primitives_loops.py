"""Loop and scope primitives: printed results, results of the compiled
kernels before and after, refusals with their messages, and forwarding of
cursors taken before the primitive."""

# ruff: noqa: F821, E501, B007

from __future__ import annotations

import textwrap

import pytest
from exo2 import DRAM, config, proc
from exo2.API_cursors import InvalidCursorError
from exo2.API_scheduling import (
    SchedulingError,
    add_loop,
    cut_loop,
    divide_loop,
    divide_with_recompute,
    eliminate_dead_code,
    fission,
    fuse,
    is_atomic_scheduling_op,
    join_loops,
    lift_scope,
    mult_loops,
    remove_loop,
    reorder_loops,
    repeat,
    sched_seq,
    shift_loop,
    simplify,
    specialize,
    unroll_loop,
    widen_loop,
)
from schedule_check import assert_same_results


def text(s):
    return textwrap.dedent(s).strip()


@proc
def scale(n: size, x: f32[n] @ DRAM):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def add_rows(n: size, m: size, a: f32[n, m], y: f32[n]):
    for i in seq(0, n):
        for j in seq(0, m):
            y[i] += a[i, j]


@proc
def prefix(n: size, x: f32[n + 1]):
    for i in seq(0, n):
        x[i + 1] += x[i]


@proc
def two_parts(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        x[i] = 1.0
        y[i] = x[i] + 2.0


@proc
def carried(n: size, x: f32[n + 1], y: f32[n]):
    for i in seq(0, n):
        y[i] = x[i]
        x[i + 1] = 1.0


# --------------------------------------------------------------- divide_loop


def test_divide_loop_cut_prints_as_in_the_spec():
    p = divide_loop(scale, "i", 8, ["io", "ii"], tail="cut")
    assert str(p) == text("""
        def scale(n: size, x: f32[n] @ DRAM):
            for io in seq(0, n / 8):
                for ii in seq(0, 8):
                    x[8 * io + ii] = 2.0 * x[8 * io + ii]
            for ii in seq(0, n % 8):
                x[ii + n / 8 * 8] = 2.0 * x[ii + n / 8 * 8]
        """)
    assert str(simplify(p)) == text("""
        def scale(n: size, x: f32[n] @ DRAM):
            for io in seq(0, n / 8):
                for ii in seq(0, 8):
                    x[ii + 8 * io] = 2.0 * x[ii + 8 * io]
            for ii in seq(0, n % 8):
                x[ii + n / 8 * 8] = 2.0 * x[ii + n / 8 * 8]
        """)


def test_divide_loop_guard_prints_bound_and_guard():
    p = divide_loop(scale, "i", 8, ["io", "ii"])
    assert str(p) == text("""
        def scale(n: size, x: f32[n] @ DRAM):
            for io in seq(0, (n + 7) / 8):
                for ii in seq(0, 8):
                    if 8 * io + ii < n:
                        x[8 * io + ii] = 2.0 * x[8 * io + ii]
        """)
    assert "for io in seq(0, (7 + n) / 8):" in str(simplify(p))
    assert "if ii + 8 * io < n:" in str(simplify(p))


def test_divide_loop_cut_and_guard_wraps_the_tail():
    p = divide_loop(scale, "i", 4, ["io", "ii"], tail="cut_and_guard")
    assert "    if n % 4 > 0:\n        for ii in seq(0, n % 4):" in str(p)


@pytest.mark.parametrize("tail", ["guard", "cut", "cut_and_guard"])
def test_divide_loop_keeps_results(tail):
    p = divide_loop(scale, "i", 4, ["io", "ii"], tail=tail)
    assert_same_results(scale, p, {"n": 11})
    assert_same_results(scale, p, {"n": 12})


def test_divide_loop_perfect_needs_divisibility():
    with pytest.raises(SchedulingError) as info:
        divide_loop(scale, "i", 4, ["io", "ii"], perfect=True)
    e = info.value
    assert str(e) == "divide_loop: cannot perfectly divide 'n' by 4"
    assert e.op == "divide_loop"
    assert e.condition.startswith("Divisible(n, 4)")
    assert e.counterexample and e.counterexample["n"] % 4 != 0
    file, line, col = e.location
    source = open(file).read().splitlines()
    assert source[line - 1][col:] == "for i in seq(0, n):"
    assert "tail=" in e.hint


def test_divide_loop_perfect_with_precondition():
    @proc
    def scale4(n: size, x: f32[n]):
        assert n % 4 == 0
        for i in seq(0, n):
            x[i] = 2.0 * x[i]

    p = divide_loop(scale4, "i", 4, ["io", "ii"], perfect=True)
    assert (
        "for io in seq(0, n / 4):\n        for ii in seq(0, 4):\n            x[4 * io + ii]"
        in str(p)
    )
    assert_same_results(scale4, p, {"n": 16})


def test_divide_loop_cut_refuses_a_loop_that_may_run_nothing():
    # For n < 4 the loop over i runs nothing, but its cut tail would run
    # (n - 4) % 4 > 0 iterations, writing before x.
    @proc
    def shifted(n: size, x: f32[n + 4]):
        if n >= 4:
            for i in seq(0, n - 4):
                x[i] = 1.0

    p = lift_scope(shifted, shifted.find_loop("i"))
    p = eliminate_dead_code(p, p.find("if _:_"))
    for tail in ("cut", "cut_and_guard"):
        with pytest.raises(SchedulingError) as e:
            divide_loop(p, "i", 4, ["io", "ii"], tail=tail)
        assert str(e.value) == (
            "divide_loop: cannot cut the tail of the loop over i: "
            "its upper bound n - 4 may be negative"
        )
    q = divide_loop(p, "i", 4, ["io", "ii"], tail="guard")
    for n in (1, 3, 4, 7, 9):
        assert_same_results(shifted, q, {"n": n})


def test_divide_loop_refuses_nonzero_lower_bound():
    @proc
    def from_one(n: size, x: f32[n + 1]):
        for i in seq(1, n):
            x[i] = 0.0

    with pytest.raises(
        SchedulingError, match="expected the lower bound of the loop to be zero, got 1."
    ):
        divide_loop(from_one, "i", 4, ["io", "ii"])


def test_divide_loop_argument_errors():
    with pytest.raises(
        TypeError,
        match="argument 2, 'div_const' to divide_loop: expected a positive integer",
    ):
        divide_loop(scale, "i", 0, ["io", "ii"])
    with pytest.raises(
        ValueError,
        match="expected one of the following values: cut, guard, cut_and_guard",
    ):
        divide_loop(scale, "i", 4, ["io", "ii"], tail="bad")
    with pytest.raises(
        TypeError,
        match="argument 3, 'new_iters' to divide_loop: expected a list of length 2",
    ):
        divide_loop(scale, "i", 4, ["io"])
    with pytest.raises(
        TypeError,
        match="argument 1, 'loop_cursor' to divide_loop: expected a ForCursor",
    ):
        divide_loop(scale, "x[_] = _", 4, ["io", "ii"])


def test_divide_loop_forwards_cursors():
    loop = scale.find_loop("i")
    stmt = scale.find("x[_] = _")
    p = divide_loop(scale, loop, 4, ["io", "ii"], tail="cut")
    assert p.forward(loop) == p.find_loop("io")
    assert p.forward(stmt) == p.find("x[_] = _")
    assert p.forward(loop).next() == p.find_loop("ii #1")


def test_error_notes_name_operation_and_location(monkeypatch):
    monkeypatch.delenv("EXO2_PLAIN_ERRORS", raising=False)
    with pytest.raises(SchedulingError) as info:
        divide_loop(scale, "i", 4, ["io", "ii"], perfect=True)
    notes = info.value.__notes__
    assert notes[0].startswith("Operation: divide_loop (test_primitives_loops.py:")
    assert notes[1].startswith("Location: ")
    assert "for i in seq(0, n):" in notes[1]
    assert any(n.startswith("Hint: ") for n in notes)


def test_plain_errors_have_no_notes(monkeypatch):
    monkeypatch.setenv("EXO2_PLAIN_ERRORS", "1")
    with pytest.raises(SchedulingError) as info:
        divide_loop(scale, "i", 4, ["io", "ii"], perfect=True)
    assert not getattr(info.value, "__notes__", [])
    assert info.value.op == "divide_loop"


# ------------------------------------------------------------- reorder_loops


def test_reorder_loops_swaps_and_keeps_results():
    p = reorder_loops(add_rows, "i j")
    assert str(p) == text("""
        def add_rows(n: size, m: size, a: f32[n, m] @ DRAM, y: f32[n] @ DRAM):
            for j in seq(0, m):
                for i in seq(0, n):
                    y[i] += a[i, j]
        """)
    assert_same_results(add_rows, p, {"n": 5, "m": 7})


def test_reorder_loops_forwards_each_loop_to_its_new_level():
    outer = add_rows.find_loop("i")
    inner = add_rows.find_loop("j")
    p = reorder_loops(add_rows, outer)
    assert p.forward(outer) == p.find_loop("i")
    assert p.forward(inner) == p.find_loop("j")
    assert p.forward(add_rows.find("y[_] += _")) == p.find("y[_] += _")


def test_reorder_loops_refuses_a_dependence():
    @proc
    def wavefront(n: size, x: f32[n + 1, n + 1]):
        for i in seq(0, n):
            for j in seq(0, n):
                x[i + 1, j] = x[i, j + 1]

    with pytest.raises(SchedulingError) as info:
        reorder_loops(wavefront, "i j")
    assert str(info.value).startswith("reorder_loops: Loops i and j at ")
    assert str(info.value).endswith("cannot be reordered.")


def test_reorder_loops_refuses_a_non_perfect_nest():
    with pytest.raises(
        ValueError, match="expected the body of the outer loop to be a single loop"
    ):
        reorder_loops(two_parts, "i")


# --------------------------------------------------------------- unroll_loop


def test_unroll_loop_copies_the_body():
    @proc
    def three(x: f32[3]):
        for i in seq(0, 3):
            x[i] = 1.0

    p = unroll_loop(three, "i")
    assert str(p) == text("""
        def three(x: f32[3] @ DRAM):
            x[0] = 1.0
            x[1] = 1.0
            x[2] = 1.0
        """)
    assert_same_results(three, p, {})


def test_unroll_loop_needs_constant_bounds():
    with pytest.raises(
        SchedulingError, match="expected loop 'i' to have constant bounds"
    ):
        unroll_loop(scale, "i")


def test_unroll_loop_invalidates_the_loop():
    p1 = divide_loop(scale, "i", 2, ["io", "ii"], perfect=False, tail="cut")
    inner = p1.find_loop("ii")
    p2 = unroll_loop(p1, inner)
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        p2.forward(inner)
    assert_same_results(scale, p2, {"n": 7})


# ------------------------------------------------------- cut_loop, shift_loop


def test_cut_loop_splits_the_range():
    p = cut_loop(scale, "i", "n / 2")
    assert str(p) == text("""
        def scale(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n / 2):
                x[i] = 2.0 * x[i]
            for i in seq(n / 2, n):
                x[i] = 2.0 * x[i]
        """)
    assert_same_results(scale, p, {"n": 9})
    loop = scale.find_loop("i")
    assert cut_loop(scale, loop, "n / 2").forward(loop).next().lo().op() == "/"


def test_cut_loop_refuses_a_cut_outside_the_bounds():
    @proc
    def long(n: size, x: f32[n]):
        assert n >= 4
        for i in seq(0, n):
            x[i] = 0.0

    with pytest.raises(SchedulingError, match="Expected `cut_point` <= `hi`"):
        cut_loop(long, "i", "n + 1")
    with pytest.raises(SchedulingError, match="Expected `lo` <= `cut_point`"):
        cut_loop(cut_loop(long, "i", 3), "i #1", 1)


def test_shift_loop_offsets_the_iterator():
    p = shift_loop(scale, "i", 3)
    assert str(p) == text("""
        def scale(n: size, x: f32[n] @ DRAM):
            for i in seq(3, 3 + (n - 0)):
                x[i + (0 - 3)] = 2.0 * x[i + (0 - 3)]
        """)
    assert_same_results(scale, p, {"n": 6})
    with pytest.raises(SchedulingError, match="Expected 0 <= `new_lo`"):
        shift_loop(scale, "i", -1)


# ---------------------------------------------------------------- widen_loop


def test_widen_loop_guards_the_body_with_the_old_bounds():
    @proc
    def tail(n: size, x: f32[n]):
        assert 4 <= n
        for i in seq(2, n):
            x[i] = 2.0 * x[i]

    p = widen_loop(tail, "i", 0)
    assert str(p) == text("""
        def tail(n: size, x: f32[n] @ DRAM):
            assert 4 <= n
            for i in seq(0, n):
                if 2 <= i:
                    x[i] = 2.0 * x[i]
        """)
    assert_same_results(tail, p, {"n": 7})
    both = widen_loop(tail, "i", 1, "n + 3")
    assert "for i in seq(1, n + 3):\n        if 2 <= i and i < n:" in str(both)
    assert_same_results(tail, both, {"n": 4})
    upper = widen_loop(tail, "i", None, "2 * n")
    assert "for i in seq(2, 2 * n):\n        if i < n:" in str(upper)
    assert_same_results(tail, upper, {"n": 5})
    # the same bounds: the loop as it is, no test
    assert str(widen_loop(tail, "i", 2, "n")) == str(tail)
    # the body keeps its cursors
    stmt = tail.find("x[_] = _")
    assert p.forward(stmt) == p.find("x[_] = _")


def test_widen_loop_refuses_bounds_that_drop_iterations():
    @proc
    def tail(n: size, x: f32[n]):
        assert 4 <= n
        for i in seq(2, n):
            x[i] = 2.0 * x[i]

    with pytest.raises(SchedulingError, match=r"3 <= 2 may not hold"):
        widen_loop(tail, "i", 3)  # the first iteration would be skipped
    with pytest.raises(SchedulingError, match=r"0 <= -1 may not hold"):
        widen_loop(tail, "i", -1)
    with pytest.raises(SchedulingError, match=r"n <= n - 1 may not hold"):
        widen_loop(tail, "i", None, "n - 1")
    with pytest.raises(SchedulingError, match=r"n <= 5 may not hold"):
        widen_loop(tail, "i", None, 5)  # n may be larger


# --------------------------------------------------------------- remove_loop


def test_remove_loop_keeps_an_idempotent_body():
    @proc
    def fill(n: size, x: f32[4]):
        for i in seq(0, n):
            x[0] = 1.0

    p = remove_loop(fill, "i")
    assert str(p) == text("""
        def fill(n: size, x: f32[4] @ DRAM):
            x[0] = 1.0
        """)
    assert_same_results(fill, p, {"n": 3})
    stmt = fill.find("x[_] = _")
    assert p.forward(stmt) == p.find("x[_] = _")


def test_remove_loop_guards_a_possibly_empty_loop():
    @proc
    def fill(n: size, x: f32[4]):
        for i in seq(1, n):
            x[0] = 1.0

    assert "if n > 1:\n        x[0] = 1.0" in str(remove_loop(fill, "i"))


def test_remove_loop_refusals():
    with pytest.raises(
        SchedulingError, match="Cannot remove loop, i is not free in the loop body."
    ):
        remove_loop(scale, "i")

    @proc
    def accumulate(n: size, x: f32[4]):
        for i in seq(0, n):
            x[0] += 1.0

    with pytest.raises(SchedulingError, match="is not idempotent."):
        remove_loop(accumulate, "i")


# ------------------------------------------------------------------- fission


def test_fission_splits_the_loop():
    p = fission(two_parts, two_parts.find("x[_] = _").after())
    assert str(p) == text("""
        def two_parts(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                x[i] = 1.0
            for i in seq(0, n):
                y[i] = x[i] + 2.0
        """)
    assert_same_results(two_parts, p, {"n": 5})


def test_fission_forwards_statements_to_their_side():
    loop = two_parts.find_loop("i")
    second = two_parts.find("y[_] = _")
    p = fission(two_parts, two_parts.find("x[_] = _").after())
    assert p.forward(loop) == p.body()[0]
    assert p.forward(second) == p.body()[1].body()[0]


def test_fission_refuses_a_carried_dependence():
    with pytest.raises(SchedulingError, match="Cannot fission loop over i at "):
        fission(carried, carried.find("y[_] = _").after())


def test_fission_refuses_a_gap_at_an_edge():
    with pytest.raises(
        ValueError,
        match="expected cursor to point to a gap between statements, not at an edge",
    ):
        fission(two_parts, two_parts.find("x[_] = _").before())


def test_fission_lifts_through_two_loops():
    @proc
    def nest(n: size, x: f32[n, n], y: f32[n, n]):
        for i in seq(0, n):
            for j in seq(0, n):
                x[i, j] = 1.0
                y[i, j] = 2.0

    p = fission(nest, nest.find("x[_] = _").after(), n_lifts=2)
    assert str(p).count("for i in seq(0, n):") == 2
    assert_same_results(nest, p, {"n": 4})


def test_fission_of_an_if_moves_statements_with_their_side():
    @proc
    def branches(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            if i < 3:
                x[i] = 1.0
                y[i] = 2.0
            else:
                x[i] = 3.0
                y[i] = 4.0

    then_if = branches.find("if _: _")
    first, second = branches.find("x[_] = 1.0"), branches.find("y[_] = 2.0")
    p = fission(branches, first.after())
    assert str(p) == text("""
        def branches(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                if i < 3:
                    x[i] = 1.0
                if i < 3:
                    y[i] = 2.0
                else:
                    x[i] = 3.0
                    y[i] = 4.0
        """)
    assert p.forward(first) == p.find("x[_] = 1.0")
    assert p.forward(second) == p.find("y[_] = 2.0")
    assert p.forward(then_if) == p.find("if _: _ #1")
    assert p.forward(branches.find("x[_] = 3.0")) == p.find("x[_] = 3.0")
    assert_same_results(branches, p, {"n": 6})

    q = fission(branches, branches.find("x[_] = 3.0").after())
    assert str(q) == text("""
        def branches(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                if i < 3:
                    x[i] = 1.0
                    y[i] = 2.0
                else:
                    x[i] = 3.0
                if i < 3:
                    pass
                else:
                    y[i] = 4.0
        """)
    assert q.forward(branches.find("y[_] = 4.0")) == q.find("y[_] = 4.0")
    assert_same_results(branches, q, {"n": 6})


# ---------------------------------------------------------------------- fuse


def test_fuse_undoes_fission_and_keeps_results():
    p = fission(two_parts, two_parts.find("x[_] = _").after())
    second = p.find("y[_] = _")
    q = fuse(p, p.body()[0], p.body()[1])
    assert str(q) == str(two_parts)
    assert q.forward(second) == q.find("y[_] = _")
    assert q.forward(p.body()[0]) == q.find_loop("i")
    assert_same_results(p, q, {"n": 6})


def test_fuse_refusals():
    p = fission(carried, carried.find("y[_] = _").after(), unsafe_disable_checks=True)
    with pytest.raises(SchedulingError, match="Cannot fission loop over i at "):
        fuse(p, p.body()[0], p.body()[1])

    @proc
    def apart(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0
        y[0] = 0.0
        for j in seq(0, n):
            y[j] = 2.0

    with pytest.raises(
        SchedulingError,
        match="expected the two loops to be fused to come one right after the other",
    ):
        fuse(apart, "i", "j")

    @proc
    def mixed(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0
        if n > 2:
            x[0] = 0.0

    with pytest.raises(
        ValueError, match="either both point to loops or both point to if-guards"
    ):
        fuse(mixed, "i", "if _: _")


# ------------------------------------------------------------------ add_loop


def test_add_loop_wraps_an_idempotent_statement():
    @proc
    def fill(n: size, x: f32[4]):
        x[0] = 1.0

    stmt = fill.find("x[_] = _")
    p = add_loop(fill, stmt, "k", "n", guard=True)
    assert str(p) == text("""
        def fill(n: size, x: f32[4] @ DRAM):
            for k in seq(0, n):
                if k == 0:
                    x[0] = 1.0
        """)
    assert p.forward(stmt) == p.find("x[_] = _")
    assert_same_results(fill, p, {"n": 3})


def test_add_loop_refusals():
    @proc
    def bump(n: index, x: f32[4]):
        x[0] += 1.0

    with pytest.raises(SchedulingError, match="is not idempotent."):
        add_loop(bump, "x[_] += _", "k", 4)

    @proc
    def fill(n: index, x: f32[4]):
        x[0] = 1.0

    with pytest.raises(
        SchedulingError,
        match="The expression n is not guaranteed to be greater than 0.",
    ):
        add_loop(fill, "x[_] = _", "k", "n")


# ------------------------------------------------------- eliminate_dead_code


def test_eliminate_dead_code_keeps_the_branch_that_runs():
    @proc
    def guarded(n: size, x: f32[n]):
        for i in seq(0, n):
            if i < n:
                x[i] = 0.0
            else:
                x[0] = 1.0

    stmt = guarded.find("x[_] = 0.0")
    p = eliminate_dead_code(guarded, "if _: _")
    assert str(p) == text("""
        def guarded(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                x[i] = 0.0
        """)
    assert p.forward(stmt) == p.find("x[_] = _")
    assert_same_results(guarded, p, {"n": 4})


def test_eliminate_dead_code_refuses_a_live_if():
    @proc
    def maybe(n: size, x: f32[n]):
        for i in seq(0, n):
            if i < 2:
                x[i] = 0.0

    with pytest.raises(
        SchedulingError, match="If condition isn't always True or always False"
    ):
        eliminate_dead_code(maybe, "if _: _")
    with pytest.raises(SchedulingError, match="Loop condition isn't always False"):
        eliminate_dead_code(maybe, "i")


# ------------------------------------------------------------------- helpers


def test_helpers_compose_primitives():
    assert is_atomic_scheduling_op(divide_loop)
    p = sched_seq(scale, [(divide_loop, "i", 4, ["io", "ii"], "cut"), simplify])
    assert "x[ii + 8 * io]" not in str(p) and "x[ii + 4 * io]" in str(p)
    q = repeat(divide_loop, 1)(scale, "i", 2, ["io", "ii"])
    assert "for ii in seq(0, 2):" in str(q)
    with pytest.raises(
        TypeError, match="expected n_times to be None or a positive int"
    ):
        repeat(divide_loop, 0)


def test_simplify_forwards_unchanged_statements():
    p = divide_loop(scale, "i", 4, ["io", "ii"], tail="cut")
    stmt = p.find("x[_] = _")
    assert simplify(p).forward(stmt) == simplify(p).find("x[_] = _")


def test_simplify_keeps_results():
    for tail in ("cut", "guard", "cut_and_guard"):
        p = divide_loop(scale, "i", 4, ["io", "ii"], tail=tail)
        assert_same_results(p, simplify(p), {"n": 11})


def test_simplify_leaves_the_signature_shapes_as_written():
    """The signature is the procedure's interface: simplify rewrites the
    body's shapes and indices but not the parameters' (as Exo)."""

    @proc
    def pad(n: size, m: size, A: f32[n + m + 2], B: f32[m + 1 - 1, 2 * n]):
        t: f32[m + 1 - 1]
        for i in seq(0, n + m - m):
            A[i + 1 + 1] = B[0, i + n - n]

    p = simplify(pad)
    assert str(p) == text("""
        def pad(n: size, m: size, A: f32[n + m + 2] @ DRAM,
                B: f32[m + 1 - 1, 2 * n] @ DRAM):
            t: f32[m] @ DRAM
            for i in seq(0, n):
                A[2 + i] = B[0, i]
        """)
    assert_same_results(pad, p, {"n": 3, "m": 2})


# ---------------------------------------------------------------- lift_scope


@proc
def branchy(n: size, m: size, x: f32[n]):
    for i in seq(0, n):
        if m > 2:
            if n > 3:
                x[i] = 1.0
        else:
            x[i] = 3.0


def test_lift_scope_if_out_of_a_loop():
    @proc
    def choose(n: size, m: size, x: f32[n]):
        for i in seq(0, n):
            if m > 2:
                x[i] = 1.0
            else:
                x[i] = 2.0 * x[i]

    p = lift_scope(choose, "if _: _")
    assert str(p) == text("""
        def choose(n: size, m: size, x: f32[n] @ DRAM):
            if m > 2:
                for i in seq(0, n):
                    x[i] = 1.0
            else:
                for i in seq(0, n):
                    x[i] = 2.0 * x[i]
        """)
    for m in (1, 5):
        assert_same_results(choose, p, {"n": 6, "m": m})


def test_lift_scope_if_without_else_keeps_the_outer_else():
    # [fix] 11: when n > 3 fails, the outer else still runs.
    p = lift_scope(branchy, "if _: _ #1")
    assert str(p) == text("""
        def branchy(n: size, m: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                if n > 3:
                    if m > 2:
                        x[i] = 1.0
                    else:
                        x[i] = 3.0
                else:
                    if m > 2:
                        pass
                    else:
                        x[i] = 3.0
        """)
    for n in (2, 6):
        for m in (1, 5):
            assert_same_results(branchy, p, {"n": n, "m": m})


def test_lift_scope_if_out_of_an_else_branch():
    @proc
    def nested(n: size, m: size, x: f32[n]):
        for i in seq(0, n):
            if m > 2:
                x[i] = 3.0
            else:
                if n > 3:
                    x[i] = 1.0

    p = lift_scope(nested, "if _: _ #1")
    assert str(p) == text("""
        def nested(n: size, m: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                if n > 3:
                    if m > 2:
                        x[i] = 3.0
                    else:
                        x[i] = 1.0
                else:
                    if m > 2:
                        x[i] = 3.0
        """)
    for n in (2, 6):
        for m in (1, 5):
            assert_same_results(nested, p, {"n": n, "m": m})


def test_lift_scope_loop_out_of_an_if_and_out_of_a_loop():
    @proc
    def guarded(n: size, m: size, x: f32[n]):
        if m > 2:
            for i in seq(0, n):
                x[i] = 1.0

    p = lift_scope(guarded, "i")
    assert str(p) == text("""
        def guarded(n: size, m: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                if m > 2:
                    x[i] = 1.0
        """)
    assert_same_results(guarded, p, {"n": 5, "m": 3})
    assert str(lift_scope(add_rows, "j")) == str(reorder_loops(add_rows, "i j"))


def test_lift_scope_forwards_the_lifted_statement_and_its_code():
    inner = branchy.find("if _: _ #1")
    write = branchy.find("x[_] = 1.0")
    other = branchy.find("x[_] = 3.0")
    p = lift_scope(branchy, inner)
    assert p.forward(inner) == p.find("if _: _")
    assert p.forward(inner).cond() == p.find("if _: _").cond()
    assert p.forward(write) == p.find("x[_] = 1.0")
    assert p.forward(other) == p.find("x[_] = 3.0")
    with pytest.raises(InvalidCursorError):
        p.forward(branchy.find("if _: _"))


def test_lift_scope_refusals():
    with pytest.raises(
        SchedulingError, match="Cannot lift scope of top-level statement"
    ):
        lift_scope(scale, "i")

    @proc
    def uses_i(n: size, x: f32[n]):
        for i in seq(0, n):
            if i > 2:
                x[i] = 1.0

    with pytest.raises(
        SchedulingError, match="if statement depends on iteration variable"
    ):
        lift_scope(uses_i, "if _: _")

    @proc
    def with_else(n: size, m: size, x: f32[n]):
        if m > 2:
            for i in seq(0, n):
                x[i] = 1.0
        else:
            x[0] = 2.0

    with pytest.raises(
        SchedulingError, match="cannot lift for loop when if has an orelse clause"
    ):
        lift_scope(with_else, "i")

    @proc
    def two(n: size, m: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 0.0
            if m > 2:
                x[i] = 1.0

    with pytest.raises(
        SchedulingError, match="expected if statement to be directly nested in parent"
    ):
        lift_scope(two, "if _: _")


def test_lift_scope_refuses_a_condition_the_body_changes():
    @config
    class Flags:
        on: bool

    @proc
    def toggles(n: size, x: f32[n]):
        if Flags.on:
            for i in seq(0, n):
                Flags.on = False
                x[i] = 1.0

    with pytest.raises(
        SchedulingError, match="reads Flags.on, which the code inside writes"
    ):
        lift_scope(toggles, "i")


# ---------------------------------------------------------------- specialize


def test_specialize_copies_the_block_under_each_condition():
    p = specialize(scale, "for i in _: _", ["n < 8", "n == 8 or n > 100"])
    assert str(p) == text("""
        def scale(n: size, x: f32[n] @ DRAM):
            if n < 8:
                for i in seq(0, n):
                    x[i] = 2.0 * x[i]
            else:
                if n == 8 or n > 100:
                    for i in seq(0, n):
                        x[i] = 2.0 * x[i]
                else:
                    for i in seq(0, n):
                        x[i] = 2.0 * x[i]
        """)
    for n in (3, 8, 20):
        assert_same_results(scale, p, {"n": n})


def test_specialize_forwards_the_block_to_the_new_if():
    block = two_parts.find_loop("i").body()
    p = specialize(two_parts, block, "n > 4")
    assert p.forward(block) == p.find("if _: _").as_block()
    with pytest.raises(InvalidCursorError):
        p.forward(block[0])
    assert_same_results(two_parts, p, {"n": 6})


def test_specialize_refusals():
    @proc
    def staged(n: size, x: f32[n]):
        t: f32
        t = 1.0
        x[0] = t

    with pytest.raises(
        SchedulingError,
        match=r"Block contains allocations \('t',\) which are used outside the block.",
    ):
        specialize(staged, staged.body()[0:2], "n > 2")

    # Exo calls a window statement an allocation too.
    @proc
    def windowed(n: size, x: f32[n + 4]):
        t: f32
        t = 1.0
        w = x[0:4]
        w[0] = t

    with pytest.raises(SchedulingError) as e:
        specialize(windowed, windowed.body()[0:3], "n > 2")
    assert str(e.value) == (
        "specialize: Block contains allocations ('t',) and window "
        "statements ('w',) which are used outside the block."
    )
    with pytest.raises(SchedulingError, match="Invalid specialization condition."):
        specialize(scale, "for i in _: _", "n + 2")

    @proc
    def axpy(n: size, alpha: f32, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            y[i] += alpha * x[i]

    # A data condition is not a valid condition (as in Exo), not a type error.
    for cond in ("alpha == 0.0", "n > 2 and alpha < 1.0"):
        with pytest.raises(SchedulingError, match="Invalid specialization condition."):
            specialize(axpy, "for i in _: _", cond)


def test_add_loop_refuses_to_wrap_a_declaration():
    @proc
    def uses_temp(x: f32[4]):
        acc: f32
        acc = 0.0
        x[0] = acc

    with pytest.raises(
        SchedulingError, match="cannot add a loop around the declaration of acc"
    ):
        add_loop(uses_temp, uses_temp.find("acc: _"), "k", "2")


# An idempotent statement may read what it writes, when it wrote it first in
# the same run (the second run then reads what the first read), and may hold
# a reduction in a branch that never runs; both found by the differential
# run against Exo, which accepts them.


@proc
def reset_sums(n: size, m: size, a: f32[n, m], y: f32[n]):
    for i in seq(0, n):
        y[i] = 0.0
        for j in seq(0, m):
            y[i] += a[i, j]


def test_add_loop_accepts_a_reset_before_its_accumulation():
    loop = reset_sums.find_loop("i")
    p = add_loop(reset_sums, loop, "r1", 3)
    assert str(p) == text("""
        def reset_sums(n: size, m: size, a: f32[n, m] @ DRAM, y: f32[n] @ DRAM):
            for r1 in seq(0, 3):
                for i in seq(0, n):
                    y[i] = 0.0
                    for j in seq(0, m):
                        y[i] += a[i, j]
        """)
    for sizes in ({"n": 5, "m": 3}, {"n": 7, "m": 1}):
        assert_same_results(reset_sums, p, sizes)
    # The loop over j alone accumulates into the y[i] of the run before.
    with pytest.raises(SchedulingError, match="is not idempotent.") as e:
        add_loop(reset_sums, reset_sums.find_loop("j"), "r1", 3)
    assert [a.split(" at ")[0] for a in e.value.accesses] == ["y[i] reduced"]


def test_add_loop_refuses_a_reset_that_misses_what_is_read():
    # y[0] is reset, y[i] accumulated: the second run adds to the first's
    # sums for i > 0.
    @proc
    def reset_first(n: size, m: size, a: f32[n, m], y: f32[n]):
        for i in seq(0, n):
            y[0] = 0.0
            for j in seq(0, m):
                y[i] += a[i, j]

    with pytest.raises(SchedulingError, match="is not idempotent."):
        add_loop(reset_first, reset_first.find_loop("i"), "r1", 3)
    forced = add_loop(
        reset_first, reset_first.find_loop("i"), "r1", 3, unsafe_disable_check=True
    )
    with pytest.raises(AssertionError):
        assert_same_results(reset_first, forced, {"n": 5, "m": 3})

    # z[i] reads y[n - 1] before this run's iteration n - 1 writes it: the
    # first run reads the old value, the second the sum the first left.
    @proc
    def reads_ahead(n: size, m: size, a: f32[n, m], y: f32[n], z: f32[n]):
        for i in seq(0, n):
            y[i] = 0.0
            for j in seq(0, m):
                y[i] += a[i, j]
            z[i] = y[n - 1]

    with pytest.raises(SchedulingError, match="is not idempotent.") as e:
        add_loop(reads_ahead, reads_ahead.find_loop("i"), "r1", 2)
    assert [a.split(" at ")[0] for a in e.value.accesses] == [
        "y[i] written",
        "y[n - 1] read",
    ]
    forced = add_loop(
        reads_ahead, reads_ahead.find_loop("i"), "r1", 2, unsafe_disable_check=True
    )
    with pytest.raises(AssertionError):
        assert_same_results(reads_ahead, forced, {"n": 5, "m": 3})

    # A reset under a condition that may fail does not precede every read.
    @proc
    def reset_if(n: size, m: size, k: index, a: f32[n, m], y: f32[n]):
        for i in seq(0, n):
            if i < k:
                y[i] = 0.0
            for j in seq(0, m):
                y[i] += a[i, j]

    with pytest.raises(SchedulingError, match="is not idempotent."):
        add_loop(reset_if, reset_if.find_loop("i"), "r1", 2)


def test_add_loop_ignores_a_branch_that_never_runs():
    @proc
    def specialized(x: f32[8, 4], y: f32[8]):
        for i in seq(0, 8):
            if 1 < 2:
                y[i] = x[i, 0]
            else:
                for j in seq(0, 4):
                    y[i] += x[i, j]

    p = add_loop(specialized, specialized.find_loop("i"), "r1", 3)
    assert_same_results(specialized, p, {})
    # The reduction itself, in the branch that never runs: the context of
    # the statement holds no state.
    p = add_loop(specialized, specialized.find_loop("j"), "r1", 3)
    assert (
        "        else:\n"
        "            for r1 in seq(0, 3):\n"
        "                for j in seq(0, 4):\n"
        "                    y[i] += x[i, j]"
    ) in str(p)
    assert_same_results(specialized, p, {})

    # The same statements with the reduction in the branch that runs.
    @proc
    def runs_it(x: f32[8, 4], y: f32[8]):
        for i in seq(0, 8):
            if 1 < 2:
                for j in seq(0, 4):
                    y[i] += x[i, j]
            else:
                y[i] = x[i, 0]

    with pytest.raises(SchedulingError, match="is not idempotent."):
        add_loop(runs_it, runs_it.find_loop("i"), "r1", 3)


def test_remove_loop_and_divide_with_recompute_accept_a_reset_accumulation():
    @proc
    def repeated(n: size, m: size, a: f32[n, m], y: f32[n]):
        for r in seq(0, 3):
            for i in seq(0, n):
                y[i] = 0.0
                for j in seq(0, m):
                    y[i] += a[i, j]

    p = remove_loop(repeated, repeated.find_loop("r"))
    assert_same_results(repeated, p, {"n": 5, "m": 3})

    # Each iteration resets what it accumulates: recomputed iterations give
    # the same sums.
    @proc
    def long_sums(n: size, m: size, a: f32[n, m], y: f32[n]):
        assert n >= 4
        for i in seq(0, n):
            y[i] = 0.0
            for j in seq(0, m):
                y[i] += a[i, j]

    q = divide_with_recompute(long_sums, "i", "n / 4", 4, ["io", "ii"])
    for sizes in ({"n": 5, "m": 3}, {"n": 11, "m": 3}):
        assert_same_results(long_sums, q, sizes)


# ---------------------------------------------------------------- mult_loops


@proc
def tile(n: size, x: f32[n, 4]):
    for i in seq(0, n):
        for j in seq(0, 4):
            x[i, j] = 2.0 * x[i, j]


def test_mult_loops_fuses_the_iteration_spaces():
    p = mult_loops(tile, "i j", "k")
    assert str(p) == text("""
        def tile(n: size, x: f32[n, 4] @ DRAM):
            for k in seq(0, n * 4):
                x[k / 4, k % 4] = 2.0 * x[k / 4, k % 4]
        """)
    assert_same_results(tile, p, {"n": 5})


def test_mult_loops_refusals():
    @proc
    def rows(n: size, m: size, x: f32[n, m]):
        for i in seq(0, n):
            for j in seq(0, m):
                x[i, j] = 0.0

    with pytest.raises(
        SchedulingError,
        match="expected the inner loop to have a constant bound, got m.",
    ):
        mult_loops(rows, "i j", "k")

    @proc
    def offset(n: size, x: f32[n, 4]):
        for i in seq(1, n):
            for j in seq(0, 4):
                x[i, j] = 0.0

    with pytest.raises(
        SchedulingError,
        match="expected the inner and outer loops to have a constant lower "
        "bound of 0, got 0 and 1.",
    ):
        mult_loops(offset, "i j", "k")


def test_mult_loops_forwards_the_outer_loop_and_the_body():
    outer = tile.find_loop("i")
    inner = tile.find_loop("j")
    stmt = tile.find("x[_] = _")
    p = mult_loops(tile, outer, "k")
    assert p.forward(outer) == p.find_loop("k")
    assert p.forward(stmt) == p.find("x[_] = _")
    with pytest.raises(InvalidCursorError):
        p.forward(inner)


# ---------------------------------------------------------------- join_loops


def test_join_loops_undoes_cut_loop():
    cut = cut_loop(scale, "i", "n / 2")
    p = join_loops(cut, "i", "i #1")
    assert str(p) == text("""
        def scale(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                x[i] = 2.0 * x[i]
        """)
    assert_same_results(cut, p, {"n": 7})


def test_join_loops_refusals():
    @proc
    def two(n: size, x: f32[n + 3], y: f32[n + 3]):
        for i in seq(0, 2):
            x[i] = 0.0
        for i in seq(3, n + 3):
            x[i] = 0.0
        for i in seq(2, 3):
            y[i] = 0.0

    with pytest.raises(
        SchedulingError,
        match="expected the second loop to be directly after the first",
    ):
        join_loops(two, "i", "i #2")
    with pytest.raises(
        SchedulingError,
        match="expected the first loop upper bound 2 to be the same as the "
        "second loop lower bound 3",
    ):
        join_loops(two, "i", "i #1")

    @proc
    def different(n: size, x: f32[n], y: f32[n]):
        for i in seq(0, n / 2):
            x[i] = 0.0
        for i in seq(n / 2, n):
            y[i] = 0.0

    with pytest.raises(
        SchedulingError, match="expected the two loops to have identical bodies"
    ):
        join_loops(different, "i", "i #1")


def lifted_tail():
    """`for i in seq(4, n)` moved out of its `if n >= 4:` by lift_scope (the if
    then dropped as always true inside the loop): for n < 4 it runs nothing."""

    @proc
    def tail(n: size, x: f32[n + 4]):
        for i in seq(0, 4):
            x[i] = 1.0
        if n >= 4:
            for i in seq(4, n):
                x[i] = 1.0

    p = lift_scope(tail, tail.find_loop("i #1"))
    return tail, eliminate_dead_code(p, p.find("if _:_"))


def test_join_loops_refuses_when_the_second_loop_may_run_nothing():
    _, p = lifted_tail()
    with pytest.raises(SchedulingError) as e:
        join_loops(p, "i", "i #1")
    assert str(e.value) == (
        "join_loops: expected 0 <= 4 <= n: the joined loop would "
        "run other iterations than the two loops"
    )
    assert e.value.counterexample == {"n": 1}


def test_join_loops_joins_loops_whose_bounds_are_ordered():
    @proc
    def ordered(n: size, x: f32[n]):
        assert n >= 4
        for i in seq(0, 4):
            x[i] = 1.0
        for i in seq(4, n):
            x[i] = 1.0

    p = join_loops(ordered, "i", "i #1")
    assert "    for i in seq(0, n):\n        x[i] = 1.0" in str(p)
    for n in (4, 5, 9):
        assert_same_results(ordered, p, {"n": n})


def test_join_loops_forwards_the_first_loop():
    cut = cut_loop(scale, "i", "n / 2")
    first = cut.find_loop("i")
    second = cut.find_loop("i #1")
    stmt = cut.find("x[_] = _")
    p = join_loops(cut, first, second)
    assert p.forward(first) == p.find_loop("i")
    assert p.forward(stmt) == p.find("x[_] = _")
    with pytest.raises(InvalidCursorError):
        p.forward(second)


# ----------------------------------------------------- divide_with_recompute


@proc
def blur(n: size, x: f32[n + 2], y: f32[n]):
    assert n >= 4
    for i in seq(0, n):
        y[i] = x[i] + x[i + 2]


def test_divide_with_recompute_overlaps_the_inner_loops():
    p = divide_with_recompute(blur, "i", "n / 4", 4, ["io", "ii"])
    assert str(p) == text("""
        def blur(n: size, x: f32[n + 2] @ DRAM, y: f32[n] @ DRAM):
            assert n >= 4
            for io in seq(0, n / 4):
                for ii in seq(0, 4 + (n - (n - n % 4))):
                    y[io * 4 + ii] = x[io * 4 + ii] + x[io * 4 + ii + 2]
        """)
    assert_same_results(blur, p, {"n": 11})
    q = divide_with_recompute(blur, "i", 2, 2, ["io", "ii"])
    assert "for ii in seq(0, 2 + (n - 2 * 2)):" in str(q)
    assert_same_results(blur, q, {"n": 9})


def test_divide_with_recompute_refusals():
    with pytest.raises(
        SchedulingError, match="outer_hi \\* outer_stride exceeds loop's hi n"
    ):
        divide_with_recompute(blur, "i", "n / 2", 4, ["io", "ii"])

    @proc
    def shift(n: size, x: f32[n + 1], y: f32[n]):
        for i in seq(0, n):
            y[i] = x[i + 1]
            x[i] = 0.0

    # A recomputed iteration would read the zero another iteration wrote.
    with pytest.raises(SchedulingError, match="is not idempotent."):
        divide_with_recompute(shift, "i", "n / 4", 4, ["io", "ii"])

    @proc
    def small(n: size, y: f32[n]):
        for i in seq(0, n):
            y[i] = 1.0

    # For 0 < n < 4 there is no outer iteration and nothing would run.
    with pytest.raises(SchedulingError, match="expected outer_hi n / 4"):
        divide_with_recompute(small, "i", "n / 4", 4, ["io", "ii"])


def test_divide_with_recompute_forwards_the_loop_and_the_body():
    loop = blur.find_loop("i")
    stmt = blur.find("y[_] = _")
    p = divide_with_recompute(blur, loop, "n / 4", 4, ["io", "ii"])
    assert p.forward(loop) == p.find_loop("io")
    assert p.forward(stmt) == p.find("y[_] = _")
    assert p.forward(stmt).parent() == p.find_loop("ii")
