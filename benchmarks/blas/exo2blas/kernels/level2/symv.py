"""symv: y <- alpha A x + y for symmetric A, of which only the `upper` (or
lower) triangle is read (the C layer applies beta to y first)."""

from __future__ import annotations

from exo2 import proc

from ...sched import Uplo, by_triangle, kernel


@proc
def symv(n: size, upper: bool, alpha: R, A: [R][n, n], x: [R][n], y: [R][n]):
    for i in seq(0, n):
        acc: R
        acc = 0.0
        if upper:
            for j in seq(0, i):
                acc += A[j, i] * x[j]
            for j in seq(i, n):
                acc += A[i, j] * x[j]
        else:
            for j in seq(0, i + 1):
                acc += A[i, j] * x[j]
            for j in seq(i + 1, n):
                acc += A[j, i] * x[j]
        y[i] += alpha * acc


KERNEL = kernel(symv, axes=[Uplo()], schedule=by_triangle())
