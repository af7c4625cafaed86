"""Primitive benchmark: time per scheduling primitive on a small procedure
(16 statements) and a large one (492 statements), with the Z3 queries each
application issues and how many the query cache answers.

Each primitive is applied `--repeats` times (default 100) to the same
procedure, on the same statement group in the middle of it; the table gives
the median and the first application (cold: its queries are not cached
yet), queries per application and the cache hit rate. Primitives that
`exo2.API_scheduling` does not export are skipped. Prints a Markdown table
and writes JSON to benchmarks/results/primitive_benchmark.json.

    python3 benchmarks/compiler/primitive_benchmark.py [--repeats N]
"""

import argparse
import json
import pathlib
import platform
import statistics
import tempfile
import time

import exo2.API_scheduling as S
from cursor_benchmark import load_kernel
from exo2 import SchedulingError, _core

RESULTS = pathlib.Path(__file__).resolve().parents[1] / "results"
GROUP_STATEMENTS = 14
SMALL_GROUPS, LARGE_GROUPS = 1, 35


def kernel_source(groups):
    """A procedure of `2 + 14 * groups` statements: two allocations, then
    groups of two loop nests, an if and a reduction."""
    lines = [
        "from __future__ import annotations",
        "from exo2 import proc",
        "",
        "@proc",
        "def kernel(n: size, x: f32[n], y: f32[n], z: f32[n], a: f32[n, 4],",
        "           b: f32[4], c: f32[4]):",
        "    assert n % 4 == 0",
        "    acc: f32",
        "    t: f32",
    ]
    for g in range(groups):
        lines += [
            f"    for i{g} in seq(0, n):",
            f"        t = y[i{g}] + 1.0",
            f"        x[i{g}] = t * 2.0",
            f"        z[i{g}] = x[i{g}] * y[i{g}]",
            f"    for j{g} in seq(0, n):",
            f"        for k{g} in seq(0, 4):",
            f"            a[j{g}, k{g}] = a[j{g}, k{g}] + (z[j{g}] + 2.0)",
            "    if n > 0:",
            f"        b[{g % 4}] = 1.0",
            f"        c[{g % 4}] = 2.0",
            "    acc = 0.0",
            f"    for l{g} in seq(0, n):",
            f"        acc += 3.0 * x[l{g}]",
            "    y[0] = acc",
        ]
    return "\n".join(lines) + "\n"


class Group:
    """Cursors into statement group `g` of procedure `p`."""

    def __init__(self, p, g):
        self.p, self.g = p, g
        self.t_stmt = p.find_loop(f"i{g}").body()[0]
        self.x_stmt = p.find(f"x[i{g}] = _")
        self.a_stmt = p.find(f"a[j{g}, k{g}] = _")
        self.if_stmt = p.find_loop(f"j{g}").next()
        self.b_stmt = self.if_stmt.body()[0]
        self.acc_init = p.find_loop(f"l{g}").prev()

    def loop(self, name):
        return self.p.find_loop(f"{name}{self.g}")


def with_setup(op, arguments):
    """A case whose procedure is `op(p, *arguments(group))` (untimed)."""

    def setup(group):
        return Group(getattr(S, op)(group.p, *arguments(group)), group.g)

    return setup


