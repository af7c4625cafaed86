"""A single-tile TMA + wgmma GEMM for Sm90a (H100): `C = A @ B^T`, bf16
inputs (B given as N x K), f32 outputs.

Each task (one CTA of one warpgroup, 128 threads) computes a 64 x 256 tile
of C. Per k-step of 64, warp 0 issues two TMA loads (a 64 x 64 tile of A and
a 256 x 64 tile of B, in the 128-byte swizzle) that signal the mbarrier
`full[k]`; the warpgroup waits for it, then issues one `wgmma` (four
m64n256k16 instructions) into its 128 accumulator registers per thread,
commits it as group k and waits for it before the tiles are loaded again.
The first k-step is peeled: its wgmma zero-initialises the accumulator
(scale-d 0), so every wgmma has an immediate scale-d. One stage: no
overlap between loads and math yet (docs/cuda.md).
"""

from __future__ import annotations

from exo2 import proc
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CUDA_MBARRIER,
    CUDA_SMEM_SWIZZLED,
    CUDA_WGMMA_GROUP,
    CudaDeviceFunction,
    CudaWarps,
    cuda_async_proxy,
    cuda_in_order,
    cuda_tasks,
    ring,
    wgmma,
    wgmma_operands,
)
from exo2.platforms.cuda.sm90 import (
    CUDA_WGMMA_ACCUM,
    CudaTensorMap,
    tma_load_bf16_64x64,
    tma_load_bf16_256x64,
    wgmma_acc_store_f32_n256,
    wgmma_ss_bf16_n256_k64,
    wgmma_ss_bf16_n256_k64_zero_init,
)

__all__ = ["gemm_sm90"]


@proc
def gemm_sm90(
    M: size,
    N: size,
    K: size,
    A: bf16[M, K] @ CUDA_GMEM,
    B: bf16[N, K] @ CUDA_GMEM,
    C: f32[M, N] @ CUDA_GMEM,
):
    assert M % 64 == 0 and N % 256 == 0 and K % 64 == 0
    A_tm = A[0:M, 0:K] @ CudaTensorMap(swizzle=128, box=(64, 64))
    B_tm = B[0:N, 0:K] @ CudaTensorMap(swizzle=128, box=(256, 64))
    with CudaDeviceFunction(blockDim=128):
        for m in cuda_tasks(0, M / 64):
            for n in cuda_tasks(0, N / 256):
                sA: bf16[64, 64] @ CUDA_SMEM_SWIZZLED(128)
                sB: bf16[256, 64] @ CUDA_SMEM_SWIZZLED(128)
                full: barrier[K / 64 @ ring(1)] @ CUDA_MBARRIER
                done: barrier[K / 64] @ CUDA_WGMMA_GROUP
                acc: f32[64, 256] @ CUDA_WGMMA_ACCUM
                # The first k-step zero-initialises the accumulator.
                with CudaWarps(0, 1):
                    tma_load_bf16_64x64(M, K, sA, A_tm, 64 * m, 0) >> full[0]
                    tma_load_bf16_256x64(N, K, sB, B_tm, 256 * n, 0) >> full[0]
                Await(full[0], cuda_async_proxy)
                Fence(cuda_in_order, wgmma_operands)
                wgmma_ss_bf16_n256_k64_zero_init(acc, sA, sB)
                Arrive(wgmma) >> done[0]
                Await(done[0], cuda_in_order)
                for k in seq(1, K / 64):
                    with CudaWarps(0, 1):
                        tma_load_bf16_64x64(M, K, sA, A_tm, 64 * m, 64 * k) >> full[k]
                        tma_load_bf16_256x64(N, K, sB, B_tm, 256 * n, 64 * k) >> full[k]
                    Await(full[k], cuda_async_proxy)
                    Fence(cuda_in_order, wgmma_operands)
                    wgmma_ss_bf16_n256_k64(acc, sA, sB)
                    Arrive(wgmma) >> done[k]
                    Await(done[k], cuda_in_order)
                wgmma_acc_store_f32_n256(
                    C[64 * m : 64 * m + 64, 256 * n : 256 * n + 256], acc
                )
