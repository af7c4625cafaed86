"""`exo2.stdlib.cuda.use_tma` and `use_wgmma` (docs/cuda.md, "TMA and wgmma
from a sequential tile algorithm"): they turn the Sm90a example's tile
algorithm into the TMA + wgmma kernel, whose arithmetic is unchanged (the
sequential references of both agree on random inputs), which passes both
tiers of the parallel check; and they refuse copy and multiply nests that
no instruction implements, naming the tile shape, memory or precision at
fault."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_examples import load
from exo2 import SchedulingError, proc
from exo2.API_scheduling import reorder_loops, set_memory, set_precision
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CUDA_RMEM,
    CUDA_SMEM,
    CUDA_SMEM_SWIZZLED,
    CudaDeviceFunction,
    check_parallel,
    cuda_async_proxy,
    cuda_tasks,
    jit,
    sequential_reference,
)
from exo2.platforms.cuda.sm90 import CUDA_WGMMA_ACCUM
from exo2.stdlib.cuda import use_tma, use_wgmma
from test_cuda_run import bf16_bits, bf16_values


def tiles():
    return load("gemm_sm90").gemm_sm90_tiles


def k_steps(p):
    """The copy nests of A and B and the multiply nest."""
    return p.find_loop("k").body()


def test_use_tma_makes_tma_loads_signalling_an_mbarrier():
    p = tiles()
    load_a, load_b, _ = k_steps(p)
    p, (loads, warps, wait, barrier) = use_tma(p, [load_a, load_b], rc=True)
    text = str(p)
    assert "A_tm = A[0:M, 0:K] @ CudaTensorMap(swizzle=128, box=(64, 64))" in text
    assert "B_tm = B[0:N, 0:K] @ CudaTensorMap(swizzle=128, box=(256, 64))" in text
    assert "full: barrier[K / 64 @ ring(1)] @ CUDA_MBARRIER" in text
    assert [c.subproc().name() for c in loads] == [
        "tma_load_bf16_64x64",
        "tma_load_bf16_256x64",
    ]
    assert [b.name() for b in loads[1].trailing_barriers()] == ["full"]
    assert text.count("64 * k) >> full[k]") == 2
    assert str(warps.ctx()) == "CudaWarps(lo=0, hi=1)"
    assert [s.subproc().name() for s in warps.body()] == [
        c.subproc().name() for c in loads
    ]
    assert wait.kind() == "await" and wait.post() is cuda_async_proxy
    assert "Await(full[k], cuda_async_proxy)" in text
    assert barrier.name() == "full"
    assert p.is_eq(tiles())


def test_use_wgmma_peels_the_zero_initialising_first_step():
    p = tiles()
    load_a, load_b, product = k_steps(p)
    p = use_tma(p, [load_a, load_b])
    p, (mma, first, done) = use_wgmma(p, product, rc=True)
    assert mma.subproc().name() == "wgmma_ss_bf16_n256_k64"
    assert first.subproc().name() == "wgmma_ss_bf16_n256_k64_zero_init"
    assert done.name() == "done"
    text = str(p)
    assert "done: barrier[K / 64] @ CUDA_WGMMA_GROUP" in text
    # The peeled step: its loads at column 0, its wgmma zero-initialising.
    assert "64 * m, 0) >> full[0]" in text
    assert "for k in seq(1, K / 64):" in text
    for step in ("0", "k"):
        assert f"Arrive(wgmma) >> done[{step}]" in text
        assert f"Await(done[{step}], cuda_in_order)" in text
    assert text.count("Fence(cuda_in_order, wgmma_operands)") == 2
    assert p.is_eq(tiles())


def test_the_scheduled_kernel_computes_what_the_tile_algorithm_computes():
    gemm = load("gemm_sm90").gemm_sm90
    assert gemm.is_eq(tiles())
    check_parallel(gemm, M=128, N=256, K=192, sms=1)
    rng = np.random.default_rng(11)
    for M, N, K in [(64, 256, 64), (128, 256, 192)]:
        a = bf16_bits(rng.standard_normal((M, K)))
        b = bf16_bits(-rng.standard_normal((N, K)))
        expected = bf16_values(a) @ bf16_values(b).T
        for p in (tiles(), gemm):
            c = np.full((M, N), np.nan, np.float32)
            sequential_reference(p).jit()(M, N, K, a, b, c)
            np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.cuda_gpu
def test_the_scheduled_kernel_on_the_gpu_is_close_to_numpy(tmp_path):
    lib = jit([load("gemm_sm90").gemm_sm90], arch="sm_90a", cache_dir=tmp_path)
    rng = np.random.default_rng(5)
    for M, N, K in [(64, 256, 64), (192, 512, 320), (4096, 4096, 4096)]:
        a = bf16_bits(rng.standard_normal((M, K)))
        b = bf16_bits(rng.standard_normal((N, K)))
        c = np.full((M, N), np.nan, np.float32)
        lib.gemm_sm90(M, N, K, a, b, c)
        expected = bf16_values(a) @ bf16_values(b).T
        err = np.abs(c - expected).max() / np.abs(expected).max()
        assert err < 1e-3


@proc
def narrow_tiles(
    M: size,
    N: size,
    K: size,
    A: bf16[M, K] @ CUDA_GMEM,
    B: bf16[N, K] @ CUDA_GMEM,
    C: f32[M, N] @ CUDA_GMEM,
):
    # 64 x 128 tiles, k-steps of 32: no instruction of this shape.
    assert M % 64 == 0 and N % 128 == 0 and K % 32 == 0
    with CudaDeviceFunction(blockDim=128):
        for m in cuda_tasks(0, M / 64):
            for n in cuda_tasks(0, N / 128):
                sA: bf16[64, 32] @ CUDA_SMEM_SWIZZLED(64)
                sB: bf16[128, 32] @ CUDA_SMEM_SWIZZLED(64)
                acc: f32[64, 128] @ CUDA_WGMMA_ACCUM
                for i in seq(0, 64):
                    for j in seq(0, 128):
                        acc[i, j] = 0.0
                for k in seq(0, K / 32):
                    for i in seq(0, 64):
                        for kk in seq(0, 32):
                            sA[i, kk] = A[64 * m + i, 32 * k + kk]
                    for j in seq(0, 128):
                        for kk in seq(0, 32):
                            sB[j, kk] = B[128 * n + j, 32 * k + kk]
                    for i in seq(0, 64):
                        for j in seq(0, 128):
                            for kk in seq(0, 32):
                                acc[i, j] += sA[i, kk] * sB[j, kk]
                for i in seq(0, 64):
                    for j in seq(0, 128):
                        C[64 * m + i, 128 * n + j] = acc[i, j]


def test_tile_shapes_without_an_instruction_are_refused():
    load_a, _, product = k_steps(narrow_tiles)
    with pytest.raises(
        SchedulingError,
        match=r"use_tma: no TMA load for a 64 x 32 box of bf16 in the 64-byte "
        r"swizzle; the instructions provided load bf16 64 x 64 in the 128-byte",
    ):
        use_tma(narrow_tiles, load_a)
    p = set_memory(narrow_tiles, "sA", CUDA_SMEM_SWIZZLED(128))
    p = set_memory(p, "sB", CUDA_SMEM_SWIZZLED(128))
    with pytest.raises(
        SchedulingError,
        match=r"use_wgmma: no wgmma for a 64 x 128 x 32 step on bf16; the "
        r"instructions provided compute 64 x 256 x 64 on bf16",
    ):
        use_wgmma(p, k_steps(p)[2])


def test_tiles_in_the_wrong_memory_are_refused():
    p = set_memory(tiles(), "sA", CUDA_SMEM)
    with pytest.raises(
        SchedulingError,
        match=r"use_tma: the destination sA is in CUDA_SMEM, but a TMA load writes "
        r"swizzled shared memory",
    ):
        use_tma(p, k_steps(p)[0])
    with pytest.raises(
        SchedulingError,
        match=r"use_wgmma: the operand sA is in CUDA_SMEM, but wgmma_ss reads its "
        r"operands from shared memory in the 128-byte swizzle",
    ):
        use_wgmma(p, k_steps(p)[2])
    p = set_memory(tiles(), "acc", CUDA_RMEM)
    with pytest.raises(
        SchedulingError,
        match=r"use_wgmma: the accumulator acc is in CUDA_RMEM, but wgmma "
        r"accumulates in registers of the warpgroup",
    ):
        use_wgmma(p, k_steps(p)[2])


def test_tiles_of_the_wrong_precision_are_refused():
    p = set_precision(tiles(), "sA", "f32")
    with pytest.raises(
        SchedulingError,
        match=r"use_tma: the copy converts A \(bf16\) to sA \(f32\); a TMA load "
        r"copies bits unchanged",
    ):
        use_tma(p, k_steps(p)[0])
    with pytest.raises(
        SchedulingError,
        match=r"use_wgmma: the operands sA \(f32\) and sB \(bf16\) differ",
    ):
        use_wgmma(p, k_steps(p)[2])
    p = set_precision(set_precision(tiles(), "A", "f32"), "sA", "f32")
    with pytest.raises(
        SchedulingError, match=r"use_tma: no TMA load for a 64 x 64 box of f32"
    ):
        use_tma(p, k_steps(p)[0])
    p = set_precision(tiles(), "acc", "f16")
    with pytest.raises(
        SchedulingError,
        match=r"use_wgmma: the accumulator acc is f16; the wgmma instructions "
        r"provided accumulate in f32",
    ):
        use_wgmma(p, k_steps(p)[2])


def test_nests_that_are_not_a_tile_copy_or_product_are_refused():
    p = tiles()
    load_a, load_b, product = k_steps(p)
    with pytest.raises(SchedulingError, match="use_tma: expected a copy nest"):
        use_tma(p, product)
    with pytest.raises(SchedulingError, match="use_wgmma: expected a matrix-multiply"):
        use_wgmma(p, load_a)
    with pytest.raises(SchedulingError, match="must be consecutive statements"):
        use_tma(p, [load_a, product])
    # Loops in the other order: the copy no longer writes sA[i, j].
    q = reorder_loops(p, load_a)
    with pytest.raises(SchedulingError, match=r"the copy nest must write sA\[kk, i\]"):
        use_tma(q, k_steps(q)[0])
    # Outside a loop over k-steps.
    with pytest.raises(SchedulingError, match="in a seq loop over k-steps"):
        use_wgmma(p, p.find_loop("k").prev())


@proc
def transposed_copy(M: size, K: size, A: bf16[K, M] @ CUDA_GMEM):
    assert M % 64 == 0 and K % 64 == 0
    with CudaDeviceFunction(blockDim=128):
        for m in cuda_tasks(0, M / 64):
            sA: bf16[64, 64] @ CUDA_SMEM_SWIZZLED(128)
            for k in seq(0, K / 64):
                for i in seq(0, 64):
                    for kk in seq(0, 64):
                        sA[i, kk] = A[64 * k + kk, 64 * m + i]


def test_a_copy_the_tma_load_does_not_compute_is_refused():
    # Rows of the tile from columns of A: a TMA load copies a box as it is.
    with pytest.raises(
        SchedulingError,
        match=r"use_tma: the copy into sA is not sA\[i, j\] = A\[r \+ i, c \+ j\] "
        r"with the 64 x 64 box proven inside A",
    ):
        use_tma(transposed_copy, transposed_copy.find_loop("k").body()[0])
