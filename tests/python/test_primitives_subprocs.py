"""Sub-procedure primitives (primitives.md §8, §11): extract_subproc,
inline, call_eqv and the legacy add_unsafe_guard. Printed results, JIT runs
before and after, refusals with the spec's texts, and cursor forwarding."""

# ruff: noqa: F821, E501, B007

from __future__ import annotations

import re

import pytest
from exo2 import SchedulingError, config, proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.scheduling import (
    add_unsafe_guard,
    call_eqv,
    divide_loop,
    extract_subproc,
    inline,
    rename,
    reorder_stmts,
    write_config,
)
from schedule_check import assert_same_results


@config
class SubCfg:
    scale: f32


@proc
def rows(n: size, m: size, x: f32[n, m], y: f32[n]):
    assert m >= 2
    for i in seq(0, n):
        if i < n - 1:
            acc: f32
            acc = 0.0
            for j in seq(0, m):
                acc += x[i, j]
            y[i] = acc


@proc
def add_one(k: size, a: [f32][k]):
    for t in seq(0, k):
        a[t] += 1.0


@proc
def add_one_caller(n: size, x: f32[n, 8]):
    for i in seq(0, n):
        add_one(8, x[i, 0:8])
        x[i, 0] = 2.0 * x[i, 0]


@proc
def set_and_copy(x: f32[4]):
    x[0] = 3.0


@proc
def calls_set(x: f32[4], y: f32[4]):
    set_and_copy(x)
    y[0] = SubCfg.scale


@proc
def calls_set_no_read(x: f32[4], y: f32[4]):
    set_and_copy(x)
    y[0] = x[0]


# ---- extract_subproc ----------------------------------------------------------


def test_extract_subproc_prints_parameters_and_assertions():
    loop = rows.find_loop("j")
    p, sub = extract_subproc(rows, loop, "row_sum")
    # Parameters: proc parameters in order, then the loop iterator, then the
    # allocation; assertions: proc's, then the innermost context first.
    assert str(sub) == (
        "def row_sum(n: size, m: size, x: f32[n, m] @ DRAM, i: index, acc: f32 @ DRAM):\n"
        "    assert m >= 2\n"
        "    assert i < n - 1 == True\n"
        "    assert 0 <= i\n"
        "    assert i < n\n"
        "    for j in seq(0, m):\n"
        "        acc += x[i, j]"
    )
    assert str(p) == (
        "def rows(n: size, m: size, x: f32[n, m] @ DRAM, y: f32[n] @ DRAM):\n"
        "    assert m >= 2\n"
        "    for i in seq(0, n):\n"
        "        if i < n - 1:\n"
        "            acc: f32 @ DRAM\n"
        "            acc = 0.0\n"
        "            row_sum(n, m, x, i, acc)\n"
        "            y[i] = acc"
    )
    assert_same_results(rows, p, {"n": 5, "m": 3})
    # Cursors: the block names the call; code outside survives.
    assert p.forward(loop.as_block()) == p.find("row_sum(_)").as_block()
    assert p.forward(rows.find("y[i] = _")) == p.find("y[i] = _")
    for inside in (loop, rows.find("acc += _")):
        with pytest.raises(InvalidCursorError):
            p.forward(inside)
    assert p.is_eq(rows) and not sub.is_eq(rows)


def test_extract_subproc_without_asserts_keeps_what_its_safety_needs():
    # x[i, j] needs 0 <= i < n; m >= 2 and i < n - 1 are left out. (Exo
    # keeps nothing: a new procedure could then call row_sum out of bounds.)
    p, sub = extract_subproc(rows, rows.find_loop("j"), "row_sum", False)
    assert str(sub) == (
        "def row_sum(n: size, m: size, x: f32[n, m] @ DRAM, i: index, acc: f32 @ DRAM):\n"
        "    assert 0 <= i\n"
        "    assert i < n\n"
        "    for j in seq(0, m):\n"
        "        acc += x[i, j]"
    )
    assert_same_results(rows, p, {"n": 5, "m": 3})

    @proc
    def fill(n: size, y: f32[8]):
        for i in seq(0, n):
            for j in seq(0, 8):
                y[j] = 1.0

    _, row = extract_subproc(fill, fill.find_loop("j"), "fill_row", False)
    assert str(row) == (
        "def fill_row(y: f32[8] @ DRAM):\n    for j in seq(0, 8):\n        y[j] = 1.0"
    )


