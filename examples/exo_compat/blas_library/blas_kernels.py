"""Level-1 and level-2 BLAS kernels scheduled for AVX2 by the shared library
blas_sched.py (the way ExoBLAS's kernels call its scheduling library).

Written against Exo's API only: with `exo` in place of `exo2` in the imports
it runs on Exo 1.0 unchanged; the differential run compares both compilers
at every step of `schedule_blas`.
"""

from __future__ import annotations

import blas_sched as lib
from exo2 import proc
from exo2.stdlib.scheduling import rename


@proc
def saxpy(n: size, alpha: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


@proc
def sscal(n: size, alpha: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]


@proc
def sdot(n: size, x: f32[n], y: f32[n], result: f32):
    for i in seq(0, n):
        result += x[i] * y[i]


@proc
def sgemv_n(m: size, n: size, A: f32[m, n], x: f32[n], y: f32[m]):
    for i in seq(0, m):
        for j in seq(0, n):
            y[i] += A[i, j] * x[j]


def schedule_axpy(machine=lib.avx2):
    p = rename(saxpy, f"saxpy_{machine.name}")
    return lib.optimize_level_1(p, "i", "f32", machine, interleave_factor=2)


def schedule_scal(machine=lib.avx2):
    p = rename(sscal, f"sscal_{machine.name}")
    return lib.vectorize_map_by_primitives(p, "i", "f32", machine)


def schedule_dot(machine=lib.avx2):
    p = rename(sdot, f"sdot_{machine.name}")
    return lib.optimize_level_1(p, "i", "f32", machine)


def schedule_gemv(machine=lib.avx2):
    p = rename(sgemv_n, f"sgemv_n_{machine.name}")
    return lib.optimize_level_2_rows(p, "i", "f32", machine, rows=4)


def schedule_blas():
    return [schedule_axpy(), schedule_scal(), schedule_dot(), schedule_gemv()]


if __name__ == "__main__":
    for p in schedule_blas():
        print(p)
