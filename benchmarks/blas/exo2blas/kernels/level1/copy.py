"""copy: y <- x. Its `nontemporal` case stores y's whole vectors past the
caches, for copies larger than they are (the C layer chooses it by size:
benchmarks/blas/capi/level1.inc)."""

from __future__ import annotations

from exo2 import proc

from ...sched import STRIDES, Case, kernel, stream


@proc
def copy(n: size, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        y[i] = x[i]


NONTEMPORAL = Case("nontemporal")


def _schedule(proc, v):
    return stream(
        proc, "i", v.machine, v.prec, nontemporal=v.case == NONTEMPORAL.suffix
    )


KERNEL = kernel(copy, schedule=_schedule, cases=STRIDES + (NONTEMPORAL,))
