"""A single-tile TMA + wgmma GEMM for Sm90a (H100): `C = A @ B^T`, bf16
inputs (B given as N x K), f32 outputs.

`gemm_sm90_tiles` is the algorithm, read sequentially: each task computes a
64 x 256 tile of C, copying per k-step of 64 a 64 x 64 tile of A and a
256 x 64 tile of B into shared memory and accumulating their product. The
schedule turns it into the kernel `gemm_sm90`, each step checked:

- `use_tma` makes the two copies TMA loads (in the 128-byte swizzle of
  their tiles) issued by warp 0, with tensor maps of A and B encoded on the
  host, signalling the mbarrier `full[k]` that the warpgroup awaits;
- `use_wgmma` makes the product one `wgmma` (four m64n256k16 instructions)
  into 128 accumulator registers per thread, fenced, committed as group k
  and waited for before the tiles are loaded again; the first k-step is
  peeled so that its wgmma zero-initialises the accumulator (scale-d 0)
  and every wgmma has an immediate scale-d;
- the epilogue stores the accumulator with `wgmma_acc_store_f32_n256`.

One warpgroup, one stage: no overlap between loads and math yet
(docs/cuda.md).
"""

from __future__ import annotations

from exo2 import proc
from exo2.API_scheduling import rename, replace, simplify
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CUDA_SMEM_SWIZZLED,
    CudaDeviceFunction,
    cuda_tasks,
)
from exo2.platforms.cuda.sm90 import CUDA_WGMMA_ACCUM, wgmma_acc_store_f32_n256
from exo2.stdlib.cuda import use_tma, use_wgmma

__all__ = ["gemm_sm90", "gemm_sm90_tiles"]


@proc
def gemm_sm90_tiles(
    M: size,
    N: size,
    K: size,
    A: bf16[M, K] @ CUDA_GMEM,
    B: bf16[N, K] @ CUDA_GMEM,
    C: f32[M, N] @ CUDA_GMEM,
):
    assert M % 64 == 0 and N % 256 == 0 and K % 64 == 0
    with CudaDeviceFunction(blockDim=128):
        for m in cuda_tasks(0, M / 64):
            for n in cuda_tasks(0, N / 256):
                sA: bf16[64, 64] @ CUDA_SMEM_SWIZZLED(128)
                sB: bf16[256, 64] @ CUDA_SMEM_SWIZZLED(128)
                acc: f32[64, 256] @ CUDA_WGMMA_ACCUM
                for i in seq(0, 64):
                    for j in seq(0, 256):
                        acc[i, j] = 0.0
                for k in seq(0, K / 64):
                    for i in seq(0, 64):
                        for kk in seq(0, 64):
                            sA[i, kk] = A[64 * m + i, 64 * k + kk]
                    for j in seq(0, 256):
                        for kk in seq(0, 64):
                            sB[j, kk] = B[256 * n + j, 64 * k + kk]
                    for i in seq(0, 64):
                        for j in seq(0, 256):
                            for kk in seq(0, 64):
                                acc[i, j] += sA[i, kk] * sB[j, kk]
                for i in seq(0, 64):
                    for j in seq(0, 256):
                        C[64 * m + i, 256 * n + j] = acc[i, j]


def _schedule(p):
    k_loop = p.find_loop("k")
    load_a, load_b, product = k_loop.body()
    p = use_tma(p, [load_a, load_b])
    p = use_wgmma(p, product)
    p = replace(p, p.find_loop("k").next(), wgmma_acc_store_f32_n256)
    # `replace` solves the store's window as `64 * m + 0:64 * m + 64`.
    return simplify(rename(p, "gemm_sm90"))


gemm_sm90 = _schedule(gemm_sm90_tiles)
