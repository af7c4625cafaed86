"""scal: x <- alpha x."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import kernel


@proc
def scal(n: size, alpha: R, x: [R][n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]


KERNEL = kernel(scal, schedule=streamed())
