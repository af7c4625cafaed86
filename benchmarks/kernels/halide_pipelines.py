# ruff: noqa: F821  (kernel bodies use the object language: size, f32, seq)
"""Halide's classic image pipelines as naive exo2 kernels, and Halide-style
schedules of them written with exo2.stdlib.halide_scheduling_ops.

Images are `f32[rows, columns]` (`[y, x]`), with the border the stencils
need included in the input, so every stage is a plain loop nest:

- `blur`: the separable 3x3 box blur, `blur_x` (horizontal) then the
  output (vertical);
- `unsharp`: an unsharp mask, a 5-tap binomial blur `blur_y` (vertical) and
  `blur_x` (horizontal), then `out = 2 * inp - blurred`.

Each `*_schedule(...)` function returns a scheduled kernel computing the
same values as the naive one. Tiled schedules need the image size to be a
multiple of the tile, which their kernels assert (`blur_kernel(ty, tx)`).
"""

from __future__ import annotations

from exo2 import proc
from exo2.stdlib.halide_scheduling_ops import (
    halide_compute_and_store_at,
    halide_compute_and_store_at_same,
    halide_compute_at,
    halide_fully_inline,
    halide_parallel,
    halide_store_at,
    halide_tile,
)
from exo2.stdlib.scheduling import resize_dim, simplify

__all__ = [
    "blur",
    "blur_kernel",
    "blur_sliding_window",
    "blur_tiled",
    "blur_tiled_recompute",
    "blur_tiled_sliding_window",
    "unsharp",
    "unsharp_rows",
    "unsharp_tiled",
    "unsharp_kernel",
    "SCHEDULES",
]


# --------------------------------------------------------------------------- #
# Naive kernels


@proc
def blur(W: size, H: size, inp: f32[H + 2, W + 2], out: f32[H, W]):
    blur_x: f32[H + 2, W]
    for y in seq(0, H + 2):
        for x in seq(0, W):
            blur_x[y, x] = (inp[y, x] + inp[y, x + 1] + inp[y, x + 2]) / 3.0
    for y in seq(0, H):
        for x in seq(0, W):
            out[y, x] = (blur_x[y, x] + blur_x[y + 1, x] + blur_x[y + 2, x]) / 3.0


@proc
def unsharp(W: size, H: size, inp: f32[H + 4, W + 4], out: f32[H, W]):
    blur_y: f32[H, W + 4]
    for y in seq(0, H):
        for x in seq(0, W + 4):
            blur_y[y, x] = (
                inp[y, x]
                + 4.0 * inp[y + 1, x]
                + 6.0 * inp[y + 2, x]
                + 4.0 * inp[y + 3, x]
                + inp[y + 4, x]
            ) / 16.0
    blur_x: f32[H, W]
    for y in seq(0, H):
        for x in seq(0, W):
            blur_x[y, x] = (
                blur_y[y, x]
                + 4.0 * blur_y[y, x + 1]
                + 6.0 * blur_y[y, x + 2]
                + 4.0 * blur_y[y, x + 3]
                + blur_y[y, x + 4]
            ) / 16.0
    for y in seq(0, H):
        for x in seq(0, W):
            out[y, x] = 2.0 * inp[y + 2, x + 2] - blur_x[y, x]


def _whole_tiles(p, tile_y, tile_x):
    """`p` asserting that the image is made of whole `tile_y` x `tile_x`
    tiles."""
    return p.add_assertion(f"H % {tile_y} == 0").add_assertion(f"W % {tile_x} == 0")


def blur_kernel(tile_y, tile_x):
    """The naive blur, asserting whole `tile_y` x `tile_x` tiles."""
    return _whole_tiles(blur, tile_y, tile_x)


def unsharp_kernel(tile_y, tile_x):
    """The naive unsharp mask, asserting whole `tile_y` x `tile_x` tiles."""
    return _whole_tiles(unsharp, tile_y, tile_x)


# --------------------------------------------------------------------------- #
# Schedules