def test_extract_subproc_refuses_a_procedure_unsafe_on_its_own():
    @proc
    def first_eight(n: size, x: f32[n], y: f32[8]):
        assert n > 8
        for i in seq(0, 8):
            y[i] = x[i]

    # n is a parameter of the new procedure (x's shape), so n > 8 follows;
    # below, the fact x[0:8] needs mentions n, which the block does not use.
    @proc
    def by_length(n: size, m: size, x: f32[m], y: f32[8]):
        assert m == n + 8
        for i in seq(0, 8):
            y[i] = x[i]

    _, sub = extract_subproc(first_eight, first_eight.find_loop("i"), "s", False)
    assert "    assert n > 8\n" in str(sub)
    with pytest.raises(SchedulingError) as e:
        extract_subproc(by_length, by_length.find_loop("i"), "s", False)
    assert re.fullmatch(
        re.escape("extract_subproc: ")
        + r"Cannot extract the block at \S+:\d+:8 into s: the new procedure would "
        r"not be safe on its own: x is read out-of-bounds",
        str(e.value),
    )


def test_extract_subproc_refusals():
    # The block allocates `acc`, which `y[i] = acc` uses after it.
    with pytest.raises(SchedulingError) as e:
        extract_subproc(rows, rows.find("acc: _").expand(0, 2), "s")
    assert re.fullmatch(
        re.escape("extract_subproc: ")
        + r"Cannot extract the block at \S+:\d+:12: acc is used after it",
        str(e.value),
    )
    with pytest.raises(
        TypeError,
        match="argument 2, 'subproc_name' to extract_subproc: expected a valid name",
    ):
        extract_subproc(rows, rows.find_loop("j"), "not a name")


# ---- inline -------------------------------------------------------------------


def test_inline_turns_window_arguments_into_window_statements():
    p = inline(add_one_caller, "add_one(_)")
    assert str(p) == (
        "def add_one_caller(n: size, x: f32[n, 8] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        a = x[i, 0:8]\n"
        "        for t in seq(0, 8):\n"
        "            a[t] += 1.0\n"
        "        x[i, 0] = 2.0 * x[i, 0]"
    )
    assert_same_results(add_one_caller, p, {"n": 3})
    assert p.forward(add_one_caller.find("x[i, 0] = _")) == p.find("x[i, 0] = _")
    with pytest.raises(InvalidCursorError):
        p.forward(add_one_caller.find("add_one(_)"))


def test_inline_undoes_extract_subproc():
    p, _ = extract_subproc(rows, rows.find_loop("j"), "row_sum")
    back = inline(p, "row_sum(_)")
    assert str(back) == str(rows)
    assert_same_results(rows, back, {"n": 4, "m": 2})


def test_inline_requires_a_call():
    with pytest.raises(
        TypeError, match="argument 1, 'call_cursor' to inline: expected a CallCursor"
    ):
        inline(add_one_caller, add_one_caller.find_loop("i"))


# ---- call_eqv -----------------------------------------------------------------


def test_call_eqv_swaps_in_a_scheduled_version():
    fast = rename(
        divide_loop(add_one, "t", 4, ["to", "ti"], tail="cut"), "add_one_fast"
    )
    call = add_one_caller.find("add_one(_)")
    p = call_eqv(add_one_caller, call, fast)
    assert str(p) == (
        "def add_one_caller(n: size, x: f32[n, 8] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        add_one_fast(8, x[i, 0:8])\n"
        "        x[i, 0] = 2.0 * x[i, 0]"
    )
    assert_same_results(add_one_caller, p, {"n": 3})
    assert p.forward(call) == p.find("add_one_fast(_)")
    assert p.is_eq(add_one_caller)
    # The callee may be given as a Procedure too.
    assert str(call_eqv(add_one_caller, add_one, fast)) == str(p)


