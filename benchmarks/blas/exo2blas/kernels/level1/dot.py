"""dot: the inner product x . y."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import kernel


@proc
def dot(n: size, x: [R][n], y: [R][n], result: R):
    result = 0.0
    for i in seq(0, n):
        result += x[i] * y[i]


KERNEL = kernel(dot, schedule=streamed())
