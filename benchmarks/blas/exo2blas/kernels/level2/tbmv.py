"""tbmv: x <- op(A) x for a triangular band matrix with `k` off-diagonals
(`upper` or lower, `trans`, `unit` diagonal or not), in CBLAS row-major
band storage (upper row i holds A(i, j) at column j - i, lower row i at
column k + j - i). In place: each case visits x in the order that reads
only entries not yet overwritten (ascending i, or descending as
`n - 1 - ii`); a NoTrans row sums its band in the order of the storage
row, columns ascending (vectorizable). Trans reads A^T along the rows of
A too: each row i scales `x[i]` and adds it, times the row's band, into
the entries of x that still wait for it (x[j] += A(i, j) x[i]): upper
backwards (j > i), lower forwards (j < i), as trmv's Trans variants
(benchmarks/blas/exo2blas/kernels/level2/trmv.py); column i's band would
walk a diagonal of the storage, with no unit stride. Band storage does not
transpose into band storage, so `trans` is a flag of the source with both
branches.

`tbmv_diagonals`, the helper `{p}tbmv_diagonals` that the C layer calls for
Trans with a short band, computes the same sums in the same order the
other way round: each x[j] once, its terms read along a diagonal of the
storage (upper: A(j - d, j) at row j - d, column d; lower: A(j + d, j) at
row j + d, column k - d), x visited in the order that reads only entries
not yet overwritten. The rows' form stores each x[j] k + 1 times, every
row loading what the row before just stored; this one keeps the sum in
a register (docs/blas-library.md)."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_band, by_diagonals, per_letter
from ...variants import Case, Diag, Flag, Uplo, kernel


@proc
def tbmv(
    n: size, k: index, upper: bool, trans: bool, unit: bool, A: [R][n, k + 1], x: [R][n]
):
    assert k >= 0
    if upper:
        if trans:
            for ii in seq(0, n):
                xi: R
                xi = x[n - 1 - ii]
                if unit:
                    pass
                else:
                    x[n - 1 - ii] = A[n - 1 - ii, 0] * xi
                for d in seq(1, k + 1):
                    if n - 1 - ii + d < n:
                        x[n - 1 - ii + d] += A[n - 1 - ii, d] * xi
        else:
            for i in seq(0, n):
                acc: R
                if unit:
                    acc = x[i]
                else:
                    acc = A[i, 0] * x[i]
                for d in seq(1, k + 1):
                    if i + d < n:
                        acc += A[i, d] * x[i + d]
                x[i] = acc
    else:
        if trans:
            for i in seq(0, n):
                xi: R
                xi = x[i]
                if unit:
                    pass
                else:
                    x[i] = A[i, k] * xi
                for d in seq(0, k):
                    if i - k + d >= 0:
                        x[i - k + d] += A[i, d] * xi
        else:
            for ii in seq(0, n):
                acc: R
                if unit:
                    acc = x[n - 1 - ii]
                else:
                    acc = A[n - 1 - ii, k] * x[n - 1 - ii]
                for d in seq(0, k):
                    if n - 1 - ii - k + d >= 0:
                        acc += A[n - 1 - ii, d] * x[n - 1 - ii - k + d]
                x[n - 1 - ii] = acc


@proc
def tbmv_diagonals(
    n: size, k: index, upper: bool, unit: bool, A: [R][n, k + 1], x: [R][n]
):
    assert k >= 0
    if upper:
        for jj in seq(0, n):
            acc: R
            if unit:
                acc = x[n - 1 - jj]
            else:
                acc = A[n - 1 - jj, 0] * x[n - 1 - jj]
            for d in seq(1, k + 1):
                if d < n - jj:
                    acc += A[n - 1 - jj - d, d] * x[n - 1 - jj - d]
            x[n - 1 - jj] = acc
    else:
        for j in seq(0, n):
            acc: R
            if unit:
                acc = x[j]
            else:
                acc = A[j, k] * x[j]
            for d in seq(1, k + 1):
                if j + d < n:
                    acc += A[j + d, k - d] * x[j + d]
            x[j] = acc


# every case reads the rows of the storage forwards: vectorized in the
# rows (of its loop) whose band lies inside the matrix (docs/blas-library.md);
# Trans rows unjammed: they update windows of x one element apart, and a
# jammed row's loads would wait on the stores of the row beside it
KERNEL = kernel(
    tbmv,
    axes=[Uplo(), Flag("trans", ("t", "n")), Diag()],
    schedule=by_band(r=per_letter("trans", n=4, t=1)),
    # Trans with a short band (EXO2BLAS_{S,D}TBMV_DIAGONALS_MAX_K in
    # capi/level2.inc): four entries of x summed side by side; unit strides
    # only
    helpers={
        "diagonals": kernel(
            tbmv_diagonals,
            axes=[Uplo(), Diag()],
            schedule=by_diagonals(rows=("0", "n - k")),
            cases=(Case("stride_1"),),
        )
    },
)
