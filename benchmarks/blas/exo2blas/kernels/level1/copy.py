"""copy: y <- x. Its `nontemporal` case stores y's whole vectors past the
caches, for copies larger than they are, and its `block` case is one
`memcpy`, for copies larger than the L1 cache within them (the C layer
chooses by size, and memcpy only where y does not start a few bytes after
x modulo a page: benchmarks/blas/capi/level1.inc). Fewer elements than a
vector are copied one by one (`short="vector"`): a call of 4 to 7 elements
of f64 through a 256-bit vector and scalars took 4.9-5.2 ns, one by one
3.9-4.1 ns, and scopy of 16 elements 4.7 ns, 3.8 ns with one 512-bit vector
(AVX-512 on the AMD EPYC Zen 4 machine); copy writes nothing it reads, so
no vector load waits on the store before it as in the in-place updates."""

from __future__ import annotations

from exo2 import proc

from ...sched import streamed
from ...variants import STRIDES, Case, kernel


@proc
def copy(n: size, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        y[i] = x[i]


KERNEL = kernel(
    copy,
    schedule=streamed(
        short="vector", nontemporal_case="nontemporal", block_case="block"
    ),
    cases=STRIDES + (Case("nontemporal"), Case("block")),
)
