"""axpy: y <- alpha x + y."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import kernel


@proc
def axpy(n: size, alpha: R, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


KERNEL = kernel(axpy, schedule=streamed())
