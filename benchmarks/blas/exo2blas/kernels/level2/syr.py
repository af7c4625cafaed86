"""syr: the symmetric rank-1 update A <- alpha x x^T + A, on the `upper`
(or lower) triangle only. Each row scales x by alpha x[i] once (a scalar,
as the reference BLAS does), the same product `(alpha x[i]) x[j]` that
`alpha * x[i] * x[j]` rounds."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_triangle
from ...variants import Uplo, kernel


@proc
def syr(n: size, upper: bool, alpha: R, x: [R][n], A: [R][n, n]):
    for i in seq(0, n):
        xi: R
        xi = alpha * x[i]
        if upper:
            for j in seq(i, n):
                A[i, j] += xi * x[j]
        else:
            for j in seq(0, i + 1):
                A[i, j] += xi * x[j]


KERNEL = kernel(syr, axes=[Uplo()], schedule=by_triangle(r=1, masked_updates=True))
