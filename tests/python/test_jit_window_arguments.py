"""Window arguments across calls in generated C."""

from __future__ import annotations

import numpy as np
from exo2 import proc


@proc
def _sum_into(n: size, x: [f32][n], out: f32[1]):
    for i in seq(0, n):
        out[0] += x[i]


@proc
def _scale_then_sum(n: size, x: [f32][n], out: f32[1]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]
    _sum_into(n, x, out)


def test_a_written_window_passed_to_a_read_only_window_parameter():
    """Found by a random schedule: the caller's window struct is writable,
    the callee's parameter read-only; C needs the struct converted."""
    x = np.arange(5, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    _scale_then_sum.jit()(5, x, out)
    np.testing.assert_allclose(x, 2 * np.arange(5))
    assert out[0] == 20.0
