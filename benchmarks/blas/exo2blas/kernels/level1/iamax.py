"""iamax: the first index of the largest |x_i|, as two kernels whose
specification is already lane-blocked, so that no maximum is reassociated
while scanning x.

Both scan each lane of elements `i mod lanes` (`lanes` = vector width x
the vectors side by side, fixed per machine when the proc is generated) in
index order, replacing the lane's maximum `m` of |x| only by a strictly
larger one (ties keep the first):

- `first_max` also records `row`, the index of the element that last
  replaced the lane's maximum, counting in `seen` the index each lane
  reads next (indices as values in R, exact: n <= BLOCK); both start at
  the lane's first index, `lane_start` (0, 1, ..., lanes - 1, from the C
  layer: an index cannot be made a value). It scans the whole vectors of x
  (`n / width * width` elements, `width` the vector width), then reduces
  its lanes itself: `best`, the largest maximum; `first`, the smallest
  `row` of a lane holding it; `index`, the smallest `seen`, which is the
  index of the first element not scanned. The last `n % width` elements
  make one more vector of lanes, `last` (zero beyond them), reduced the
  same way, relative to `index`; a larger maximum there gives the first
  index, an equal one does not (its index is larger). Scalar stores into
  the lanes just before the reductions' vector loads would stall their
  store-to-load forwarding (4 elements took twice as long as 8); `last`
  is set by one masked vector in a register. The maxima are never NaN nor
  -0 and the indices are integers, so the order of the reductions does not
  change their results: the scheduled kernel combines the vectors of lanes
  lane-wise, then the lanes of one vector in halves
  (benchmarks/blas/exo2blas/machines/reductions.py).
- `blockmax` records only the maxima, for less work per element, and
  reduces its lanes into the block's largest maximum, `best`. Its state is
  one register per vector, so it keeps twice `first_max`'s lanes: four
  vectors' chains of maxima, where two waited on the latency of each
  maximum (4 cycles on an Intel Xeon, family 6 model 207: AVX-512, 4096
  floats 178 -> 110 ns, isamax of 65536 elements 3.26 -> 2.40 us).
- `scan` goes through x once, element by element, keeping the largest
  |x_i| so far and its index (replaced only by a strictly larger one): no
  lanes to set up and reduce, for vectors shorter than SCAN.

The C layer (benchmarks/blas/capi/level1.inc) calls `scan` on x when n <
SCAN, `first_max` up to 8 KiB of x; longer vectors get `blockmax` per
block of BLOCK elements (of 1024 up to 64 KiB of x; the last one partial),
then, in the first block holding the largest maximum, `blockmax` per chunk
of 256 elements up to the first chunk holding it, and `first_max` on that
chunk. NaN never replaces a maximum (a NaN-only x gives 0); NaN inputs are
outside the contract.
"""

from __future__ import annotations

from exo2 import proc
from exo2.libs.memories import DRAM_STACK

from ...externs import fabs, select
from ...sched import scanned
from ...variants import kernel

BLOCK = 4096
NO_INDEX = float(BLOCK)  # above every index of a block
# `scan` takes x shorter than this: its chain of maxima costs about 0.6 ns
# an element, `first_max` about 8.3 ns up to 16 (AVX-512 on the AMD EPYC
# Zen 4 machine: scan 7.9 ns and first_max 8.3 ns at n = 10)
SCAN = 12


def first_max(lanes, width):
    step = float(lanes)  # a lane's next index

    @proc
    def iamax(n: size, x: [R][n], lane_start: R[lanes], first: R):
        assert n <= BLOCK
        m: R[lanes] @ DRAM_STACK
        row: R[lanes] @ DRAM_STACK
        seen: R[lanes] @ DRAM_STACK
        for lane in seq(0, lanes):
            m[lane] = 0.0
            row[lane] = lane_start[lane]
            seen[lane] = lane_start[lane]
        for i in seq(0, n / width * width):
            row[i % lanes] = select(
                m[i % lanes],
                fabs(x[i]),
                seen[i % lanes],
                row[i % lanes],
            )
            m[i % lanes] = select(
                m[i % lanes],
                fabs(x[i]),
                fabs(x[i]),
                m[i % lanes],
            )
            seen[i % lanes] += step
        best: R @ DRAM_STACK
        best = 0.0
        for lane in seq(0, lanes):
            best = select(best, m[lane], m[lane], best)
        first = NO_INDEX
        for lane in seq(0, lanes):
            first = select(
                m[lane], best, first, select(row[lane], first, row[lane], first)
            )
        index: R @ DRAM_STACK
        index = NO_INDEX
        for lane in seq(0, lanes):
            index = select(seen[lane], index, seen[lane], index)
        last: R[width] @ DRAM_STACK
        for k in seq(0, width):
            last[k] = 0.0
        for k in seq(0, n % width):
            last[k] = fabs(x[n / width * width + k])
        last_best: R @ DRAM_STACK
        last_best = 0.0
        for k in seq(0, width):
            last_best = select(last_best, last[k], last[k], last_best)
        last_first: R @ DRAM_STACK
        last_first = NO_INDEX
        for k in seq(0, width):
            last_first = select(
                last[k],
                last_best,
                last_first,
                select(lane_start[k], last_first, lane_start[k], last_first),
            )
        first = select(best, last_best, index + last_first, first)

    return iamax


def blockmax(lanes):
    chains = 2 * lanes

    @proc
    def iamax_blockmax(n: size, x: [R][n], best: R):
        assert n <= BLOCK
        m: R[chains] @ DRAM_STACK
        for lane in seq(0, chains):
            m[lane] = 0.0
        for i in seq(0, n):
            m[i % chains] = select(
                m[i % chains],
                fabs(x[i]),
                fabs(x[i]),
                m[i % chains],
            )
        best = 0.0
        for lane in seq(0, chains):
            best = select(best, m[lane], m[lane], best)

    return iamax_blockmax


@proc
def iamax_scan(n: size, x: [R][n], first: R):
    assert n < SCAN
    best: R @ DRAM_STACK
    seen: R @ DRAM_STACK
    best = 0.0
    seen = 0.0
    first = 0.0
    for i in seq(0, n):
        first = select(best, fabs(x[i]), seen, first)
        best = select(
            best,
            fabs(x[i]),
            fabs(x[i]),
            best,
        )
        seen += 1.0


# `scanned` keeps the lanes of `first_max` and `blockmax` in vector
# registers, and `scan`'s `first` in a register: through memory each
# element's select waited for the store of the one before
KERNEL = kernel(
    first_max,
    name="i{p}amax",
    helpers={"blockmax": blockmax, "scan": iamax_scan},
    schedule=scanned(),
)
