"""trmv: x <- op(A) x for triangular A (`upper` or lower, `unit` diagonal
or not), in place. NoTrans: rows are visited in the order that reads only
entries of x not yet overwritten (upper: ascending; lower: descending, row
`n - 1 - ii`), each row a dot product with x. Trans (`trmv(trans=True)`):
A^T is read along the rows of A, each row `i` scaling `x[i]` and adding
it, times the row, into the entries of x that still wait for it (x[j] +=
A[i, j] x[i]): upper backwards (j > i), lower forwards (j < i), so that
`x[i]` is still the input's when its row comes. The dot product down a
column of A would read it one cache line per element (50 times slower at
n = 2048)."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_triangle
from ...variants import STRIDES, Case, Diag, Emit, Uplo, kernel


def trmv(trans):
    if trans:

        @proc
        def trmv(n: size, upper: bool, unit: bool, A: [R][n, n], x: [R][n]):
            if upper:
                for ii in seq(0, n):
                    xi: R
                    xi = x[n - 1 - ii]
                    if unit:
                        pass
                    else:
                        x[n - 1 - ii] = A[n - 1 - ii, n - 1 - ii] * xi
                    for j in seq(n - ii, n):
                        x[j] += A[n - 1 - ii, j] * xi
            else:
                for i in seq(0, n):
                    xi: R
                    xi = x[i]
                    if unit:
                        pass
                    else:
                        x[i] = A[i, i] * xi
                    for j in seq(0, i):
                        x[j] += A[i, j] * xi

    else:

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

    return trmv


# The `short` case (`narrowed`) runs on the narrower machine's vectors
# (AVX2 under AVX-512, where the C layer calls it for rows of at most
# 1 KiB: benchmarks/blas/capi/level2.inc has the measurements).
KERNEL = kernel(
    trmv,
    axes=[Uplo(), Emit("trans", ("t", "n")), Diag()],
    schedule=by_triangle(),
    cases=STRIDES + (Case("short", narrowed=True),),
)
