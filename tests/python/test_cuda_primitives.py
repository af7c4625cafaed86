"""The GPU primitives (docs/cuda.md, "From a sequential kernel"): each keeps the
sequential meaning (the derived procedure is recorded equivalent), prints
as expected, refuses what it cannot do, and forwards cursors."""

from __future__ import annotations

import numpy as np
import pytest
from exo2 import SchedulingError, proc
from exo2.core.extensions import par, seq
from exo2.platforms.cuda import (
    CUDA_CP_ASYNC_GROUP,
    CUDA_GMEM,
    CUDA_SMEM,
    CudaDeviceFunction,
    alloc_barrier,
    bind_window,
    cp_async,
    cuda_in_order,
    cuda_tasks,
    cuda_thread,
    cuda_threads,
    delete_sync,
    insert_arrive,
    insert_await,
    insert_fence,
    ring,
    set_dim_annotation,
    set_loop_mode,
    set_trailing_barrier,
    unwrap_with,
    wrap_with,
)


@proc
def scale(n: size, x: f32[n] @ CUDA_GMEM):
    assert n % 32 == 0
    for t in seq(0, n / 32):
        s: f32[32] @ CUDA_SMEM
        for i in seq(0, 32):
            s[i] = x[32 * t + i]
        for i in seq(0, 32):
            x[32 * t + i] = 2.0 * s[i]


def test_loop_modes_and_with_blocks_make_a_kernel():
    p = set_loop_mode(scale, "t", cuda_tasks)
    p = set_loop_mode(p, "i #0", cuda_threads(unit=cuda_thread))
    p = set_loop_mode(p, "i #1", cuda_threads(unit=cuda_thread))
    p = wrap_with(p, p.find_loop("t"), CudaDeviceFunction(blockDim=32))
    p = insert_fence(p, p.find_loop("i #0").after(), cuda_in_order, cuda_in_order)
    assert str(p) == (
        "def scale(n: size, x: f32[n] @ CUDA_GMEM):\n"
        "    assert n % 32 == 0\n"
        "    with CudaDeviceFunction(blockDim=32):\n"
        "        for t in cuda_tasks(0, n / 32):\n"
        "            s: f32[32] @ CUDA_SMEM\n"
        "            for i in cuda_threads(0, 32, unit=cuda_thread):\n"
        "                s[i] = x[32 * t + i]\n"
        "            Fence(cuda_in_order, cuda_in_order)\n"
        "            for i in cuda_threads(0, 32, unit=cuda_thread):\n"
        "                x[32 * t + i] = 2.0 * s[i]"
    )
    assert p.is_eq(scale)
    assert p.find_loop("t").mode() is cuda_tasks
    assert p.find_loop("i").mode() is cuda_threads(unit=cuda_thread)
    # Back to the sequential procedure, by primitives too.
    q = unwrap_with(p, p.find("with _: _"))
    q = delete_sync(q, q.find("Fence(_, _)"))
    for name in ["t", "i #0", "i #1"]:
        q = set_loop_mode(q, name, seq)
    assert str(q) == str(scale) and q.is_eq(scale)


def test_printed_kernels_parse_back_to_equal_text():
    p = set_loop_mode(scale, "t", cuda_tasks)
    p = wrap_with(p, p.find_loop("t"), CudaDeviceFunction(blockDim=32, blocks_per_sm=2))
    text = str(p)
    assert "with CudaDeviceFunction(blockDim=32, blocks_per_sm=2):" in text
    assert "for t in cuda_tasks(0, n / 32):" in text


def test_cursors_forward_through_gpu_primitives():
    loop = scale.find_loop("i #1")
    p = set_loop_mode(scale, "t", cuda_tasks)
    p = wrap_with(p, p.find_loop("t"), CudaDeviceFunction(blockDim=32))
    assert p.forward(loop).name() == "i"
    assert p.forward(loop).body()[0].name() == "x"


def test_wrap_with_refuses_hiding_a_declaration_used_after_the_block():
    with pytest.raises(SchedulingError, match="cannot wrap the declaration of s"):
        wrap_with(scale, scale.find("s : _"), CudaDeviceFunction(blockDim=32))


def test_barriers_arrives_and_awaits_are_typed_and_bounds_checked():
    p = alloc_barrier(
        scale, scale.find_loop("t").before(), "g", ["n / 32"], CUDA_CP_ASYNC_GROUP
    )
    p = insert_arrive(p, p.find_loop("i #0").after(), cp_async, ["g[t]"])
    p = insert_await(p, p.find("Arrive(_) >> _").after(), "g[t]", cuda_in_order)
    text = str(p)
    assert "g: barrier[n / 32] @ CUDA_CP_ASYNC_GROUP" in text
    assert "Arrive(cp_async) >> g[t]" in text
    assert "Await(g[t], cuda_in_order)" in text
    assert p.is_eq(scale)
    with pytest.raises(SchedulingError, match=r"g\[t \+ 1\] may be out of bounds"):
        insert_await(p, p.find("Arrive(_) >> _").after(), "g[t + 1]", cuda_in_order)
    with pytest.raises(SchedulingError, match="expected 's' to be a barrier buffer"):
        insert_await(p, p.find("Arrive(_) >> _").after(), "s[0]", cuda_in_order)
    with pytest.raises(TypeError, match="expected a timeline"):
        insert_fence(p, p.find_loop("t").before(), cuda_in_order, 3)


