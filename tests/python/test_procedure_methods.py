"""The Procedure methods that start a new procedure (docs/primitives-backend.md):
partial_eval, transpose, add_assertion. Printed results, JIT runs
against the original, their errors, and that the results have no
parent."""

# ruff: noqa: F821

from __future__ import annotations

import numpy as np
import pytest
from exo2 import ParseFragmentError, SchedulingError, config, proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.scheduling import divide_loop, simplify


@proc
def gemv(m: size, n: size, A: f32[m, n], x: f32[n], y: f32[m]):
    assert m % 4 == 0
    for i in seq(0, m):
        for j in seq(0, n):
            y[i] += A[i, j] * x[j]


@proc
def scale_if(n: size, flag: bool, x: f32[n]):
    for i in seq(0, n):
        if flag:
            x[i] = 2.0 * x[i]


@proc
def copy_rows(n: size, A: f32[n, 4], B: f32[n, 4]):
    for i in seq(0, n):
        for j in seq(0, 4):
            B[i, j] = A[i, j]


def gemv_inputs(m, n, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, m).astype(np.float32)
    return A, x, y


# ---- partial_eval -----------------------------------------------------------


def test_partial_eval_positional_fixes_leading_sizes_and_runs():
    p = gemv.partial_eval(8, 5)
    assert str(p) == (
        "def gemv(A: f32[8, 5] @ DRAM, x: f32[5] @ DRAM, y: f32[8] @ DRAM):\n"
        "    assert 8 % 4 == 0\n"
        "    for i in seq(0, 8):\n"
        "        for j in seq(0, 5):\n"
        "            y[i] += A[i, j] * x[j]"
    )
    A, x, y = gemv_inputs(8, 5)
    y2 = y.copy()
    gemv.jit()(8, 5, A, x, y)
    p.jit()(A, x, y2)
    np.testing.assert_allclose(y2, y, rtol=1e-5, atol=1e-6)


def test_partial_eval_named_fixes_only_that_parameter():
    p = gemv.partial_eval(n=3)
    assert str(p).startswith(
        "def gemv(m: size, A: f32[m, 3] @ DRAM, x: f32[3] @ DRAM, y: f32[m] @ DRAM):"
    )
    A, x, y = gemv_inputs(12, 3)
    y2 = y.copy()
    gemv.jit()(12, 3, A, x, y)
    p.jit()(12, A, x, y2)
    np.testing.assert_allclose(y2, y, rtol=1e-5, atol=1e-6)


def test_partial_eval_of_a_bool_parameter():
    p = scale_if.partial_eval(flag=False)
    assert "        if False:\n" in str(p)
    x = np.ones(4, dtype=np.float32)
    p.jit()(4, x)
    np.testing.assert_array_equal(x, np.ones(4))
    q = scale_if.partial_eval(4, True)
    q.jit()(x)
    np.testing.assert_array_equal(x, 2 * np.ones(4))


def test_partial_eval_argument_errors():
    assert gemv.partial_eval() is gemv
    with pytest.raises(
        ValueError, match="Must provide EITHER ordered OR named arguments"
    ):
        gemv.partial_eval(4, n=3)
    with pytest.raises(TypeError, match="expected no more than 5 arguments, but got 6"):
        gemv.partial_eval(1, 2, 3, 4, 5, 6)
    with pytest.raises(TypeError, match="no argument k found"):
        gemv.partial_eval(k=3)


def test_partial_eval_refuses_data_parameters_and_non_integer_values():
    with pytest.raises(SchedulingError) as e:
        gemv.partial_eval(4, 4, 1.0)
    assert str(e.value).startswith(
        "partial_eval: cannot partially evaluate numeric (non-index, non-bool) arguments"
    )
    for value in (4.0, "4", None):
        with pytest.raises(SchedulingError) as e:
            gemv.partial_eval(m=value)
        assert str(e.value).startswith(
            "partial_eval: cannot partially evaluate to a non-int, non-bool value"
        )


def test_partial_eval_result_has_no_parent():
    loop = gemv.find_loop("i")
    p = gemv.partial_eval(8)
    with pytest.raises(InvalidCursorError):
        p.forward(loop)
    assert not p.is_eq(gemv)
    # Scheduling continues from the new procedure.
    q = divide_loop(p, "i", 4, ["io", "ii"], perfect=True)
    assert "    for io in seq(0, 2):\n" in str(q)


# ---- transpose --------------------------------------------------------------


