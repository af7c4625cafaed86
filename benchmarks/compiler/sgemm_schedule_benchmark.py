"""Whole-schedule benchmark: how long the primitive-only SGEMM schedule of
examples/sgemm_primitives.py takes to apply (every step proven by the effect
checker), cold (first run in the process: the Z3 query cache is empty) and
warm (median of later runs, most queries answered by the cache), with the
number of solver queries per run. Prints a Markdown table and writes
benchmarks/results/sgemm_schedule_benchmark.json.

    python3 benchmarks/compiler/sgemm_schedule_benchmark.py [--repeats N]
"""

import argparse
import json
import pathlib
import platform
import statistics
import sys
import time

from exo2 import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "examples"))
import sgemm_primitives as example  # noqa: E402


def timed_schedule():
    _core.reset_query_counters()
    start = time.perf_counter()
    example.schedule_sgemm()
    elapsed = time.perf_counter() - start
    counters = _core.query_counters()
    return elapsed, counters["queries"], counters["cache_hits"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    cold, cold_queries, cold_hits = timed_schedule()
    warm = [timed_schedule() for _ in range(args.repeats)]
    warm_median = statistics.median(t for t, _, _ in warm)
    warm_queries, warm_hits = warm[0][1], warm[0][2]

    print("| run | time (ms) | Z3 queries | cache hits |")
    print("|---|---:|---:|---:|")
    print(f"| cold (first) | {cold * 1e3:.1f} | {cold_queries} | {cold_hits} |")
    print(
        f"| warm (median of {args.repeats}) | {warm_median * 1e3:.1f} "
        f"| {warm_queries} | {warm_hits} |"
    )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "sgemm_schedule_benchmark.json"
    out.write_text(
        json.dumps(
            {
                "machine": platform.processor() or platform.machine(),
                "cold_s": cold,
                "cold_queries": cold_queries,
                "cold_cache_hits": cold_hits,
                "warm_median_s": warm_median,
                "warm_queries": warm_queries,
                "warm_cache_hits": warm_hits,
                "repeats": args.repeats,
            },
            indent=2,
        )
    )
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
