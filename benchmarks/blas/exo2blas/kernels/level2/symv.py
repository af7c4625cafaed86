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

from ...sched import by_case, by_triangle, on_narrower
from ...variants import STRIDES, Case, Uplo, kernel


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


# A matrix of rows of at most 2 KiB (the C layer's SYMV_SHORT_BYTES) runs
# the `short` case, on the narrower machine's vectors: on AVX-512 that is
# AVX2, whose 256-bit panels leave fewer scalars at their ends and whose
# sums reduce in fewer steps (AVX-512 on the AMD EPYC Zen 4 machine, AVX-512
# / AVX2 time: ssymv lower of 64 rows 398 / 284 ns, of 512 rows 12.6 / 11.4
# us, of 1024 rows 37.5 / 38.2 us; dsymv upper of 256 rows 5.6 / 5.3 us, of
# 512 rows 17.6 / 18.5 us). Larger ones keep AVX-512's vectors, with a
# narrower vector between each pass's scalars and its whole vectors
# (ssymv upper of 1040 rows: 43.2 -> 41.6 us).
#
# Each pass loads an element of A once for both its uses (the triangle
# schedule shares them): 1.1 to 1.3 times faster at 64 to 512 rows on the
# AMD EPYC Zen 4 machine. dsymv upper's short case was the exception until
# the library's levels were built with `-fira-region=all`: inlined into the
# C layer's routine, GCC's default register allocation spilled three of
# the pass's four vectors of A to the stack (benchmarks/blas/CMakeLists.txt,
# docs/blas-library.md).
KERNEL = kernel(
    symv,
    axes=[Uplo()],
    schedule=by_case("short", on_narrower(by_triangle()), by_triangle(narrower=True)),
    cases=STRIDES + (Case("short"),),
)
