"""Tunes the GEMM example's constants (examples/gemm_x86.py's `Blocking`)
for one size with exo2.tune, then measures the tuned kernel against the
hand-chosen constants with exo2.bench (alternating calls, one run).

    python examples/tune_gemm.py 64 512 512 --budget 40 --jobs 2

The space: `MR` rows and `NR` vectors of the register tile (the
accumulators, the B vectors and a broadcast must fit in the vector
registers: a known constraint), `KC` (K slice), `NB` (panels per N block),
packing of A and of B on or off, and the order of the loops over N blocks,
row blocks and panels (`jc` before `jo`: a known constraint).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gemm_x86  # noqa: E402
from exo2 import bench, tune  # noqa: E402

REGISTERS = {"avx2": 16, "avx512": 32}


def fits_registers(target):
    registers = REGISTERS[target.name]
    return lambda p: p["mr"] * p["nr_vecs"] + p["nr_vecs"] + 1 <= registers


def jc_before_jo(p):
    return p["order"].index("jc") < p["order"].index("jo")


POWERS = [2**k for k in range(11)]


def space(
    target,
    mr=(1, 2, 3, 4, 5, 6, 8),
    nr_vecs=(1, 2, 3, 4),
    kc=tuple(POWERS[4:]),  # 16 ... 1024
    nb=tuple(POWERS[:7]),  # 1 ... 64
):
    """The search space of `Blocking` for `target` (smaller with fewer
    values given)."""
    return tune.Space(
        tune.Ordinal("mr", list(mr)),
        tune.Ordinal("nr_vecs", list(nr_vecs)),
        tune.Ordinal("kc", list(kc)),
        tune.Ordinal("nb", list(nb)),
        tune.Categorical("pack_a", [True, False]),
        tune.Categorical("pack_b", [True, False]),
        tune.Permutation("order", gemm_x86.LOOPS),
        constraints=[fits_registers(target), jc_before_jo],
    )


def kernel_of(target):
    return gemm_x86.sgemm if target.precision == "f32" else gemm_x86.dgemm


def schedule(target):
    """The schedule as a function of a point."""
    return lambda point: gemm_x86.schedule_gemm(
        kernel_of(target), target, gemm_x86.Blocking(**point)
    )


def default_point(target):
    return asdict(gemm_x86.Blocking.default(target))


def arguments(M, N, K, dtype=np.float32):
    def make(rng):
        return (
            M,
            N,
            K,
            rng.uniform(-1, 1, (M, K)).astype(dtype),
            rng.uniform(-1, 1, (K, N)).astype(dtype),
            rng.uniform(-1, 1, (M, N)).astype(dtype),
        )

    return make


def tune_size(
    target,
    M,
    N,
    K,
    budget,
    strategy="bayes",
    jobs=1,
    storage=None,
    seed=0,
    progress=True,
):
    """`(result, best point)` for one size. The hand-chosen constants are
    the first point (a warm start); at the end the 3 fastest points and
    the hand-chosen one are timed again together (interleaved), and the
    fastest of them is the best point: one evaluation's median on a loaded
    machine can be a lucky one."""
    args = arguments(M, N, K)
    result = tune.search(
        space(target),
        schedule(target),
        kernel_of(target),
        args,
        budget=budget,
        strategy=strategy,
        jobs=jobs,
        storage=storage,
        seed=seed,
        warm_start=[default_point(target)],
        kernel=f"{kernel_of(target).name()}-{target.name}",
        progress=progress,
    )
    candidates = result.top(3)
    if default_point(target) not in candidates:
        candidates.append(default_point(target))
    objective = tune.KernelObjective(schedule(target), kernel_of(target), args)
    (best, _), *_ = objective.compare(candidates)
    return result, best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", type=int, nargs=3, metavar=("M", "N", "K"))
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--strategy", default="bayes")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--storage")
    parser.add_argument("--target", default="avx2", choices=["avx2", "avx512"])
    options = parser.parse_args(argv)
    target = gemm_x86.AVX2_F32 if options.target == "avx2" else gemm_x86.AVX512_F32
    M, N, K = options.sizes
    result, best = tune_size(
        target, M, N, K, options.budget, options.strategy, options.jobs, options.storage
    )
    print(f"best of {result.evaluations} evaluations ({result.infeasible} infeasible):")
    print(f"  {best}")
    tuned = schedule(target)(best)
    hand = schedule(target)(default_point(target))
    args = arguments(M, N, K)(np.random.default_rng(0))
    m = bench.measure(tuned, *args, baseline=hand.jit(), repeat=9)
    print(m)
    print(f"tuned / hand-chosen speed: {m.ratio:.3f}")


if __name__ == "__main__":
    main()
