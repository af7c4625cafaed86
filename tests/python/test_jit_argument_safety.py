"""The JIT refuses calls whose C would not compute the kernel's meaning
(docs/compiling-and-calling.md): array arguments that overlap while the
kernel writes one of them (exo2 proves schedules assuming distinct arrays
never alias), integers that do not fit their C type, and a C compiler that
cannot be run. Each is a clear Python error naming the argument."""

from __future__ import annotations

import ctypes

import exo2
import numpy as np
import pytest
from exo2 import config, proc
from exo2.API_scheduling import reorder_stmts
from exo2.jit import JitCompileError


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


@proc
def clear_then_copy(n: size, x: [f32][n], y: [f32][n], z: f32[n]):
    for i in seq(0, n):
        y[i] = 0.0
    for i in seq(0, n):
        z[i] = x[i]


@proc
def copy(n: size, x: [f32][n], y: [f32][n]):
    for i in seq(0, n):
        y[i] = x[i]


@proc
def dot(n: size, x: f32[n], y: f32[n], out: f32):
    out = 0.0
    for i in seq(0, n):
        out += x[i] * y[i]


@proc
def scale(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] = 2.0 * x[i]


# ---- aliasing -------------------------------------------------------------


def test_overlapping_windows_are_refused_before_and_after_a_reorder():
    # Legal because x and y are distinct; with x and y sharing elements,
    # the reordered kernel would copy values the original had cleared.
    reordered = reorder_stmts(clear_then_copy, clear_then_copy.body()[0].expand(0, 1))
    assert "    for i in seq(0, n):\n        z[i] = x[i]\n    for i" in str(reordered)
    a = np.arange(1, 10, dtype=np.float32)
    z = np.zeros(8, np.float32)
    for p in (clear_then_copy, reordered):
        with pytest.raises(ValueError) as e:
            p.jit()(8, a[0:8], a[1:9], z)
        assert (
            "arguments 'x' and 'y' overlap in memory, and the kernel writes "
            "'y': exo2 assumes that distinct array arguments never alias"
        ) in str(e.value)
    np.testing.assert_array_equal(a, np.arange(1, 10))  # nothing ran
    assert not z.any()


def test_same_array_twice_is_refused_when_written():
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="arguments 'x' and 'y' overlap in memory"):
        scale.jit()(4, x, x)


def test_scalar_view_into_an_argument_is_refused():
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="arguments 'x' and 'out' overlap"):
        dot.jit()(4, x, np.ones(4, np.float32), x[2:3].reshape(()))
    cell = ctypes.c_float(0.0)
    y = np.frombuffer(cell, np.float32)
    with pytest.raises(ValueError, match="arguments 'y' and 'out' overlap"):
        dot.jit()(1, np.ones(1, np.float32), y, cell)


def test_read_only_arguments_may_alias():
    x = np.arange(5, dtype=np.float32)
    out = np.zeros((), np.float32)
    dot.jit()(5, x, x, out)
    assert out == np.dot(x, x)


def test_interleaved_disjoint_windows_are_accepted():
    # Their byte ranges intersect, but they share no element.
    a = np.zeros((4, 2), np.float32)
    a[:, 0] = [1, 2, 3, 4]
    copy.jit()(4, a[:, 0], a[:, 1])
    np.testing.assert_array_equal(a, [[1, 1], [2, 2], [3, 3], [4, 4]])


# ---- integer ranges -------------------------------------------------------


@proc
def put(n: size, k: index, a: i8, x: i8[n]):
    assert k >= 0
    assert k < n
    x[k] = a


@proc
def fill(n: size, a: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = a


@pytest.mark.parametrize(
    "args,error,text",
    [
        ((2**64 + 4, 0, 1), ValueError, "argument 'n': 18446744073709551620 does not"),
        ((4, 2**63, 1), ValueError, "argument 'k': 9223372036854775808 does not fit"),
        (
            (4, 0, 1000),
            ValueError,
            "argument 'a': 1000 does not fit in i8 (-128 to 127)",
        ),
        ((4, 0, -129), ValueError, "argument 'a': -129 does not fit in i8"),
        ((4, 0, 2.5), TypeError, "argument 'a': expected an integer for i8, got float"),
    ],
)
def test_integers_outside_their_c_type_are_refused(args, error, text):
    x = np.zeros(4, np.int8)
    with pytest.raises(error) as e:
        put.jit()(*args, x)
    assert text in str(e.value)
    assert not x.any()


def test_integers_inside_their_c_type_are_passed_exactly():
    x = np.zeros(4, np.int8)
    put.jit()(4, 3, -128, x)
    put.jit()(4, 0, 127, x)
    np.testing.assert_array_equal(x, [127, 0, 0, -128])


def test_float_scalar_that_would_overflow_is_refused():
    x = np.zeros(2, np.float32)
    with pytest.raises(ValueError, match="1e\\+300 does not fit in f32"):
        fill.jit()(2, 1e300, x)
    fill.jit()(2, float("inf"), x)  # infinity itself is a float value
    assert np.isinf(x).all()


def test_config_fields_are_range_checked():
    @config
    class Step:
        k: index
        small: i8

    @proc
    def bump(x: i8[4]):
        x[0] = Step.small

    kernel = bump.jit()
    with pytest.raises(ValueError, match="Step.k is index: 9223372036854775808"):
        kernel.set_config(Step, k=2**63)
    with pytest.raises(ValueError, match="Step.small is i8: 300 does not fit"):
        kernel.set_config(Step, small=300)
    with pytest.raises(TypeError, match="Step.small is i8: expected an int"):
        kernel.set_config(Step, small=1.5)
    kernel.set_config(Step, small=-7)
    x = np.zeros(4, np.int8)
    kernel(x)
    assert x[0] == -7


# ---- compiler -------------------------------------------------------------


def test_missing_compiler_is_a_clear_error():
    with pytest.raises(JitCompileError) as e:
        exo2.jit(scale, cc="/nonexistent/cc")
    assert "cannot run the C compiler '/nonexistent/cc'" in str(e.value)
    assert "pass cc= or set $CC" in str(e.value)
