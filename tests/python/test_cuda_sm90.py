"""Sm90a (docs/cuda.md, "From a naive GEMM to TMA and wgmma"): the single-tile TMA +
wgmma GEMM passes both tiers of the parallel check and computes what NumPy
computes (through its sequential reference); the checks refuse the bug
catalogue's mutants that apply to it: a missing wait for the TMA data, an
accumulator read before its wgmma retired, generic shared-memory stores
read by wgmma without a proxy fence, and wgmma issued by a warp."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_examples import load
from exo2 import proc
from exo2.errors import ParallelSafetyError
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CUDA_SMEM_SWIZZLED,
    CUDA_WGMMA_GROUP,
    CudaDeviceFunction,
    check_parallel,
    compile_cuda_to_strings,
    cuda_async_proxy,
    cuda_in_order,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    cuda_warp,
    delete_sync,
    sequential_reference,
    wgmma,
    wgmma_operands,
)
from exo2.platforms.cuda.sm90 import (
    CUDA_WGMMA_ACCUM,
    wgmma_acc_store_f32_n256,
    wgmma_ss_bf16_n256_k64_zero_init,
)
from test_cuda_run import bf16_bits, bf16_values


def gemm():
    return load("gemm_sm90").gemm_sm90


def test_gemm_passes_both_tiers():
    report = check_parallel(gemm(), M=128, N=256, K=192, sms=1)
    assert report.tiers == ("A", "B")


def test_generated_code_uses_tma_mbarriers_and_wgmma():
    files = compile_cuda_to_strings([gemm()], "lib")
    cuh, cu = files["lib.cuh"], files["lib.cu"]
    assert "CUtensorMap A_tm;" in cuh
    # full[0] (the peeled k-step) and full[k] (the loop) get their two TMA
    # arrivals each: the mbarrier counts two, not four.
    assert '"mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(' in cuh
    assert '"r"(2) : "memory");' in cuh
    assert "mbarrier.try_wait.parity.shared::cta.b64" in cuh
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile" in cuh
    assert cuh.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") == 8
    assert "wgmma.fence.sync.aligned" in cuh
    assert "wgmma.commit_group.sync.aligned" in cuh
    assert "wgmma.wait_group.sync.aligned 0" in cuh
    assert 'cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled"' in cu
    assert "CU_TENSOR_MAP_SWIZZLE_128B" in cu


def test_sequential_reference_matches_numpy():
    ref = sequential_reference(gemm())
    assert ref.is_eq(gemm())
    rng = np.random.default_rng(7)
    M, N, K = 64, 256, 128
    a = bf16_bits(rng.standard_normal((M, K)))
    b = bf16_bits(rng.standard_normal((N, K)))
    c = np.full((M, N), np.nan, np.float32)
    ref.jit()(M, N, K, a, b, c)
    expected = bf16_values(a) @ bf16_values(b).T
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-4)


def test_missing_await_of_the_tma_data_is_refused():
    p = gemm()
    mutant = delete_sync(p, p.find("Await(_, _) #0"))
    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(mutant, M=64, N=256, K=128, sms=1)
    message = str(e.value)
    assert "RAW hazard on sA" in message and "tma_load_bf16_64x64" in message
    assert "wgmma_ss_bf16_n256" in message


def test_accumulator_read_before_its_wait_is_refused():
    # The Awaits: full[0] and done[0] of the peeled first step, then full[k]
    # and done[k] in the loop.
    p = gemm()
    mutant = delete_sync(p, p.find("Await(_, _) #3"))
    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(mutant, M=64, N=256, K=128, sms=1)
    message = str(e.value)
    assert "RAW hazard on acc" in message and "wgmma_acc_store_f32_n256" in message


@proc
def cooperative_tile(
    M: size,
    N: size,
    A: bf16[M, 64] @ CUDA_GMEM,
    B: bf16[N, 64] @ CUDA_GMEM,
    C: f32[M, N] @ CUDA_GMEM,
):
    # One k-step, operands stored by the threads themselves: generic
    # stores that wgmma reads through the async proxy.
    assert M % 64 == 0 and N % 256 == 0
    with CudaDeviceFunction(blockDim=128):
        for m in cuda_tasks(0, M / 64):
            for n in cuda_tasks(0, N / 256):
                sA: bf16[64, 64] @ CUDA_SMEM_SWIZZLED(128)
                sB: bf16[256, 64] @ CUDA_SMEM_SWIZZLED(128)
                done: barrier[1] @ CUDA_WGMMA_GROUP
                acc: f32[64, 256] @ CUDA_WGMMA_ACCUM
                for t in cuda_threads(0, 128, unit=cuda_thread):
                    for j in seq(0, 64):
                        if t < 64:
                            sA[t, j] = A[64 * m + t, j]
                        sB[t, j] = B[256 * n + t, j]
                        sB[128 + t, j] = B[256 * n + 128 + t, j]
                Fence(cuda_in_order, cuda_async_proxy)
                Fence(cuda_in_order, wgmma_operands)
                wgmma_ss_bf16_n256_k64_zero_init(acc, sA, sB)
                Arrive(wgmma) >> done[0]
                Await(done[0], cuda_in_order)
                wgmma_acc_store_f32_n256(
                    C[64 * m : 64 * m + 64, 256 * n : 256 * n + 256], acc
                )


def test_generic_stores_read_by_wgmma_need_the_proxy_fence():
    check_parallel(cooperative_tile, M=64, N=256, sms=1)
    assert (
        "fence.proxy.async.shared::cta"
        in compile_cuda_to_strings([cooperative_tile], "lib")["lib.cuh"]
    )
    mutant = delete_sync(cooperative_tile, cooperative_tile.find("Fence(_, _) #0"))
    with pytest.raises(
        ParallelSafetyError,
        match=r"RAW hazard on sA\[.*wgmma_ss_bf16_n256_k64_zero_init",
    ):
        check_parallel(mutant, M=64, N=256, sms=1)


def test_wgmma_must_be_issued_by_a_warpgroup():
    @proc
    def wgmma_by_warps(C: f32[64, 256] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=128):
            for m in cuda_tasks(0, 1):
                sA: bf16[64, 64] @ CUDA_SMEM_SWIZZLED(128)
                sB: bf16[256, 64] @ CUDA_SMEM_SWIZZLED(128)
                acc: f32[64, 256] @ CUDA_WGMMA_ACCUM
                for w in cuda_threads(0, 4, unit=cuda_warp):
                    wgmma_ss_bf16_n256_k64_zero_init(acc, sA, sB)

    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(wgmma_by_warps)
    assert (
        "wgmma_ss_bf16_n256_k64_zero_init must be executed by a warpgroup, but here it "
        "is executed by one warp (cuda_threads loop at" in str(e.value)
    )


def test_mbarrier_elements_must_get_their_arrivals():
    # The B load signals the previous element instead of the current one:
    # full[k] is awaited with one of its two arrivals (the wait would never
    # end) and full[k - 1] gets three.
    from exo2.platforms.cuda import set_trailing_barrier

    p = gemm()
    mutant = set_trailing_barrier(
        p, p.find("tma_load_bf16_256x64(_) #1"), ["full[k - 1]"]
    )
    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(mutant, M=64, N=256, K=192, sms=1)
    message = str(e.value)
    assert (
        "which has 1 of its 2 arrivals at that point: the wait may never end" in message
    )
    assert "once too many (3 arrivals, 2 expected)" in message
