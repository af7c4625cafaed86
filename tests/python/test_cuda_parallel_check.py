"""The parallel check of CUDA kernels (docs/cuda.md, "Checking a kernel"):
tier A refuses malformed kernels for all sizes; tier B runs kernels on the
abstract machine and refuses races, naming the element, the two statements,
their threads and the task. Mutants are made from correct kernels with the
GPU primitives, which keep the sequential meaning: only the parallel check
can tell them apart."""

from __future__ import annotations

import re

import pytest
from exo2 import proc
from exo2.errors import ParallelSafetyError
from exo2.platforms.cuda import (
    CUDA_GMEM,
    CUDA_SMEM,
    CudaDeviceFunction,
    CudaWarps,
    check_parallel,
    cuda_in_order,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    cuda_warp,
    delete_sync,
)
from kernels import cuda_kernels as K


def test_correct_kernels_pass_both_tiers():
    for kernel, sizes in [
        (K.reverse_blocks, {"n": 128 * 5}),
        (K.reverse_within_warps, {"n": 128 * 3}),
        (K.producer_warps, {"n": 32 * 4}),
        (K.distributed_registers, {"n": 96}),
    ]:
        report = check_parallel(kernel, sms=2, **sizes)
        assert report.tiers == ("A", "B")
        assert report.kernels == 1
        assert report.events > 0


def test_tier_a_alone_without_sizes():
    report = check_parallel(K.reverse_blocks)
    assert report.tiers == ("A",) and report.events == 0


def test_missing_fence_between_store_and_load_is_a_raw_hazard():
    mutant = delete_sync(K.reverse_blocks, K.reverse_blocks.find("Fence(_, _) #0"))
    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(mutant, n=256, sms=2)
    message = str(e.value)
    assert "RAW hazard on s[" in message
    assert "written by `s[i] = x[128 * t + i]`" in message
    assert "read by `y[128 * t + i] = s[127 - i]`" in message
    assert re.search(r"by thread \d+ of CTA 0 in task \(t=0\)", message)
    assert "no synchronisation orders them" in message
    assert e.value.diagnostics  # file, line, col, text


def test_missing_fence_before_the_next_task_is_a_war_hazard():
    mutant = delete_sync(K.reverse_blocks, K.reverse_blocks.find("Fence(_, _) #1"))
    # One task per CTA: the shared memory is never reused.
    check_parallel(mutant, n=256, sms=2)
    # Two tasks per CTA: task 2 overwrites what task 0 may still read.
    with pytest.raises(ParallelSafetyError, match=r"WAR hazard on s\[\d+\]") as e:
        check_parallel(mutant, n=512, sms=2)
    assert "in task (t=0)" in str(e.value) and "in task (t=2)" in str(e.value)


def test_warp_fences_do_not_order_other_warps():
    check_parallel(K.reverse_within_warps, n=256, sms=1)
    with pytest.raises(ParallelSafetyError, match="RAW hazard on s"):
        check_parallel(K.reverse_across_warps, n=256, sms=1)


def test_role_fences_cover_the_whole_cta():
    mutant = delete_sync(K.producer_warps, K.producer_warps.find("Fence(_, _) #0"))
    with pytest.raises(ParallelSafetyError, match="RAW hazard on s"):
        check_parallel(mutant, n=128, sms=1)


def test_instruction_must_run_on_its_unit():
    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(K.instruction_at_thread_scope)
    assert (
        "copy_one_by_warp must be executed by a warp, but here it is executed "
        "by one thread (cuda_threads loop at" in str(e.value)
    )


def test_registers_belong_to_one_thread():
    with pytest.raises(
        ParallelSafetyError,
        match="the register buffer r is allocated for the whole CTA",
    ):
        check_parallel(K.registers_shared_by_threads)
    check_parallel(K.distributed_registers, n=64)


def test_plain_stores_to_shared_memory_run_on_one_thread():
    @proc
    def warp_store(n: size, x: f32[n] @ CUDA_GMEM):
        assert n % 32 == 0
        with CudaDeviceFunction(blockDim=64):
            for t in cuda_tasks(0, n / 32):
                s: f32[2] @ CUDA_SMEM
                for w in cuda_threads(0, 2, unit=cuda_warp):
                    s[w] = x[32 * t]

    with pytest.raises(
        ParallelSafetyError,
        match="a plain statement writing s must run on one thread, but here it runs on one warp",
    ):
        check_parallel(warp_store)


