"""exo2.stdlib.cuda: scheduling CUDA kernels (docs/cuda.md, "Scheduling
library").

Written on the public API only: the primitives, the GPU primitives of
`exo2.platforms.cuda`, and cursors. Every function is a `user_op`, takes
cursors of ancestor procedures, and with `rc=True` returns `(proc, cursors)`.
What these functions produce is checked like anything else: the primitives
prove the sequential meaning unchanged, and `check_parallel` (run by
`compile_cuda` and the JIT) proves the parallel execution right.
"""

from __future__ import annotations

from dataclasses import dataclass

from exo2.API_cursors import ForCursor
from exo2.API_scheduling import (
    divide_loop,
    lift_scope,
    reorder_loops,
    set_memory,
    simplify,
    stage_mem,
    user_op,
)
from exo2.platforms.cuda import (
    CUDA_SMEM,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    set_loop_mode,
    wrap_with,
)

__all__ = ["to_kernel", "to_threads", "stage_smem"]


@dataclass
class to_kernel_cursors:
    kernel: object  # the `with CudaDeviceFunction(...)` statement
    tasks: list  # the cuda_tasks loops, outermost first
    inner: list  # the loops over each tile, outermost first

    def __iter__(self):
        yield self.kernel
        yield self.tasks
        yield self.inner


def _loop_name(loop):
    return loop.name()


@user_op
def to_kernel(proc, loops, tiles, config, rc=False):
    """Makes a kernel of a perfect nest of loops: each loop is divided by
    its tile (`tail="guard"` for sizes that are not multiples), the outer
    parts become a nest of `cuda_tasks` loops (one task per tile) and the
    nest is wrapped in `with config:` (a `CudaDeviceFunction`). The loops
    over one tile stay `seq`; map them to threads with `to_threads`.

    `loops` are one or two nested loops, outermost first; rc: the `with`
    statement, the task loops and the loops over a tile."""
    if isinstance(loops, ForCursor) or isinstance(loops, str):
        loops = [loops]
    loops = list(loops)
    tiles = list(tiles) if isinstance(tiles, (list, tuple)) else [tiles]
    if not 1 <= len(loops) <= 2 or len(tiles) != len(loops):
        raise ValueError("to_kernel: give one or two loops and one tile per loop")
    names = []
    for loop in loops:
        cursor = proc.find_loop(loop) if isinstance(loop, str) else proc.forward(loop)
        names.append(cursor.name())
    # Innermost first, so that the outer cursor stays the nest's root.
    for name, tile in reversed(list(zip(names, tiles, strict=True))):
        proc = divide_loop(
            proc, proc.find_loop(name), tile, [f"{name}o", f"{name}i"], tail="guard"
        )
    if len(names) == 2:
        inner_outer = proc.find_loop(f"{names[1]}o")
        proc = lift_scope(proc, inner_outer)
        proc = reorder_loops(proc, proc.find_loop(f"{names[0]}i"))
    tasks = [proc.find_loop(f"{name}o") for name in names]
    for task in tasks:
        proc = set_loop_mode(proc, task, cuda_tasks)
    proc = wrap_with(proc, proc.forward(tasks[0]), config)
    if not rc:
        return proc
    tasks = [proc.forward(t) for t in tasks]
    kernel = tasks[0].parent()
    inner = [proc.find_loop(f"{name}i") for name in names]
    return proc, to_kernel_cursors(kernel, tasks, inner)


@user_op
def to_threads(proc, loop, unit=cuda_thread):
    """Runs the iterations of a loop with literal bounds on consecutive
    pieces of `unit` threads (`cuda_threads(lo, hi, unit=unit)`)."""
    loop = proc.find_loop(loop) if isinstance(loop, str) else proc.forward(loop)
    return set_loop_mode(proc, loop, cuda_threads(unit=unit))


@user_op
def stage_smem(proc, block, window, name, memory=CUDA_SMEM):
    """Stages `window` (`"x[16 * t : 16 * t + 16]"`) through a new buffer
    `name` in shared memory around `block` (`stage_mem`, then the memory).
    The load nest it adds runs on the block's collective: map it to threads
    (`to_threads`) and order it before the block's reads with a
    `Fence(cuda_in_order, cuda_in_order)`; `check_parallel` says when a
    fence is missing."""
    proc = stage_mem(proc, block, window, name)
    # Shared memory has literal extents: `32 * io + 33 - (32 * io + 1)`
    # becomes 32.
    proc = simplify(proc)
    return set_memory(proc, name, memory)
