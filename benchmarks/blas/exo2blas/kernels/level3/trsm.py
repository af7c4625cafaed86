"""trsm: solves op(A) X = alpha B (Left) or X op(A) = alpha B (Right) for
triangular A, X overwriting B, by substitution over the rows of B (upper:
backwards, row `m - 1 - ii`; lower: forwards). Variants derive as in trmm
(benchmarks/blas/exo2blas/kernels/level3/trmm.py) and inherit the order."""

from __future__ import annotations

from exo2 import proc

from ...variants import UNIT, Diag, Side, Trans, Uplo, kernel


@proc
def trsm(
    m: size, n: size, upper: bool, unit: bool, alpha: R, A: [R][m, m], B: [R][m, n]
):
    if upper:
        for ii in seq(0, m):
            for j in seq(0, n):
                acc: R
                acc = alpha * B[m - 1 - ii, j]
                for p in seq(m - ii, m):
                    acc += -A[m - 1 - ii, p] * B[p, j]
                if unit:
                    B[m - 1 - ii, j] = acc
                else:
                    B[m - 1 - ii, j] = acc / A[m - 1 - ii, m - 1 - ii]
    else:
        for i in seq(0, m):
            for j in seq(0, n):
                acc: R
                acc = alpha * B[i, j]
                for p in seq(0, i):
                    acc += -A[i, p] * B[p, j]
                if unit:
                    B[i, j] = acc
                else:
                    B[i, j] = acc / A[i, i]


KERNEL = kernel(
    trsm,
    axes=[
        Side("B", flips="trans_a"),
        Uplo(),
        Trans("A", key="trans_a", flips="upper"),
        Diag(),
    ],
    cases=UNIT,
)
