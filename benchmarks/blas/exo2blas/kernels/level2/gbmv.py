"""gbmv: y <- alpha op(A) x + y for an m x n band matrix with `kl`
sub-diagonals and `ku` super-diagonals, in CBLAS row-major band storage:
row i of A holds A(i, j) at column `kl + j - i` (the C layer applies beta
to y first).

Band storage does not transpose into band storage, and the lengths of x
and y depend on Trans, so `gbmv(trans)` emits the proc of each case: NoTrans
takes row i's band, Trans column j's (rows `j + kl - d`)."""

from __future__ import annotations

from exo2 import proc

from ...sched import Emit, by_band, by_trans, kernel


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
            for j in seq(0, n):
                acc: R
                acc = 0.0
                for d in seq(0, kl + ku + 1):
                    if j + kl - d >= 0 and j + kl - d < m:
                        acc += A[j + kl - d, d] * x[j + kl - d]
                y[j] += alpha * acc

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


# NoTrans: the rows kl <= i < n - ku hold their whole band; Trans walks
# diagonals of the storage (no unit stride): naive
KERNEL = kernel(
    gbmv,
    axes=[Emit("trans", ("t", "n"))],
    schedule=by_trans(by_band(rows=("kl", "n - ku")), None),
)