# primitive -> (setup of the procedure or None, arguments after `proc`)
CASES = {
    "divide_loop": (
        None,
        lambda G: (G.loop("i"), 4, ["io", "ii"], "guard", True),
    ),
    "divide_with_recompute": (
        None,
        lambda G: (G.loop("i"), "n / 4", 4, ["io", "ii"]),
    ),
    "reorder_loops": (None, lambda G: (G.loop("j"),)),
    "mult_loops": (None, lambda G: (G.loop("j"), "jk")),
    "lift_scope": (None, lambda G: (G.loop("k"),)),
    "unroll_loop": (None, lambda G: (G.loop("k"),)),
    "cut_loop": (None, lambda G: (G.loop("i"), "n / 2")),
    "join_loops": (
        with_setup("cut_loop", lambda G: (G.loop("i"), "n / 2")),
        lambda G: (G.loop("i"), G.loop("i").next()),
    ),
    "shift_loop": (None, lambda G: (G.loop("i"), 1)),
    "fission": (None, lambda G: (G.x_stmt.after(),)),
    "fuse": (None, lambda G: (G.loop("i"), G.loop("j"))),
    "add_loop": (None, lambda G: (G.x_stmt, "r", 2)),
    "remove_loop": (
        with_setup("add_loop", lambda G: (G.x_stmt, "r", 2)),
        lambda G: (G.x_stmt.parent(),),
    ),
    "eliminate_dead_code": (None, lambda G: (G.if_stmt,)),
    "specialize": (None, lambda G: (G.b_stmt, "n < 8")),
    "parallelize_loop": (None, lambda G: (G.loop("i"),)),
    "simplify": (None, lambda G: ()),
    "rename": (None, lambda G: ("renamed",)),
    "insert_pass": (None, lambda G: (G.b_stmt.after(),)),
    "delete_pass": (
        with_setup("insert_pass", lambda G: (G.b_stmt.after(),)),
        lambda G: (),
    ),
    "reorder_stmts": (None, lambda G: (G.b_stmt.expand(0, 1),)),
    "commute_expr": (None, lambda G: ([G.x_stmt.next().rhs()],)),
    "left_reassociate_expr": (None, lambda G: (G.a_stmt.rhs(),)),
    "rewrite_expr": (None, lambda G: (G.if_stmt.cond(), "0 < n")),
    "split_write": (None, lambda G: (G.t_stmt,)),
    "merge_writes": (
        with_setup("split_write", lambda G: (G.t_stmt,)),
        lambda G: (G.t_stmt.expand(0, 1),),
    ),
    "fold_into_reduce": (None, lambda G: (G.a_stmt,)),
    "inline_assign": (None, lambda G: (G.t_stmt,)),
    "lift_reduce_constant": (None, lambda G: (G.acc_init.expand(0, 1),)),
    "bind_expr": (None, lambda G: ([G.x_stmt.next().rhs()], "bound")),
    "stage_mem": (None, lambda G: (G.a_stmt, f"a[j{G.g}, 0:4]", "staged")),
    "extract_subproc": (None, lambda G: (G.b_stmt, "sub")),
}


def measure(op_name, setup, arguments, p, group_index, repeats):
    """Timings and query counts of `repeats` applications of the case."""
    group = Group(p, group_index)
    if setup is not None:
        group = setup(group)
    op, args = getattr(S, op_name), arguments(group)
    _core.reset_query_counters()
    times, status = [], "accepted"
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            op(group.p, *args)
        except SchedulingError:
            status = "refused"
        times.append(time.perf_counter() - start)
    counters = _core.query_counters()
    queries = counters["queries"]
    return {
        "status": status,
        "median_ms": 1e3 * statistics.median(times),
        "first_ms": 1e3 * times[0],
        "queries_per_application": queries / repeats,
        "cache_hit_rate": counters["cache_hits"] / queries if queries else None,
    }


def markdown(rows, sizes):
    small, large = sizes
    header = (
        f"| primitive | median ms ({small} st.) | first ms ({small} st.) "
        f"| median ms ({large} st.) | first ms ({large} st.) "
        "| queries / application (small / large) | cache hit rate (small / large) |"
    )
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|"]

    def rate(r):
        return "–" if r["cache_hit_rate"] is None else f"{r['cache_hit_rate']:.0%}"

    for name, (s, big) in rows.items():
        label = name if s["status"] == "accepted" else f"{name} (refused)"
        lines.append(
            f"| {label} | {s['median_ms']:.3f} | {s['first_ms']:.3f} "
            f"| {big['median_ms']:.3f} | {big['first_ms']:.3f} "
            f"| {s['queries_per_application']:.2f} / "
            f"{big['queries_per_application']:.2f} "
            f"| {rate(s)} / {rate(big)} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=100)
    options = parser.parse_args()
    sizes = [2 + GROUP_STATEMENTS * g for g in (SMALL_GROUPS, LARGE_GROUPS)]
    rows = {}
    # The kernels' source files stay until the end: error reports read them.
    with tempfile.TemporaryDirectory() as directory:
        procs = [
            load_kernel(kernel_source(g), directory)
            for g in (SMALL_GROUPS, LARGE_GROUPS)
        ]
        for name, (setup, arguments) in CASES.items():
            if not hasattr(S, name):
                continue
            rows[name] = [
                measure(name, setup, arguments, p, groups // 2, options.repeats)
                for p, groups in zip(procs, (SMALL_GROUPS, LARGE_GROUPS), strict=True)
            ]
    table = markdown(rows, sizes)
    print(table)
    skipped = sorted(set(CASES) - set(rows))
    if skipped:
        print(f"\nnot exported (skipped): {', '.join(skipped)}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "primitive_benchmark.json"
    out.write_text(
        json.dumps(
            {
                "machine": platform.platform(),
                "python": platform.python_version(),
                "repeats": options.repeats,
                "statements": dict(zip(("small", "large"), sizes, strict=True)),
                "primitives": {
                    name: dict(zip(("small", "large"), pair, strict=True))
                    for name, pair in rows.items()
                },
            },
            indent=2,
        )
        + "\n"
    )
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
