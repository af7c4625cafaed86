"""Sm80 (docs/cuda.md, "From a naive GEMM to TMA and wgmma"): the double-buffered one-warp GEMM
with cp.async commit groups, ldmatrix and mma.sync passes both tiers of the
parallel check, computes what NumPy computes (through its sequential
reference), and the checks refuse its mutants."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_examples import load
from exo2 import proc
from exo2.errors import ParallelSafetyError
from exo2.platforms.cuda import (
    CUDA_CP_ASYNC_GROUP,
    CUDA_GMEM,
    CudaDeviceFunction,
    check_parallel,
    compile_cuda_to_strings,
    cp_async,
    cuda_in_order,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    delete_sync,
    ring,
    sequential_reference,
    set_dim_annotation,
)
from exo2.platforms.cuda.sm80 import SM80_MMA_D, sm80_frag_zero_f32
from test_cuda_run import bf16_bits, bf16_values


def gemm():
    return load("gemm_sm80").gemm_sm80


def test_gemm_passes_both_tiers_with_several_tasks_per_cta():
    report = check_parallel(gemm(), M=128, N=128, K=80, sms=2)
    assert report.tiers == ("A", "B") and report.events > 0


def test_gemm_waits_for_one_group_less_than_it_committed():
    cuh = compile_cuda_to_strings([gemm()], "lib")["lib.cuh"]
    assert 'asm volatile("cp.async.commit_group;" ::: "memory");' in cuh
    assert 'asm volatile("cp.async.wait_group 1;" ::: "memory");' in cuh
    # The last, empty group is retired before the epilogue.
    assert 'asm volatile("cp.async.wait_group 0;" ::: "memory");' in cuh
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in cuh
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in cuh


def test_sequential_reference_matches_numpy():
    ref = sequential_reference(gemm())
    assert ref.is_eq(gemm())
    rng = np.random.default_rng(5)
    for M, N, K in [(64, 64, 16), (128, 64, 48)]:
        a = bf16_bits(rng.standard_normal((M, K)))
        b = bf16_bits(rng.standard_normal((N, K)))
        c = np.full((M, N), np.nan, np.float32)
        ref.jit()(M, N, K, a, b, c)
        expected = bf16_values(a) @ bf16_values(b).T
        np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-4)


def test_missing_fence_after_the_wait_is_a_raw_hazard():
    # The wait retires the thread's own copies; other lanes' copies need
    # the warp fence before ldmatrix reads them.
    p = gemm()
    mutant = delete_sync(p, p.find("Fence(_, _)"))
    with pytest.raises(
        ParallelSafetyError,
        match=r"RAW hazard on sA\[.*sm80_cp_async_bf16x8.*sm80_ldmatrix_a_bf16",
    ):
        check_parallel(mutant, M=64, N=64, K=48, sms=1)


def test_missing_wait_is_a_raw_hazard_and_leaves_groups_pending():
    p = gemm()
    mutant = delete_sync(p, p.find("Await(_, _) #0"))
    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(mutant, M=64, N=64, K=48, sms=1)
    assert "RAW hazard on sA" in str(e.value)


def test_ring_too_shallow_for_the_prefetch_is_refused():
    # With one slot, the copies of tile k + 1 overwrite tile k before the
    # warp reads it.
    p = gemm()
    mutant = set_dim_annotation(p, "sA", 0, ring(1))
    with pytest.raises(
        ParallelSafetyError, match=r"hazard on sA\[\d+, \d+, \d+\] \(slot 0\)"
    ):
        check_parallel(mutant, M=64, N=64, K=48, sms=1)


def test_mma_and_fragments_belong_to_a_warp():
    @proc
    def fragment_per_thread(n: size, x: f32[n] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, 1):
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    d: f32[16, 8] @ SM80_MMA_D
                    sm80_frag_zero_f32(d)

    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(fragment_per_thread)
    assert "SM80_MMA_D buffers belong to 32 threads" in str(e.value)
    assert (
        "sm80_frag_zero_f32 must be executed by a warp, but here it is executed by one thread"
        in str(e.value)
    )


def test_commit_group_depth_must_be_a_constant():
    @proc
    def conditional_commit(n: size, x: f32[n] @ CUDA_GMEM):
        assert n % 32 == 0
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, n / 32):
                g: barrier[2] @ CUDA_CP_ASYNC_GROUP
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    if i == 0:
                        Arrive(cp_async) >> g[0]
                    Await(g[0], cuda_in_order)

    with pytest.raises(
        ParallelSafetyError,
        match="cannot tell how many commit groups .* leaves pending: an Arrive on g under the condition",
    ):
        check_parallel(conditional_commit)


def test_waiting_for_a_group_committed_later_is_refused():
    # The wait names the group the next iteration commits: no `wait_group N`
    # can express it.
    from exo2.platforms.cuda import delete_sync, insert_await

    p = gemm()
    wait = p.find("Await(_, _) #0")
    commit = p.find("Arrive(_) >> _ #1")  # in the loop, after the prologue's
    mutant = insert_await(p, commit.before(), "loaded[k + 1]", cuda_in_order)
    mutant = delete_sync(mutant, mutant.forward(wait))
    with pytest.raises(
        ParallelSafetyError,
        match=r"it waits for group k \+ 1, which is committed after it",
    ):
        check_parallel(mutant)
