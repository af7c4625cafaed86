"""swap: x <-> y."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import kernel


@proc
def swap(n: size, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        t: R
        t = x[i]
        x[i] = y[i]
        y[i] = t


KERNEL = kernel(swap, schedule=streamed())
