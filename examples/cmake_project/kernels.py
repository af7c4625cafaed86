"""Kernels compiled by add_exo2_library into libkernels.a: plain C ones,
one with a `par` loop (OpenMP threads), and an AVX2 one, for which the
helper passes -mavx2 -mfma."""

from __future__ import annotations

from exo2 import proc
from exo2.API_scheduling import rename
from exo2.platforms.x86 import (
    AVX2,
    mm256_broadcast_ss_scalar,
    mm256_loadu_ps,
    mm256_mul_ps,
    mm256_storeu_ps,
)
from exo2.stdlib.stdlib import vectorize

__all__ = ["scale", "dot", "fill_rows", "scale_avx2"]


@proc
def scale(n: size, alpha: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]


@proc
def dot(n: size, x: f32[n], y: f32[n], result: f32):
    result = 0.0
    for i in seq(0, n):
        result += x[i] * y[i]


@proc
def fill_rows(m: size, n: size, A: f32[m, n]):
    for i in par(0, m):
        for j in seq(0, n):
            A[i, j] = 1.0


_AVX2 = [mm256_loadu_ps, mm256_storeu_ps, mm256_broadcast_ss_scalar, mm256_mul_ps]
scale_avx2 = rename(
    vectorize(scale, scale.find_loop("i"), 8, "f32", AVX2, _AVX2, tail="cut"),
    "scale_avx2",
)
