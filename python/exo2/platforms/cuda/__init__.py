"""**[exo2]** The CUDA platform (docs/cuda.md): units, loop modes, `with`
contexts, timelines, memories, the GPU primitives, the compiler, the
parallel check, the sequential reference and the JIT.

A CUDA kernel is an ordinary procedure with sequential meaning: its
`cuda_tasks` and `cuda_threads` loops run in order, `with` blocks mean their
bodies and sync statements do nothing. In parallel, every task runs on one
CTA and `cuda_threads` loops spread iterations over threads, warps or
warpgroups; `check_parallel` proves that both readings agree.
"""

from ...errors import ParallelSafetyError
from .checks import ParallelCheckReport, check_parallel
from .compile import compile_cuda, compile_cuda_to_strings
from .contexts import CudaDeviceFunction, CudaWarpConfig, CudaWarps
from .jit import CudaToolkitNotFoundError, NvccError, jit
from .memories import (
    CUDA_CP_ASYNC_GROUP,
    CUDA_GMEM,
    CUDA_MBARRIER,
    CUDA_RMEM,
    CUDA_SMEM,
    CUDA_SMEM_SWIZZLED,
    CUDA_WGMMA_GROUP,
)
from .modes import cuda_tasks, cuda_threads
from .primitives import (
    alloc_barrier,
    delete_sync,
    insert_arrive,
    insert_await,
    insert_fence,
    set_dim_annotation,
    set_loop_mode,
    set_trailing_barrier,
    unwrap_with,
    wrap_with,
)
from .reference import sequential_reference
from .runtime import CudaError, CudaUnavailableError
from .timelines import (
    cp_async,
    cuda_async_proxy,
    cuda_in_order,
    cuda_temporal,
    wgmma,
    wgmma_operands,
)
from .units import CudaUnit, cuda_thread, cuda_warp, cuda_warpgroup, ring


class _SyncStatement:
    """`Fence`, `Arrive` and `Await` are statements of kernels (the parser
    recognises them by name); these objects only give the names a
    definition for linters and IDEs."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name

    def __call__(self, *args):
        raise TypeError(
            f"{self._name}(...) is a statement of exo2 kernels, not a Python function"
        )


Fence = _SyncStatement("Fence")
Arrive = _SyncStatement("Arrive")
Await = _SyncStatement("Await")

__all__ = [
    "Arrive",
    "Await",
    "CUDA_CP_ASYNC_GROUP",
    "CUDA_GMEM",
    "CUDA_MBARRIER",
    "CUDA_RMEM",
    "CUDA_SMEM",
    "CUDA_SMEM_SWIZZLED",
    "CUDA_WGMMA_GROUP",
    "CudaDeviceFunction",
    "CudaError",
    "CudaToolkitNotFoundError",
    "CudaUnavailableError",
    "CudaUnit",
    "CudaWarpConfig",
    "CudaWarps",
    "Fence",
    "NvccError",
    "ParallelCheckReport",
    "ParallelSafetyError",
    "alloc_barrier",
    "check_parallel",
    "compile_cuda",
    "compile_cuda_to_strings",
    "cp_async",
    "cuda_async_proxy",
    "cuda_in_order",
    "cuda_tasks",
    "cuda_temporal",
    "cuda_thread",
    "cuda_threads",
    "cuda_warp",
    "cuda_warpgroup",
    "delete_sync",
    "insert_arrive",
    "insert_await",
    "insert_fence",
    "jit",
    "ring",
    "sequential_reference",
    "set_dim_annotation",
    "set_loop_mode",
    "set_trailing_barrier",
    "unwrap_with",
    "wgmma",
    "wgmma_operands",
    "wrap_with",
]
