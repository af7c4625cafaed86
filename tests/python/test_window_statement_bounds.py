"""Bounds of accesses through a window statement's alias (docs/writing-kernels.md,
"Windows"): as in Exo, `z = x[...]` is checked where it is used. An access
through z is safe when it lands inside x, also past z's own extents; z passed
whole to a callee must lie inside x (the callee may access all of it); a
window that leaves x but is never used there is harmless. Shown by kernels
accepted and run against equivalent kernels that index x directly, and by
the refusals of accesses and calls that leave x."""

# ruff: noqa: F821, E501

from __future__ import annotations

import pytest
from exo2 import SchedulingError, proc
from exo2.errors import KernelCheckError
from exo2.stdlib.scheduling import merge_writes, stage_mem
from schedule_check import assert_same_results


def test_an_access_past_the_alias_but_inside_the_buffer_is_accepted():
    @proc
    def through_alias(x: f32[3, 3], y: f32):
        z = x[0:2, 0:2]
        for i in seq(0, 2):
            z[i + 1, 1] = y  # row 2 of x: past z, inside x

    @proc
    def direct(x: f32[3, 3], y: f32):
        for i in seq(0, 2):
            x[i + 1, 1] = y

    assert "z[i + 1, 1] = y" in str(through_alias)
    assert_same_results(through_alias, direct, {})


def test_an_access_through_an_alias_that_leaves_the_buffer_is_refused():
    with pytest.raises(KernelCheckError) as e:

        @proc
        def leaves(x: f32[3, 3], y: f32):
            z = x[1:3, 0:2]
            for i in seq(0, 2):
                z[i + 1, 1] = y  # i = 1: row 3 of x

    assert "x is written out-of-bounds when:" in str(e.value)
    assert "i = 1" in str(e.value)


def test_an_alias_of_an_alias_lands_in_the_first_buffer():
    @proc
    def nested(n: size, x: f32[n + 4], y: f32):
        z = x[2 : n + 2]
        w = z[1 : n + 1]
        for i in seq(0, n):
            w[i - 3] = y  # x[i]: before w and z, inside x

    @proc
    def direct(n: size, x: f32[n + 4], y: f32):
        for i in seq(0, n):
            x[i] = y

    for n in [1, 2, 7]:
        assert_same_results(nested, direct, {"n": n})
    with pytest.raises(KernelCheckError, match="x is read out-of-bounds when:"):

        @proc
        def before_x(n: size, x: f32[n + 4], y: f32):
            z = x[2 : n + 2]
            w = z[1 : n + 1]
            for i in seq(0, n):
                y = w[i - 4]  # x[i - 1]: x[-1] at i = 0


def test_a_window_past_the_buffer_that_is_never_used_is_accepted():
    @proc
    def unused(N: size, A: f32[N, N]):
        for i in seq(0, N):
            for j in seq(0, N):
                A[i, j] = 0.0
                y = A[i : i + 4, j]  # rows past N - 1 at i = N - 1

    @proc
    def direct(N: size, A: f32[N, N]):
        for i in seq(0, N):
            for j in seq(0, N):
                A[i, j] = 0.0

    for N in [1, 3, 6]:
        assert_same_results(unused, direct, {"N": N})


@proc
def sum4(s: [f32][4], out: f32):
    for k in seq(0, 4):
        out += s[k]


def test_an_alias_passed_whole_must_lie_inside_the_buffer():
    # the callee reads all 4 rows of its window
    with pytest.raises(KernelCheckError, match="A is read out-of-bounds when:"):

        @proc
        def passes(N: size, A: f32[N, N], out: f32):
            for i in seq(0, N):
                y = A[i : i + 4, 0]
                sum4(y, out)

    @proc
    def passes_inside(N: size, A: f32[N, N], out: f32):
        assert N >= 4
        for i in seq(0, N - 3):
            y = A[i : i + 4, 0]
            sum4(y, out)

    @proc
    def direct(N: size, A: f32[N, N], out: f32):
        assert N >= 4
        for i in seq(0, N - 3):
            for k in seq(0, 4):
                out += A[i + k, 0]

    for N in [4, 7]:
        assert_same_results(passes_inside, direct, {"N": N})


def test_schedules_of_such_kernels_stay_checked():
    @proc
    def two_rows(x: f32[3, 3], y: f32):
        z = x[0:2, 0:2]
        for i in seq(0, 2):
            z[i, 1] = y
            z[i + 1, 1] += y

    with pytest.raises(
        SchedulingError, match="expected the left hand side's indices to be the same"
    ):
        merge_writes(two_rows, "z[i, 1] = y; z[i + 1, 1] += y")

    @proc
    def tiles(N: size, A: f32[N, N]):
        for i in seq(0, N):
            for jo in seq(0, N / 4):
                for ji in seq(0, 4):
                    A[i, 4 * jo + ji] = 0.0
                    y = A[i : i + 4, 4 * jo + ji]

    # the window's rows i..i+3 straddle the staged rows i-1..i
    with pytest.raises(SchedulingError, match="Buffer has accesses which are neither"):
        stage_mem(
            tiles, tiles.find_loop("ji"), "A[i - 1:i + 1, 4 * jo:4 * jo + 4]", "t"
        )
