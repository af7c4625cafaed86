"""Integer `/` and `%` are floor division and floor modulo in the object
language (docs/writing-kernels.md, "Integer arithmetic"), as the checker and
`simplify` assume: the generated C computes exactly that. C's own `/` and
`%` (which truncate toward zero) appear only where the dividend is proven
non-negative, so ordinary index arithmetic prints as before."""

from __future__ import annotations

import numpy as np
import pytest
from exo2 import config, proc
from exo2.API_scheduling import rewrite_expr, simplify
from schedule_check import assert_same_results


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


def function_body(p):
    """The C text after the header's declarations."""
    return p.c_code_str().split("\n// )\n")[-1]


def test_modulo_of_negative_iterator_wraps_like_python():
    @proc
    def wrap(x: f32[4], y: f32[4]):
        for i in seq(-4, 0):
            x[i % 4] = y[i + 4]

    x, y = np.zeros(4, np.float32), np.arange(1, 5, dtype=np.float32)
    wrap.jit()(x, y)
    expected = np.zeros(4, np.float32)
    for i in range(-4, 0):
        expected[i % 4] = y[i + 4]
    np.testing.assert_array_equal(x, expected)
    assert "x[exo_floor_mod(i, 4)] = y[i + 4];" in function_body(wrap)


def test_division_of_negative_iterator_rounds_down():
    @proc
    def halves(x: f32[4], y: f32[4]):
        for i in seq(-4, 0):
            x[i / 2 + 2] += y[i + 4]

    x, y = np.zeros(4, np.float32), np.array([1, 10, 100, 1000], np.float32)
    halves.jit()(x, y)
    expected = np.zeros(4, np.float32)
    for i in range(-4, 0):
        expected[i // 2 + 2] += y[i + 4]
    np.testing.assert_array_equal(x, expected)  # C truncation gives [1, 10, 1100, 0]


def test_rewritten_loop_bound_of_negative_modulo_runs_three_iterations():
    @proc
    def three(x: f32[8]):
        for i in seq(0, 3):
            x[i] = 1.0

    p = rewrite_expr(three, three.find_loop("i").hi(), "(0 - 5) % 4")
    assert "for i in seq(0, (0 - 5) % 4):" in str(p)
    x = np.zeros(8, np.float32)
    p.jit()(x)
    np.testing.assert_array_equal(x, [1, 1, 1, 0, 0, 0, 0, 0])
    assert_same_results(three, p, {})


def test_index_rewritten_to_negative_modulo_keeps_results():
    @proc
    def copy(x: f32[4], y: f32[4]):
        for i in seq(0, 4):
            x[i] = y[i]

    p = rewrite_expr(copy, copy.find("x[_] = _").idx()[0], "(i - 4) % 4")
    assert "x[(i - 4) % 4] = y[i]" in str(p)
    assert_same_results(copy, p, {})


def test_simplified_negative_modulo_keeps_results():
    @proc
    def fold(x: f32[8], y: f32[4]):
        for io in seq(0, 2):
            for ii in seq(0, 4):
                y[(4 * io - ii) % 4] += x[4 * io + ii]

    p = simplify(fold)
    assert "y[-ii % 4] += x[ii + 4 * io]" in str(p)
    assert "y[exo_floor_mod(-ii, 4)] += x[ii + 4 * io];" in function_body(p)
    x, y = np.arange(8, dtype=np.float32), np.zeros(4, np.float32)
    p.jit()(x, y)
    expected = np.zeros(4, np.float32)
    for io in range(2):
        for ii in range(4):
            expected[(4 * io - ii) % 4] += x[4 * io + ii]
    np.testing.assert_array_equal(y, expected)
    assert_same_results(fold, p, {})


def test_non_negative_dividends_keep_c_operators():
    @proc
    def tiled(n: size, x: f32[n], y: f32[n]):
        assert n % 4 == 0
        for io in seq(0, n / 4):
            for ii in seq(0, 4):
                y[4 * io + ii] = x[(4 * io + ii) % 4 + (4 * io + ii) / 4]
        for i in seq(1, n):
            y[i] += x[(i - 1) % 4]

    body = function_body(tiled)
    assert "EXO_ASSUME(n % 4 == 0);" in body
    assert "for (int_fast32_t io = 0; io < ((n) / (4)); io++) {" in body
    assert "x[(4 * io + ii) % 4 + ((4 * io + ii) / 4)]" in body
    # `i - 1 >= 0` needs the loop's range: the solver proves it.
    assert "y[i] += x[(i - 1) % 4];" in body
    assert "exo_floor" not in tiled.c_code_str()


def test_config_fact_does_not_survive_a_write_of_the_field():
    @config
    class Shift:
        k: index

    @proc
    def stale(x: f32[4]):
        assert Shift.k >= 0
        Shift.k = -3
        x[Shift.k % 4] = 1.0

    assert "x[exo_floor_mod(ctxt->Shift.k, 4)] = 1.0f;" in function_body(stale)
    kernel = stale.jit()
    kernel.set_config(Shift, k=0)
    x = np.zeros(4, np.float32)
    kernel(x)
    np.testing.assert_array_equal(x, [0, 1, 0, 0])


def test_a_fact_a_loop_implies_does_not_simplify_the_code_after_it():
    # in the loop's body W >= 2, so (W - 2) % 8 is W - 2 there; after the
    # loop W may be 1, where (W - 2) % 8 is 7
    @proc
    def after_loop(W: size, x: f32[16]):
        assert W < 10
        for i in seq(0, W - 1):
            x[(W - 2) % 8] = 1.0
        x[(W - 2) % 8 + 8] = 2.0

    p = simplify(after_loop)
    assert "        x[-2 + W] = 1.0" in str(p)
    assert "    x[(-2 + W) % 8 + 8] = 2.0" in str(p)
    for W in [1, 2, 5, 9]:
        before, after = np.zeros(16, np.float32), np.zeros(16, np.float32)
        after_loop.jit()(W, before)
        p.jit()(W, after)
        np.testing.assert_array_equal(after, before)
