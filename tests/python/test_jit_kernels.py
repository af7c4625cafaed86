"""Kernels compiled by the JIT and run on random NumPy inputs of several
sizes, against NumPy references."""

import exo2
import numpy as np
import pytest
from kernels import jit_kernels as K

SIZES = [1, 5, 16]


@pytest.fixture(scope="module", autouse=True)
def jit_cache(tmp_path_factory):
    """One compile cache for the module, so each kernel compiles once."""
    mp = pytest.MonkeyPatch()
    mp.setenv("EXO2_CACHE_DIR", str(tmp_path_factory.mktemp("exo2_cache")))
    yield
    mp.undo()


_KERNELS = {}


def kernel(p):
    if p.name() not in _KERNELS:
        _KERNELS[p.name()] = exo2.jit(p)
    return _KERNELS[p.name()]


def rand(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def close(a, b, tol=1e-4):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# Each case: (proc, runner(kernel, rng, n)); the runner builds inputs of
# size about n, calls the kernel and checks against NumPy.


def run_axpy(k, rng, n):
    x, y = rand(rng, n), rand(rng, n)
    ref = y + np.float32(2.5) * x
    k(n, 2.5, x, y)
    close(y, ref)


def run_axpy_win(k, rng, n):
    x, y = rand(rng, 2 * n)[::2], rand(rng, 3 * n)[::3]
    ref = y + np.float32(-1.5) * x
    k(n, -1.5, x, y)
    close(y, ref)


def run_scale(k, rng, n):
    x = rand(rng, n)
    ref = 3 * x
    k(n, np.float32(3), x)
    close(x, ref)


def run_dot(k, rng, n):
    x, y, r = rand(rng, n), rand(rng, n), np.zeros((), np.float32)
    k(n, x, y, r)
    close(r, np.dot(x, y))


def run_blur1d(k, rng, n):
    x, y = rand(rng, n + 2), np.zeros(n, np.float32)
    k(n, x, y)
    close(y, (x[:-2] + x[1:-1] + x[2:]) / 3)


def run_blur2d(k, rng, n):
    m = n + 1
    inp, out = rand(rng, n + 2, m + 2), np.zeros((n, m), np.float32)
    k(n, m, inp, out)
    ref = sum(inp[a : a + n, b : b + m] for a in range(3) for b in range(3)) / 9
    close(out, ref)


def run_conv1d(k, rng, n):
    w = rand(rng, 3)
    x, y = rand(rng, n + 2), np.zeros(n, np.float32)
    k(n, 3, x, w, y)
    close(y, np.correlate(x, w, mode="valid"))


def run_sgemm(k, rng, n):
    A, B, C = rand(rng, n, n + 1), rand(rng, n + 1, n + 2), rand(rng, n, n + 2)
    ref = C + A @ B
    k(n, n + 2, n + 1, A, B, C)
    close(C, ref)


def run_gemv(k, rng, n):
    A, x, y = rand(rng, n + 1, n), rand(rng, n), np.zeros(n + 1, np.float32)
    k(n + 1, n, A, x, y)
    close(y, A @ x)


def run_gemv_t(k, rng, n):
    A, x, y = rand(rng, n + 1, n), rand(rng, n + 1), np.zeros(n, np.float32)
    k(n + 1, n, A, x, y)
    close(y, A.T @ x)


def run_transpose(k, rng, n):
    A, B = rand(rng, n, n + 3), np.zeros((n + 3, n), np.float32)
    k(n, n + 3, A, B)
    close(B, A.T)


def run_add2d(k, rng, n):
    A, B, C = rand(rng, n, 3), rand(rng, n, 3), np.zeros((n, 3), np.float32)
    k(n, 3, A, B, C)
    close(C, A + B)


def run_unary(ref_fn, dtype=np.float32, positive=False):
    def run(k, rng, n):
        x = rand(rng, n, dtype=dtype)
        if positive:
            x = np.abs(x)
        y = np.zeros(n, dtype)
        k(n, x, y)
        close(y, ref_fn(x))

    return run


def run_softmax(k, rng, n):
    x, y = rand(rng, n), np.zeros(n, np.float32)
    k(n, x, y)
    e = np.exp(x - x.max())
    close(y, e / e.sum())


def run_prefix_sums(k, rng, n):
    X, Y = rand(rng, 3, n), np.zeros((3, n), np.float32)
    k(3, n, X, Y)
    close(Y, np.cumsum(X, axis=1))


def run_reduction(ref_fn):
    def run(k, rng, n):
        x, r = rand(rng, n), np.zeros((), np.float32)
        k(n, x, r)
        close(r, ref_fn(x))

    return run


def run_axpy_f64(k, rng, n):
    x, y = rand(rng, n, dtype=np.float64), rand(rng, n, dtype=np.float64)
    ref = y + 0.5 * x
    k(n, 0.5, x, y)
    close(y, ref, 1e-12)


def run_add_i32(k, rng, n):
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    y = rng.integers(-1000, 1000, n, dtype=np.int32)
    z = np.zeros(n, np.int32)
    k(n, x, y, z)
    np.testing.assert_array_equal(z, x + 2 * y)


def run_add_i8(k, rng, n):
    x = rng.integers(-50, 50, n, dtype=np.int8)
    y = rng.integers(-50, 50, n, dtype=np.int8)
    ref = x + y
    k(n, x, y)
    np.testing.assert_array_equal(y, ref)


def run_narrow(k, rng, n):
    x, y = rand(rng, n, dtype=np.float64), np.zeros(n, np.float32)
    k(n, x, y)
    close(y, x.astype(np.float32))


def run_config_scale(k, rng, n):
    k.set_config(K.ScaleCfg, alpha=4.0)
    assert k.get_config(K.ScaleCfg, "alpha") == 4.0
    x = rand(rng, n)
    ref = 4 * x
    k(n, x)
    close(x, ref)


def run_config_count(k, rng, n):
    x = np.zeros(n, np.float32)
    k(n, x)
    assert k.get_config(K.ScaleCfg, "count") == n
    close(x, np.ones(n))


def run_rows_axpy(k, rng, n):
    X, Y = rand(rng, 4, n), rand(rng, 4, n)
    ref = Y + 2 * X
    k(4, n, 2.0, X, Y)
    close(Y, ref)


def run_promote_call(k, rng, n):
    x, y = rand(rng, n), np.zeros(n, np.float32)
    k(n, x, y)
    close(y, np.cumsum(x))


def run_par_scale(k, rng, n):
    x = rand(rng, n)
    ref = -2 * x
    k(n, -2.0, x)
    close(x, ref)


def run_clamp(k, rng, n):
    x = rand(rng, n)
    ref = np.clip(x, -0.5, 0.5)
    k(n, -0.5, 0.5, x)
    close(x, ref)


def run_even_odd(k, rng, n):
    x = rand(rng, n)
    ref = x * 2
    ref[::2] = 0
    k(n, x)
    close(x, ref)


def run_downsample(k, rng, n):
    x, y = rand(rng, 2 * n), np.zeros(n, np.float32)
    k(n, x, y)
    close(y, x[::2] + x[1::2])


def run_upsample(k, rng, n):
    x, y = rand(rng, n), np.zeros(2 * n, np.float32)
    k(n, x, y)
    close(y, np.repeat(x, 2))


def run_tiled_copy(k, rng, n):
    x, y = rand(rng, n, 8), np.zeros((n, 8), np.float32)
    k(n, x, y)
    close(y, x[:, ::-1])


def run_row_sums(k, rng, n):
    X, s = rand(rng, 3, n), np.zeros(3, np.float32)
    k(3, n, X, s)
    close(s, X.sum(axis=1))


def run_nested_window(k, rng, n):
    X, y = rand(rng, n, 4, 4), np.zeros(n, np.float32)
    k(n, X, y)
    close(y, X[:, 1, 2] + X[:, 2, 2])


def run_strided_sum(k, rng, n):
    base = rand(rng, n, 3)
    r = np.zeros((), np.float32)
    k(n, base[:, 1], r)
    close(r, base[:, 1].sum())


def run_maybe_negate(k, rng, n):
    x = rand(rng, n)
    ref = -x
    k(n, True, x)
    close(x, ref)
    k(n, False, x)
    close(x, ref)


def run_shift_from(k, rng, n):
    x, y = rand(rng, n), np.zeros(n, np.float32)
    off = n // 2
    k(n, off, x, y)
    close(y[: n - off], x[off:])


def run_gemv_blocked(k, rng, n):
    A, x, y = rand(rng, 3, 4 * n), rand(rng, 4 * n), np.zeros(3, np.float32)
    k(3, 4 * n, A, x, y)
    close(y, A @ x, 1e-3)


def run_outer(k, rng, n):
    x, y, A = rand(rng, n), rand(rng, n + 1), np.zeros((n, n + 1), np.float32)
    k(n, n + 1, x, y, A)
    close(A, np.outer(x, y))


def run_lower_sum(k, rng, n):
    A, r = rand(rng, n, n), np.zeros((), np.float32)
    k(n, A, r)
    close(r, np.tril(A).sum(), 1e-3)


def run_reverse(k, rng, n):
    x, y = rand(rng, n), np.zeros(n, np.float32)
    k(n, x, y)
    close(y, x[::-1])


def run_fill(k, rng, n):
    x = np.zeros(n)
    k(n, x)
    close(x, np.full(n, 2.5))


def run_sum_axis1(k, rng, n):
    X, Y = rand(rng, 2, n, 3), np.zeros((2, 3), np.float32)
    k(2, n, 3, X, Y)
    close(Y, X.sum(axis=1), 1e-3)


def run_copy_rows(k, rng, n):
    x, y = rand(rng, n, 4), np.zeros((n, 4), np.float32)
    k(n, x, y)
    close(y, x + 1)


def run_square(k, rng, n):
    x, y = rand(rng, n), np.zeros(n, np.float32)
    k(n, x, y)
    close(y, x * x)


def run_par_blur_rows(k, rng, n):
    inp, out = rand(rng, n, 7), np.zeros((n, 5), np.float32)
    k(n, 5, inp, out)
    close(out, (inp[:, :-2] + inp[:, 1:-1] + inp[:, 2:]) / 3)


CASES = [
    (K.axpy, run_axpy),
    (K.axpy_win, run_axpy_win),
    (K.scale, run_scale),
    (K.dot, run_dot),
    (K.blur1d, run_blur1d),
    (K.blur2d, run_blur2d),
    (K.conv1d, run_conv1d),
    (K.sgemm, run_sgemm),
    (K.gemv, run_gemv),
    (K.gemv_t, run_gemv_t),
    (K.transpose, run_transpose),
    (K.add2d, run_add2d),
    (K.relu_vec, run_unary(lambda x: np.maximum(x, 0))),
    (K.softmax, run_softmax),
    (K.prefix_sums, run_prefix_sums),
    (K.vec_sum, run_reduction(np.sum)),
    (K.vec_max, run_reduction(np.max)),
    (K.sigmoid_vec, run_unary(lambda x: 1 / (1 + np.exp(-x)))),
    (K.sqrt_vec, run_unary(np.sqrt, np.float64, positive=True)),
    (K.axpy_f64, run_axpy_f64),
    (K.add_i32, run_add_i32),
    (K.add_i8, run_add_i8),
    (K.narrow_f64_to_f32, run_narrow),
    (K.config_scale, run_config_scale),
    (K.config_count, run_config_count),
    (K.rows_axpy, run_rows_axpy),
    (K.promote_call, run_promote_call),
    (K.par_scale, run_par_scale),
    (K.par_add2d, run_add2d),
    (K.par_gemv, run_gemv),
    (K.clamp, run_clamp),
    (K.even_odd, run_even_odd),
    (K.downsample, run_downsample),
    (K.upsample, run_upsample),
    (K.tiled_copy, run_tiled_copy),
    (K.row_sums, run_row_sums),
    (K.nested_window, run_nested_window),
    (K.strided_sum, run_strided_sum),
    (K.maybe_negate, run_maybe_negate),
    (K.shift_from, run_shift_from),
    (K.gemv_blocked, run_gemv_blocked),
    (K.outer, run_outer),
    (K.lower_sum, run_lower_sum),
    (K.reverse, run_reverse),
    (K.fill, run_fill),
    (K.sum_axis1, run_sum_axis1),
    (K.mean_f64_acc, run_reduction(np.sum)),
    (K.static_buffers, run_copy_rows),
    (K.traced_memory, run_square),
    (K.par_rows_axpy, run_rows_axpy),
    (K.par_blur_rows, run_par_blur_rows),
]


@pytest.mark.parametrize("proc,runner", CASES, ids=[p.name() for p, _ in CASES])
def test_kernel_matches_numpy(proc, runner):
    k = kernel(proc)
    for seed, n in enumerate(SIZES):
        runner(k, np.random.default_rng(seed), n)


def test_at_least_forty_kernels_run():
    assert len(CASES) >= 40


def test_user_memory_text_reaches_the_c_code():
    assert "/* traced */ float *buf" in kernel(K.traced_memory).c_code


def test_par_loops_compile_with_openmp():
    assert "#pragma omp parallel for" in kernel(K.par_scale).c_code


def test_index_operands_of_equal_precedence_keep_their_parentheses():
    """Found by a random schedule (mult_loops): `4 * (k % 2)` was emitted as
    `4 * k % 2`, which C reads as `(4 * k) % 2`."""
    A = np.arange(8, dtype=np.float32) + 1
    C = np.zeros(1, np.float32)
    K.interleaved_sum.jit()(A, C)
    expected = sum(A[k // 2 + 4 * (k % 2)] * A[7 - (k - k % 4)] for k in range(8))
    assert C[0] == expected
