"""syr: the symmetric rank-1 update A <- alpha x x^T + A, on the `upper`
(or lower) triangle only. Each row scales x by alpha x[i] once (a scalar,
as the reference BLAS does), the same product `(alpha x[i]) x[j]` that
`alpha * x[i] * x[j]` rounds."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_case, by_rows, by_triangle, on_narrower
from ...variants import STRIDES, Case, Uplo, kernel


@proc
def syr(n: size, upper: bool, alpha: R, x: [R][n], A: [R][n, n]):
    for i in seq(0, n):
        xi: R
        xi = alpha * x[i]
        if upper:
            for j in seq(i, n):
                A[i, j] += xi * x[j]
        else:
            for j in seq(0, i + 1):
                A[i, j] += xi * x[j]


# a `large` case as ger's: one row at a time in the narrower vectors (AVX2's
# on AVX-512), four side by side, which the C layer calls for a triangle
# past the caches whose rows lie close together (`syr_large` in
# capi/level2.inc); within the caches one masked vector per row and whole
# vectors aligned to the row's end run faster (docs/blas-library.md)
KERNEL = kernel(
    syr,
    axes=[Uplo()],
    schedule=by_case(
        "large",
        on_narrower(by_rows(r=1, interleave=4)),
        by_triangle(r=1, masked_updates=True),
    ),
    cases=STRIDES + (Case("large"),),
)
