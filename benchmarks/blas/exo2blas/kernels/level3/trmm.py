"""trmm: B <- alpha op(A) B (Left) or alpha B op(A) (Right) for triangular
A (`upper` or lower, `unit` diagonal or not), in place: Left-NoTrans visits
rows of B in the order that reads only rows not yet overwritten (upper:
ascending; lower: descending, row `m - 1 - ii`). Left-Trans is the
transposed opposite triangle; Right-NoTrans is Left-Trans with B
transposed (B^T <- alpha op(A)^T B^T), Right-Trans is Left-NoTrans with B
transposed, both with the same triangle. Every variant inherits the safe
order. A Right variant's `m` is A's order, as in Left."""

from __future__ import annotations

from exo2 import proc

from ...variants import UNIT, Diag, Side, Trans, Uplo, kernel


@proc
def trmm(
    m: size, n: size, upper: bool, unit: bool, alpha: R, A: [R][m, m], B: [R][m, n]
):
    if upper:
        for i in seq(0, m):
            for j in seq(0, n):
                acc: R
                if unit:
                    acc = B[i, j]
                else:
                    acc = A[i, i] * B[i, j]
                for p in seq(i + 1, m):
                    acc += A[i, p] * B[p, j]
                B[i, j] = alpha * acc
    else:
        for ii in seq(0, m):
            for j in seq(0, n):
                acc: R
                if unit:
                    acc = B[m - 1 - ii, j]
                else:
                    acc = A[m - 1 - ii, m - 1 - ii] * B[m - 1 - ii, j]
                for p in seq(0, m - 1 - ii):
                    acc += A[m - 1 - ii, p] * B[p, j]
                B[m - 1 - ii, j] = alpha * acc


KERNEL = kernel(
    trmm,
    axes=[
        Side("B", flips="trans_a"),
        Uplo(),
        Trans("A", key="trans_a", flips="upper"),
        Diag(),
    ],
    cases=UNIT,
)