def test_dimension_annotations_keep_the_extent():
    p = set_dim_annotation(scale, "s", 0, ring(2))
    assert "s: f32[32 @ ring(2)] @ CUDA_SMEM" in str(p)
    assert p.find("s : _").dim_annotations() == [ring(2)]
    p = set_dim_annotation(p, "s", 0, None)
    assert "s: f32[32] @ CUDA_SMEM" in str(p)
    with pytest.raises(SchedulingError, match="there is no dimension 1"):
        set_dim_annotation(scale, "s", 1, ring(2))


def test_trailing_barriers_only_on_instructions():
    @proc
    def plain(x: f32[1] @ CUDA_GMEM):
        x[0] = 0.0

    @proc
    def caller(x: f32[1] @ CUDA_GMEM):
        g: barrier[1] @ CUDA_CP_ASYNC_GROUP
        plain(x)

    with pytest.raises(SchedulingError, match="only instructions can signal barriers"):
        set_trailing_barrier(caller, "plain(_)", ["g[0]"])


def test_set_loop_mode_takes_modes_only():
    with pytest.raises(TypeError, match="expected a loop mode"):
        set_loop_mode(scale, "t", "cuda_tasks")
    p = set_loop_mode(scale, "t", par)
    assert "for t in par(0, n / 32):" in str(p)


def test_stage_smem_then_threads_and_fences_make_a_cooperative_load():
    from exo2.platforms.cuda import check_parallel
    from exo2.stdlib.cuda import stage_smem, to_kernel, to_threads

    @proc
    def shift(n: size, x: f32[n + 1] @ CUDA_GMEM, y: f32[n] @ CUDA_GMEM):
        assert n % 32 == 0
        for i in seq(0, n):
            y[i] = x[i + 1]

    p, (_, (task,), (lane,)) = to_kernel(
        shift, ["i"], [32], CudaDeviceFunction(blockDim=32), rc=True
    )
    p = to_threads(p, lane, cuda_thread)
    # Each task reads x[32 * io + 1 : 32 * io + 33]: staged in shared memory.
    p = stage_smem(p, p.forward(lane), "x[32 * io + 1 : 32 * io + 33]", "xs")
    assert "xs: f32[32] @ CUDA_SMEM" in str(p)
    assert p.is_eq(shift)
    load = p.find_loop("i0")
    # The load nest runs on the whole CTA: plain stores must run on threads.
    with pytest.raises(
        TypeError, match="a plain statement writing xs must run on one thread"
    ):
        check_parallel(p)
    p = to_threads(p, load, cuda_thread)
    # Thread i stores xs[i] and reads xs[i]: no fence is needed, and the
    # check knows it.
    check_parallel(p, n=64, sms=1)
    assert p.is_eq(shift)


@proc
def double_rows(m: size, n: size, x: f32[m, n], y: f32[m, n]):
    for i in seq(0, m):
        for j in seq(0, n):
            y[i, j] = 2.0 * x[i, j]
    for j in seq(0, n):
        y[0, j] += x[0, j]


def test_bind_window_routes_the_block_through_a_window_of_the_whole_buffer():
    p = bind_window(double_rows, double_rows.find_loop("i"), "x[0:m, 0:n]", "xw")
    text = str(p)
    assert "    xw = x[0:m, 0:n]\n    for i in seq(0, m):" in text
    assert "y[i, j] = 2.0 * xw[i, j]" in text
    # Only the block's uses: the loop after it still reads x.
    assert "y[0, j] += x[0, j]" in text
    assert p.is_eq(double_rows)
    # Cursors inside and after the block follow it.
    assert p.forward(double_rows.find_loop("j #0")).name() == "j"
    assert p.forward(double_rows.find_loop("j #1")).prev().name() == "i"
    # The bare name means the whole buffer; the window may carry a memory.
    q = bind_window(double_rows, double_rows.find_loop("i"), "x", "xw")
    assert str(q) == text
    rng = np.random.default_rng(3)
    for m, n in [(1, 1), (3, 5), (7, 2)]:
        x = rng.standard_normal((m, n)).astype(np.float32)
        before, after = np.zeros((m, n), np.float32), np.zeros((m, n), np.float32)
        double_rows.jit()(m, n, x, before)
        p.jit()(m, n, x, after)
        np.testing.assert_array_equal(before, after)


def test_bind_window_gives_a_kernel_a_tensor_map():
    from exo2.platforms.cuda.sm90 import CudaTensorMap

    @proc
    def copy(n: size, a: f32[n, 32] @ CUDA_GMEM, b: f32[n, 32] @ CUDA_GMEM):
        with CudaDeviceFunction(blockDim=32):
            for t in cuda_tasks(0, n):
                for i in cuda_threads(0, 32, unit=cuda_thread):
                    b[t, i] = a[t, i]

    tm = CudaTensorMap(swizzle=128, box=(1, 32))
    p = bind_window(copy, copy.find("with _: _"), "a[0:n, 0:32]", "a_tm", tm)
    assert "a_tm = a[0:n, 0:32] @ CudaTensorMap(swizzle=128, box=(1, 32))" in str(p)
    assert "b[t, i] = a_tm[t, i]" in str(p)


def test_bind_window_refuses_part_of_a_buffer_and_taken_names():
    loop = double_rows.find_loop("i")
    with pytest.raises(
        SchedulingError,
        match="dimension 1 of the window is 1:n, not the whole extent 0:n of x",
    ):
        bind_window(double_rows, loop, "x[0:m, 1:n]", "xw")
    with pytest.raises(
        SchedulingError, match="dimension 0 of the window of x is not an interval"
    ):
        bind_window(double_rows, loop, "x[0, 0:n]", "xw")
    with pytest.raises(SchedulingError, match="the name y is taken"):
        bind_window(double_rows, loop, "x", "y")
    with pytest.raises(SchedulingError, match="m is not a data tensor"):
        bind_window(double_rows, loop, "m", "mw")
