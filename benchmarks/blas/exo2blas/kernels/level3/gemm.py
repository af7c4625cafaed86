"""gemm: C <- alpha op(A) op(B) + beta C. The beta case (0: C is written,
never read; 1: accumulated; 2: general) is a parameter fixed per generated
proc, so alpha and beta are fused into the one pass over C."""

from __future__ import annotations

from exo2 import proc

from ...variants import Trans, beta_cases, kernel


@proc
def gemm(
    m: size,
    n: size,
    k: size,
    beta_case: index,
    alpha: R,
    beta: R,
    A: [R][m, k],
    B: [R][k, n],
    C: [R][m, n],
):
    for i in seq(0, m):
        for j in seq(0, n):
            acc: R
            acc = 0.0
            for p in seq(0, k):
                acc += A[i, p] * B[p, j]
            if beta_case == 0:
                C[i, j] = alpha * acc
            elif beta_case == 1:
                C[i, j] += alpha * acc
            else:
                C[i, j] = alpha * acc + beta * C[i, j]


KERNEL = kernel(
    gemm,
    axes=[Trans("A", key="trans_a"), Trans("B", key="trans_b")],
    cases=beta_cases(),
)
