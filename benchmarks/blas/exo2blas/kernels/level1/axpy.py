"""axpy: y <- alpha x + y."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import STRIDES, Case, kernel


@proc
def axpy(n: size, alpha: R, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


# The `narrow` case streams in AVX2's vectors under AVX-512, as dot's does:
# the C layer calls it past the caches on Zen 4 (capi/level1.inc).
KERNEL = kernel(
    axpy, schedule=streamed(), cases=STRIDES + (Case("narrow", narrowed=True),)
)
