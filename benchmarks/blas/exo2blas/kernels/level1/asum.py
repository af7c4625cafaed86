"""asum: the sum of absolute values, sum |x_i|."""

from __future__ import annotations

from exo2 import proc

from ...externs import select
from ...sched import streamed
from ...variants import kernel


@proc
def asum(n: size, x: [R][n], result: R):
    result = 0.0
    for i in seq(0, n):
        result += select(0.0, x[i], x[i], -x[i])


KERNEL = kernel(asum, schedule=streamed())
