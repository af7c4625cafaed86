"""Tuned GEMM against the hand-chosen constants, size by size.

    python benchmarks/tuning/tuned_gemm.py --budget 20 --jobs 2

For each size, `exo2.tune` searches examples/tune_gemm.py's space (AVX2,
f32), starting from the hand-chosen `Blocking.default`, with a fresh
study, and confirms the best three against the hand-chosen point
(`tune_gemm.tune_size`); then
`exo2.bench.measure` times the tuned kernel with the hand-chosen one as
its baseline, alternating, 9 repetitions. Writes
`benchmarks/results/tuning/tuned_gemm.json` and `.md`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

import gemm_x86  # noqa: E402
import numpy as np  # noqa: E402
import optuna  # noqa: E402
import tune_gemm  # noqa: E402
from exo2 import bench  # noqa: E402

SIZES = [
    (64, 64, 64),
    (256, 256, 256),
    (512, 512, 512),
    (32, 512, 512),  # skinny M
    (512, 32, 512),  # skinny N
    (512, 512, 32),  # skinny K
]
OUT = ROOT / "benchmarks" / "results" / "tuning"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sizes", help="M,N,K;M,N,K;...")
    options = parser.parse_args(argv)
    sizes = SIZES
    if options.sizes:
        sizes = [tuple(int(v) for v in s.split(",")) for s in options.sizes.split(";")]
    target = gemm_x86.AVX2_F32
    machine = bench.probe()
    records = []
    for M, N, K in sizes:
        t0 = time.perf_counter()
        storage = f"sqlite:///{OUT}/tuned_gemm_{M}x{N}x{K}.db"
        Path(storage[len("sqlite:///") :]).unlink(missing_ok=True)
        result, best = tune_gemm.tune_size(
            target,
            M,
            N,
            K,
            options.budget,
            jobs=options.jobs,
            storage=storage,
            progress=False,
        )
        search_s = time.perf_counter() - t0
        tuned = tune_gemm.schedule(target)(best)
        hand = tune_gemm.schedule(target)(tune_gemm.default_point(target))
        args = tune_gemm.arguments(M, N, K)(np.random.default_rng(0))
        m = bench.measure(tuned, *args, baseline=hand.jit(), repeat=9, machine=machine)
        record = {
            "sizes": [M, N, K],
            "best_point": best,
            "evaluations": result.evaluations,
            "infeasible": result.infeasible,
            "search_seconds": search_s,
            "tuned_median_s": m.median,
            "tuned_iqr_s": m.iqr,
            "hand_median_s": m.baseline.median,
            "hand_iqr_s": m.baseline.iqr,
            "tuned_gflops": m.gflops,
            "hand_gflops": m.flops / m.baseline.median / 1e9,
            "speedup": m.ratio,
        }
        records.append(record)
        print(
            f"{M}x{N}x{K}: hand {record['hand_gflops']:.1f}, tuned {m.gflops:.1f} GFLOP/s "
            f"(x{m.ratio:.3f}) with {best} in {result.evaluations} "
            f"evaluations, {search_s:.0f} s",
            flush=True,
        )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "tuned_gemm.json").write_text(
        json.dumps(
            {"machine": machine.to_json(), "records": records}, indent=1, default=list
        )
    )
    lines = [
        f"# Tuned GEMM vs hand-chosen constants ({machine.model}, AVX2 f32, one core)",
        "",
        "| M x N x K | hand GFLOP/s | tuned GFLOP/s | speedup | tuned point | evaluations |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for r in records:
        lines.append(
            f"| {'x'.join(map(str, r['sizes']))} | {r['hand_gflops']:.1f} | "
            f"{r['tuned_gflops']:.1f} | {r['speedup']:.3f} | {r['best_point']} | "
            f"{r['evaluations']} |"
        )
    (OUT / "tuned_gemm.md").write_text("\n".join(lines) + "\n")
    optuna.logging.set_verbosity(optuna.logging.WARNING)


if __name__ == "__main__":
    main()
