"""exo2.stdlib.halide_scheduling_ops (docs/halide-scheduling.md):
Halide-style schedules of the naive blur and unsharp-mask kernels of
benchmarks/kernels/halide_pipelines.py, each printed and run before/after on
random inputs at odd sizes, and the cases the operations refuse."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from exo2 import proc
from exo2.stdlib.halide_scheduling_ops import (
    compute_and_store_at,
    compute_at,
    halide_compute_and_store_at_same,
    halide_compute_at,
    halide_fully_inline,
    halide_parallel,
    halide_split,
    halide_tile,
    split,
    store_at,
    tile,
)
from exo2.stdlib.scheduling import SchedulingError
from schedule_check import assert_same_results

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "kernels"))

import halide_pipelines as hp  # noqa: E402

ODD_SIZES = [dict(W=13, H=7), dict(W=1, H=1), dict(W=4, H=11)]
# whole 3 x 5 tiles
TILE_SIZES = [dict(W=15, H=9), dict(W=5, H=3), dict(W=25, H=15)]

# sink_alloc proves that no value flows through the buffer from one
# iteration to a later one; it does not yet see that, with recompute, each
# iteration's producer nest rewrites every value its consumer nest reads


def check(naive, scheduled, sizes):
    for s in sizes:
        assert_same_results(naive, scheduled, s)


# --------------------------------------------------------------------------- #
# Blur: compute_at


def test_tile_keeps_the_loop_names_outside():
    naive = hp.blur_kernel(3, 5)
    p = halide_tile(naive, "out", "y", "x", "yi", "xi", 3, 5)
    assert "\n".join(str(p).splitlines()[8:12]) == (
        "    for y in seq(0, H / 3):\n"
        "        for x in seq(0, W / 5):\n"
        "            for yi in seq(0, 3):\n"
        "                for xi in seq(0, 5):"
    )
    check(naive, p, TILE_SIZES)


def test_compute_at_rows_recomputes_the_overlap():
    p = compute_at(hp.blur, hp.blur.find("blur_x = _"), hp.blur.find_loop("y #1"))
    assert str(p) == (
        "def blur(W: size, H: size, inp: f32[H + 2, W + 2] @ DRAM,\n"
        "         out: f32[H, W] @ DRAM):\n"
        "    blur_x: f32[2 + H, W] @ DRAM\n"
        "    for y in seq(0, H):\n"
        "        for yi in seq(0, 3):\n"
        "            for x in seq(0, W):\n"
        "                blur_x[y + yi, x] = (inp[y + yi, x] + inp[y + yi, 1 + x] +\n"
        "                                     inp[y + yi, 2 + x]) / 3.0\n"
        "        for x in seq(0, W):\n"
        "            out[y,\n"
        "                x] = (blur_x[y, x] + blur_x[1 + y, x] + blur_x[2 + y, x]) / 3.0"
    )
    check(hp.blur, p, ODD_SIZES)


def test_compute_at_with_prologue_is_a_sliding_window():
    p = compute_at(hp.blur, "blur_x = _", hp.blur.find_loop("y #1"), with_prologue=True)
    assert str(p).split("\n", 2)[2] == (
        "    blur_x: f32[2 + H, W] @ DRAM\n"
        "    for y in seq(0, 2):\n"
        "        for x in seq(0, W):\n"
        "            blur_x[y, x] = (inp[y, x] + inp[y, 1 + x] + inp[y, 2 + x]) / 3.0\n"
        "    for y in seq(0, H):\n"
        "        for x in seq(0, W):\n"
        "            blur_x[2 + y, x] = (inp[2 + y, x] + inp[2 + y, 1 + x] +\n"
        "                                inp[2 + y, 2 + x]) / 3.0\n"
        "        for x in seq(0, W):\n"
        "            out[y,\n"
        "                x] = (blur_x[y, x] + blur_x[1 + y, x] + blur_x[2 + y, x]) / 3.0"
    )
    check(hp.blur, p, ODD_SIZES)


def test_compute_at_a_tile_computes_the_tile_and_its_halo():
    naive = hp.blur_kernel(3, 5)
    tiled = halide_tile(naive, "out", "y", "x", "yi", "xi", 3, 5)
    p = halide_compute_at(tiled, "blur_x", "out", "x", with_prologue=False)
    assert str(p).split("\n", 4)[4] == (
        "    blur_x: f32[2 + H, W] @ DRAM\n"
        "    for y in seq(0, H / 3):\n"
        "        for x in seq(0, W / 5):\n"
        "            for xi in seq(0, 5):\n"
        "                for yi in seq(0, 5):\n"
        "                    blur_x[yi + 3 * y, xi +\n"
        "                           5 * x] = (inp[yi + 3 * y, xi + 5 * x] +\n"
        "                                     inp[yi + 3 * y, 1 + xi + 5 * x] +\n"
        "                                     inp[yi + 3 * y, 2 + xi + 5 * x]) / 3.0\n"
        "            for yi in seq(0, 3):\n"
        "                for xi in seq(0, 5):\n"
        "                    out[yi + 3 * y, xi +\n"
        "                        5 * x] = (blur_x[yi + 3 * y, xi + 5 * x] +\n"
        "                                  blur_x[1 + yi + 3 * y, xi + 5 * x] +\n"
        "                                  blur_x[2 + yi + 3 * y, xi + 5 * x]) / 3.0"
    )
    check(naive, p, TILE_SIZES)


def test_compute_at_a_loop_inside_a_tile_follows_the_tile():
    """compute_at at the tile's inner loop: the region one iteration of `yi`
    reads moves with the enclosing tile loops (`yi + 3 * y`); each iteration
    computes its rows of the tile (as Exo, checked against exo-lang 1.0)."""
    naive = hp.blur_kernel(3, 5)
    tiled = halide_tile(naive, "out", "y", "x", "yi", "xi", 3, 5)
    p = compute_at(tiled, tiled.find("blur_x = _"), tiled.find_loop("yi"))
    assert (
        str(p)
        .split("\n", 4)[4]
        .startswith(
            "    blur_x: f32[2 + H, W] @ DRAM\n"
            "    for y in seq(0, H / 3):\n"
            "        for x in seq(0, W / 5):\n"
            "            for yi in seq(0, 3):\n"
            "                for yii in seq(0, 3):\n"
            "                    for xi in seq(0, 5):\n"
        )
    )
    check(naive, p, TILE_SIZES)


def test_blur_tiled_recompute():
    p = hp.blur_tiled_recompute(3, 5)
    assert "for yi in seq(0, 5):" in str(p) and "blur_x: f32[2 + H, W]" in str(p)
    check(hp.blur_kernel(3, 5), p, TILE_SIZES)


def test_blur_sliding_window_in_a_circular_buffer():
    p = hp.blur_sliding_window()
    assert str(p).split("\n", 2)[2] == (
        "    blur_x: f32[3, W] @ DRAM\n"
        "    for y in seq(0, 2):\n"
        "        for x in seq(0, W):\n"
        "            blur_x[y, x] = (inp[y, x] + inp[y, 1 + x] + inp[y, 2 + x]) / 3.0\n"
        "    for y in seq(0, H):\n"
        "        for x in seq(0, W):\n"
        "            blur_x[(2 + y) % 3, x] = (inp[2 + y, x] + inp[2 + y, 1 + x] +\n"
        "                                      inp[2 + y, 2 + x]) / 3.0\n"
        "        for x in seq(0, W):\n"
        "            out[y, x] = (blur_x[y % 3, x] + blur_x[(1 + y) % 3, x] +\n"
        "                         blur_x[(2 + y) % 3, x]) / 3.0"
    )
    check(hp.blur, p, ODD_SIZES)


def test_a_sliding_window_loop_is_not_parallel():
    p = halide_parallel(hp.blur_sliding_window(), "y #1")
    assert "for y in par(0, H):" in str(p)
    # race freedom is checked when the kernel is compiled
    with pytest.raises(TypeError, match="potential data races"):
        p.c_code_str()


# --------------------------------------------------------------------------- #
# store_at


@proc
def brighten(W: size, H: size, inp: f32[H, W], out: f32[H, W]):
    assert H % 3 == 0
    assert W % 5 == 0
    b: f32[H, W]
    for y in seq(0, H):
        for x in seq(0, W):
            b[y, x] = 2.0 * inp[y, x]
    for y in seq(0, H):
        for x in seq(0, W):
            out[y, x] = b[y, x] + 1.0


def test_compute_and_store_at_a_tile():
    tiled = halide_tile(brighten, "out", "y", "x", "yi", "xi", 3, 5)
    p = halide_compute_and_store_at_same(tiled, "b", "out", "x")
    assert str(p).split("\n", 3)[3] == (
        "    for y in seq(0, H / 3):\n"
        "        for x in seq(0, W / 5):\n"
        "            b: f32[3, 5] @ DRAM\n"
        "            for xi in seq(0, 5):\n"
        "                for yi in seq(0, 3):\n"
        "                    b[yi, xi] = 2.0 * inp[yi + 3 * y, xi + 5 * x]\n"
        "            for yi in seq(0, 3):\n"
        "                for xi in seq(0, 5):\n"
        "                    out[yi + 3 * y, xi + 5 * x] = b[yi, xi] + 1.0"
    )
    check(brighten, p, TILE_SIZES)


def test_store_at_a_row():
    p = compute_at(hp.unsharp, "blur_y = _", hp.unsharp.find_loop("y #1"))
    p = store_at(p, hp.unsharp.find("blur_y: _"), p.find_loop("y"))
    assert str(p).splitlines()[2:8] == [
        "    blur_x: f32[H, W] @ DRAM",
        "    for y in seq(0, H):",
        "        blur_y: f32[1, 4 + W] @ DRAM",
        "        for x in seq(0, 4 + W):",
        "            blur_y[0,",
        "                   x] = (inp[y, x] + 4.0 * inp[1 + y, x] + 6.0 * inp[2 + y, x]",
    ]
    check(hp.unsharp, p, ODD_SIZES)


def test_unsharp_rows():
    p = hp.unsharp_rows()
    assert str(p).split("\n", 2)[2] == (
        "    for y in par(0, H):\n"
        "        blur_y: f32[1, 4 + W] @ DRAM\n"
        "        for x in seq(0, 4 + W):\n"
        "            blur_y[0,\n"
        "                   x] = (inp[y, x] + 4.0 * inp[1 + y, x] + 6.0 * inp[2 + y, x]\n"
        "                         + 4.0 * inp[3 + y, x] + inp[4 + y, x]) / 16.0\n"
        "        for x in seq(0, W):\n"
        "            out[y, x] = 2.0 * inp[2 + y, 2 + x] - (\n"
        "                blur_y[0, x] + 4.0 * blur_y[0, 1 + x] + 6.0 * blur_y[0, 2 + x]\n"
        "                + 4.0 * blur_y[0, 3 + x] + blur_y[0, 4 + x]) / 16.0"
    )
    check(hp.unsharp, p, ODD_SIZES)


def test_fully_inline():
    p = halide_fully_inline(hp.unsharp, "blur_x", "out")
    assert "blur_x" not in str(p)
    assert "out[y, x] = 2.0 * inp[2 + y, 2 + x] - (\n" in str(p)
    check(hp.unsharp, p, ODD_SIZES)


def test_blur_tiled():
    p = hp.blur_tiled(3, 5)
    assert str(p).split("\n", 4)[4] == (
        "    for y in par(0, H / 3):\n"
        "        for x in seq(0, W / 5):\n"
        "            blur_x: f32[5, 5] @ DRAM\n"
        "            for xi in seq(0, 5):\n"
        "                for yi in seq(0, 5):\n"
        "                    blur_x[yi, xi] = (inp[yi + 3 * y, xi + 5 * x] +\n"
        "                                      inp[yi + 3 * y, 1 + xi + 5 * x] +\n"
        "                                      inp[yi + 3 * y, 2 + xi + 5 * x]) / 3.0\n"
        "            for yi in seq(0, 3):\n"
        "                for xi in seq(0, 5):\n"
        "                    out[yi + 3 * y,\n"
        "                        xi + 5 * x] = (blur_x[yi, xi] + blur_x[1 + yi, xi] +\n"
        "                                       blur_x[2 + yi, xi]) / 3.0"
    )
    check(hp.blur_kernel(3, 5), p, TILE_SIZES)


def test_blur_tiled_sliding_window():
    p = hp.blur_tiled_sliding_window(3, 5)
    text = str(p)
    assert (
        "            blur_x: f32[3, 5] @ DRAM\n            for yi in seq(0, 2):" in text
    )
    assert "blur_x[(2 + yi) % 3,\n" in text
    check(hp.blur_kernel(3, 5), p, TILE_SIZES)


def test_unsharp_tiled():
    p = hp.unsharp_tiled(3, 5)
    text = str(p)
    assert (
        "            blur_y: f32[3, 9] @ DRAM\n            for xi in seq(0, 9):" in text
    )
    check(hp.unsharp_kernel(3, 5), p, TILE_SIZES)


# --------------------------------------------------------------------------- #
# Splitting, forwarding


def test_split_tails():
    p = halide_split(hp.blur, "blur_x", "y", "yo", "yi", 4, tail="cut")
    assert "for yi in seq(0, (H + 2) % 4):" in str(p)
    check(hp.blur, p, ODD_SIZES)
    p = split(hp.blur, "x", "xo", "xi", 4, "guard")
    assert "if 4 * xo + xi < W:" in str(p)
    check(hp.blur, p, ODD_SIZES)


def test_cursors_from_an_ancestor_procedure():
    naive = hp.blur_kernel(3, 5)
    assign, consumer = naive.find("blur_x = _"), naive.find_loop("y #1")
    tiled = tile(naive, consumer, "x #1", ["y", "yi"], ["x", "xi"], 3, 5)
    # the consumer's loop over y is now the outer tile loop
    p = compute_at(tiled, assign, consumer)
    assert "for yi in seq(0, 5):" in str(p)
    check(naive, p, TILE_SIZES[:1])


# --------------------------------------------------------------------------- #
# Refusals


@proc
def clobber(n: size, a: f32[n], c: f32[n]):
    t: f32[n]
    for i in seq(0, n):
        t[i] = a[i]
    for i in seq(0, n):
        c[i] = t[i]
        a[i] = 0.0


@proc
def late(n: size, a: f32[n], c: f32[n]):
    t: f32[n]
    for i in seq(0, n):
        c[i] = t[i]
    for i in seq(0, n):
        t[i] = a[i]


@proc
def broadcast(n: size, a: f32[n], c: f32[n, n]):
    t: f32[n]
    for x in seq(0, n):
        t[x] = a[x]
    for y in seq(0, n):
        for x in seq(0, n):
            c[y, x] = t[x]


@proc
def diagonal(n: size, a: f32[n, n], c: f32[n]):
    t: f32[n, n]
    for y in seq(0, n):
        for x in seq(0, n):
            t[y, x] = a[y, x]
    for y in seq(0, n):
        c[y] = t[y, y]


@proc
def halves(n: size, a: f32[n], c: f32[2 * n]):
    t: f32[n]
    for x in seq(0, n):
        t[x] = a[x]
    for y in seq(0, 2 * n):
        c[y] = t[y / 2]


@proc
def surplus(n: size, a: f32[n + 4], c: f32[n]):
    t: f32[n + 4]
    for y in seq(0, n + 4):
        t[y] = a[y]
    for y in seq(0, n):
        c[y] = t[y] + t[y + 2]


@proc
def short(n: size, a: f32[n + 4], c: f32[n]):
    # computes one value of t fewer than the consumer reads (t[n + 1])
    t: f32[n + 4]
    for y in seq(0, n + 1):
        t[y] = a[y]
    for y in seq(0, n):
        c[y] = t[y] + t[y + 2]


@proc
def two_outputs(n: size, a: f32[n], c: f32[n], d: f32[n]):
    t: f32[n]
    for i in seq(0, n):
        t[i] = a[i]
        d[i] = a[i]
    for i in seq(0, n):
        c[i] = t[i]


@pytest.mark.parametrize(
    "kernel, loop, message",
    [
        (
            clobber,
            "i #1",
            "the consumer loop over i writes a, which the computation of t uses",
        ),
        (late, "i", "t is computed after the loop over i"),
        (two_outputs, "i #1", "the loop computing t also writes d"),
        (broadcast, "y", "its reads index no dimension with y"),
        (diagonal, "y #1", "its reads index dimensions [0, 1] with y"),
        (
            halves,
            "y",
            "cannot bound the region of t (dimension 0) one iteration of y reads: unknown",
        ),
        (
            short,
            "y #1",
            "cannot prove that each iteration of y computes the 3 values of t",
        ),
    ],
)
def test_compute_at_refuses(kernel, loop, message):
    with pytest.raises(SchedulingError) as e:
        compute_at(kernel, kernel.find("t = _"), kernel.find_loop(loop))
    assert message in str(e.value)


def test_compute_at_keeps_the_chunks_of_a_producer_that_computes_more():
    """Found by the differential run against Exo: t's loop runs to n + 4,
    past the n + 2 values the consumer reads, so divide_with_recompute's
    chunks hold 5 values, not the 3 an iteration reads; they still hold
    those 3, and Exo's compute_at keeps them too (same text)."""
    p = compute_at(surplus, surplus.find("t = _"), surplus.find_loop("y #1"))
    assert str(p) == (
        "def surplus(n: size, a: f32[n + 4] @ DRAM, c: f32[n] @ DRAM):\n"
        "    t: f32[4 + n] @ DRAM\n"
        "    for y in seq(0, n):\n"
        "        for yi in seq(0, 5):\n"
        "            t[y + yi] = a[y + yi]\n"
        "        c[y] = t[y] + t[2 + y]"
    )
    check(surplus, p, [{"n": 1}, {"n": 3}, {"n": 8}])


