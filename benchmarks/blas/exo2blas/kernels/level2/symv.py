"""symv: y <- alpha A x + y for symmetric A, of which only the `upper` (or
lower) triangle is read (the C layer applies beta to y first). Each stored
row `i` is read once and used twice, as the reference BLAS does: it adds
alpha x[i] times its off-diagonal part into the entries of y it mirrors
(an update along the row, y[j] += A[i, j] alpha x[i]) and sums its dot
product with x for y[i], so A is read along its rows only. Reading the
mirrored half of row i down column i instead (A[j, i] for j < i) reads a
cache line per element."""

from __future__ import annotations

from exo2 import proc

from ...sched import Uplo, by_triangle, kernel


@proc
def symv(n: size, upper: bool, alpha: R, A: [R][n, n], x: [R][n], y: [R][n]):
    for i in seq(0, n):
        xi: R
        xi = alpha * x[i]
        acc: R
        acc = 0.0
        if upper:
            for j in seq(i + 1, n):
                y[j] += A[i, j] * xi
                acc += A[i, j] * x[j]
        else:
            for j in seq(0, i):
                y[j] += A[i, j] * xi
                acc += A[i, j] * x[j]
        y[i] += xi * A[i, i] + alpha * acc


# a narrower vector takes up to half of what were scalars in each pass,
# where symv of 16 to 128 rows spent most of its time (ssymv upper, 32
# rows: 178 -> 155 ns, MKL 131; 64 rows: 411 -> 350 ns, MKL 322; AVX-512
# on the AMD EPYC Zen 4 machine); trmv, trsv and the bands measured no
# faster with it
KERNEL = kernel(symv, axes=[Uplo()], schedule=by_triangle(r=4, narrower=True))
