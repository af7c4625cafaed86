"""syrk: C <- alpha A A^T + beta C (NoTrans) or alpha A^T A + beta C
(Trans, A transposed), on the `upper` (or lower) triangle of C only. Beta
cases as in gemm."""

from __future__ import annotations

from exo2 import proc

from ...variants import Trans, Uplo, beta_cases, kernel


@proc
def syrk(
    n: size,
    k: size,
    upper: bool,
    beta_case: index,
    alpha: R,
    beta: R,
    A: [R][n, k],
    C: [R][n, n],
):
    for i in seq(0, n):
        for j in seq(0, n):
            if upper:
                if j >= i:
                    acc: R
                    acc = 0.0
                    for p in seq(0, k):
                        acc += A[i, p] * A[j, p]
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
                        acc += A[i, p] * A[j, p]
                    if beta_case == 0:
                        C[i, j] = alpha * acc
                    elif beta_case == 1:
                        C[i, j] += alpha * acc
                    else:
                        C[i, j] = alpha * acc + beta * C[i, j]


KERNEL = kernel(syrk, axes=[Uplo(), Trans("A")], cases=beta_cases())
