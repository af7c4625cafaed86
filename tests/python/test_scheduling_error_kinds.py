"""SchedulingError.kind: the stable name of what went wrong, set from the
safety condition a primitive could not prove (docs/errors.md, "Kinds of
refusals"), and SchedulingError.render(): the procedure with the offending
statements marked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from exo2 import SchedulingError, proc
from exo2.errors import _KIND_OF_CONDITION, KINDS, kind_of_condition
from exo2.stdlib.scheduling import (
    divide_loop,
    reorder_loops,
    resize_dim,
    rewrite_expr,
    unroll_loop,
)

ROOT = Path(__file__).resolve().parents[2]
MARK = "# <-- NODE"


def refusal(operation):
    with pytest.raises(SchedulingError) as info:
        operation()
    return info.value


@proc
def shift(n: size, x: f32[n + 1, n + 1]):
    for i in seq(0, n):
        for j in seq(0, n):
            x[i + 1, j] = x[i, j + 1]


@proc
def staged(x: f32[8]):
    t: f32[8]
    for i in seq(0, 8):
        t[i] = 1.0
    for i in seq(0, 8):
        x[i] = t[i]


def marked_lines(error):
    return [line.strip() for line in error.render().split("\n") if MARK in line]


def test_reordering_loops_with_a_carried_dependence_is_unsafe_reorder():
    e = refusal(lambda: reorder_loops(shift, "i j"))
    assert e.kind == "unsafe-reorder"
    assert e.proc is shift
    # the loops named by the condition and the statement of both accesses
    assert marked_lines(e)[0].startswith("for i in seq(0, n):")
    assert "x[i + 1, j] = x[i, j + 1]  " + MARK in marked_lines(e)


def test_a_pattern_that_matches_nothing_is_not_found():
    e = refusal(lambda: reorder_loops(shift, "i k"))
    assert e.kind == "not-found"
    assert "failed to find matches" in str(e)
    assert e.render() is None  # the pattern names no statement


def test_an_unproven_division_is_unproven_bound():
    e = refusal(lambda: divide_loop(shift, "i", 4, ["io", "ii"], perfect=True))
    assert e.kind == "unproven-bound" and e.condition.startswith("Divisible")


def test_shrinking_a_buffer_under_its_accesses_is_out_of_bounds():
    e = refusal(lambda: resize_dim(staged, "t", 0, 4, 0))
    assert e.kind == "out-of-bounds"
    assert any(line.startswith("t[i] = 1.0") for line in marked_lines(e))


def test_rewriting_an_expression_into_another_value_is_not_equivalent():
    e = refusal(lambda: rewrite_expr(shift, "i + 1", "i + 2"))
    assert e.kind == "not-equivalent"


def test_a_rewrite_of_code_the_primitive_does_not_handle_is_bad_argument():
    e = refusal(lambda: unroll_loop(shift, "i"))
    assert e.kind == "bad-argument"


def test_a_call_passing_one_buffer_twice_is_aliasing():
    @proc
    def copy(n: size, a: f32[n], b: f32[n]):
        for i in seq(0, n):
            a[i] = b[i]

    with pytest.raises(SchedulingError) as info:

        @proc
        def twice(n: size, x: f32[n]):
            copy(n, x, x)

    assert info.value.kind == "aliasing"


def test_errors_raised_by_libraries_default_to_bad_argument_and_check_the_kind():
    assert SchedulingError("no loop here").kind == "bad-argument"
    assert SchedulingError("missing", kind="not-found").kind == "not-found"
    assert SchedulingError("no loop here").render() is None
    with pytest.raises(ValueError, match="kind must be one of"):
        SchedulingError("x", kind="oops")


def test_every_condition_the_core_names_has_a_kind():
    names = set()
    for path in (ROOT / "src").rglob("*.cpp"):
        text = path.read_text()
        names |= set(
            re.findall(r'\.condition\s*=\s*(?:fmt::format\()?\s*"([A-Z]\w*)', text)
        )
        names |= set(re.findall(r'\.condition\s*=\s*"([A-Z]\w*)\("\s*\+', text))
    assert {"Commute", "ReorderSafe", "InBounds", "Divisible", "NoAlias"} <= names
    assert names <= set(_KIND_OF_CONDITION), names - set(_KIND_OF_CONDITION)
    assert set(_KIND_OF_CONDITION.values()) <= set(KINDS)


def test_conditions_map_to_kinds_by_their_name():
    assert kind_of_condition("ReorderSafe(i, j)") == "unsafe-reorder"
    assert kind_of_condition("InBounds(t)") == "out-of-bounds"
    assert kind_of_condition("the precondition n > 0 of f") == "precondition"
    assert kind_of_condition("") == "bad-argument"
    assert kind_of_condition("no value a read needs is overwritten") == "unproven"
