"""Fission and fusion past writes that a split loop repeats without effect
(docs/internals/effect-analysis.md, "Repeated writes"): a write storing the
same value in the same elements at every iteration, a reload of a staged
buffer that reads back what the previous iteration stored, and a store whose
value the next iteration overwrites. Each accepted schedule runs before and
after on random data; each unsafe neighbour is refused with the conflict."""

# ruff: noqa: F821, B007, E501

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from exo2 import SchedulingError, config, proc
from exo2.API_scheduling import autofission, fission, fuse
from schedule_check import assert_same_results


def text(s):
    return textwrap.dedent(s).strip()


@config
class Scale:
    factor: f32


@config
class Cursor:
    j: index


def refused(f, *conflict_words):
    with pytest.raises(SchedulingError, match="Cannot fission loop over") as e:
        f()
    message = "\n".join([str(e.value), *getattr(e.value, "__notes__", [])])
    for words in conflict_words:
        assert words in message, message


# ---- invariant writes ----------------------------------------------------------


@proc
def scaled(n: size, m: size, s: f32, x: f32[n, m], y: f32[n, m]):
    for i in seq(0, n):
        for j in seq(0, m):
            Scale.factor = s
            y[i, j] = x[i, j] * Scale.factor


def test_autofission_moves_a_loop_invariant_config_write_out_of_the_nest():
    p = autofission(scaled, scaled.find("Scale.factor = _").after(), n_lifts=2)
    assert str(p) == text("""
        def scaled(n: size, m: size, s: f32 @ DRAM, x: f32[n, m] @ DRAM,
                   y: f32[n, m] @ DRAM):
            Scale.factor = s
            for i in seq(0, n):
                for j in seq(0, m):
                    y[i, j] = x[i, j] * Scale.factor
        """)
    for sizes in [{"n": 1, "m": 1}, {"n": 3, "m": 5}]:
        assert_same_results(scaled, p, sizes)


