"""`kernel.bind(*args)`: the JIT's fast path. Arguments are checked once,
as a call checks them; the bound call runs the kernel on them through a
one-pointer trampoline, sees the arrays' current contents, rechecks the
preconditions that read config fields, and costs well under the checked
call."""

from __future__ import annotations

import gc
import timeit

import exo2
import numpy as np
import pytest
from exo2 import config, proc
from kernels import jit_kernels as K


@pytest.fixture(scope="module")
def axpy():
    return K.axpy.jit()


def test_bound_call_runs_the_kernel_on_the_current_contents(axpy):
    x = np.arange(5, dtype=np.float32)
    y = np.ones(5, np.float32)
    bound = axpy.bind(5, 2.0, x, y)
    bound()
    assert (y == 1 + 2 * x).all()
    x[:] = 10
    bound()
    assert (y == 1 + 2 * np.arange(5) + 20).all()


def test_a_kernel_may_be_named_like_the_trampolines_parameter():
    @proc
    def a(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 2.0 * x[i]

    x = np.arange(3, dtype=np.float32)
    a.jit()(3, x)
    a.jit().bind(3, x)()
    assert (x == 4 * np.arange(3)).all()


def test_bind_checks_the_arguments_like_a_call(axpy):
    with pytest.raises(TypeError, match="expected dtype float32, got float64"):
        axpy.bind(4, 1.0, np.zeros(4), np.zeros(4, np.float32))
    a = np.zeros(9, np.float32)
    with pytest.raises(ValueError, match="overlap in memory"):
        K.axpy_win.jit().bind(8, 1.0, a[0:8], a[1:9])
    with pytest.raises(ValueError, match="expected shape"):
        axpy.bind(5, 1.0, np.zeros(5, np.float32), np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        axpy.bind(5, 1.0, np.zeros(5, np.float32))


def test_bound_call_keeps_its_arrays_alive(axpy):
    bound = axpy.bind(1000, 3.0, np.ones(1000, np.float32), np.zeros(1000, np.float32))
    gc.collect()
    bound()
    y = bound._keep[-1]
    assert (y == 3).all()


def test_bound_windows_and_written_scalars():
    A = np.arange(12, dtype=np.float32).reshape(4, 3)
    r = np.zeros((), np.float32)
    K.dot.jit().bind(4, np.ascontiguousarray(A[:, 0]), np.ones(4, np.float32), r)()
    assert r == A[:, 0].sum()
    y = np.zeros(4, np.float32)
    exo2.jit(K.axpy_win).bind(4, 1.0, A[:, 2], y)()  # a strided window
    assert (y == A[:, 2]).all()


@config
class Limit:
    k: size
    value: f32


@proc
def limited(n: size, x: f32[n]):
    assert Limit.k >= n
    for i in seq(0, n):
        x[i] = Limit.value


def test_preconditions_on_config_fields_are_rechecked_per_call():
    kernel = limited.jit()
    kernel.set_config(Limit, k=8, value=1.0)
    x = np.zeros(8, np.float32)
    bound = kernel.bind(8, x)
    bound()
    assert (x == 1).all()
    kernel.set_config(Limit, k=4)
    with pytest.raises(ValueError, match="precondition violated: Limit.k >= n"):
        bound()


def test_bound_call_costs_a_fraction_of_a_checked_call(axpy):
    x, y = np.ones(16, np.float32), np.ones(16, np.float32)
    bound = axpy.bind(16, 2.0, x, y)
    checked = min(timeit.repeat(lambda: axpy(16, 2.0, x, y), number=200, repeat=5))
    fast = min(timeit.repeat(bound, number=2000, repeat=5))
    # about 0.5 us against 10-30 us; generous bounds for a loaded machine
    assert fast / 2000 < 5e-6
    assert fast / 2000 < checked / 200 / 4
