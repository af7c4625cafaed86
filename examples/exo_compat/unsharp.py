"""An unsharp mask scheduled the way Exo's x86 unsharp app starts, written
against Exo's API only (the differential run compares both compilers).

The sharpening weight is bound to a one-element buffer written in every
iteration (`weight[0] = 1.5`), then fissioned out of the loop so that it is
written once before it. That is valid: every iteration writes the same
value, which nothing in the loop changes. exo2 does not prove that yet
(see tests/conformance/expected_differences.toml); Exo accepts it.
"""

from __future__ import annotations

from exo2 import proc
from exo2.stdlib.halide_scheduling_ops import compute_at
from exo2.stdlib.scheduling import autofission, bind_expr, lift_alloc, simplify


@proc
def unsharp(W: size, H: size, inp: f32[H + 2, W], out: f32[H, W]):
    blur_y: f32[H, W]
    for y in seq(0, H):
        for x in seq(0, W):
            blur_y[y, x] = (inp[y, x] + inp[y + 1, x] + inp[y + 2, x]) / 3.0
    for y in seq(0, H):
        for x in seq(0, W):
            out[y, x] = inp[y + 1, x] + 1.5 * (inp[y + 1, x] - blur_y[y, x])


def schedule_unsharp(p=unsharp):
    p = compute_at(p, p.find("blur_y = _"), p.find_loop("y #1"))
    p = bind_expr(p, p.find("1.5"), "weight")
    p = lift_alloc(p, "weight : _", n_lifts=2)
    # the constant, written once before the loops instead of per pixel
    p = autofission(p, p.find("weight = _").after(), n_lifts=2)
    return simplify(p)
