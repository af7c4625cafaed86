"""dsdot: the inner product of f32 vectors, accumulated and returned in
f64."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import STRIDES, Case, kernel


@proc
def dsdot(n: size, x: [f32][n], y: [f32][n], result: f64):
    result = 0.0
    for i in seq(0, n):
        xd: f64
        yd: f64
        xd = x[i]
        yd = y[i]
        result += xd * yd


# The `narrow` case (`narrowed`) widens in the narrower machine's vectors
# (AVX2 under AVX-512): the C layer calls it for short vectors, and always
# on CPUs that convert 512-bit vectors at half rate (Zen 4;
# benchmarks/blas/capi/level1_isa.inc has the measurements).
KERNEL = kernel(
    dsdot,
    precisions=(None,),
    name="dsdot",
    schedule=streamed(prec="f64"),
    cases=STRIDES + (Case("narrow", narrowed=True),),
)
