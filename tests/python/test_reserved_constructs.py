"""The IR constructs reserved for the CUDA backend (cuda.md §2) parse, check
and print back as written, defined here with user-made extension objects."""

from __future__ import annotations

import pytest
from exo2 import DRAM, proc
from exo2.core.extensions import DimAnnotation, LoopMode, WithContext
from exo2.core.memory import Memory
from exo2.frontend.pyparser import ParseError


class ring(DimAnnotation):
    def __init__(self, depth):
        self.depth = depth

    def __str__(self):
        return f"ring({self.depth})"


class TensorMap(Memory):
    """A memory only used to mark special windows."""


class Launch(WithContext):
    def __init__(self, blocks):
        self.blocks = blocks

    def __str__(self):
        return f"Launch(blocks={self.blocks})"


class threads(LoopMode):
    def __init__(self, unit="thread"):
        self.unit = unit

    def extra_args(self):
        return f", unit={self.unit}"


def test_dim_annotations_special_windows_with_and_loop_modes_print_back():
    @proc
    def kernel(K: size, A: f32[K, 8]):
        assert K % 64 == 0
        full: barrier[K / 64 @ ring(4)] @ DRAM
        buf: bf16[(K + 1) @ ring(2), 8] @ DRAM
        A_tm = A[0:K, 0:8] @ TensorMap
        with Launch(blocks=4):
            for w in threads(0, 4, unit="warp"):
                A[0, w] = 0.0

    assert str(kernel) == (
        "def kernel(K: size, A: f32[K, 8] @ DRAM):\n"
        "    assert K % 64 == 0\n"
        "    full: barrier[K / 64 @ ring(4)] @ DRAM\n"
        "    buf: bf16[(K + 1) @ ring(2), 8] @ DRAM\n"
        "    A_tm = A[0:K, 0:8] @ TensorMap\n"
        "    with Launch(blocks=4):\n"
        "        for w in threads(0, 4, unit=warp):\n"
        "            A[0, w] = 0.0"
    )


def test_annotated_dimension_keeps_full_extent_for_bounds_checks():
    with pytest.raises(TypeError, match="buf is written out-of-bounds"):

        @proc
        def kernel(n: size):
            buf: f32[n @ ring(2)] @ DRAM
            for i in seq(0, n + 1):
                buf[i] = 0.0


def test_dimension_annotation_must_be_an_annotation_object():
    with pytest.raises(ParseError, match="expected a dimension annotation after '@'"):

        @proc
        def kernel(n: size):
            buf: f32[n @ 3] @ DRAM
            pass


def test_dimension_annotations_are_refused_on_parameters():
    with pytest.raises(ParseError, match="only allowed on allocations"):

        @proc
        def kernel(n: size, x: f32[n @ ring(2)]):
            pass


# --------------------------------------------------------------------------- #
# Sync statements and trailing barriers, with user-made timelines

from exo2 import instr  # noqa: E402
from exo2.API_cursors import CallCursor, SyncCursor, WithCursor  # noqa: E402
from exo2.API_scheduling import divide_loop  # noqa: E402
from exo2.core.extensions import Timeline  # noqa: E402
from exo2.frontend.pyparser import ParseError as _ParseError  # noqa: E402

done = Timeline("done")
later = Timeline("later")


@instr("copy4({dst_data}, {src_data});", timeline="async_copy")
def copy4(dst: f32[4] @ DRAM, src: f32[4] @ DRAM):
    for i in seq(0, 4):
        dst[i] = src[i]


def _synced():
    @proc
    def synced(K: size, A: f32[K, 4]):
        full: barrier[K @ ring(2)] @ DRAM
        buf: f32[4] @ DRAM
        with Launch(blocks=1):
            for k in seq(0, K):
                copy4(buf[0:4], A[k, 0:4]) >> full[k]
                Await(full[k], later)
                Fence(done, later)
                Arrive(done) >> full[k] >> full[k]

    return synced


def test_sync_statements_and_trailing_barriers_print_as_written():
    assert str(_synced()) == (
        "def synced(K: size, A: f32[K, 4] @ DRAM):\n"
        "    full: barrier[K @ ring(2)] @ DRAM\n"
        "    buf: f32[4] @ DRAM\n"
        "    with Launch(blocks=1):\n"
        "        for k in seq(0, K):\n"
        "            copy4(buf[0:4], A[k, 0:4]) >> full[k]\n"
        "            Await(full[k], later)\n"
        "            Fence(done, later)\n"
        "            Arrive(done) >> full[k] >> full[k]"
    )


def test_sync_cursors_and_patterns_find_the_new_statements():
    p = _synced()
    fence = p.find("Fence(_, _)")
    assert isinstance(fence, SyncCursor) and fence.kind() == "fence"
    assert (fence.pre(), fence.post()) == (done, later)
    arrive = p.find("Arrive(_) >> _")
    assert arrive.kind() == "arrive" and arrive.post() is None
    assert len(arrive.barriers()) == 2
    wait = p.find("Await(_, _)")
    assert wait.kind() == "await" and wait.pre() is None and wait.post() is later
    call = p.find("copy4(_)")
    assert isinstance(call, CallCursor) and len(call.trailing_barriers()) == 1
    assert len(p.find("Fence(_, _) #0", many=True)) == 1
    w = p.find("with _: _")
    assert isinstance(w, WithCursor) and str(w.ctx()) == "Launch(blocks=1)"
    assert [str(a) for a in p.find("full: _").dim_annotations()] == ["ring(2)"]


def test_divide_loop_rewrites_barrier_indices_in_sync_statements():
    p = _synced()
    p = divide_loop(p, p.find_loop("k"), 2, ["ko", "ki"], perfect=False, tail="cut")
    text = str(p)
    assert "copy4(buf[0:4], A[2 * ko + ki, 0:4]) >> full[2 * ko + ki]" in text
    assert "Await(full[2 * ko + ki], later)" in text


def test_barrier_elements_are_bounds_checked():
    with pytest.raises(TypeError, match="full is signalled out-of-bounds"):

        @proc
        def bad(K: size):
            full: barrier[K] @ DRAM
            for k in seq(0, K):
                Arrive(done) >> full[k + 1]


def test_sync_statements_refuse_non_barrier_buffers_and_bad_timelines():
    with pytest.raises(TypeError, match="expected 'x' to be a barrier buffer"):

        @proc
        def not_a_barrier(K: size):
            x: f32[K] @ DRAM
            for k in seq(0, K):
                Await(x[k], later)

    with pytest.raises(_ParseError, match="expected a timeline such as cuda_in_order"):

        @proc
        def not_a_timeline(K: size):
            full: barrier[K] @ DRAM
            for k in seq(0, K):
                Fence(3, later)

    with pytest.raises(_ParseError, match="Await\\(\\) expects exactly 2 arguments"):

        @proc
        def wrong_arity(K: size):
            full: barrier[K] @ DRAM
            for k in seq(0, K):
                Await(full[k])


def test_only_instructions_signal_barriers():
    @proc
    def plain(x: f32[4] @ DRAM):
        x[0] = 1.0

    with pytest.raises(TypeError, match="only instructions can signal barriers"):

        @proc
        def bad(x: f32[4]):
            full: barrier[1] @ DRAM
            plain(x) >> full[0]
