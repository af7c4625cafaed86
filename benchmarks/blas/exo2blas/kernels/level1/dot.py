"""dot: the inner product x . y."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import STRIDES, Case, kernel


@proc
def dot(n: size, x: [R][n], y: [R][n], result: R):
    result = 0.0
    for i in seq(0, n):
        result += x[i] * y[i]


# The `narrow` case (`narrowed`) streams in the narrower machine's vectors
# (AVX2 under AVX-512): the C layer calls it past the caches on CPUs that
# split 512-bit vectors in two (Zen 4; benchmarks/blas/capi/level1.inc has
# the measurements).
KERNEL = kernel(
    dot, schedule=streamed(), cases=STRIDES + (Case("narrow", narrowed=True),)
)
