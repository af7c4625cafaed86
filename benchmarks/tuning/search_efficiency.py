"""How fast each search strategy reaches 95% of the best configuration,
replaying a table recorded by `record.py` (every point of the space
measured once), so that strategies and seeds are compared on the same
measured times.

    python benchmarks/tuning/search_efficiency.py benchmarks/results/tuning/conv_table.json

For each strategy (`bayes`: exo2.tune's sampler; `tpe`: Optuna's default
sampler; `random`) and each of 5 seeds, a search runs through
`exo2.tune.search` with the table as its objective; reported per strategy:
the evaluations until a point within 95% of the table's best speed was
found (median over the seeds), and the speed reached after a fixed budget
(the target's: a third of what random search needs). Random search's
need is also computed exactly: drawing without replacement among S
allowed points of which k reach the target takes (S + 1) / (k + 1)
evaluations on average. Writes `<table>.efficiency.json`, `.md` and a
convergence chart `.png`.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "tuning"))

import optuna  # noqa: E402
import spaces  # noqa: E402
from exo2 import tune  # noqa: E402

STRATEGIES = ("bayes", "tpe", "random")
TARGET = 0.95


def load_table(path):
    table = json.loads(Path(path).read_text())
    problem = spaces.PROBLEMS[table["problem"]]()
    space = problem.space
    times = {}
    for record in table["points"]:
        point = {
            k: tuple(v) if isinstance(v, list) else v
            for k, v in record["point"].items()
        }
        times[space.key(point)] = record["seconds"]
    return table, space, times


def replay(space, times, strategy, seed, budget):
    """The best-so-far speed (fraction of the best) after each evaluation."""

    def objective(point):
        seconds = times[space.key(point)]
        if seconds is None:
            raise tune.Infeasible("recorded as infeasible")
        return seconds

    result = tune.search(
        space,
        objective=objective,
        budget=budget,
        strategy=strategy,
        study=f"{strategy}-{seed}",
        storage=optuna.storages.InMemoryStorage(),
        seed=seed,
        progress=False,
    )
    best = min(s for s in times.values() if s is not None)
    return [None if s is None else best / s for s in result.best_so_far()]


def first_reaching(curve, target=TARGET):
    for i, value in enumerate(curve, 1):
        if value is not None and value >= target:
            return i
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", type=Path)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument(
        "--budget", type=int, help="evaluations per run (default: 3x random's need)"
    )
    options = parser.parse_args(argv)
    table, space, times = load_table(options.table)
    best = min(s for s in times.values() if s is not None)
    allowed = len(times)
    good = sum(1 for s in times.values() if s is not None and best / s >= TARGET)
    random_expected = (allowed + 1) / (good + 1)
    fixed_budget = max(1, math.floor(random_expected / 3))
    budget = options.budget or min(allowed, max(30, math.ceil(3 * random_expected)))
    print(
        f"{table['problem']}: {allowed} points, {good} within {TARGET:.0%} of the best; "
        f"random search needs {random_expected:.1f} evaluations on average; "
        f"fixed budget {fixed_budget}, runs of {budget}",
        flush=True,
    )
    curves, summary = {}, {}
    for strategy in options.strategies.split(","):
        runs, reach, seconds = [], [], []
        for seed in range(options.seeds):
            t0 = time.perf_counter()
            curve = replay(space, times, strategy, seed, budget)
            seconds.append(time.perf_counter() - t0)
            runs.append(curve)
            reach.append(first_reaching(curve))
        curves[strategy] = runs
        at_budget = [
            (c[fixed_budget - 1] or 0.0) if len(c) >= fixed_budget else 0.0
            for c in runs
        ]
        reached = [r if r is not None else math.inf for r in reach]
        summary[strategy] = {
            "evaluations_to_target": reach,
            "median_evaluations_to_target": statistics.median(reached),
            "speed_at_fixed_budget": at_budget,
            "median_speed_at_fixed_budget": statistics.median(at_budget),
            "search_seconds": seconds,
        }
        print(
            f"  {strategy:6s}: evaluations to {TARGET:.0%}: {reach} "
            f"(median {statistics.median(reached)}); after {fixed_budget}: "
            f"median {statistics.median(at_budget):.3f} of the best",
            flush=True,
        )
    out = {
        "table": str(options.table),
        "problem": table["problem"],
        "sizes": table["sizes"],
        "machine": table["machine"]["model"],
        "points": allowed,
        "points_within_target": good,
        "target": TARGET,
        "random_expected_evaluations": random_expected,
        "fixed_budget": fixed_budget,
        "strategies": summary,
    }
    stem = options.table.with_suffix("")
    Path(f"{stem}.efficiency.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        f"# Search efficiency: {table['problem']} {table['sizes']}",
        "",
        f"{allowed} points recorded on {table['machine']['model']}; {good} within "
        f"{TARGET:.0%} of the best; random search needs {random_expected:.1f} "
        f"evaluations on average (target: a third, {random_expected / 3:.1f}).",
        "",
        "| strategy | evaluations to 95% per seed | median | speed after "
        f"{fixed_budget} (median of the best) |",
        "|---|---|---:|---:|",
    ]
    for strategy, s in summary.items():
        lines.append(
            f"| {strategy} | {s['evaluations_to_target']} | "
            f"{s['median_evaluations_to_target']} | {s['median_speed_at_fixed_budget']:.3f} |"
        )
    Path(f"{stem}.efficiency.md").write_text("\n".join(lines) + "\n")
    try:
        slowness = {
            name: [[None if v is None else 1 / v for v in c] for c in runs]
            for name, runs in curves.items()
        }
        tune.plot_convergence(
            slowness,
            f"{stem}.efficiency.png",
            title=f"{table['problem']}: best time / best of the table",
            ylabel="best time found / best time",
            target=1 / TARGET,
        )
    except ImportError:
        print("note: matplotlib not installed; no chart")
    print(f"wrote {stem}.efficiency.json, .md, .png")


if __name__ == "__main__":
    main()
