"""trmv: x <- op(A) x for triangular A (`upper` or lower, `unit` diagonal
or not), in place: rows are visited in the order that reads only entries
of x not yet overwritten (upper: ascending; lower: descending, row
`n - 1 - ii`). Trans is the transposed opposite triangle, which inherits
that order."""

from __future__ import annotations

from exo2 import proc

from ...sched import Diag, Trans, Uplo, by_triangle, kernel


@proc
def trmv(n: size, upper: bool, unit: bool, A: [R][n, n], x: [R][n]):
    if upper:
        for i in seq(0, n):
            acc: R
            if unit:
                acc = x[i]
            else:
                acc = A[i, i] * x[i]
            for j in seq(i + 1, n):
                acc += A[i, j] * x[j]
            x[i] = acc
    else:
        for ii in seq(0, n):
            acc: R
            if unit:
                acc = x[n - 1 - ii]
            else:
                acc = A[n - 1 - ii, n - 1 - ii] * x[n - 1 - ii]
            for j in seq(0, n - 1 - ii):
                acc += A[n - 1 - ii, j] * x[j]
            x[n - 1 - ii] = acc


KERNEL = kernel(
    trmv, axes=[Uplo(), Trans("A", flips="upper"), Diag()], schedule=by_triangle()
)
