"""nrm2: the Euclidean norm sqrt(sum x_i^2), without overflow or underflow.

The kernels return sums of squares; the C layer takes the square root
(benchmarks/blas/capi/level1.inc).

- `snrm2` accumulates the squares in f64: the square of any finite f32 is a
  normal f64, so no scaling is needed.
- `dnrm2` is Blue's algorithm, branch-free: each element adds its square to
  the medium sum, or its square scaled by an exact power of two to the
  small sum (|x| < TSML) or to the big sum (|x| > TBIG). NaN and Inf
  propagate into the medium and the big sum.
"""

from __future__ import annotations

from exo2 import proc

from ...externs import select
from ...sched import streamed
from ...variants import STRIDES, Case, kernel

# Blue's thresholds and scales for f64 (LAPACK's la_constants): squares of
# values in [TSML, TBIG] neither overflow nor underflow; SSML and SBIG bring
# the others into that range.
TSML = 2.0**-511
TBIG = 2.0**486
SSML = 2.0**537
SBIG = 2.0**-538


@proc
def snrm2(n: size, x: [f32][n], ssq: f64):
    ssq = 0.0
    for i in seq(0, n):
        xd: f64
        xd = x[i]
        ssq += xd * xd


@proc
def dnrm2(n: size, x: [f64][n], sums: f64[3]):
    small: f64
    medium: f64
    big: f64
    small = 0.0
    medium = 0.0
    big = 0.0
    for i in seq(0, n):
        a: f64
        a = select(0.0, x[i], x[i], -x[i])
        small += select(a, TSML, (x[i] * SSML) * (x[i] * SSML), 0.0)
        medium += select(a, TSML, 0.0, select(TBIG, a, 0.0, x[i] * x[i]))
        big += select(TBIG, a, (x[i] * SBIG) * (x[i] * SBIG), 0.0)
    sums[0] = small
    sums[1] = medium
    sums[2] = big


# The `narrow` case: as dsdot's (dsdot.py).
KERNEL = kernel(
    {"f32": snrm2, "f64": dnrm2},
    name="{p}nrm2",
    schedule=streamed(prec="f64"),
    cases=STRIDES + (Case("narrow", narrowed=True, only=(("prec", "f32"),)),),
)
