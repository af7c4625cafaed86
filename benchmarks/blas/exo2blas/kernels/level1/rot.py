"""rot: the plane rotation (x, y) <- (c x + s y, c y - s x)."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import kernel


@proc
def rot(n: size, c: R, s: R, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        w: R
        z: R
        w = x[i]
        z = y[i]
        x[i] = c * w + s * z
        y[i] = c * z - s * w


KERNEL = kernel(rot, schedule=streamed())
