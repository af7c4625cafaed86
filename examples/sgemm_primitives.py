"""A naive SGEMM scheduled into a tiled, staged, register-blocked kernel with
primitives only (no platform instructions, no stdlib): the schedule of the
whole-schedule test (tests/python/test_whole_schedule_sgemm.py) and of the
compiler benchmark (benchmarks/compiler/sgemm_schedule_benchmark.py).

The result computes a 6 x 16 block of C in a register tile `C_reg` across a
32-deep slice of K, reading packed copies of the A and B panels (`A_pack`,
`B_pack`), with the six rows of the micro-kernel unrolled.
"""

from __future__ import annotations

from exo2 import proc
from exo2.API_scheduling import (
    divide_loop,
    lift_alloc,
    reorder_loops,
    simplify,
    stage_mem,
    unroll_loop,
)

MR, NR, KC = 6, 16, 32  # register tile rows and columns, K slice


@proc
def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    assert M % 6 == 0
    assert N % 16 == 0
    assert K % 32 == 0
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


def schedule_sgemm(p=sgemm):
    """Every step is a primitive, checked by the effect analysis."""
    # Tile i, j and k; order the loops io, jo, ko, ki, ii, ji.
    p = divide_loop(p, "i", MR, ["io", "ii"], perfect=True)
    p = divide_loop(p, "j", NR, ["jo", "ji"], perfect=True)
    p = divide_loop(p, "k", KC, ["ko", "ki"], perfect=True)
    p = reorder_loops(p, "ii jo")
    for outer, inner in [("ji", "ko"), ("ii", "ko"), ("ji", "ki"), ("ii", "ki")]:
        p = reorder_loops(p, f"{outer} {inner}")
    # Keep the 6 x 16 block of C in a register tile across all of K.
    p = stage_mem(
        p,
        p.find_loop("ko"),
        f"C[{MR} * io : {MR} * io + {MR}, {NR} * jo : {NR} * jo + {NR}]",
        "C_reg",
        accum=True,
    )
    # Pack the A and B panels one K slice at a time, before the ki loop.
    ki = p.find_loop("ki")
    p = stage_mem(
        p,
        ki,
        f"A[{MR} * io : {MR} * io + {MR}, {KC} * ko : {KC} * ko + {KC}]",
        "A_pack",
    )
    p = stage_mem(
        p,
        p.forward(ki),
        f"B[{KC} * ko : {KC} * ko + {KC}, {NR} * jo : {NR} * jo + {NR}]",
        "B_pack",
    )
    # One allocation of each buffer for the whole kernel (simplify first:
    # the staged shapes read `6 * io + 6 - 6 * io`).
    p = simplify(p)
    for buffer in ["A_pack", "B_pack"]:
        p = lift_alloc(p, buffer, n_lifts=3)
    p = lift_alloc(p, "C_reg", n_lifts=2)
    # Unroll the six rows of the micro-kernel.
    p = unroll_loop(p, p.find_loop("ii"))
    return simplify(p)