def test_tasks_must_be_independent():
    @proc
    def all_tasks_write_one_element(n: size, x: f32[n] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, n):
                for i in cuda_threads(0, 1, unit=cuda_thread):
                    x[0] = 1.0

    with pytest.raises(
        ParallelSafetyError, match="the tasks of kernel .* may not be independent"
    ):
        check_parallel(all_tasks_write_one_element)


def test_structural_rules_of_kernels():
    @proc
    def threads_loop_needs_literals(n: size, x: f32[n] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, 1):
                for i in cuda_threads(0, n, unit=cuda_thread):
                    x[i] = 0.0

    with pytest.raises(
        ParallelSafetyError,
        match="the bounds of cuda_threads loop i must be integer literals",
    ):
        check_parallel(threads_loop_needs_literals)

    @proc
    def too_many_warps(x: f32[128] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=64):
            for t in cuda_tasks(0, 1):
                for w in cuda_threads(0, 4, unit=cuda_warp):
                    for i in cuda_threads(0, 32, unit=cuda_thread):
                        x[32 * w + i] = 0.0

    with pytest.raises(
        ParallelSafetyError,
        match=r"cuda_threads loop w needs 4 pieces of cuda_warp \(128 threads\), but it runs on the whole CTA",
    ):
        check_parallel(too_many_warps)

    @proc
    def not_a_task_nest(x: f32[32] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=32):
            for i in cuda_threads(0, 32, unit=cuda_thread):
                x[i] = 0.0

    with pytest.raises(
        ParallelSafetyError,
        match="the body of a CudaDeviceFunction must be a nest of cuda_tasks loops",
    ):
        check_parallel(not_a_task_nest)

    @proc
    def host_buffer_in_kernel(x: f32[32]):
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, 1):
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    x[i] = 0.0

    with pytest.raises(
        ParallelSafetyError,
        match="uses the buffer x of DRAM, which the GPU cannot access",
    ):
        check_parallel(host_buffer_in_kernel)

    @proc
    def par_in_kernel(x: f32[32] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, 1):
                for i in cuda_threads(0, 1, unit=cuda_thread):
                    for j in par(0, 32):
                        x[j] = 0.0

    with pytest.raises(
        ParallelSafetyError, match="par loops are not allowed inside a kernel"
    ):
        check_parallel(par_in_kernel)

    @proc
    def warps_in_threads_loop(x: f32[32] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=64):
            for t in cuda_tasks(0, 1):
                for w in cuda_threads(0, 2, unit=cuda_warp):
                    with CudaWarps(0, 1):
                        pass

    with pytest.raises(
        ParallelSafetyError, match="CudaWarps is not allowed inside a cuda_threads loop"
    ):
        check_parallel(warps_in_threads_loop)

    @proc
    def fence_in_host_code(x: f32[32] @ CUDA_GMEM):
        Fence(cuda_in_order, cuda_in_order)

    with pytest.raises(
        ParallelSafetyError,
        match="synchronisation statements are only allowed inside a kernel",
    ):
        check_parallel(fence_in_host_code)

    @proc
    def shared_memory_needs_literal_extents(n: size, x: f32[n] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, 1):
                s: f32[n] @ CUDA_SMEM
                for i in cuda_threads(0, 1, unit=cuda_thread):
                    s[0] = x[0]

    with pytest.raises(
        ParallelSafetyError,
        match="the extents of CUDA_SMEM buffers must be integer literals",
    ):
        check_parallel(shared_memory_needs_literal_extents)


def test_tier_b_needs_every_size_and_checks_preconditions():
    with pytest.raises(ValueError, match="needs a value for n"):
        check_parallel(K.reverse_blocks, m=3)
    with pytest.raises(ValueError, match="violate the precondition n % 128 == 0"):
        check_parallel(K.reverse_blocks, n=100)


def test_errors_list_every_violation_with_locations():
    mutant = delete_sync(K.reverse_blocks, K.reverse_blocks.find("Fence(_, _) #0"))
    mutant = delete_sync(mutant, mutant.find("Fence(_, _)"))
    with pytest.raises(ParallelSafetyError) as e:
        check_parallel(mutant, n=512, sms=2)
    kinds = {d[3].split(" hazard")[0] for d in e.value.diagnostics}
    assert {"RAW", "WAR"} <= kinds
    for file, line, _col, _ in e.value.diagnostics:
        assert file.endswith("cuda_kernels.py") and line > 0


def test_procedures_check_their_own_kernels():
    assert K.reverse_blocks.check_parallel(n=256).tiers == ("A", "B")
    assert K.reverse_blocks.sync_check().tiers == ("A",)