def test_call_eqv_refuses_a_procedure_not_recorded_equivalent():
    @proc
    def add_two(k: size, a: [f32][k]):
        for t in seq(0, k):
            a[t] += 2.0

    with pytest.raises(SchedulingError) as e:
        call_eqv(add_one_caller, "add_one(_)", add_two)
    assert str(e.value).startswith("call_eqv: ")
    assert str(e.value).endswith(
        "Cannot swap call because the two procedures are not equivalent"
    )


def test_call_eqv_modulo_a_config_field():
    # Equivalent to set_and_copy modulo SubCfg.scale (written at the end).
    writes = write_config(
        set_and_copy, set_and_copy.body()[0].after(), SubCfg, "scale", "1.0"
    )
    with pytest.raises(SchedulingError) as e:
        call_eqv(calls_set, "set_and_copy(_)", writes)
    assert re.fullmatch(
        re.escape("call_eqv: ")
        + r"Cannot rewrite at \S+:\d+:4 because the configuration "
        r"field SubCfg_scale might be read subsequently",
        str(e.value),
    )
    p = call_eqv(calls_set_no_read, "set_and_copy(_)", writes)
    assert_same_results(calls_set_no_read, p, {})
    # The field's value at the end may differ: not strictly equivalent.
    assert not p.is_eq(calls_set_no_read)


def test_call_eqv_proves_the_preconditions_of_the_new_callee():
    stricter = add_one.add_assertion("k > 8")
    stricter.unsafe_assert_eq(add_one)  # the user's claim: same results
    with pytest.raises(SchedulingError) as e:
        call_eqv(add_one_caller, "add_one(_)", stricter)
    assert re.fullmatch(
        re.escape("call_eqv: ") + r"Could not verify assertion k > 8 in add_one at \S+",
        str(e.value),
    )
    looser = add_one.add_assertion("k > 4")
    looser.unsafe_assert_eq(add_one)
    p = call_eqv(add_one_caller, "add_one(_)", looser)
    assert_same_results(add_one_caller, p, {"n": 3})


# ---- inline of a config field passed to a scalar ------------------------------


@proc
def set_five(a: f32):
    a = 5.0


@proc
def add_to(a: f32):
    a += 1.0


@proc
def through_field(x: f32[4]):
    SubCfg.scale = 2.0
    add_to(SubCfg.scale)
    x[1] = SubCfg.scale
    set_five(SubCfg.scale)
    x[0] = SubCfg.scale


def test_inline_writes_a_config_field_passed_to_a_scalar():
    # Scalars are passed by reference: the callee's writes are the field's.
    p = inline(through_field, "add_to(_)")
    p = inline(p, "set_five(_)")
    assert str(p) == (
        "def through_field(x: f32[4] @ DRAM):\n"
        "    SubCfg.scale = 2.0\n"
        "    SubCfg.scale = SubCfg.scale + 1.0\n"
        "    x[1] = SubCfg.scale\n"
        "    SubCfg.scale = 5.0\n"
        "    x[0] = SubCfg.scale"
    )
    assert_same_results(through_field, p, {})


def test_a_call_writing_a_config_field_through_a_scalar_is_an_effect():
    with pytest.raises(SchedulingError, match="do not commute"):
        reorder_stmts(through_field, through_field.find("set_five(_)").expand(0, 1))


# ---- add_unsafe_guard ---------------------------------------------------------


def test_add_unsafe_guard_wraps_without_forwarding():
    stmt = add_one_caller.find("x[i, 0] = _")
    p = add_unsafe_guard(add_one_caller, stmt, "i > 0")
    assert str(p) == (
        "def add_one_caller(n: size, x: f32[n, 8] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        add_one(8, x[i, 0:8])\n"
        "        if i > 0:\n"
        "            x[i, 0] = 2.0 * x[i, 0]"
    )
    with pytest.raises(
        NotImplementedError, match="This forwarding function has not been implemented"
    ):
        p.forward(stmt)
    with pytest.raises(TypeError, match="expected a bool expression"):
        add_unsafe_guard(add_one_caller, stmt, "i + 1")