@proc
def weighted(n: size, x: f32[n], y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = 0.299
        y[i] = t[0] * x[i]


def test_fission_after_a_constant_write_read_by_later_iterations():
    p = fission(weighted, weighted.find("t[_] = _").after())
    assert str(p) == text("""
        def weighted(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM):
            t: f32[1] @ DRAM
            for i in seq(0, n):
                t[0] = 0.299
            for i in seq(0, n):
                y[i] = t[0] * x[i]
        """)
    for n in [1, 2, 7]:
        assert_same_results(weighted, p, {"n": n})


@proc
def iteration_dependent(n: size, x: f32[n], y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = x[i]
        y[i] = t[0] * 2.0


@proc
def guarded_by_the_iterator(n: size, y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = 1.0
        if i == 0:
            t[0] = 5.0
        y[i] = t[0]


@proc
def reads_what_the_loop_changes(n: size, x: f32[n], y: f32[n], u: f32[1]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = u[0]
        y[i] = t[0]
        u[0] = x[i]


@proc
def second_part_stores_another_value(n: size, y: f32[n]):
    t: f32[1]
    for i in seq(0, n):
        t[0] = 2.0
        y[i] = t[0]
        t[0] = 3.0


@pytest.mark.parametrize(
    "p, gap, conflict",
    [
        (iteration_dependent, "t[_] = _", "t[0] written at"),
        (guarded_by_the_iterator, "if _: _", "t[0] written at"),
        # the value reads u[0], which the loop changes
        (reads_what_the_loop_changes, "t[_] = _", "u[0] read at"),
        (second_part_stores_another_value, "t[_] = 2.0", "t[0] written at"),
    ],
)
def test_fission_refuses_writes_that_change_across_iterations(p, gap, conflict):
    refused(lambda: fission(p, p.find(gap).after()), conflict)


# ---- reloads of a staged buffer ------------------------------------------------


@proc
def staged(K: size, C: f32[4], A: f32[4, K]):
    C_reg: f32[4]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = C_reg[i]


@proc
def staged_scaled(K: size, C: f32[4], A: f32[4, K]):
    C_reg: f32[4]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = 2.0 * C_reg[i]


def test_autofission_splits_the_reload_that_reads_back_the_stored_value():
    p0 = staged
    p = autofission(p0, p0.find_loop("i").after())
    p = autofission(p, p.find_loop("i #1").after())
    assert str(p) == text("""
        def staged(K: size, C: f32[4] @ DRAM, A: f32[4, K] @ DRAM):
            C_reg: f32[4] @ DRAM
            for i in seq(0, 4):
                C_reg[i] = C[i]
            for k in seq(0, K):
                for i in seq(0, 4):
                    C_reg[i] += A[i, k]
            for i in seq(0, 4):
                C[i] = C_reg[i]
        """)
    for K in [1, 2, 9]:
        assert_same_results(p0, p, {"K": K})


def test_fission_refuses_a_reload_when_the_store_changes_the_value():
    p = staged_scaled
    refused(
        lambda: autofission(p, p.find_loop("i").after()),
        "C[i] read at",
        "C[i] written at",
    )
    # What the split would compute (K = 2, all ones: 10 before, 6 after).
    C, A = np.ones(4, np.float32), np.ones((4, 2), np.float32)
    p.jit()(2, C, A)
    assert C[0] == 10.0


@proc
def stored_then_changed(K: size, C: f32[4], A: f32[4, K]):
    C_reg: f32[4]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = C_reg[i]
        for i in seq(0, 4):
            C_reg[i] += 1.0


@proc
def store_read_later(K: size, C: f32[4], A: f32[4, K], D: f32[K]):
    C_reg: f32[4]
    for i in seq(0, 4):
        C_reg[i] = C[i]
    for k in seq(0, K):
        for i in seq(0, 4):
            C_reg[i] += A[i, k]
        for i in seq(0, 4):
            C[i] = C_reg[i]
        D[k] = C[0]


def test_fission_refuses_a_reload_when_the_staged_buffer_changes_after_the_store():
    p = stored_then_changed
    refused(
        lambda: autofission(p, p.find_loop("i").after()),
        "C[i] read at",
        "C[i] written at",
    )


def test_fission_refuses_to_drop_a_store_whose_value_is_read_before_the_next():
    p = store_read_later
    refused(
        lambda: autofission(p, p.find_loop("i #1").after()),
        "C_reg[i] reduced at",
        "C_reg[i] read at",
    )


@proc
def store_in_the_update_loop(C: f32[4], A: f32[4], B: f32[4]):
    C_reg: f32[4]
    for k in seq(0, 4):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            C_reg[i] += A[i] * B[k]
            C[i] = C_reg[i]


@proc
def changed_after_a_later_store(C: f32[4], A: f32[4], B: f32[4]):
    C_reg: f32[4]
    for k in seq(0, 4):
        for i in seq(0, 4):
            C_reg[i] = C[i]
        for i in seq(0, 4):
            if i > 0:
                C_reg[i - 1] += B[k]
            C[i] = C_reg[i]


def test_autofission_reload_when_the_store_shares_a_loop_with_the_update():
    p = autofission(
        store_in_the_update_loop, store_in_the_update_loop.find_loop("i").after()
    )
    assert str(p) == text("""
        def store_in_the_update_loop(C: f32[4] @ DRAM, A: f32[4] @ DRAM,
                                     B: f32[4] @ DRAM):
            C_reg: f32[4] @ DRAM
            for i in seq(0, 4):
                C_reg[i] = C[i]
            for k in seq(0, 4):
                for i in seq(0, 4):
                    C_reg[i] += A[i] * B[k]
                    C[i] = C_reg[i]
        """)
    assert_same_results(store_in_the_update_loop, p, {})


def test_fission_refuses_a_reload_when_a_later_iteration_changes_a_stored_element():
    # at i = 1 the loop adds to C_reg[0] after C[0] = C_reg[0] was stored
    p = changed_after_a_later_store
    refused(
        lambda: autofission(p, p.find_loop("i").after()),
        "C[i] read at",
        "C[i] written at",
    )


# ---- fusion of loops writing the same constant --------------------------------


@proc
def same_constant(n: size, x: f32[n]):
    for i in seq(0, n):
        Cursor.j = 0
        x[i] = 1.0
    for j in seq(0, n):
        Cursor.j = 0
        x[Cursor.j] += 2.0


@proc
def different_constants(n: size, x: f32[n]):
    for i in seq(0, n):
        Cursor.j = 0
        x[i] = 1.0
    for j in seq(0, n):
        Cursor.j = 1
        x[j] += 2.0


def test_fuse_two_loops_that_store_the_same_constant_in_a_config():
    p0 = same_constant
    p = fuse(p0, p0.find_loop("i"), p0.find_loop("j"))
    assert str(p) == text("""
        def same_constant(n: size, x: f32[n] @ DRAM):
            for i in seq(0, n):
                Cursor.j = 0
                x[i] = 1.0
                Cursor.j = 0
                x[Cursor.j] += 2.0
        """)
    for n in [1, 2, 6]:
        assert_same_results(p0, p, {"n": n})


def test_fuse_refuses_loops_that_store_different_constants():
    p = different_constants
    refused(
        lambda: fuse(p, p.find_loop("i"), p.find_loop("j")),
        "Cursor.j written at",
    )