def test_transpose_swaps_the_dimensions_and_runs_on_transposed_arrays():
    p = gemv.transpose(gemv.args()[2])
    assert str(p) == (
        "def gemv(m: size, n: size, A: f32[n, m] @ DRAM, x: f32[n] @ DRAM,\n"
        "         y: f32[m] @ DRAM):\n"
        "    assert m % 4 == 0\n"
        "    for i in seq(0, m):\n"
        "        for j in seq(0, n):\n"
        "            y[i] += A[j, i] * x[j]"
    )
    A, x, y = gemv_inputs(8, 5)
    y2 = y.copy()
    gemv.jit()(8, 5, A, x, y)
    p.jit()(8, 5, np.ascontiguousarray(A.T), x, y2)
    np.testing.assert_allclose(y2, y, rtol=1e-5, atol=1e-6)
    with pytest.raises(InvalidCursorError):
        p.forward(gemv.find_loop("j"))


def test_transpose_permutes_windows_and_strides():
    @proc
    def rows(n: size, A: [f32][n, 4], B: f32[n, 4]):
        assert stride(A, 1) == 1
        for i in seq(0, n):
            row = A[i, 0:4]
            for j in seq(0, 4):
                B[i, j] = row[j]

    p = rows.transpose(rows.args()[1])
    assert str(p) == (
        "def rows(n: size, A: [f32][4, n] @ DRAM, B: f32[n, 4] @ DRAM):\n"
        "    assert stride(A, 0) == 1\n"
        "    for i in seq(0, n):\n"
        "        row = A[0:4, i]\n"
        "        for j in seq(0, 4):\n"
        "            B[i, j] = row[j]"
    )
    A = np.arange(12, dtype=np.float32).reshape(3, 4)
    B1 = np.zeros((3, 4), dtype=np.float32)
    B2 = np.zeros((3, 4), dtype=np.float32)
    rows.jit()(3, A, B1)
    # The transposed view of the same memory keeps `stride(A, 0) == 1`.
    p.jit()(3, A.T, B2)
    np.testing.assert_array_equal(B2, B1)


def test_transpose_errors():
    for bad in (gemv.args()[3], gemv.args()[0], gemv.find_loop("i"), "A"):
        with pytest.raises(TypeError, match="expected a 2D argument cursor"):
            gemv.transpose(bad)

    @proc
    def calls(n: size, A: f32[n, 4], B: f32[n, 4]):
        copy_rows(n, A, B)

    with pytest.raises(SchedulingError) as e:
        calls.transpose(calls.args()[1])
    assert str(e.value).startswith(
        "transpose: Cannot permute buffer 'A' because it is passed as a "
        "sub-procedure argument at "
    )

    @proc
    def whole_window(n: size, A: f32[n, 4], B: f32[n, 4]):
        W = A[0:n, 0:4]
        for i in seq(0, n):
            for j in seq(0, 4):
                B[i, j] = W[i, j]

    with pytest.raises(SchedulingError) as e:
        whole_window.transpose(whole_window.args()[1])
    assert "would change the meaning of the window" in str(e.value)


# ---- add_assertion ----------------------------------------------------------


@proc
def scale(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


def test_add_assertion_is_printed_and_used_by_later_primitives():
    with pytest.raises(SchedulingError, match="cannot perfectly divide 'n' by 8"):
        divide_loop(scale, "i", 8, ["io", "ii"], perfect=True)
    p = scale.add_assertion("n % 8 == 0")
    assert str(p) == (
        "def scale(n: size, x: f32[n] @ DRAM):\n"
        "    assert n % 8 == 0\n"
        "    for i in seq(0, n):\n"
        "        x[i] = 2.0 * x[i]"
    )
    q = simplify(divide_loop(p, "i", 8, ["io", "ii"], perfect=True))
    assert "    for io in seq(0, n / 8):\n" in str(q)
    x = np.arange(16, dtype=np.float32)
    q.jit()(16, x)
    np.testing.assert_array_equal(x, 2 * np.arange(16))
    with pytest.raises(InvalidCursorError):
        p.forward(scale.find_loop("i"))
    assert not p.is_eq(scale)


def test_add_assertion_with_a_config():
    @config
    class Cfg:
        width: size

    p = scale.add_assertion("Cfg.width == n", configs=[Cfg])
    assert "    assert Cfg.width == n\n" in str(p)
    with pytest.raises(
        ParseFragmentError,
        match="Could not find Config named 'Cfg'. Try supplying a list of Config "
        "objects via an optional 'configs' argument",
    ):
        scale.add_assertion("Cfg.width == n")
    with pytest.raises(
        ParseFragmentError, match="Config named 'Cfg' does not have a field named 'w'"
    ):
        scale.add_assertion("Cfg.w == n", configs=[Cfg])


def test_add_assertion_errors():
    with pytest.raises(TypeError, match="assertion must be an Exo string"):
        scale.add_assertion(True)
    with pytest.raises(
        ParseFragmentError, match="k not found in the current environment"
    ):
        scale.add_assertion("k == 4")
    with pytest.raises(TypeError, match="expected a bool expression"):
        scale.add_assertion("n + 1")
    # Two assertions accumulate in order.
    p = scale.add_assertion("n >= 4").add_assertion("n % 2 == 0")
    assert "    assert n >= 4\n    assert n % 2 == 0\n" in str(p)
