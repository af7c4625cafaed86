"""exo2.stdlib.higher_order: combinators over scheduling operations."""

from __future__ import annotations

from exo2 import proc
from exo2.stdlib.higher_order import apply, attempt, predicate, repeate
from exo2.stdlib.scheduling import divide_loop, reorder_loops, unroll_loop


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
