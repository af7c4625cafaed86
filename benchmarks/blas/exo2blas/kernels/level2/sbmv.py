"""sbmv: y <- alpha A x + y for a symmetric band matrix with `k`
off-diagonals, of which only the `upper` (or lower) band is stored, in
CBLAS row-major band storage: upper row i holds A(i, j) at column j - i,
lower row i at column k + j - i (the C layer applies beta to y first)."""

from __future__ import annotations

from exo2 import proc

from ...sched import Uplo, by_band, by_letter, kernel


@proc
def sbmv(
    n: size,
    k: index,
    upper: bool,
    alpha: R,
    A: [R][n, k + 1],
    x: [R][n],
    y: [R][n],
):
    assert k >= 0
    for i in seq(0, n):
        acc: R
        acc = 0.0
        if upper:
            for d in seq(0, k + 1):
                if i + d < n:
                    acc += A[i, d] * x[i + d]
            for d in seq(1, k + 1):
                if i - d >= 0:
                    acc += A[i - d, d] * x[i - d]
        else:
            for d in seq(0, k + 1):
                if i - k + d >= 0:
                    acc += A[i, d] * x[i - k + d]
            for d in seq(1, k + 1):
                if i + d < n:
                    acc += A[i + d, k - d] * x[i + d]
        y[i] += alpha * acc


# the stored half's row is vectorized where it lies inside the matrix; the
# other half walks a diagonal of the storage and stays scalar
KERNEL = kernel(
    sbmv,
    axes=[Uplo()],
    schedule=by_letter(
        "upper", u=by_band(rows=("0", "n - k")), l=by_band(rows=("k", "n"))
    ),
)
