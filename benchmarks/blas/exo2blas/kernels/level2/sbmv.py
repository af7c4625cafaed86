"""sbmv: y <- alpha A x + y for a symmetric band matrix with `k`
off-diagonals, of which only the `upper` (or lower) band is stored, in
CBLAS row-major band storage: upper row i holds A(i, j) at column j - i,
lower row i at column k + j - i (the C layer applies beta to y first).

Each stored row i is read once and used twice: as a dot product with x
for y[i] (the stored half of row i of A) and, scaled by `alpha x[i]`, added
into the entries of y its mirror image covers (the other half of column i,
y[j] += A(i, j) alpha x[i]). Reading that other half as rows of A would
walk a diagonal of the storage, with no unit stride."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_band
from ...variants import Uplo, kernel


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
        xi: R
        xi = alpha * x[i]
        if upper:
            for d in seq(0, k + 1):
                if i + d < n:
                    acc += A[i, d] * x[i + d]
            for d in seq(1, k + 1):
                if i + d < n:
                    y[i + d] += A[i, d] * xi
        else:
            for d in seq(0, k + 1):
                if i - k + d >= 0:
                    acc += A[i, d] * x[i - k + d]
            for d in seq(0, k):
                if i - k + d >= 0:
                    y[i - k + d] += A[i, d] * xi
        y[i] += alpha * acc


# both loops of a row are vectorized where its band lies inside the matrix;
# rows taken 16 apart along a band of at most 16, 128 apart along one of
# at most 128 within the L2 (`band`'s `strides`): a row's vector loads of y
# then never span the stores of the row just before (ssbmv_l with k = 64,
# n = 1024: 11.8 -> 7.9 us, MKL 8.3; AVX-512 on the AMD EPYC Zen 5 machine)
KERNEL = kernel(
    sbmv,
    axes=[Uplo()],
    schedule=by_band(min_vectors=0.75, strides=(16, 128)),
)
