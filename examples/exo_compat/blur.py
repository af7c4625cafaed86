"""A two-stage box blur scheduled the Halide way, written against Exo's API
only: it runs on Exo (with `exo` in the imports) and on exo2, and the
differential run (tests/conformance/differential.py) compares both.

The horizontal pass `blur_x` is computed per 32 x 64 tile of the output
(with the two rows of overlap recomputed) and stored in a tile-sized
buffer, as Exo's x86 blur app does.
"""

from __future__ import annotations

from exo2 import proc
from exo2.stdlib.halide_scheduling_ops import compute_at, store_at, tile
from exo2.stdlib.scheduling import rename, simplify

TY, TX = 32, 64


@proc
def blur(W: size, H: size, inp: f32[H + 2, W + 2], out: f32[H, W]):
    assert H % 32 == 0
    assert W % 64 == 0
    blur_x: f32[H + 2, W]
    for y in seq(0, H + 2):
        for x in seq(0, W):
            blur_x[y, x] = (inp[y, x] + inp[y, x + 1] + inp[y, x + 2]) / 3.0
    for y in seq(0, H):
        for x in seq(0, W):
            out[y, x] = (blur_x[y, x] + blur_x[y + 1, x] + blur_x[y + 2, x]) / 3.0


def schedule_blur(p=blur):
    p = tile(
        p, p.find_loop("y #1"), p.find_loop("x #1"), ["y", "yi"], ["x", "xi"], TY, TX
    )
    p = compute_at(p, p.find("blur_x = _"), p.find_loop("x #1"))
    p = store_at(p, p.find("blur_x : _"), p.find_loop("x"))
    return rename(simplify(p), "blur_tiled")
