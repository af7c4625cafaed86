"""A double-buffered one-warp GEMM for Sm80 (A100 class; runs on H100 too):
`C = A @ B^T`, bf16 inputs (B given as N x K), f32 outputs.

Each task (one CTA of one warp) computes a 64 x 64 tile of C with
`mma.sync.m16n8k16`: per k-step of 16, `ldmatrix` loads four 16 x 16 A
fragments and eight 8 x 16 B fragments from shared memory, and 32 mma
instructions accumulate into 4 x 8 accumulator fragments. The operand
tiles are double-buffered (a ring of depth 2 over k): while the warp
computes on tile k, `cp.async` copies fetch tile k + 1, each thread
committing its copies as group k + 1 and waiting for group k
(`cp.async.wait_group 1`).
"""

from __future__ import annotations

from exo2 import proc
from exo2.platforms.cuda import (
    CUDA_CP_ASYNC_GROUP,
    CUDA_GMEM,
    CUDA_SMEM,
    CudaDeviceFunction,
    cp_async,
    cuda_in_order,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    ring,
)
from exo2.platforms.cuda.sm80 import (
    SM80_MMA_A,
    SM80_MMA_B,
    SM80_MMA_D,
    sm80_cp_async_bf16x8,
    sm80_frag_store_f32,
    sm80_frag_zero_f32,
    sm80_ldmatrix_a_bf16,
    sm80_ldmatrix_b_bf16,
    sm80_mma_bf16,
)

__all__ = ["gemm_sm80"]


@proc
def gemm_sm80(
    M: size,
    N: size,
    K: size,
    A: bf16[M, K] @ CUDA_GMEM,
    B: bf16[N, K] @ CUDA_GMEM,
    C: f32[M, N] @ CUDA_GMEM,
):
    assert M % 64 == 0 and N % 64 == 0 and K % 16 == 0
    with CudaDeviceFunction(blockDim=32, blocks_per_sm=8):
        for m in cuda_tasks(0, M / 64):
            for n in cuda_tasks(0, N / 64):
                sA: bf16[K / 16 @ ring(2), 64, 16] @ CUDA_SMEM
                sB: bf16[K / 16 @ ring(2), 64, 16] @ CUDA_SMEM
                loaded: barrier[K / 16 + 1] @ CUDA_CP_ASYNC_GROUP
                acc: f32[4, 8, 16, 8] @ SM80_MMA_D
                for i in seq(0, 4):
                    for j in seq(0, 8):
                        sm80_frag_zero_f32(acc[i, j, :, :])
                # Tile 0: thread t copies rows 2t and 2t + 1, both halves.
                for t in cuda_threads(0, 32, unit=cuda_thread):
                    for r in seq(0, 2):
                        for c in seq(0, 2):
                            sm80_cp_async_bf16x8(
                                sA[0, 2 * t + r, 8 * c : 8 * c + 8],
                                A[64 * m + 2 * t + r, 8 * c : 8 * c + 8],
                            )
                            sm80_cp_async_bf16x8(
                                sB[0, 2 * t + r, 8 * c : 8 * c + 8],
                                B[64 * n + 2 * t + r, 8 * c : 8 * c + 8],
                            )
                    Arrive(cp_async) >> loaded[0]
                for k in seq(0, K / 16):
                    # Fetch tile k + 1 while tile k is used.
                    for t in cuda_threads(0, 32, unit=cuda_thread):
                        if k + 1 < K / 16:
                            for r in seq(0, 2):
                                for c in seq(0, 2):
                                    sm80_cp_async_bf16x8(
                                        sA[k + 1, 2 * t + r, 8 * c : 8 * c + 8],
                                        A[
                                            64 * m + 2 * t + r,
                                            16 * k + 16 + 8 * c : 16 * k + 24 + 8 * c,
                                        ],
                                    )
                                    sm80_cp_async_bf16x8(
                                        sB[k + 1, 2 * t + r, 8 * c : 8 * c + 8],
                                        B[
                                            64 * n + 2 * t + r,
                                            16 * k + 16 + 8 * c : 16 * k + 24 + 8 * c,
                                        ],
                                    )
                        Arrive(cp_async) >> loaded[k + 1]
                        Await(loaded[k], cuda_in_order)
                    # Every thread's copies of tile k, visible to the warp.
                    Fence(cuda_in_order, cuda_in_order)
                    a: bf16[4, 16, 16] @ SM80_MMA_A
                    b: bf16[8, 8, 16] @ SM80_MMA_B
                    for i in seq(0, 4):
                        sm80_ldmatrix_a_bf16(a[i, :, :], sA[k, 16 * i : 16 * i + 16, :])
                    for j in seq(0, 8):
                        sm80_ldmatrix_b_bf16(b[j, :, :], sB[k, 8 * j : 8 * j + 8, :])
                    for i in seq(0, 4):
                        for j in seq(0, 8):
                            sm80_mma_bf16(acc[i, j, :, :], a[i, :, :], b[j, :, :])
                # The last group (empty) is retired before the kernel ends.
                for t in cuda_threads(0, 32, unit=cuda_thread):
                    Await(loaded[K / 16], cuda_in_order)
                for i in seq(0, 4):
                    for j in seq(0, 8):
                        sm80_frag_store_f32(
                            C[
                                64 * m + 16 * i : 64 * m + 16 * i + 16,
                                64 * n + 8 * j : 64 * n + 8 * j + 8,
                            ],
                            acc[i, j, :, :],
                        )
