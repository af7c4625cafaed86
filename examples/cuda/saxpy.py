"""saxpy on the GPU: `y += a * x`, one thread per element.

`saxpy` is the sequential kernel; `saxpy_gpu` is derived from it with
exo2.stdlib.cuda (so it is recorded equivalent to it), and
`saxpy_written` is the same kernel written by hand. `exo2c --target cuda`
compiles the two GPU procedures (`__all__`).
"""

from __future__ import annotations

from exo2 import proc
from exo2.API_scheduling import rename
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CudaDeviceFunction,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
)
from exo2.stdlib.cuda import to_kernel, to_threads

__all__ = ["saxpy_gpu", "saxpy_written"]


@proc
def saxpy(n: size, a: f32, x: f32[n] @ CUDA_GMEM, y: f32[n] @ CUDA_GMEM):
    for i in seq(0, n):
        y[i] += a * x[i]


def schedule_saxpy(p, block=256):
    """One task of `block` elements per CTA, one element per thread."""
    p, (_, _, (elements,)) = to_kernel(
        p, ["i"], [block], CudaDeviceFunction(blockDim=block, blocks_per_sm=4), rc=True
    )
    p = to_threads(p, elements, cuda_thread)
    return rename(p, "saxpy_gpu")


saxpy_gpu = schedule_saxpy(saxpy)


@proc
def saxpy_written(n: size, a: f32, x: f32[n] @ CUDA_GMEM, y: f32[n] @ CUDA_GMEM):
    with CudaDeviceFunction(blockDim=256, blocks_per_sm=4):
        for t in cuda_tasks(0, (n + 255) / 256):
            for i in cuda_threads(0, 256, unit=cuda_thread):
                if 256 * t + i < n:
                    y[256 * t + i] += a * x[256 * t + i]
