"""iamax: the first index of the largest |x_i|, as two kernels whose
specification is already lane-blocked, so that no maximum is reassociated.

The C layer (benchmarks/blas/capi/level1.inc) cuts x into blocks of
BLOCK elements (the last one partial). `blockmax` computes per block the
maximum of |x| over each lane of elements `i mod lanes` (`lanes` = vector
width x interleave, fixed per machine when the proc is generated), each
lane scanned in index order by `m = select(m, a, a, m)` (strictly larger
wins, so ties keep the first). The C layer finds the first block holding
the global maximum; `locate` rescans that block and counts, per lane, the
elements before the lane's first element equal to the maximum (counts are
exact in R: BLOCK <= 2^24). The index is the block's offset plus the
smallest `count x lanes + lane` over the lanes holding the maximum.
NaN inputs are outside the contract.
"""

from __future__ import annotations

from exo2 import proc

from ...externs import select
from ...sched import by_lanes, kernel

BLOCK = 4096


def blockmax(lanes):
    @proc
    def iamax(n: size, x: [R][n], m: R[lanes]):
        assert n <= BLOCK
        for lane in seq(0, lanes):
            m[lane] = 0.0
        for i in seq(0, n):
            m[i % lanes] = select(
                m[i % lanes],
                select(0.0, x[i], x[i], -x[i]),
                select(0.0, x[i], x[i], -x[i]),
                m[i % lanes],
            )

    return iamax


def locate(lanes):
    @proc
    def iamax_locate(n: size, x: [R][n], mx: R, count: R[lanes], found: R[lanes]):
        assert n <= BLOCK
        for lane in seq(0, lanes):
            count[lane] = 0.0
            found[lane] = 0.0
        for i in seq(0, n):
            found[i % lanes] = select(
                select(0.0, x[i], x[i], -x[i]), mx, found[i % lanes], 1.0
            )
            count[i % lanes] += select(found[i % lanes], 0.5, 1.0, 0.0)

    return iamax_locate


BLOCKMAX = kernel(blockmax, name="i{p}amax", schedule=by_lanes("m"))
LOCATE = kernel(
    locate, name="i{p}amax_locate", counted=False, schedule=by_lanes("count", "found")
)
