"""Compile-time checks of code generation (procedure-and-codegen.md §5)."""

from __future__ import annotations

import numpy as np
import pytest
from exo2 import compile_procs_to_strings, config, proc
from exo2.core.configs import ConfigError
from exo2.core.memory import MemGenError
from exo2.libs.memories import AVX2, DRAM_STATIC


def compile_one(p):
    return compile_procs_to_strings([p], "test.h")


def test_racing_par_loop_is_rejected():
    @proc
    def racy(n: size, x: f32[n], y: f32[1]):
        for i in par(0, n):
            y[0] += x[i]

    with pytest.raises(TypeError) as e:
        compile_one(racy)
    assert str(e.value).startswith("Errors occurred during precision checking:\n")
    assert str(e.value).endswith(
        ": parallel loop's body is not parallelizable because of potential data races"
    )


def test_nested_par_loop_is_checked():
    @proc
    def racy_inner(n: size, x: f32[n, n]):
        for i in seq(0, n):
            for j in par(0, n):
                x[i, 0] = x[i, j]

    with pytest.raises(TypeError, match="potential data races"):
        compile_one(racy_inner)


def test_par_loop_calling_a_config_writer_is_a_race():
    @config
    class Last:
        i: index

    @proc
    def mark():
        Last.i = 1

    @proc
    def racy_call(n: size, x: f32[n]):
        for i in par(0, n):
            x[i] = 0.0
            mark()

    with pytest.raises(TypeError, match="potential data races"):
        compile_one(racy_call)


def test_par_loop_race_hidden_by_a_stale_config_fact_is_found():
    @config
    class Mode:
        k: index

    @proc
    def stale(n: size, x: f32[n], y: f32[n]):
        assert Mode.k == 1
        Mode.k = 0
        for i in par(0, n):
            if Mode.k == 0:
                x[0] = y[i]
            else:
                x[i] = y[i]

    with pytest.raises(TypeError, match="potential data races"):
        compile_one(stale)


def test_disjoint_par_writes_through_windows_are_accepted():
    @proc
    def rows(n: size, x: f32[n, 4]):
        for i in par(0, n):
            r = x[i, :]
            for j in seq(0, 4):
                r[j] = 0.0

    assert "#pragma omp parallel for" in compile_one(rows)[0]


def test_inconsistent_precisions_are_reported():
    @proc
    def mixed(n: size, x: f32[n], y: f64[n], z: f32[n]):
        for i in seq(0, n):
            z[i] = x[i] + y[i]

    with pytest.raises(TypeError) as e:
        compile_one(mixed)
    assert (
        "cannot compute operation '+' between inconsistent precision types: f32 and f64"
        in str(e.value)
    )


def test_call_argument_precision_must_match():
    @proc
    def callee(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 0.0

    @proc
    def caller(n: size, y: f64[n]):
        callee(n, y)

    with pytest.raises(TypeError, match="expected precision f32, but got f64"):
        compile_one(caller)


def test_window_passed_to_tensor_parameter():
    @proc
    def callee(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 0.0

    @proc
    def caller(n: size, y: f32[n, n]):
        for i in seq(0, n):
            callee(n, y[i, :])

    with pytest.raises(TypeError, match="expected a non-window tensor"):
        compile_one(caller)


def test_memory_mismatch_at_call():
    @proc
    def callee(x: [f32][8] @ AVX2):
        pass

    @proc
    def caller(y: f32[8]):
        callee(y[0:8])

    with pytest.raises(
        TypeError, match="expected argument in AVX2 but got an argument in DRAM"
    ):
        compile_one(caller)


def test_unreadable_memory_raises_memgenerror():
    @proc
    def reads_avx(x: f32[8]):
        v: f32[8] @ AVX2
        for i in seq(0, 8):
            x[i] = v[i]

    with pytest.raises(
        MemGenError, match="cannot read from buffer 'v' in memory 'AVX2'"
    ):
        compile_one(reads_avx)


def test_memory_refusal_propagates_unchanged():
    @proc
    def dynamic(n: size, x: f32[n]):
        t: f32[n] @ DRAM_STATIC
        for i in seq(0, n):
            t[i] = x[i]

    with pytest.raises(
        MemGenError, match="DRAM_STATIC requires constant shapes. Saw: n"
    ):
        compile_one(dynamic)


def test_non_materialised_config_cannot_be_read():
    @config(readwrite=False)
    class Frozen:
        scale: f32

    @proc
    def reads(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = Frozen.scale

    with pytest.raises(ConfigError, match="cannot read from config 'Frozen'"):
        compile_one(reads)


def test_multiple_procs_with_one_name():
    @proc
    def f(x: f32[1]):
        x[0] = 1.0

    g = f

    @proc
    def f(x: f32[1]):  # noqa: F811
        x[0] = 2.0

    with pytest.raises(TypeError, match="multiple procs named f"):
        compile_procs_to_strings([f, g], "test.h")


def test_proc_list_must_be_a_list():
    @proc
    def f(x: f32[1]):
        x[0] = 1.0

    with pytest.raises(TypeError, match="expected a list of procedures"):
        compile_procs_to_strings((f,), "test.h")


def test_static_and_stack_scalars_are_declared_as_scalars():
    from exo2.libs.memories import DRAM_STACK

    @proc
    def scalars(x: f32[1]):
        a: f32 @ DRAM_STATIC
        b: f32 @ DRAM_STACK
        a = x[0]
        b = a * 2.0
        x[0] = b

    c_text = compile_one(scalars)[0]
    assert "static float a;" in c_text and "float b;" in c_text
    x = np.array([3.0], dtype=np.float32)
    scalars.jit()(x)
    assert x[0] == 6.0
