"""trsv: solves op(A) x = b for triangular A, x overwriting b, by
substitution: upper backwards (row `n - 1 - ii`), lower forwards. Trans is
the transposed opposite triangle, which inherits that order."""

from __future__ import annotations

from exo2 import proc

from ...sched import Diag, Trans, Uplo, by_triangle, kernel


@proc
def trsv(n: size, upper: bool, unit: bool, A: [R][n, n], x: [R][n]):
    if upper:
        for ii in seq(0, n):
            acc: R
            acc = x[n - 1 - ii]
            for j in seq(n - ii, n):
                acc += -A[n - 1 - ii, j] * x[j]
            if unit:
                x[n - 1 - ii] = acc
            else:
                x[n - 1 - ii] = acc / A[n - 1 - ii, n - 1 - ii]
    else:
        for i in seq(0, n):
            acc: R
            acc = x[i]
            for j in seq(0, i):
                acc += -A[i, j] * x[j]
            if unit:
                x[i] = acc
            else:
                x[i] = acc / A[i, i]


KERNEL = kernel(
    trsv, axes=[Uplo(), Trans("A", flips="upper"), Diag()], schedule=by_triangle()
)
