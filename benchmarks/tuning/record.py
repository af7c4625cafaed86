"""Records the objective over a whole tuning space once: every point of a
problem of `spaces.py` is scheduled, compiled and checked (in parallel
processes); then, with the compilers done, every built point is timed in
`--rounds` rounds over the whole table (so that a burst of load on a shared
machine hits one round of a point, not all of them), and its time is the
smallest of its rounds' medians. The table is written as JSON for
`search_efficiency.py` to replay. Recording once makes the comparison of search strategies
reproducible and affordable: each strategy and seed reads the same
measured times instead of compiling and timing again.

    python benchmarks/tuning/record.py gemm --jobs 15 --out gemm_table.json
"""

from __future__ import annotations

import argparse
import concurrent.futures
import ctypes
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "tuning"))

import numpy as np  # noqa: E402
import spaces  # noqa: E402
from exo2 import bench, tune  # noqa: E402

_PROBLEM = {}


def _build(index):
    """Schedules, compiles and checks point `index`: `(index, path of the
    shared library or None, error)`."""
    problem, points, objective = _PROBLEM["value"]
    try:
        kernel = objective.build(points[index])
    except tune.Infeasible as error:
        return index, None, str(error).splitlines()[0][:300]
    return index, kernel.library._name, None


def _c_arguments(args):
    values = [None]  # the context
    for value in args:  # in the order of the reference's parameters
        values.append(
            value.ctypes.data if isinstance(value, np.ndarray) else int(value)
        )
    return values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("problem", choices=list(spaces.PROBLEMS))
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--limit", type=int, help="only the first N points (a trial run)"
    )
    options = parser.parse_args(argv)
    problem = spaces.PROBLEMS[options.problem]()
    points = list(problem.space.points())[: options.limit]
    objective = tune.KernelObjective(
        problem.schedule, problem.reference, problem.args, repeat=7, min_time=0.01
    )
    _PROBLEM["value"] = (problem, points, objective)
    machine = bench.probe()
    args = problem.args(np.random.default_rng(1))
    c_args = _c_arguments(args)
    results = [
        {"point": point, "seconds": None, "error": None, "rounds": []}
        for point in points
    ]
    t0 = time.perf_counter()
    context = multiprocessing.get_context("fork")
    built = {}
    with concurrent.futures.ProcessPoolExecutor(
        options.jobs, mp_context=context
    ) as pool:
        futures = [pool.submit(_build, i) for i in range(len(points))]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            index, path, error = future.result()
            results[index]["error"] = error
            if path is not None:
                built[index] = path
            if done % 20 == 0 or done == len(points):
                print(
                    f"built {done}/{len(points)} in {time.perf_counter() - t0:.0f} s",
                    flush=True,
                )
    calls = {}
    for index, path in built.items():
        function = getattr(ctypes.CDLL(path), problem.reference.name())
        repeat = bench.native.word_loop(function, c_args)
        call = lambda repeat=repeat: repeat(1)  # noqa: E731
        call.repeat = repeat
        calls[index] = call
    for r in range(options.rounds):
        for index, call in calls.items():
            (timing,) = bench.interleaved([call], repeat=3, warmup=1, min_time=0.002)
            results[index]["rounds"].append(timing.median)
        print(f"timing round {r + 1}/{options.rounds} done", flush=True)
    for index in calls:
        results[index]["seconds"] = min(results[index]["rounds"])
    table = {
        "problem": problem.name,
        "sizes": problem.sizes,
        "machine": machine.to_json(),
        "parameters": problem.space.names(),
        "default": problem.default,
        "seconds_total": time.perf_counter() - t0,
        "points": results,
    }
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(table, default=list) + "\n")
    feasible = [r for r in results if r["seconds"] is not None]
    best = min(feasible, key=lambda r: r["seconds"])
    print(f"{len(feasible)} feasible of {len(results)}; best {best}")


if __name__ == "__main__":
    main()
