"""exo2.stdlib.higher_order: combinators over scheduling operations."""

from __future__ import annotations

import pytest
from exo2 import proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.higher_order import (
    apply,
    attempt,
    lift_rc,
    make_pass,
    predicate,
    repeate,
)
from exo2.stdlib.inspection import is_loop, lrn_stmts
from exo2.stdlib.rc_wrappers import divide_loop_
from exo2.stdlib.scheduling import (
    divide_loop,
    eliminate_dead_code,
    reorder_loops,
    unroll_loop,
)


@proc
def grid(n: size, m: size, x: f32[n, m]):
    assert n % 4 == 0
    for i in seq(0, n):
        for j in seq(0, m):
            x[i, j] = 0.0


@proc
def two_loops(x: f32[8], y: f32[8]):
    for i in seq(0, 2):
        x[i] = 1.0
    for k in seq(0, 2):
        y[k] = 2.0


def test_attempt_returns_the_result_or_the_input_on_failure():
    divided = attempt(divide_loop)(grid, "i", 4, ["io", "ii"], perfect=True)
    assert divided != grid
    assert "for io in seq(0, n / 4):" in str(divided)
    unchanged, ok = attempt(divide_loop)(
        grid, "j", 4, ["jo", "ji"], perfect=True, rs=True
    )
    assert unchanged is grid and not ok


def test_attempt_lets_other_errors_through():
    only_type_errors = attempt(divide_loop, errs={TypeError})
    try:
        only_type_errors(grid, "j", 4, ["jo", "ji"], perfect=True)
    except Exception as e:
        assert type(e).__name__ == "SchedulingError"
    else:
        raise AssertionError("expected the SchedulingError to propagate")


def test_apply_forwards_each_cursor_to_the_latest_procedure():
    loops = two_loops.find_loop("_", many=True)
    unrolled = apply(unroll_loop)(two_loops, loops)
    assert "for" not in str(unrolled)
    assert str(unrolled).count("x[") == 2 and str(unrolled).count("y[") == 2


def test_predicate_applies_the_op_only_when_it_holds():
    def outer_is_i(p, loop):
        return p.forward(loop).name() == "i"

    swap = predicate(reorder_loops, outer_is_i)
    swapped = swap(grid, grid.find_loop("i"))
    assert str(swapped).index("for j") < str(swapped).index("for i")
    again = swap(swapped, swapped.find_loop("j"))
    assert again is swapped


def test_repeate_applies_until_the_op_fails():
    def unroll_first_loop(p):
        return unroll_loop(p, p.find_loop("_"))

    flat = repeate(unroll_first_loop)(two_loops)
    assert "for" not in str(flat)


def test_apply_hands_removed_cursors_to_the_op():
    # unrolling the outer loop copies the inner one: the inner loop's cursor
    # no longer exists, the op's own forwarding fails and attempt() skips it
    @proc
    def nested(x: f32[4]):
        for i in seq(0, 2):
            for j in seq(0, 2):
                x[i + j] = 1.0

    loops = nested.find_loop("_", many=True)
    flat = apply(attempt(unroll_loop))(nested, loops)
    assert str(flat).count("for j in seq(0, 2):") == 2
    with pytest.raises(InvalidCursorError, match="node no longer exists"):
        apply(unroll_loop)(nested, loops)


@proc
def dead_branches(n: size, x: f32[n]):
    for i in seq(0, n):
        if n < 0:
            x[i] = 1.0
        else:
            x[i] = 2.0
    for k in seq(0, 0):
        x[k] = 3.0


def test_make_pass_applies_the_op_to_every_statement():
    dce = make_pass(attempt(eliminate_dead_code))
    clean = dce(dead_branches)
    assert str(clean) == (
        "def dead_branches(n: size, x: f32[n] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        x[i] = 2.0"
    )
    # only inside a given block
    inside = dce(dead_branches, dead_branches.find_loop("i").body())
    assert "if" not in str(inside) and "for k in seq(0, 0):" in str(inside)


def test_make_pass_with_another_traversal_and_arguments():
    @proc
    def loops(x: f32[8, 8]):
        for i in seq(0, 8):
            for j in seq(0, 8):
                x[i, j] = 0.0

    def divide_if_loop(p, s, factor):
        if is_loop(p, s):
            return divide_loop(
                p, s, factor, [s.name() + "o", s.name() + "i"], perfect=True
            )
        return p

    # post-order: the inner loop is divided first
    divided = make_pass(divide_if_loop, lrn_stmts)(loops, loops.find_loop("i"), 4)
    assert "for jo in seq(0, 2):" in str(divided)
    assert "for io in seq(0, 2):" in str(divided)


def test_lift_rc_returns_one_cursor_of_the_record():
    divide_outer = lift_rc(divide_loop_, "outer_loop")
    divided, outer = divide_outer(grid, "i", 4, tail="cut")
    assert outer == divided.find_loop("io")
    divided, inner = lift_rc(divide_loop_, "inner_loop")(grid, grid.find_loop("j"), 2)
    assert inner == divided.find_loop("ji")
