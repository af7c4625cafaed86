"""Small CUDA kernels the CUDA tests share (docs/cuda.md)."""

from __future__ import annotations

from exo2 import instr, proc
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CUDA_RMEM,
    CUDA_SMEM,
    CudaDeviceFunction,
    CudaWarps,
    cuda_in_order,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    cuda_warp,
)


@proc
def reverse_blocks(n: size, x: f32[n] @ CUDA_GMEM, y: f32[n] @ CUDA_GMEM):
    # y = x with each block of 128 elements reversed, through shared
    # memory: every thread stores one element and loads another thread's.
    assert n % 128 == 0
    with CudaDeviceFunction(blockDim=128):
        for t in cuda_tasks(0, n / 128):
            s: f32[128] @ CUDA_SMEM
            for i in cuda_threads(0, 128, unit=cuda_thread):
                s[i] = x[128 * t + i]
            Fence(cuda_in_order, cuda_in_order)
            for i in cuda_threads(0, 128, unit=cuda_thread):
                y[128 * t + i] = s[127 - i]
            Fence(cuda_in_order, cuda_in_order)


@proc
def reverse_within_warps(n: size, x: f32[n] @ CUDA_GMEM, y: f32[n] @ CUDA_GMEM):
    # reverse_blocks, with warp-wide fences: each warp reverses its own
    # 32 elements, so __syncwarp suffices.
    assert n % 128 == 0
    with CudaDeviceFunction(blockDim=128):
        for t in cuda_tasks(0, n / 128):
            s: f32[128] @ CUDA_SMEM
            for w in cuda_threads(0, 4, unit=cuda_warp):
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    s[32 * w + i] = x[128 * t + 32 * w + i]
                Fence(cuda_in_order, cuda_in_order)
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    y[128 * t + 32 * w + i] = s[32 * w + 31 - i]
                Fence(cuda_in_order, cuda_in_order)


@proc
def reverse_across_warps(n: size, x: f32[n] @ CUDA_GMEM, y: f32[n] @ CUDA_GMEM):
    # A mutant of reverse_blocks whose fences only synchronise warps: the
    # loads read elements other warps stored.
    assert n % 128 == 0
    with CudaDeviceFunction(blockDim=128):
        for t in cuda_tasks(0, n / 128):
            s: f32[128] @ CUDA_SMEM
            for w in cuda_threads(0, 4, unit=cuda_warp):
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    s[32 * w + i] = x[128 * t + 32 * w + i]
                Fence(cuda_in_order, cuda_in_order)
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    y[128 * t + 32 * w + i] = s[127 - 32 * w - i]
                Fence(cuda_in_order, cuda_in_order)


@proc
def producer_warps(n: size, x: f32[n] @ CUDA_GMEM, y: f32[n] @ CUDA_GMEM):
    # Warp 0 stages 32 elements; the other warps wait at a CTA barrier and
    # each copies them out scaled: CudaWarps blocks and CTA-wide fences.
    assert n % 32 == 0
    with CudaDeviceFunction(blockDim=128):
        for t in cuda_tasks(0, n / 32):
            s: f32[32] @ CUDA_SMEM
            with CudaWarps(0, 1):
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    s[i] = x[32 * t + i]
            Fence(cuda_in_order, cuda_in_order)
            with CudaWarps(1, 2):
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    y[32 * t + i] = 2.0 * s[i]
            Fence(cuda_in_order, cuda_in_order)


@instr("{dst_data} = {src_data};", unit=cuda_warp)
def copy_one_by_warp(dst: [f32][1] @ CUDA_SMEM, src: [f32][1] @ CUDA_GMEM):
    dst[0] = src[0]


@proc
def instruction_at_thread_scope(n: size, x: f32[n] @ CUDA_GMEM):
    # A warp instruction run by single threads: tier A refuses it.
    assert n % 32 == 0
    with CudaDeviceFunction(blockDim=32):
        for t in cuda_tasks(0, n / 32):
            s: f32[32] @ CUDA_SMEM
            for i in cuda_threads(0, 32, unit=cuda_thread):
                copy_one_by_warp(s[i : i + 1], x[32 * t + i : 32 * t + i + 1])


@proc
def registers_shared_by_threads(n: size, x: f32[n] @ CUDA_GMEM):
    # A register allocated for the CTA but written by each thread.
    assert n % 32 == 0
    with CudaDeviceFunction(blockDim=32):
        for t in cuda_tasks(0, n / 32):
            r: f32 @ CUDA_RMEM
            for i in cuda_threads(0, 32, unit=cuda_thread):
                r = x[32 * t + i]
                x[32 * t + i] = r


@proc
def distributed_registers(n: size, x: f32[n] @ CUDA_GMEM):
    # The same with one register per thread: a distributed dimension.
    assert n % 32 == 0
    with CudaDeviceFunction(blockDim=32):
        for t in cuda_tasks(0, n / 32):
            r: f32[32 @ cuda_thread] @ CUDA_RMEM
            for i in cuda_threads(0, 32, unit=cuda_thread):
                r[i] = x[32 * t + i]
                x[32 * t + i] = 2.0 * r[i]
