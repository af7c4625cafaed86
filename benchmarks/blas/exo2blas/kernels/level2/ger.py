"""ger: the rank-1 update A <- alpha x y^T + A. Each row scales y by
alpha x[i] once (a scalar, as syr does), the same product `(alpha x[i])
y[j]` that `alpha * x[i] * y[j]` rounds: in the vectorized pass the
product would be recomputed for every vector, alpha and x[i] loaded again
after every store into the row (C cannot tell that A does not alias
them)."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_case, by_rows, by_skinny, on_narrower
from ...variants import STRIDES, Case, kernel


@proc
def ger(m: size, n: size, alpha: R, x: [R][m], y: [R][n], A: [R][m, n]):
    for i in seq(0, m):
        xi: R
        xi = alpha * x[i]
        for j in seq(0, n):
            A[i, j] += xi * y[j]


# a `skinny` case too, for short rows (n at most the skinny threshold): y
# loaded once into registers and kept across the rows; and a `large` case,
# one row at a time in the narrower vectors (AVX2's on AVX-512), which the C
# layer calls for a matrix past the caches whose rows lie at most 8 KiB
# apart, 16 KiB on Zen 5 (`ger_large` in capi/level2.inc): A read as one
# stream from row to row, where four jammed rows are four streams started
# again every four rows (docs/blas-library.md)
KERNEL = kernel(
    ger,
    schedule=by_case(
        "skinny",
        by_skinny(),
        by_case("large", on_narrower(by_rows(r=1, interleave=4)), by_rows()),
    ),
    cases=STRIDES + (Case("skinny"), Case("large")),
)
