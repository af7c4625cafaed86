"""exo2.stdlib.rc_wrappers: primitives that also return the cursors of what
they made."""

from __future__ import annotations

import textwrap

import pytest
from exo2 import SchedulingError, proc
from exo2.API_cursors import ForCursor, IfCursor, InvalidCursor
from exo2.stdlib import scheduling
from exo2.stdlib.rc_wrappers import (
    cut_loop_,
    cut_loop_cursors,
    divide_loop_,
    divide_loop_cursors,
    fission_,
    fission_cursors,
    specialize_,
    specialize_cursors,
    stage_mem_,
    stage_mem_cursors,
)
from schedule_check import assert_same_results


def expect(p, text):
    assert str(p) == textwrap.dedent(text).strip()


@proc
def two(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        x[i] = 1.0
        y[i] = x[i] * 2.0
        if n > 3:
            x[i] = 3.0
            y[i] = 4.0


@proc
def scale(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = x[i] * 2.0


# --------------------------------------------------------------------------- #
# fission_


def test_fission_at_a_gap_after_a_statement():
    p, cursors = fission_(two, two.find("x[i] = 1.0").after(), rc=True)
    expect(
        p,
        """
        def two(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            for i in seq(0, n):
                x[i] = 1.0
            for i in seq(0, n):
                y[i] = x[i] * 2.0
                if n > 3:
                    x[i] = 3.0
                    y[i] = 4.0
        """,
    )
    assert isinstance(cursors, fission_cursors)
    scope1, scope2 = cursors
    assert scope1 == p.body()[0] and scope2 == p.body()[1]
    assert p.forward(two.find("x[i] = 1.0")) == scope1.body()[0]
    assert_same_results(two, p, {"n": 6})
    assert fission_(two, two.find("x[i] = 1.0").after()) == p


def test_fission_at_a_gap_before_a_statement():
    p, (scope1, scope2) = fission_(two, two.find("if _: _").before(), rc=True)
    assert [len(scope1.body()), len(scope2.body())] == [2, 1]
    assert scope1 == p.body()[0] and scope2 == p.body()[1]
    assert scope2.body()[0] == p.forward(two.find("if _: _"))
    assert_same_results(two, p, {"n": 5})


def test_fission_inside_an_if():
    p, (scope1, scope2) = fission_(two, two.find("x[i] = 3.0").after(), rc=True)
    assert isinstance(scope1, IfCursor) and isinstance(scope2, IfCursor)
    assert scope1.body()[0] == p.find("x[i] = 3.0")
    assert scope2.body()[0] == p.find("y[i] = 4.0")


def test_fission_refusals_name_the_wrapper():
    @proc
    def through_scalar(n: size, x: f32[n], y: f32[n]):
        t: f32
        for i in seq(0, n):
            t = x[i]
            y[i] = t

    with pytest.raises(SchedulingError, match="Cannot fission loop") as info:
        fission_(through_scalar, through_scalar.find("t = _").after())
    assert [entry[0] for entry in info.value.op_stack] == ["fission_", "fission"]
    with pytest.raises(ValueError, match="not at an edge"):
        fission_(two, two.find("x[i] = 1.0").before())


# --------------------------------------------------------------------------- #
# divide_loop_


def test_divide_loop_with_a_guard():
    p, cursors = divide_loop_(scale, scale.find_loop("i"), 4, rc=True)
    expect(
        p,
        """
        def scale(n: size, x: f32[n] @ DRAM):
            for io in seq(0, (n + 3) / 4):
                for ii in seq(0, 4):
                    if 4 * io + ii < n:
                        x[4 * io + ii] = x[4 * io + ii] * 2.0
        """,
    )
    assert isinstance(cursors, divide_loop_cursors)
    outer, inner, tail = cursors
    assert outer == p.find_loop("io") and inner == p.find_loop("ii")
    assert tail == InvalidCursor()
    assert_same_results(scale, p, {"n": 7})


def test_divide_loop_with_a_cut_tail():
    p, (outer, inner, tail) = divide_loop_(scale, "i", 4, tail="cut", rc=True)
    expect(
        p,
        """
        def scale(n: size, x: f32[n] @ DRAM):
            for io in seq(0, n / 4):
                for ii in seq(0, 4):
                    x[4 * io + ii] = x[4 * io + ii] * 2.0
            for ii in seq(0, n % 4):
                x[ii + n / 4 * 4] = x[ii + n / 4 * 4] * 2.0
        """,
    )
    assert outer == p.body()[0] and inner == outer.body()[0]
    assert tail == p.body()[1] and isinstance(tail, ForCursor)
    assert_same_results(scale, p, {"n": 7})


def test_divide_loop_cut_and_guard_returns_the_guarded_tail():
    p, (_, _, tail) = divide_loop_(scale, "i", 4, tail="cut_and_guard", rc=True)
    assert isinstance(tail, IfCursor) and tail == p.body()[1]
    assert_same_results(scale, p, {"n": 9})


def test_divide_loop_perfect():
    @proc
    def even(n: size, x: f32[n]):
        assert n % 4 == 0
        for i in seq(0, n):
            x[i] = 1.0

    p, (outer, inner, tail) = divide_loop_(even, "i", 4, tail="perfect", rc=True)
    assert "for io in seq(0, n / 4):" in str(p) and "if" not in str(p)
    assert (outer, inner, tail) == (
        p.find_loop("io"),
        p.find_loop("ii"),
        InvalidCursor(),
    )
    assert_same_results(even, p, {"n": 8})
    with pytest.raises(SchedulingError, match="cannot perfectly divide 'n' by 4"):
        divide_loop_(scale, "i", 4, tail="perfect")


def test_divide_loop_bad_tail():
    with pytest.raises(ValueError, match="expected one of the following values"):
        divide_loop_(scale, "i", 4, tail="round")


# --------------------------------------------------------------------------- #
# cut_loop_


def test_cut_loop():
    p, cursors = cut_loop_(scale, scale.find_loop("i"), "n / 2", rc=True)
    expect(
        p,
        """
        def scale(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n / 2):
                x[i] = x[i] * 2.0
            for i in seq(n / 2, n):
                x[i] = x[i] * 2.0
        """,
    )
    assert isinstance(cursors, cut_loop_cursors)
    loop1, loop2 = cursors
    assert loop1 == p.body()[0] and loop2 == p.body()[1]
    assert_same_results(scale, p, {"n": 7})
    with pytest.raises(SchedulingError, match="Expected `cut_point` <= `hi`"):
        cut_loop_(scale, "i", "n + 1")


# --------------------------------------------------------------------------- #
# specialize_


def test_specialize_a_statement():
    p, cursors = specialize_(scale, scale.find_loop("i"), "n > 4", rc=True)
    expect(
        p,
        """
        def scale(n: size, x: f32[n] @ DRAM):
            if n > 4:
                for i in seq(0, n):
                    x[i] = x[i] * 2.0
            else:
                for i in seq(0, n):
                    x[i] = x[i] * 2.0
        """,
    )
    assert isinstance(cursors, specialize_cursors)
    (if_stmt,) = cursors
    assert if_stmt == p.body()[0] and isinstance(if_stmt, IfCursor)
    assert_same_results(scale, p, {"n": 6})
    assert_same_results(scale, p, {"n": 3})


def test_specialize_inside_an_else_branch_and_blocks():
    @proc
    def branches(n: size, x: f32[n]):
        if n > 2:
            x[0] = 1.0
        else:
            x[0] = 2.0
            x[0] = 3.0

    p, (if_stmt,) = specialize_(branches, branches.find("x[0] = 3.0"), "n < 1", rc=True)
    assert if_stmt == p.body()[0].orelse()[1]
    block = branches.body()[0].orelse()
    p, (if_stmt,) = specialize_(branches, block, ["n == 1", "n == 2"], rc=True)
    assert if_stmt == p.body()[0].orelse()[0]
    assert len(if_stmt.body()) == 2 and isinstance(if_stmt.orelse()[0], IfCursor)
    assert_same_results(branches, p, {"n": 2})
    with pytest.raises(SchedulingError, match="Invalid specialization condition."):
        specialize_(branches, "x[0] = 1.0", "True")


# --------------------------------------------------------------------------- #
# stage_mem_

needs_stage_mem = pytest.mark.skipif(
    not hasattr(scheduling, "stage_mem"), reason="stage_mem is not exported yet"
)


@proc
def window_sum(n: size, x: f32[n, 8], y: f32[8], z: f32[8]):
    for i in seq(0, n):
        for j in seq(0, 8):
            y[j] += x[i, j]


@needs_stage_mem
def test_stage_mem_returns_the_alloc_stages_and_block():
    p, cursors = stage_mem_(
        window_sum, window_sum.find_loop("j"), "y[0:8]", "yy", rc=True
    )
    assert isinstance(cursors, stage_mem_cursors)
    alloc, load, block, store = cursors
    loop = window_sum.find_loop("i").body()
    assert alloc.name() == "yy" and alloc == p.find("yy: _")
    assert load == alloc.next() and isinstance(load, ForCursor)
    assert list(block) == [p.forward(loop[0])]
    assert store == block[0].next() and isinstance(store, ForCursor)
    assert_same_results(window_sum, p, {"n": 3})


@needs_stage_mem
def test_stage_mem_without_a_load_nest():
    @proc
    def fill(x: f32[8]):
        for j in seq(0, 8):
            x[j] = 1.0

    p, (alloc, load, block, store) = stage_mem_(
        fill, fill.find_loop("j"), "x[0:8]", "xx", rc=True
    )
    assert alloc == p.body()[0] and load == InvalidCursor()
    assert block[0] == p.body()[1] and store == p.body()[2]
    assert_same_results(fill, p, {})


@needs_stage_mem
def test_stage_mem_refusals_propagate():
    with pytest.raises(SchedulingError, match="Cannot stage 'z'") as info:
        stage_mem_(window_sum, window_sum.find_loop("j"), "z[0:8]", "zz")
    assert [entry[0] for entry in info.value.op_stack] == ["stage_mem_", "stage_mem"]
