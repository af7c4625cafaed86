"""Wall time of a fixed tuning budget with one worker and with two sharing
one study (`jobs=2`), on the convolution of `spaces.py`.

    python benchmarks/tuning/parallel_workers.py --budget 16

Each run is a fresh process with an empty JIT cache and a fresh study, so
that neither compiles nor solver results carry over; both use the same
sampler and seed. Writes `benchmarks/results/tuning/parallel_workers.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "tuning"

RUN = """
import sys
sys.path.insert(0, {tuning!r})
import spaces
from exo2 import tune
problem = spaces.conv_problem()
result = tune.search(problem.space, problem.schedule, problem.reference, problem.args,
                     budget={budget}, jobs={jobs}, storage={storage!r}, seed=0,
                     progress=False)
assert result.evaluations >= {budget}
"""


def run(jobs, budget):
    with tempfile.TemporaryDirectory() as directory:
        code = RUN.format(
            tuning=str(ROOT / "benchmarks" / "tuning"),
            budget=budget,
            jobs=jobs,
            storage=f"sqlite:///{directory}/study.db",
        )
        env = dict(os.environ, EXO2_CACHE_DIR=f"{directory}/cache")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        return time.perf_counter() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    options = parser.parse_args(argv)
    times = {1: [], 2: []}
    for _ in range(options.rounds):  # alternate, so drift hits both
        for jobs in (1, 2):
            times[jobs].append(run(jobs, options.budget))
            print(f"jobs={jobs}: {times[jobs][-1]:.1f} s", flush=True)
    one, two = min(times[1]), min(times[2])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    print(
        f"best of {options.rounds}: one worker {one:.1f} s, two {two:.1f} s: x{one / two:.2f}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "parallel_workers.json").write_text(
        json.dumps(
            {
                "budget": options.budget,
                "seconds": times,
                "speedup": one / two,
                "cpus": os.cpu_count(),
                "load_average_1min": load,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
