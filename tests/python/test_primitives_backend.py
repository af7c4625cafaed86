"""The backend annotations (primitives.md §9): set_precision, set_window,
set_memory. Printed results, JIT runs of the annotated kernels, compile-time
checks they defer to, refusals with the spec's texts, and forwarding."""

# ruff: noqa: F821

from __future__ import annotations

import numpy as np
import pytest
from exo2 import DRAM, SchedulingError, compile_procs_to_strings, proc
from exo2.API_types import ExoType
from exo2.core.memory import MemGenError
from exo2.libs.memories import DRAM_STACK, DRAM_STATIC
from exo2.stdlib.scheduling import set_memory, set_precision, set_window
from schedule_check import assert_same_results


@proc
def axpy(n: size, a: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = y[i] + a * x[i]


@proc
def blur(n: size, x: f32[n + 2], y: f32[n]):
    t: f32[4]
    for i in seq(0, n):
        for k in seq(0, 3):
            t[k] = x[i + k]
        y[i] = (t[0] + t[1] + t[2]) / 3.0


@proc
def scale_window(n: size, x: f32[n, 4]):
    for i in seq(0, n):
        row = x[i, 0:4]
        for j in seq(0, 4):
            row[j] = 2.0 * row[j]


def c_of(p):
    c, _ = compile_procs_to_strings([p], "test.h")
    return c


class FAST(DRAM):
    """A custom memory: DRAM with a marker in the generated C."""

    @classmethod
    def global_(cls):
        return "/* FAST memory */"

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        return f"{prim_type} {new_name}[{' * '.join(shape) or 1}]; /* FAST */"

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""


# ---- set_precision ----------------------------------------------------------


def test_set_precision_f64_everywhere_runs_on_f64_arrays():
    p = axpy
    for name in ("a", "x", "y"):
        p = set_precision(p, name, "f64")
    assert str(p) == (
        "def axpy(n: size, a: f64 @ DRAM, x: f64[n] @ DRAM, y: f64[n] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        y[i] = y[i] + a * x[i]"
    )
    assert "double" in c_of(p) and "float" not in c_of(p)
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, 7)
    y = rng.uniform(-1, 1, 7)
    expected = y + 0.25 * x
    p.jit()(7, 0.25, x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-15)


def test_set_precision_of_an_allocation_keeps_results():
    p = set_precision(blur, "t", "f64")
    assert "    t: f64[4] @ DRAM\n" in str(p)
    assert "double *t" in c_of(p)
    assert_same_results(blur, p, {"n": 9})


def test_set_precision_retypes_windows_of_the_buffer():
    p = set_precision(scale_window, "x", ExoType.F64)
    assert "x: f64[n, 4] @ DRAM" in str(p)
    assert p.find("row[j]").type() == ExoType.F64
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    p.jit()(3, x)
    np.testing.assert_array_equal(x, 2 * np.arange(12).reshape(3, 4))


def test_set_precision_mixing_precisions_is_refused_at_compile_time():
    p = set_precision(axpy, "x", "f64")
    assert p.find("x[i]").type() == ExoType.F64
    with pytest.raises(TypeError, match="inconsistent precision types: f32 and f64"):
        c_of(p)


def test_set_precision_forwards_cursors():
    loop = axpy.find_loop("i")
    write = axpy.find("y[i] = _")
    p = set_precision(axpy, "y", "f16")
    assert p.forward(loop) == p.find_loop("i")
    assert p.forward(write) == p.find("y[i] = _")


def test_set_precision_refuses_a_control_value():
    with pytest.raises(SchedulingError) as e:
        set_precision(axpy, "n", "f64")
    assert str(e.value).startswith(
        "set_precision: " + "cannot set the precision or memory of a control value"
    )


def test_set_precision_checks_its_type_argument():
    with pytest.raises(
        TypeError,
        match=r"argument 2, 'typ' to set_precision: expected an instance of "
        r"<enum 'ExoType'> or <class 'str'> specifying the precision",
    ):
        set_precision(axpy, "x", 64)
    with pytest.raises(ValueError) as e:
        set_precision(axpy, "x", "f128")
    assert str(e.value) == (
        "argument 2, 'typ' to set_precision: expected an instance of "
        "<enum 'ExoType'> or one of the following strings specifying precision: "
        "R, f16, f32, f64, i8, ui8, ui16, i32"
    )
    with pytest.raises(ValueError):
        set_precision(axpy, "x", ExoType.Index)


# ---- set_window -------------------------------------------------------------


