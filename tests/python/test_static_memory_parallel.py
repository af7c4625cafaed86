"""A buffer whose memory allocates C `static` storage (DRAM_STATIC) is one
object shared by every thread: code generation refuses it inside a `par`
loop, and refuses a call inside a `par` loop to a procedure that allocates
one (directly or through its own callees), with MemGenError naming the
buffer or call and the loop. Per-thread memories (DRAM, DRAM_STACK) stay
allowed, and DRAM_STATIC outside parallel loops is unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from exo2 import compile_procs_to_strings, proc
from exo2.core.memory import MemGenError
from exo2.libs.memories import DRAM_STACK, DRAM_STATIC


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


def reverse_rows(mem):
    @proc
    def reverse(n: size, x: f32[n, 4]):
        for i in par(0, n):
            t: f32[4] @ mem
            for j in seq(0, 4):
                t[j] = x[i, j]
            for j in seq(0, 4):
                x[i, j] = t[3 - j]

    return reverse


@proc
def reverse_row(x: [f32][4]):
    t: f32[4] @ DRAM_STATIC
    for j in seq(0, 4):
        t[j] = x[j]
    for j in seq(0, 4):
        x[j] = t[3 - j]


def test_static_buffer_in_parallel_loop_is_refused():
    with pytest.raises(MemGenError) as e:
        compile_procs_to_strings([reverse_rows(DRAM_STATIC)], "k.h")
    message = str(e.value)
    assert "buffer 't' in memory DRAM_STATIC is a C `static` variable" in message
    assert "one object that all threads of the parallel loop over i at" in message
    assert "Allocate the buffer outside the loop" in message


def test_call_of_static_allocating_proc_in_parallel_loop_is_refused():
    @proc
    def reverse(n: size, x: f32[n, 4]):
        for i in par(0, n):
            reverse_row(x[i, :])

    with pytest.raises(MemGenError, match="the call of reverse_row allocates a C"):
        compile_procs_to_strings([reverse], "k.h")


def test_static_allocation_two_calls_deep_is_refused():
    @proc
    def middle(x: [f32][4]):
        reverse_row(x)

    @proc
    def reverse(n: size, x: f32[n, 4]):
        for i in par(0, n):
            middle(x[i, :])

    with pytest.raises(MemGenError, match="the call of middle allocates a C"):
        compile_procs_to_strings([reverse], "k.h")


@pytest.mark.parametrize("mem", [DRAM_STACK, None], ids=["DRAM_STACK", "DRAM"])
def test_per_call_buffer_in_parallel_loop_runs(mem):
    from exo2.core.memory import DRAM

    p = reverse_rows(mem or DRAM)
    x = np.arange(4 * 37, dtype=np.float32).reshape(37, 4)
    expected = x[:, ::-1].copy()
    p.jit()(37, x)
    np.testing.assert_array_equal(x, expected)


def test_static_buffer_outside_parallel_loops_runs():
    @proc
    def reverse(n: size, x: f32[n, 4]):
        for i in seq(0, n):
            reverse_row(x[i, :])

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    expected = x[:, ::-1].copy()
    reverse.jit()(3, x)
    np.testing.assert_array_equal(x, expected)
