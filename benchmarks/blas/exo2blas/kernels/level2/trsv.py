"""trsv: solves op(A) x = b for triangular A, x overwriting b, by
substitution. NoTrans: upper backwards (row `n - 1 - ii`), lower forwards,
each row a dot product with the solved part of x, subtracted from b[i]
once. Trans (`trsv(trans=True)`): A^T is read along the rows of A, each
row `i` solving `x[i]` and then updating the unsolved entries of x by it
(x[j] += A[i, j] (-x[i]), negated once per row): upper forwards (j > i),
lower backwards (j < i). The dot product down a column of A would read it
one cache line per element (50 times slower at n = 2048); a negation of
each product (`-A[i, j] * x[j]`) would cost every vector of the pass one
more instruction."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_triangle
from ...variants import STRIDES, Case, Diag, Emit, Uplo, kernel


def trsv(trans):
    if trans:

        @proc
        def trsv(n: size, upper: bool, unit: bool, A: [R][n, n], x: [R][n]):
            if upper:
                for i in seq(0, n):
                    if unit:
                        pass
                    else:
                        x[i] = x[i] / A[i, i]
                    xi: R
                    xi = -x[i]
                    for j in seq(i + 1, n):
                        x[j] += A[i, j] * xi
            else:
                for ii in seq(0, n):
                    if unit:
                        pass
                    else:
                        x[n - 1 - ii] = x[n - 1 - ii] / A[n - 1 - ii, n - 1 - ii]
                    xi: R
                    xi = -x[n - 1 - ii]
                    for j in seq(0, n - 1 - ii):
                        x[j] += A[n - 1 - ii, j] * xi

    else:

        @proc
        def trsv(n: size, upper: bool, unit: bool, A: [R][n, n], x: [R][n]):
            if upper:
                for ii in seq(0, n):
                    acc: R
                    acc = 0.0
                    for j in seq(n - ii, n):
                        acc += A[n - 1 - ii, j] * x[j]
                    if unit:
                        x[n - 1 - ii] = x[n - 1 - ii] - acc
                    else:
                        x[n - 1 - ii] = (x[n - 1 - ii] - acc) / A[
                            n - 1 - ii, n - 1 - ii
                        ]
            else:
                for i in seq(0, n):
                    acc: R
                    acc = 0.0
                    for j in seq(0, i):
                        acc += A[i, j] * x[j]
                    if unit:
                        x[i] = x[i] - acc
                    else:
                        x[i] = (x[i] - acc) / A[i, i]

    return trsv


KERNEL = kernel(
    trsv,
    axes=[Uplo(), Emit("trans", ("t", "n")), Diag()],
    # each panel on the side the effect check accepts; the `short` case as
    # trmv's (trmv.py)
    schedule=by_triangle(),
    cases=STRIDES + (Case("short", narrowed=True),),
)
