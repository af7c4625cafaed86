"""copy: y <- x."""

from __future__ import annotations

from exo2 import proc

from ...sched import kernel, streamed


@proc
def copy(n: size, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        y[i] = x[i]


KERNEL = kernel(copy, schedule=streamed())
