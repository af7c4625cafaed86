"""syr2: the symmetric rank-2 update A <- alpha (x y^T + y x^T) + A, on the
`upper` (or lower) triangle only. Each row scales y by alpha x[i] and x by
alpha y[i] (scalars, as the reference BLAS does), the same products that
`alpha * x[i] * y[j] + alpha * y[i] * x[j]` rounds."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_triangle
from ...variants import Uplo, kernel


@proc
def syr2(n: size, upper: bool, alpha: R, x: [R][n], y: [R][n], A: [R][n, n]):
    for i in seq(0, n):
        xi: R
        xi = alpha * x[i]
        yi: R
        yi = alpha * y[i]
        if upper:
            for j in seq(i, n):
                A[i, j] += xi * y[j] + yi * x[j]
        else:
            for j in seq(0, i + 1):
                A[i, j] += xi * y[j] + yi * x[j]


KERNEL = kernel(syr2, axes=[Uplo()], schedule=by_triangle(r=1, masked_updates=True))