def test_set_window_makes_a_window_parameter_and_keeps_results():
    p = set_window(axpy, "x")
    assert str(p).startswith(
        "def axpy(n: size, a: f32 @ DRAM, x: [f32][n] @ DRAM, y: f32[n] @ DRAM):"
    )
    assert "x.data[i * x.strides[0]]" in c_of(p)
    assert_same_results(axpy, p, {"n": 5})
    # A window parameter accepts a strided view.
    x = np.arange(10, dtype=np.float32)
    y = np.zeros(5, dtype=np.float32)
    p.jit()(5, 1.0, x[::2], y)
    np.testing.assert_array_equal(y, x[::2])


def test_set_window_false_turns_a_window_back_into_a_tensor():
    window = set_window(axpy, "x", True)
    dense = set_window(window, "x", is_window=False)
    assert str(dense) == str(axpy)
    assert_same_results(axpy, dense, {"n": 5})
    loop = axpy.find_loop("i")
    assert dense.forward(loop) == dense.find_loop("i")


def test_set_window_refuses_a_scalar_and_checks_arguments():
    with pytest.raises(SchedulingError) as e:
        set_window(axpy, "a")
    assert str(e.value).startswith(
        "set_window: " + "cannot change windowing of a non-tensor/window argument"
    )
    with pytest.raises(
        TypeError, match="argument 2, 'is_window' to set_window: expected a bool"
    ):
        set_window(axpy, "x", 1)
    with pytest.raises(TypeError, match="no argument t found"):
        set_window(blur, "t")


# ---- set_memory -------------------------------------------------------------


def test_set_memory_to_a_custom_memory_compiles_and_runs():
    p = set_memory(blur, "t", FAST)
    assert "    t: f32[4] @ FAST\n" in str(p)
    c = c_of(p)
    assert "/* FAST memory */" in c
    assert "float t[4]; /* FAST */" in c
    assert_same_results(blur, p, {"n": 6})


@pytest.mark.parametrize("memory", [DRAM_STATIC, DRAM_STACK])
def test_set_memory_to_a_builtin_memory_compiles_and_runs(memory):
    p = set_memory(blur, "t", memory)
    assert f"    t: f32[4] @ {memory.__name__}\n" in str(p)
    prefix = "static " if memory is DRAM_STATIC else ""
    assert f"{prefix}float t[4];" in c_of(p)
    assert_same_results(blur, p, {"n": 6})


def test_set_memory_of_a_parameter_and_forwarding():
    write = axpy.find("y[i] = _")
    p = set_memory(axpy, "y", FAST)
    assert "y: f32[n] @ FAST" in str(p)
    assert p.forward(write) == p.find("y[i] = _")
    assert p.find_alloc_or_arg("y").mem() is FAST


def test_set_memory_is_checked_at_compile_time():
    @proc
    def dynamic(n: size, x: f32[n]):
        t: f32[n]
        for i in seq(0, n):
            t[i] = x[i]
        for i in seq(0, n):
            x[i] = t[i]

    p = set_memory(dynamic, "t", DRAM_STATIC)
    with pytest.raises(MemGenError, match="DRAM_STATIC requires constant shapes"):
        c_of(p)


def test_set_memory_refuses_control_values_and_non_memories():
    with pytest.raises(SchedulingError) as e:
        set_memory(axpy, "n", FAST)
    assert str(e.value).startswith(
        "set_memory: " + "cannot set the precision or memory of a control value"
    )
    for bad in ("DRAM", FAST(), int):
        with pytest.raises(
            TypeError,
            match="argument 2, 'memory_type' to set_memory: expected a Memory subclass",
        ):
            set_memory(axpy, "x", bad)


def test_set_window_refuses_a_buffer_passed_to_a_dense_parameter():
    @proc
    def calls_axpy(n: size, a: f32, x: f32[n], y: f32[n]):
        axpy(n, a, x, y)

    with pytest.raises(SchedulingError) as e:
        set_window(calls_axpy, "x")
    assert str(e.value).startswith(
        "set_window: " + "cannot make x a window: it is passed to axpy at "
    )
    assert "whose parameter x is not a window" in str(e.value)
    # Once the callee takes a window, the caller's parameter can be one.
    callee = set_window(axpy, "x")

    @proc
    def calls_window(n: size, a: f32, x: f32[n], y: f32[n]):
        callee(n, a, x, y)

    p = set_window(calls_window, "x")
    assert_same_results(calls_window, p, {"n": 6})
