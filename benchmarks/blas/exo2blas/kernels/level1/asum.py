"""asum: the sum of absolute values, sum |x_i|. `fabs` clears the sign
bit, one instruction per vector (an AND), where `select(0.0, x, x, -x)` is
a negation and a max (benchmarks/blas/exo2blas/externs.py)."""

from __future__ import annotations

from exo2 import proc

from ...externs import fabs
from ...sched import streamed
from ...variants import kernel


@proc
def asum(n: size, x: [R][n], result: R):
    result = 0.0
    for i in seq(0, n):
        result += fabs(x[i])


KERNEL = kernel(asum, schedule=streamed())
