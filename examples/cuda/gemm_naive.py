"""A naive GEMM on the GPU: `C = A @ B^T` (B given as N x K, like every GEMM
of these examples) with bf16 inputs and f32 outputs,
one thread per element of C, each accumulating its dot product in a
register.

`gemm` is the sequential kernel; `gemm_naive` is derived from it with
exo2.stdlib.cuda: 16 x 16 tiles of C per task (CTA), 256 threads per CTA.
Sizes need not be multiples of 16: the tiles at the edges are guarded.
"""

from __future__ import annotations

from exo2 import proc
from exo2.API_scheduling import rename, set_memory
from exo2.platforms.cuda import CUDA_GMEM, CUDA_RMEM, CudaDeviceFunction, cuda_thread
from exo2.stdlib.cuda import to_kernel, to_threads

__all__ = ["gemm_naive"]


@proc
def gemm(
    M: size,
    N: size,
    K: size,
    A: bf16[M, K] @ CUDA_GMEM,
    B: bf16[N, K] @ CUDA_GMEM,
    C: f32[M, N] @ CUDA_GMEM,
):
    for i in seq(0, M):
        for j in seq(0, N):
            acc: f32
            acc = 0.0
            for k in seq(0, K):
                acc += A[i, k] * B[j, k]
            C[i, j] = acc


def schedule_gemm_naive(p, tile=16):
    """Tiles of `tile` x `tile` elements per task; thread (i, j) of a CTA
    computes element (i, j) of its tile."""
    p, (_, _, (rows, cols)) = to_kernel(
        p, ["i", "j"], [tile, tile], CudaDeviceFunction(blockDim=tile * tile), rc=True
    )
    p = to_threads(p, rows, tile * cuda_thread)
    p = to_threads(p, cols, cuda_thread)
    p = set_memory(p, "acc", CUDA_RMEM)
    return rename(p, "gemm_naive")


gemm_naive = schedule_gemm_naive(gemm)
