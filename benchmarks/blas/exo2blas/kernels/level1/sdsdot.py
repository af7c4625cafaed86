"""sdsdot: sb + x . y for f32 vectors, accumulated in f64 (starting from
sb) and rounded to f32 once."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import STRIDES, Case, kernel


@proc
def sdsdot(n: size, sb: f32, x: [f32][n], y: [f32][n], result: f32):
    acc: f64
    acc = sb
    for i in seq(0, n):
        xd: f64
        yd: f64
        xd = x[i]
        yd = y[i]
        acc += xd * yd
    result = acc


# The `narrow` case: as dsdot's (dsdot.py).
KERNEL = kernel(
    sdsdot,
    precisions=(None,),
    name="sdsdot",
    schedule=streamed(prec="f64"),
    cases=STRIDES + (Case("narrow", narrowed=True),),
)
