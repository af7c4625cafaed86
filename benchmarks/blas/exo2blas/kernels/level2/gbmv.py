"""gbmv: y <- alpha op(A) x + y for an m x n band matrix with `kl`
sub-diagonals and `ku` super-diagonals, in CBLAS row-major band storage:
row i of A holds A(i, j) at column `kl + j - i` (the C layer applies beta
to y first).

Band storage does not transpose into band storage, and the lengths of x
and y depend on Trans, so `gbmv(trans)` emits the proc of each case: NoTrans
takes row i's band as a dot product with x; Trans reads A^T along the rows
of A too, each row i adding `alpha x[i]` times its band into the entries of
y it covers (y[i - kl + d] += A[i, d] alpha x[i]). Column j's band would walk
a diagonal of the storage, with no unit stride."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_band
from ...variants import Emit, kernel


def gbmv(trans):
    if trans:

        @proc
        def gbmv(
            m: size,
            n: size,
            kl: index,
            ku: index,
            alpha: R,
            A: [R][m, kl + ku + 1],
            x: [R][m],
            y: [R][n],
        ):
            assert kl >= 0
            assert ku >= 0
            for i in seq(0, m):
                xi: R
                xi = alpha * x[i]
                for d in seq(0, kl + ku + 1):
                    if i - kl + d >= 0 and i - kl + d < n:
                        y[i - kl + d] += A[i, d] * xi

    else:

        @proc
        def gbmv(
            m: size,
            n: size,
            kl: index,
            ku: index,
            alpha: R,
            A: [R][m, kl + ku + 1],
            x: [R][n],
            y: [R][m],
        ):
            assert kl >= 0
            assert ku >= 0
            for i in seq(0, m):
                acc: R
                acc = 0.0
                for d in seq(0, kl + ku + 1):
                    if i - kl + d >= 0 and i - kl + d < n:
                        acc += A[i, d] * x[i - kl + d]
                y[i] += alpha * acc

    return gbmv


# the rows kl <= i < n - ku hold their whole band, in both cases
KERNEL = kernel(
    gbmv,
    axes=[Emit("trans", ("t", "n"))],
    schedule=by_band(empty_from="n + kl", strides=(16,), min_vectors=0.5),
)
