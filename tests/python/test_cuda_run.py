"""Running CUDA procedures (docs/cuda.md, "Running a kernel"):
`sequential_reference` gives the C backend's procedure recorded equivalent
to a CUDA one, which matches NumPy on the CPU; the JIT compiles with nvcc,
checks arguments before anything runs, and without a GPU raises
CudaUnavailableError; with a GPU, results equal NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_examples import load
from exo2.platforms.cuda import (
    CudaUnavailableError,
    jit,
    sequential_reference,
)
from exo2.platforms.cuda.runtime import load_library
from kernels import cuda_kernels as K


def bf16_bits(values):
    """float32 values rounded to bf16 (nearest even), as uint16 bits."""
    u = np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def test_sequential_reference_of_saxpy_matches_numpy():
    saxpy = load("saxpy")
    ref = sequential_reference(saxpy.saxpy_gpu)
    assert ref.is_eq(saxpy.saxpy_gpu) and ref.is_eq(saxpy.saxpy)
    assert "CUDA" not in str(ref) and "with" not in str(ref)
    rng = np.random.default_rng(0)
    # Without contraction into fused multiply-adds, C computes what NumPy
    # computes, bit for bit.
    kernel = ref.jit(extra_cflags=["-ffp-contract=off"])
    for n in [1, 7, 256, 1000]:
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        expected = y + np.float32(-1.5) * x
        kernel(n, -1.5, x, y)
        np.testing.assert_array_equal(y, expected)


def test_sequential_reference_of_the_naive_gemm_matches_numpy():
    gemm = load("gemm_naive")
    ref = sequential_reference(gemm.gemm_naive)
    assert ref.is_eq(gemm.gemm)
    rng = np.random.default_rng(1)
    for M, N, K_ in [(1, 1, 1), (17, 33, 9), (32, 16, 40)]:
        a = bf16_bits(rng.standard_normal((M, K_)))
        b = bf16_bits(rng.standard_normal((N, K_)))
        c = np.full((M, N), np.nan, np.float32)
        ref.jit()(M, N, K_, a, b, c)
        expected = bf16_values(a) @ bf16_values(b).T
        np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


def test_sequential_reference_drops_shared_memory_and_fences():
    ref = sequential_reference(K.reverse_blocks)
    assert "Fence" not in str(ref) and "CUDA_SMEM" not in str(ref)
    x = np.arange(256, dtype=np.float32)
    y = np.zeros_like(x)
    ref.jit()(256, x, y)
    np.testing.assert_array_equal(y, np.concatenate([x[127::-1], x[:127:-1]]))


@pytest.mark.cuda_compile
def test_jit_checks_arguments_before_needing_a_gpu(tmp_path):
    lib = jit([load("saxpy").saxpy_gpu], cache_dir=tmp_path)
    x = np.ones(8, np.float32)
    with pytest.raises(
        TypeError,
        match=r"saxpy_gpu: argument 'x' expects f32\[n=8\] on the GPU, got float64\[8\]",
    ):
        lib.saxpy_gpu(8, 2.0, x.astype(np.float64), x)
    with pytest.raises(
        TypeError, match=r"argument 'y' expects f32\[n=8\] on the GPU, got float32\[9\]"
    ):
        lib.saxpy_gpu(8, 2.0, x, np.ones(9, np.float32))
    with pytest.raises(ValueError, match="argument 'n' is a size and must be positive"):
        lib.saxpy_gpu(0, 2.0, x, x)
    with pytest.raises(TypeError, match="expected 4 arguments, got 3"):
        lib.saxpy_gpu(8, 2.0, x)


@pytest.mark.cuda_compile
def test_jit_without_a_gpu_raises_cuda_unavailable(tmp_path):
    from conftest import _gpu

    if _gpu():
        pytest.skip("a GPU is present")
    lib = jit([load("saxpy").saxpy_gpu], cache_dir=tmp_path)
    with pytest.raises(CudaUnavailableError, match="cannot run CUDA kernels"):
        lib.saxpy_gpu(8, 2.0, np.ones(8, np.float32), np.ones(8, np.float32))


@pytest.mark.cuda_compile
def test_jit_caches_the_library(tmp_path):
    first = jit([load("saxpy").saxpy_gpu], cache_dir=tmp_path)
    second = jit([load("saxpy").saxpy_gpu], cache_dir=tmp_path)
    assert first.path == second.path
    assert len(list(tmp_path.glob("exo2_cuda_*/lib*.so"))) == 1
    again = load_library(first.path, first.description)
    assert again.saxpy_gpu.__name__ == "saxpy_gpu"


@pytest.mark.cuda_gpu
def test_saxpy_on_the_gpu_equals_numpy(tmp_path):
    lib = jit([load("saxpy").saxpy_gpu], cache_dir=tmp_path)
    rng = np.random.default_rng(2)
    for n in [1, 255, 256, 100_003]:
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        # nvcc fuses `y + a * x` into one fma: the product is exact, the sum
        # rounded once, as in float64 then float32.
        expected = (y.astype(np.float64) + 3.0 * x.astype(np.float64)).astype(
            np.float32
        )
        lib.saxpy_gpu(n, 3.0, x, y)
        np.testing.assert_array_equal(y, expected)


@pytest.mark.cuda_gpu
def test_naive_gemm_on_the_gpu_is_close_to_numpy(tmp_path):
    lib = jit([load("gemm_naive").gemm_naive], cache_dir=tmp_path)
    rng = np.random.default_rng(3)
    for M, N, K_ in [(1, 1, 1), (100, 37, 129), (256, 256, 256)]:
        a = bf16_bits(rng.standard_normal((M, K_)))
        b = bf16_bits(rng.standard_normal((N, K_)))
        c = np.full((M, N), np.nan, np.float32)
        lib.gemm_naive(M, N, K_, a, b, c)
        expected = (
            bf16_values(a).astype(np.float64) @ bf16_values(b).astype(np.float64).T
        )
        err = np.abs(c - expected).max() / np.abs(expected).max()
        assert err < 1e-5
