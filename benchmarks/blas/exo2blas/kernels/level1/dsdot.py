"""dsdot: the inner product of f32 vectors, accumulated and returned in
f64."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import kernel


@proc
def dsdot(n: size, x: [f32][n], y: [f32][n], result: f64):
    result = 0.0
    for i in seq(0, n):
        xd: f64
        yd: f64
        xd = x[i]
        yd = y[i]
        result += xd * yd


KERNEL = kernel(dsdot, precisions=(None,), name="dsdot", schedule=streamed(prec="f64"))
