"""rot: the plane rotation (x, y) <- (c x + s y, c y - s x)."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import STRIDES, Case, kernel


@proc
def rot(n: size, c: R, s: R, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        w: R
        z: R
        w = x[i]
        z = y[i]
        x[i] = c * w + s * z
        y[i] = c * z - s * w


# The `short` case (`narrowed`), on the narrower machine's vectors: the C
# layer calls it for vectors of 64 to 192 bytes, where 256-bit stores
# reach the next call's loads sooner (benchmarks/blas/capi/level1.inc).
KERNEL = kernel(
    rot, schedule=streamed(), cases=STRIDES + (Case("short", narrowed=True),)
)