def blur_sliding_window(p=blur):
    """`blur_x.store_root().compute_at(out, y)` with storage folding: one new
    row of blur_x per output row (two rows before the loop), kept in a
    circular buffer of 3 rows. Any image size."""
    p = halide_compute_at(p, "blur_x", "out", "y", with_prologue=True)
    p = resize_dim(p, p.find("blur_x: _"), 0, 3, 0, fold=True)
    return simplify(p)


def blur_tiled(tile_y=8, tile_x=32, p=None):
    """`out.tile(x, y, xi, yi, tile_x, tile_y).parallel(y);
    blur_x.compute_at(out, x)`: each tile computes the `tile_y + 2` rows of
    blur_x it reads (recomputing the 2 rows shared with the tile above) in
    a `[tile_y + 2, tile_x]` buffer of its own."""
    p = blur_kernel(tile_y, tile_x) if p is None else p
    p = halide_tile(p, "out", "y", "x", "yi", "xi", tile_y, tile_x)
    p = halide_compute_and_store_at_same(p, "blur_x", "out", "x")
    return halide_parallel(p, "y")


def blur_tiled_recompute(tile_y=8, tile_x=32, p=None):
    """`out.tile(x, y, xi, yi, tile_x, tile_y); blur_x.store_root()
    .compute_at(out, x)` without sliding: each tile computes the
    `tile_y + 2` rows of blur_x it reads into the full-size buffer."""
    p = blur_kernel(tile_y, tile_x) if p is None else p
    p = halide_tile(p, "out", "y", "x", "yi", "xi", tile_y, tile_x)
    return halide_compute_at(p, "blur_x", "out", "x", with_prologue=False)


def blur_tiled_sliding_window(tile_y=8, tile_x=32, p=None):
    """`out.tile(...).parallel(y); blur_x.store_at(out, x).compute_at(out,
    yi)` with storage folding: within each tile, a sliding window over the
    rows in a circular `[3, tile_x]` buffer."""
    p = blur_kernel(tile_y, tile_x) if p is None else p
    p = halide_tile(p, "out", "y", "x", "yi", "xi", tile_y, tile_x)
    p = halide_compute_and_store_at(p, "blur_x", "out", "yi", "x")
    p = resize_dim(p, p.find("blur_x: _"), 0, 3, 0, fold=True)
    return halide_parallel(simplify(p), "y")


def unsharp_rows(p=unsharp):
    """Halide's unsharp schedule: blur_x inlined into the output, blur_y
    computed per output row (`blur_y.compute_at(output, y)`) in a one-row
    buffer, rows in parallel. Any image size."""
    p = halide_fully_inline(p, "blur_x", "out")
    p = halide_compute_and_store_at_same(p, "blur_y", "out", "y")
    return halide_parallel(p, "y")


def unsharp_tiled(tile_y=8, tile_x=32, p=None):
    """blur_x inlined; the output tiled; blur_y computed per tile (with the
    4 columns shared with the next tile recomputed) and stored per tile."""
    p = unsharp_kernel(tile_y, tile_x) if p is None else p
    p = halide_fully_inline(p, "blur_x", "out")
    p = halide_tile(p, "out", "y", "x", "yi", "xi", tile_y, tile_x)
    p = halide_compute_at(p, "blur_y", "out", "x", with_prologue=False)
    return halide_parallel(halide_store_at(p, "blur_y", "out", "x"), "y")


# name -> (naive kernel factory, schedule): for the benchmark runner
SCHEDULES = {
    "blur_sliding_window": (lambda: blur, blur_sliding_window),
    "blur_tiled_recompute": (lambda: blur_kernel(8, 32), blur_tiled_recompute),
    "unsharp_rows": (lambda: unsharp, unsharp_rows),
    "blur_tiled": (lambda: blur_kernel(8, 32), blur_tiled),
    "blur_tiled_sliding_window": (
        lambda: blur_kernel(8, 32),
        blur_tiled_sliding_window,
    ),
    "unsharp_tiled": (lambda: unsharp_kernel(8, 32), unsharp_tiled),
}
