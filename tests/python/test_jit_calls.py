"""Bad calls of JIT kernels raise Python errors before any C runs, and
good calls are cheap."""

import ctypes
import importlib

import exo2
import exo2.API_scheduling
import numpy as np
import pytest
from exo2.jit import JitCompileError, jit_library
from kernels import jit_kernels as K


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


@pytest.fixture(scope="module")
def blur():
    return exo2.jit(K.blur2d)


@pytest.fixture(scope="module")
def dot():
    return K.dot.jit()


def f32(*shape):
    return np.zeros(shape, np.float32)


@pytest.mark.parametrize(
    "args,kwargs,error,text",
    [
        ((4, 5, f32(6, 7)), {}, TypeError, "missing a required argument: 'out'"),
        (
            (4, 5, f32(6, 7), f32(4, 5), 1),
            {},
            TypeError,
            "too many positional arguments",
        ),
        (
            (4, 5, f32(6, 7), f32(4, 5)),
            {"bogus": 1},
            TypeError,
            "unexpected keyword argument 'bogus'",
        ),
        (
            (4, 5, f32(6, 7), np.zeros((4, 5))),
            {},
            TypeError,
            "expected dtype float32, got float64",
        ),
        ((4, 5, f32(6, 7), f32(20)), {}, ValueError, "expected 2 dimensions, got 1"),
        (
            (4, 5, f32(6, 6), f32(4, 5)),
            {},
            ValueError,
            "expected shape (n + 2, m + 2) = (6, 7), got (6, 6)",
        ),
        (
            (4, 5, f32(7, 6).T, f32(4, 5)),
            {},
            ValueError,
            "expected a C-contiguous array",
        ),
        (
            (4, 5, [[0.0] * 7] * 6, f32(4, 5)),
            {},
            TypeError,
            "expected a numpy.ndarray of float32, got list",
        ),
        (
            (4.0, 5, f32(6, 7), f32(4, 5)),
            {},
            TypeError,
            "expected an int (size), got float",
        ),
        ((0, 5, f32(2, 7), f32(0, 5)), {}, ValueError, "size must be positive, got 0"),
        (
            (True, 5, f32(3, 7), f32(1, 5)),
            {},
            TypeError,
            "expected an int (size), got bool",
        ),
    ],
)
def test_bad_call_is_refused(blur, args, kwargs, error, text):
    with pytest.raises(error) as e:
        blur(*args, **kwargs)
    assert text in str(e.value)
    assert str(e.value).startswith("blur2d: ")


def test_keyword_arguments_are_accepted(blur):
    out = f32(4, 5)
    blur(m=5, n=4, inp=np.ones((6, 7), np.float32), out=out)
    np.testing.assert_allclose(out, 1.0, rtol=1e-6)


def test_read_only_array_for_written_parameter(blur):
    out = f32(4, 5)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="the kernel writes this argument"):
        blur(4, 5, f32(6, 7), out)


def test_written_scalar_needs_an_array_or_ctypes_value(dot):
    x = np.ones(3, np.float32)
    with pytest.raises(TypeError, match="pass a 0-d numpy array or a ctypes value"):
        dot(3, x, x, 0.0)
    with pytest.raises(TypeError, match="expected a 0-d array of dtype float32"):
        dot(3, x, x, np.zeros((), np.float64))
    with pytest.raises(TypeError, match="expected a ctypes value of f32"):
        dot(3, x, x, ctypes.c_double())
    r = ctypes.c_float()
    dot(3, x, x, r)
    assert r.value == 3.0


def test_precondition_is_checked_before_running():
    k = exo2.jit(K.gemv_blocked)
    with pytest.raises(ValueError, match=r"precondition violated: n % 4 == 0"):
        k(2, 6, f32(2, 6), f32(6), f32(2))
    shift = exo2.jit(K.shift_from)
    with pytest.raises(ValueError, match="precondition violated: off < n"):
        shift(4, 4, f32(4), f32(4))


def test_window_stride_precondition_is_checked():
    k = exo2.jit(K.axpy)
    with pytest.raises(ValueError, match=r"precondition violated: stride\(x, 0\) == 1"):
        k(4, 1.0, np.zeros(8, np.float32)[::2], f32(4))


def test_window_accepts_strided_views():
    k = exo2.jit(K.axpy_win)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = f32(4)
    k(4, 1.0, x[:, 2], y)
    np.testing.assert_array_equal(y, x[:, 2])


def test_bool_parameter_needs_a_bool():
    k = exo2.jit(K.maybe_negate)
    with pytest.raises(TypeError, match="expected a bool, got int"):
        k(3, 1, f32(3))


def test_config_errors_name_the_field():
    k = exo2.jit(K.config_scale)
    with pytest.raises(KeyError, match="has no field 'beta'"):
        k.set_config(K.ScaleCfg, beta=1.0)


def test_later_calls_neither_compile_nor_write_c(dot, monkeypatch):
    # What a call costs is measured in benchmarks (docs/tuning-and-measuring.md);
    # here: once compiled, a kernel is called without the compiler.
    x = np.ones(16, np.float32)
    r = np.zeros((), np.float32)
    dot(16, x, x, r)

    def no_compiler(*args, **kwargs):
        raise AssertionError("a later call ran the C compiler")

    jit_module = importlib.import_module("exo2.jit")
    monkeypatch.setattr(jit_module, "_compile_library", no_compiler)
    monkeypatch.setattr(jit_module.subprocess, "run", no_compiler)
    for n in (16, 5, 1):
        dot(n, x[:n], x[:n], r)
        assert r == n


def test_compiled_library_is_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO2_CACHE_DIR", str(tmp_path))
    exo2.jit(K.reverse, extra_cflags=["-DEXO2_TEST_CACHE"])
    assert len(list(tmp_path.glob("exo2_*.so"))) == 1


def test_compiler_errors_are_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO2_CACHE_DIR", str(tmp_path))
    with pytest.raises(JitCompileError, match="failed"):
        exo2.jit(K.reverse, extra_cflags=["-DX=1", "-fno-such-flag-for-exo2"])


def test_jit_library_compiles_several_procedures_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO2_CACHE_DIR", str(tmp_path))
    scale, blur = jit_library([K.scale, K.blur1d])
    assert scale.library is blur.library
    assert len(list(tmp_path.glob("exo2_*.so"))) == 1
    x = np.arange(5, dtype=np.float32)
    scale(5, 3.0, x)
    y = np.zeros(3, np.float32)
    blur(3, x, y)
    assert (x == 3 * np.arange(5)).all()
    assert np.allclose(y, [x[0:3].sum() / 3, x[1:4].sum() / 3, x[2:5].sum() / 3])


def test_jit_library_needs_distinct_names():
    renamed = exo2.API_scheduling.insert_pass(K.scale, K.scale.body()[0].before())
    with pytest.raises(TypeError, match="multiple procs named scale"):
        jit_library([K.scale, renamed])
