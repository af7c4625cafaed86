"""The timelines that sync statements name (docs/cuda.md, "The constructs").

As `pre` (what must be finished) and `post` (what may follow):

| timeline           | pre                                   | post |
|--------------------|---------------------------------------|------|
| `cuda_in_order`    | in-order accesses of the threads      | their later in-order accesses |
| `cuda_temporal`    | their earlier reads, of any timeline  | their later writes (orders read-before-write only) |
| `cuda_async_proxy` | —                                     | in-order and async-proxy accesses (TMA, wgmma operands) |
| `cp_async`         | cp.async copies they issued           | — |
| `wgmma`            | wgmma operations they issued          | — |
| `wgmma_operands`   | —                                     | register operands and accumulators of later wgmma |
"""

from ...core.extensions import Timeline

cuda_in_order = Timeline("cuda_in_order")
cuda_temporal = Timeline("cuda_temporal")
cuda_async_proxy = Timeline("cuda_async_proxy")
cp_async = Timeline("cp_async")
wgmma = Timeline("wgmma")
wgmma_operands = Timeline("wgmma_operands")

TIMELINES = {
    t._name: t
    for t in (
        cuda_in_order,
        cuda_temporal,
        cuda_async_proxy,
        cp_async,
        wgmma,
        wgmma_operands,
    )
}
