"""Tunes the register tile of the 3 x 3 convolution (examples/conv2d.py)
for one size with exo2.tune.

    python examples/tune_conv.py 32 32 28 28 --budget 30

The space: `kt` output channels x `xv` vectors (the accumulators, the
input vectors and a broadcast fit in the 16 AVX2 registers: a known
constraint), the order of the reduction loops `c, r, s` (a permutation),
and unrolling the innermost one (infeasible when it is `c`, whose bound is
not a constant: learned, not declared).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import conv2d  # noqa: E402
from exo2 import bench, tune  # noqa: E402

SPACE = tune.Space(
    tune.Int("kt", 1, 8),
    tune.Int("xv", 1, 4),
    tune.Permutation("order", ("c", "r", "s")),
    tune.Categorical("unroll", [False, True]),
    constraints=[lambda p: p["kt"] * p["xv"] + p["xv"] + 1 <= 16],
)


def schedule(point):
    return conv2d.schedule_conv(conv2d.conv2d, conv2d.ConvTile(**point))


def default_point():
    return asdict(conv2d.ConvTile())


def arguments(C, K, H, W):
    def make(rng):
        return (
            C,
            K,
            H,
            W,
            rng.uniform(-1, 1, (C, H + 2, W + 2)).astype(np.float32),
            rng.uniform(-1, 1, (K, C, 3, 3)).astype(np.float32),
            rng.uniform(-1, 1, (K, H, W)).astype(np.float32),
        )

    return make


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", type=int, nargs=4, metavar=("C", "K", "H", "W"))
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--strategy", default="bayes")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--storage")
    options = parser.parse_args(argv)
    C, K, H, W = options.sizes
    result = tune.search(
        SPACE,
        schedule,
        conv2d.conv2d,
        arguments(C, K, H, W),
        budget=options.budget,
        strategy=options.strategy,
        jobs=options.jobs,
        storage=options.storage,
        warm_start=[default_point()],
    )
    print(f"best of {result.evaluations} evaluations ({result.infeasible} infeasible):")
    print(f"  {result.best_point}")
    args = arguments(C, K, H, W)(np.random.default_rng(0))
    m = bench.measure(
        schedule(result.best_point), *args, baseline=schedule(default_point())
    )
    print(m)


if __name__ == "__main__":
    main()
