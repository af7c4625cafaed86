"""A loop's bounds and a buffer's extents are evaluated once, before the
first iteration / at the allocation (docs/writing-kernels.md, "Loop bounds
and extents are evaluated once"). C re-evaluates a `for` condition every
iteration, so the generated C keeps a bound in a local when the body may
change it: when it reads a config field the body writes (directly or in a
called procedure). Other loops print as before."""

from __future__ import annotations

import numpy as np
import pytest
from exo2 import config, proc


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


@config
class Trip:
    m: size


def function_body(p):
    return p.c_code_str().split("\n// )\n")[-1]


def run_with_m(p, m, *args):
    kernel = p.jit()
    kernel.set_config(Trip, m=m)
    kernel(*args)
    return kernel.get_config(Trip, "m")


def test_bound_written_in_body_is_read_once():
    @proc
    def grow(x: f32[16]):
        if 0 <= Trip.m and Trip.m <= 16:
            for i in seq(0, Trip.m):
                x[i] = 1.0
                Trip.m = 12

    assert (
        "for (int_fast32_t i = 0, i_hi = ctxt->Trip.m; i < i_hi; i++) {"
        in function_body(grow)
    )
    x = np.zeros(16, np.float32)
    assert run_with_m(grow, 3, x) == 12
    np.testing.assert_array_equal(x, [1] * 3 + [0] * 13)


def test_bound_written_by_a_callee_is_read_once():
    @proc
    def shrink():
        Trip.m = 1

    @proc
    def loop(x: f32[16]):
        if 0 <= Trip.m and Trip.m <= 16:
            for i in seq(0, Trip.m):
                x[i] = 1.0
                shrink()

    assert "i_hi = ctxt->Trip.m; i < i_hi;" in loop.c_code_str()
    x = np.zeros(16, np.float32)
    assert run_with_m(loop, 5, x) == 1
    np.testing.assert_array_equal(x, [1] * 5 + [0] * 11)


def test_bound_the_body_does_not_write_prints_as_before():
    @proc
    def fill(n: size, x: f32[n]):
        if 0 <= Trip.m and Trip.m <= n:
            for i in seq(0, Trip.m):
                x[i] = 1.0
        for j in seq(0, n):
            x[j] += 1.0

    body = function_body(fill)
    assert "for (int_fast32_t i = 0; i < ctxt->Trip.m; i++) {" in body
    assert "for (int_fast32_t j = 0; j < n; j++) {" in body
    assert "_hi" not in body


def test_allocation_extent_is_fixed_at_the_allocation():
    @proc
    def rows(x: f32[4], y: f32[4]):
        if 0 < Trip.m and Trip.m <= 4:
            t: f32[4, Trip.m]
            for i in seq(0, 4):
                for j in seq(0, Trip.m):
                    t[i, j] = y[i]
            Trip.m = 1
            for i in seq(0, 4):
                x[i] = t[i, 0]

    body = function_body(rows)
    assert "const int_fast32_t t_dim1 = ctxt->Trip.m;" in body
    assert "x[i] = t[i * t_dim1];" in body
    x, y = np.zeros(4, np.float32), np.array([1, 2, 3, 4], np.float32)
    run_with_m(rows, 4, x, y)
    np.testing.assert_array_equal(x, y)
