"""iamax: the first index of the largest |x_i|, as two kernels whose
specification is already lane-blocked, so that no maximum is reassociated.

Both scan each lane of elements `i mod lanes` (`lanes` = vector width x
the vectors side by side, fixed per machine when the proc is generated) in
index order, replacing the lane's maximum `m` of |x| only by a strictly
larger one (ties keep the first):

- `first_max` also records `row`, the lane's row (`i / lanes`) where its
  maximum was last replaced, counting the rows it has read in `seen` (a
  row number in R, as an index cannot be a value; exact in R: n <= BLOCK).
  The first index of the largest maximum is the smallest
  `row x lanes + lane` over the lanes holding it: one pass, no rescan.
- `blockmax` records only the maxima, for less work per element.

The C layer (benchmarks/blas/capi/level1.inc) calls `first_max` on x when
n <= BLOCK; longer vectors get `blockmax` per block of BLOCK elements
(the last one partial), then `first_max` on the first block holding the
largest maximum. NaN never replaces a maximum (a NaN-only x gives 0); NaN
inputs are outside the contract.
"""

from __future__ import annotations

from exo2 import proc

from ...externs import select
from ...sched import by_lanes, kernel

BLOCK = 4096


def first_max(lanes):
    @proc
    def iamax(n: size, x: [R][n], m: R[lanes], row: R[lanes], seen: R[lanes]):
        assert n <= BLOCK
        for lane in seq(0, lanes):
            m[lane] = 0.0
            row[lane] = 0.0
            seen[lane] = 0.0
        for i in seq(0, n):
            row[i % lanes] = select(
                m[i % lanes],
                select(0.0, x[i], x[i], -x[i]),
                seen[i % lanes],
                row[i % lanes],
            )
            m[i % lanes] = select(
                m[i % lanes],
                select(0.0, x[i], x[i], -x[i]),
                select(0.0, x[i], x[i], -x[i]),
                m[i % lanes],
            )
            seen[i % lanes] += 1.0

    return iamax


def blockmax(lanes):
    @proc
    def iamax_blockmax(n: size, x: [R][n], m: R[lanes]):
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

    return iamax_blockmax


FIRST_MAX = kernel(first_max, name="i{p}amax", schedule=by_lanes("m", "row", "seen"))
BLOCKMAX = kernel(
    blockmax, name="i{p}amax_blockmax", counted=False, schedule=by_lanes("m")
)
