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
