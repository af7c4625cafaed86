"""FormattedExprStr: new expressions whose `_` holes are filled from cursors
(primitives.md §3)."""

from __future__ import annotations

import pytest
from exo2 import ParseFragmentError, proc
from exo2.stdlib.scheduling import FormattedExprStr, cut_loop, rewrite_expr


@proc
def shifted(n: size, m: size, x: f32[n + 1]):
    for i in seq(0, n):
        x[i + 1] = 1.0


def test_holes_are_filled_in_order_with_copies_of_the_expressions():
    idx = shifted.find("x[_] = _").idx()[0]
    p = rewrite_expr(
        shifted, idx, FormattedExprStr("_ - _ + _", idx.rhs(), idx.rhs(), idx)
    )
    assert "x[1 - 1 + (i + 1)] = 1.0" in str(p)


def test_a_hole_can_come_from_another_statement_in_scope():
    loop = shifted.find_loop("i")
    p = cut_loop(shifted, loop, FormattedExprStr("_ - 1", loop.hi()))
    assert "for i in seq(0, n - 1):" in str(p)


def test_more_holes_than_expressions_are_refused():
    idx = shifted.find("x[_] = _").idx()[0]
    with pytest.raises(ParseFragmentError, match="more holes than expressions"):
        rewrite_expr(shifted, idx, FormattedExprStr("_ + _", idx))


def test_hole_expressions_must_be_in_scope():
    @proc
    def two_loops(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0
        for j in seq(0, n):
            x[j] = 2.0

    i_read = two_loops.find("x[_] = 1.0").idx()[0]
    j_loop = two_loops.find_loop("j")
    with pytest.raises(ParseFragmentError, match="i used in an expression to fill"):
        cut_loop(two_loops, j_loop, FormattedExprStr("_", i_read))


def test_a_hole_naming_a_shadowed_variable_is_out_of_scope():
    """The hole's very variable must be in scope: a later `i: f32` is not the
    loop's `i`, although it has the same name."""

    @proc
    def shadowed(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0
        i: f32
        i = 1.0
        x[0] = i

    data_i = shadowed.find("x[0] = _").rhs()
    loop = shadowed.find_loop("i")
    with pytest.raises(ParseFragmentError, match="not found in current environment"):
        cut_loop(shadowed, loop, FormattedExprStr("_", data_i))


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="expr_str must be a string"):
        FormattedExprStr(3)
    with pytest.raises(TypeError, match="must be a ExprCursor"):
        FormattedExprStr("_", shifted.find_loop("i"))
