"""tbsv: solves op(A) x = b for a triangular band matrix with `k`
off-diagonals, x overwriting b, by substitution in the order each case
needs (ascending i, or descending as `n - 1 - ii`), a NoTrans row's band
summed in the order of the storage row, columns ascending. Trans reads A^T
along the rows of A too: each row i solves x[i] and then updates the
unsolved entries of x its band covers (x[j] -= A(i, j) x[i]), upper
forwards, lower backwards, as trsv's Trans variants; storage as in tbmv
(benchmarks/blas/exo2blas/kernels/level2/tbmv.py)."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_band, on_narrower, per_letter
from ...variants import Diag, Flag, Uplo, kernel


@proc
def tbsv(
    n: size, k: index, upper: bool, trans: bool, unit: bool, A: [R][n, k + 1], x: [R][n]
):
    assert k >= 0
    if upper:
        if trans:
            for i in seq(0, n):
                xi: R
                if unit:
                    xi = x[i]
                else:
                    xi = x[i] / A[i, 0]
                    x[i] = xi
                for d in seq(1, k + 1):
                    if i + d < n:
                        x[i + d] += -A[i, d] * xi
        else:
            for ii in seq(0, n):
                acc: R
                acc = x[n - 1 - ii]
                for d in seq(1, k + 1):
                    if n - 1 - ii + d < n:
                        acc += -A[n - 1 - ii, d] * x[n - 1 - ii + d]
                if unit:
                    x[n - 1 - ii] = acc
                else:
                    x[n - 1 - ii] = acc / A[n - 1 - ii, 0]
    else:
        if trans:
            for ii in seq(0, n):
                xi: R
                if unit:
                    xi = x[n - 1 - ii]
                else:
                    xi = x[n - 1 - ii] / A[n - 1 - ii, k]
                    x[n - 1 - ii] = xi
                for d in seq(0, k):
                    if n - 1 - ii - k + d >= 0:
                        x[n - 1 - ii - k + d] += -A[n - 1 - ii, d] * xi
        else:
            for i in seq(0, n):
                acc: R
                acc = x[i]
                for d in seq(0, k):
                    if i - k + d >= 0:
                        acc += -A[i, d] * x[i - k + d]
                if unit:
                    x[i] = acc
                else:
                    x[i] = acc / A[i, k]


# every case reads the rows of the storage forwards: vectorized in the
# rows (of its loop) whose band lies inside the matrix (docs/blas-library.md);
# the chain from row to row runs through the band's first entry in the upper
# variants (the row before solved x[i + 1]), its last in the lower (x[i - 1]).
# On the narrower machine's vectors (AVX2 under AVX-512): its rows' scalar
# ends are shorter (docs/blas-library.md, tbsv)
KERNEL = kernel(
    tbsv,
    axes=[Uplo(), Flag("trans", ("t", "n")), Diag()],
    schedule=on_narrower(
        by_band(min_vectors=2, chain=per_letter("upper", u="first", l="last"))
    ),
)
