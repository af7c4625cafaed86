"""gemv: y <- alpha op(A) x + y (the C layer applies beta to y first).
The Trans variant is the NoTrans one with A transposed: its `m` is the
length of y, as in NoTrans."""

from __future__ import annotations

from exo2 import proc

from ...sched import by_case, by_columns, by_rows, by_skinny, by_trans
from ...variants import STRIDES, Case, Trans, kernel


@proc
def gemv(m: size, n: size, alpha: R, A: [R][m, n], x: [R][n], y: [R][m]):
    for i in seq(0, m):
        acc: R
        acc = 0.0
        for j in seq(0, n):
            acc += A[i, j] * x[j]
        y[i] += alpha * acc


# a `skinny` case too, for a short dimension (at most the skinny threshold):
# NoTrans with short rows keeps x in registers across the rows, Trans with
# few outputs sums all of them in registers in one pass down A; and a
# `large` one, NoTrans past the caches (the C layer picks it): eight rows
# jammed, eight streams of A in flight, which read DRAM faster than four
# (dgemv of 2048 x 2048: 1.37 -> 1.29 ms, AVX-512 on the AMD EPYC Zen 4
# machine); within the caches four rows ending in one sum of their vectors
# win (docs/blas-library.md)
KERNEL = kernel(
    gemv,
    axes=[Trans("A")],
    schedule=by_case(
        "skinny",
        by_skinny(),
        by_case("large", by_rows(r=8), by_trans(by_rows(), by_columns())),
    ),
    cases=STRIDES + (Case("skinny"), Case("large", only=(("trans", "n"),))),
)
