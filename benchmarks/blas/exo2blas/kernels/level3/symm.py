"""symm: C <- alpha A B + beta C (Left) or alpha B A + beta C (Right) for
symmetric A, of which only the `upper` (or lower) triangle is read. Right
is Left with B and C transposed (C^T = alpha A B^T + beta C^T): its `m` is
A's order, as in Left. Beta cases as in gemm."""

from __future__ import annotations

from exo2 import proc

from ...variants import Side, Uplo, beta_cases, kernel


@proc
def symm(
    m: size,
    n: size,
    upper: bool,
    beta_case: index,
    alpha: R,
    beta: R,
    A: [R][m, m],
    B: [R][m, n],
    C: [R][m, n],
):
    for i in seq(0, m):
        for j in seq(0, n):
            acc: R
            acc = 0.0
            if upper:
                for p in seq(0, i):
                    acc += A[p, i] * B[p, j]
                for p in seq(i, m):
                    acc += A[i, p] * B[p, j]
            else:
                for p in seq(0, i + 1):
                    acc += A[i, p] * B[p, j]
                for p in seq(i + 1, m):
                    acc += A[p, i] * B[p, j]
            if beta_case == 0:
                C[i, j] = alpha * acc
            elif beta_case == 1:
                C[i, j] += alpha * acc
            else:
                C[i, j] = alpha * acc + beta * C[i, j]


KERNEL = kernel(symm, axes=[Side("B", "C"), Uplo()], cases=beta_cases())