def test_sliding_window_needs_a_unit_stride():
    tiled = halide_tile(hp.blur_kernel(3, 5), "out", "y", "x", "yi", "xi", 3, 5)
    with pytest.raises(
        SchedulingError, match="advance blur_x by one per iteration, not 3"
    ):
        halide_compute_at(tiled, "blur_x", "out", "x", with_prologue=True)


def test_tile_refusals():
    with pytest.raises(SchedulingError, match="cannot perfectly divide 'H' by 3"):
        halide_tile(hp.blur, "out", "y", "x", "yi", "xi", 3, 5)
    with pytest.raises(SchedulingError, match="only perfect tiling"):
        tile(hp.blur, "y #1", "x #1", ["yo", "yi"], ["xo", "xi"], 3, 5, perfect=False)
    with pytest.raises(SchedulingError, match="j_loop to be directly inside i_loop"):
        tile(hp.blur, "y #1", "x", ["yo", "yi"], ["xo", "xi"], 3, 5)
    with pytest.raises(ValueError, match="expected one of the following values"):
        split(hp.blur, "y", "yo", "yi", 4, "bogus")


@proc
def reused(n: size, a: f32[n], c: f32[n]):
    t: f32[n]
    for y in seq(0, n):
        t[y] = a[y]
        c[y] = t[y]
    for y in seq(0, n):
        c[y] += t[y]


def test_store_at_refusals():
    with pytest.raises(SchedulingError, match="accessed outside of the scope provided"):
        store_at(reused, "t: _", "y")
    with pytest.raises(TypeError, match="target_loop must be a ForCursor"):
        store_at(reused, "t: _", reused.find("t = _"))
    with pytest.raises(TypeError, match="producer_assign must be an AssignCursor"):
        compute_at(reused, "c += _", "y #1")


def test_compute_and_store_at_needs_a_loop():
    with pytest.raises(TypeError, match="target_loop must be a ForCursor"):
        compute_and_store_at(reused, "t", reused.find("t = _"))
