"""ger: the rank-1 update A <- alpha x y^T + A."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_rows, kernel


@proc
def ger(m: size, n: size, alpha: R, x: [R][m], y: [R][n], A: [R][m, n]):
    for i in seq(0, m):
        for j in seq(0, n):
            A[i, j] += alpha * x[i] * y[j]


KERNEL = kernel(ger, schedule=by_rows())
