"""syr2k: C <- alpha (A B^T + B A^T) + beta C (NoTrans) or
alpha (A^T B + B^T A) + beta C (Trans, A and B transposed), on the `upper`
(or lower) triangle of C only. Beta cases as in gemm."""

from __future__ import annotations

from exo2 import proc

from ...variants import Trans, Uplo, beta_cases, kernel


@proc
def syr2k(
    n: size,
    k: size,
    upper: bool,
    beta_case: index,
    alpha: R,
    beta: R,
    A: [R][n, k],
    B: [R][n, k],
    C: [R][n, n],
):
    for i in seq(0, n):
        for j in seq(0, n):
            if upper:
                if j >= i:
                    acc: R
                    acc = 0.0
                    for p in seq(0, k):
                        acc += A[i, p] * B[j, p] + B[i, p] * A[j, p]
                    if beta_case == 0:
                        C[i, j] = alpha * acc
                    elif beta_case == 1:
                        C[i, j] += alpha * acc
                    else:
                        C[i, j] = alpha * acc + beta * C[i, j]
            else:
                if j <= i:
                    acc: R
                    acc = 0.0
                    for p in seq(0, k):
                        acc += A[i, p] * B[j, p] + B[i, p] * A[j, p]
                    if beta_case == 0:
                        C[i, j] = alpha * acc
                    elif beta_case == 1:
                        C[i, j] += alpha * acc
                    else:
                        C[i, j] = alpha * acc + beta * C[i, j]


KERNEL = kernel(syr2k, axes=[Uplo(), Trans("A", "B")], cases=beta_cases())
