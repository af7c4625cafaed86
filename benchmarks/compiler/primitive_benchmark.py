"""Primitive benchmark: time per scheduling primitive on a small procedure
(16 statements) and a large one (492 statements), with the Z3 queries each
application issues and how many the query cache answers.

Each primitive is applied `--repeats` times (default 100) to the same
procedure, on the same statement group in the middle of it; the table gives
the median and the first application (cold: its queries are not cached
yet), queries per application and the cache hit rate. Primitives that
`exo2.API_scheduling` does not export are skipped. Prints a Markdown table
and writes JSON to benchmarks/results/primitive_benchmark.json.

Every primitive of docs/reference/primitives.md has a case; a case whose primitive (or
a primitive its untimed setup applies) is not exported is skipped and
listed, and picked up once it is.

    python3 benchmarks/compiler/primitive_benchmark.py [--repeats N]
"""

import argparse
import functools
import importlib.util
import json
import pathlib
import platform
import statistics
import sys
import tempfile
import time

import exo2.API_scheduling as S
from cursor_benchmark import load_kernel
from exo2 import SchedulingError, _core
from exo2.libs.memories import DRAM_STATIC

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


# Procedures and a config the cases pass to primitives (call_eqv, replace,
# insert_noop_call, the config operations).
HELPERS_SOURCE = """\
from __future__ import annotations
from exo2 import config, proc

@config
class BenchConfig:
    scale: f32

@proc
def noop_window(v: [f32][4]):
    pass

@proc
def store_one(v: [f32][1]):
    v[0] = 1.0
"""


def load_helpers(directory):
    path = pathlib.Path(directory) / "primitive_benchmark_helpers.py"
    path.write_text(HELPERS_SOURCE)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # `inspect` finds classes' source there
    spec.loader.exec_module(module)
    module.noop_window_copy = S.rename(module.noop_window, "noop_window_copy")
    return module


class Group:
    """Cursors into statement group `g` of procedure `p`, found when first
    used (a setup may have rewritten some statements); `helpers` holds the
    procedures and config of HELPERS_SOURCE."""

    def __init__(self, p, g, helpers):
        self.p, self.g, self.helpers = p, g, helpers

    @functools.cached_property
    def t_stmt(self):
        return self.loop("i").body()[0]

    @functools.cached_property
    def x_stmt(self):
        return self.p.find(f"x[i{self.g}] = _")

    @functools.cached_property
    def a_stmt(self):
        return self.p.find(f"a[j{self.g}, k{self.g}] = _")

    @functools.cached_property
    def if_stmt(self):
        return self.loop("j").next()

    @functools.cached_property
    def b_stmt(self):
        return self.if_stmt.body()[0]

    @functools.cached_property
    def acc_init(self):
        return self.loop("l").prev()

    def loop(self, name):
        return self.p.find_loop(f"{name}{self.g}")

    def alloc(self, name):
        return self.p.find(f"{name} : _")


# Untimed setups: the primitives a case applies first, as (primitive,
# arguments) pairs, each given the group of the previous result.
BIND = ("bind_expr", lambda G: ([G.x_stmt.next().rhs()], "bound"))
STAGE = ("stage_mem", lambda G: (G.a_stmt, f"a[j{G.g}, 0:4]", "staged"))
EXPAND = ("expand_dim", lambda G: (G.alloc("bound"), "4", "0"))
NOOP_CALL = (
    "insert_noop_call",
    lambda G: (G.b_stmt.after(), G.helpers.noop_window, ["b[0:4]"]),
)


# primitive -> (setup steps, arguments after `proc`)
CASES = {
    "divide_loop": ((), lambda G: (G.loop("i"), 4, ["io", "ii"], "guard", True)),
    "divide_with_recompute": ((), lambda G: (G.loop("i"), "n / 4", 4, ["io", "ii"])),
    "reorder_loops": ((), lambda G: (G.loop("j"),)),
    "mult_loops": ((), lambda G: (G.loop("j"), "jk")),
    "lift_scope": ((), lambda G: (G.loop("k"),)),
    "unroll_loop": ((), lambda G: (G.loop("k"),)),
    "cut_loop": ((), lambda G: (G.loop("i"), "n / 2")),
    "join_loops": (
        [("cut_loop", lambda G: (G.loop("i"), "n / 2"))],
        lambda G: (G.loop("i"), G.loop("i").next()),
    ),
    "shift_loop": ((), lambda G: (G.loop("i"), 1)),
    "fission": ((), lambda G: (G.x_stmt.after(),)),
    "fuse": ((), lambda G: (G.loop("i"), G.loop("j"))),
    "add_loop": ((), lambda G: (G.x_stmt, "r", 2)),
    "remove_loop": (
        [("add_loop", lambda G: (G.x_stmt, "r", 2))],
        lambda G: (G.x_stmt.parent(),),
    ),
    "eliminate_dead_code": ((), lambda G: (G.if_stmt,)),
    "specialize": ((), lambda G: (G.b_stmt, "n < 8")),
    "parallelize_loop": ((), lambda G: (G.loop("i"),)),
    "simplify": ((), lambda G: ()),
    "rename": ((), lambda G: ("renamed",)),
    "make_instr": ((), lambda G: ("kernel_instr({n});", "")),
    "insert_pass": ((), lambda G: (G.b_stmt.after(),)),
    "delete_pass": (
        [("insert_pass", lambda G: (G.b_stmt.after(),))],
        lambda G: (),
    ),
    "reorder_stmts": ((), lambda G: (G.b_stmt.expand(0, 1),)),
    "commute_expr": ((), lambda G: ([G.x_stmt.next().rhs()],)),
    "left_reassociate_expr": ((), lambda G: (G.a_stmt.rhs(),)),
    "rewrite_expr": ((), lambda G: (G.if_stmt.cond(), "0 < n")),
    "split_write": ((), lambda G: (G.t_stmt,)),
    "merge_writes": (
        [("split_write", lambda G: (G.t_stmt,))],
        lambda G: (G.t_stmt.expand(0, 1),),
    ),
    "fold_into_reduce": ((), lambda G: (G.a_stmt,)),
    "inline_assign": ((), lambda G: (G.t_stmt,)),
    "lift_reduce_constant": ((), lambda G: (G.acc_init.expand(0, 1),)),
    # buffers
    "bind_expr": ((), BIND[1]),
    "stage_mem": ((), STAGE[1]),
    "lift_alloc": ([BIND], lambda G: (G.alloc("bound"),)),
    "autolift_alloc": ([BIND], lambda G: (G.alloc("bound"),)),
    "sink_alloc": (
        [BIND, ("lift_alloc", lambda G: (G.alloc("bound"),))],
        lambda G: (G.alloc("bound"),),
    ),
    "delete_buffer": (
        [BIND, ("inline_assign", lambda G: (G.alloc("bound").next(),))],
        lambda G: (G.alloc("bound"),),
    ),
    "reuse_buffer": ([BIND], lambda G: (G.alloc("t"), G.alloc("bound"))),
    "inline_window": (
        [NOOP_CALL, ("inline", lambda G: (G.p.find("noop_window(_)"),))],
        lambda G: (G.b_stmt.next(),),
    ),
    # buffer dimensions
    "expand_dim": ([BIND], EXPAND[1]),
    "resize_dim": ([STAGE], lambda G: (G.alloc("staged"), 0, "4", "0")),
    "rearrange_dim": (
        [BIND, EXPAND, ("expand_dim", lambda G: (G.alloc("bound"), "2", "0"))],
        lambda G: (G.alloc("bound"), [1, 0]),
    ),
    "divide_dim": ([STAGE], lambda G: (G.alloc("staged"), 0, 2)),
    "mult_dim": (
        [BIND, EXPAND, ("expand_dim", lambda G: (G.alloc("bound"), "2", "0"))],
        lambda G: (G.alloc("bound"), 0, 1),
    ),
    "unroll_buffer": ([BIND, EXPAND], lambda G: (G.alloc("bound"), 0)),
    # instructions and sub-procedures
    "replace": ((), lambda G: (G.b_stmt, G.helpers.store_one)),
    "insert_noop_call": ((), NOOP_CALL[1]),
    "extract_subproc": ((), lambda G: (G.b_stmt, "sub")),
    "inline": ([NOOP_CALL], lambda G: (G.p.find("noop_window(_)"),)),
    "call_eqv": (
        [NOOP_CALL],
        lambda G: (G.p.find("noop_window(_)"), G.helpers.noop_window_copy),
    ),
    # configurations
    "bind_config": (
        (),
        lambda G: (G.x_stmt.rhs().lhs(), G.helpers.BenchConfig, "scale"),
    ),
    "write_config": (
        (),
        lambda G: (G.b_stmt.after(), G.helpers.BenchConfig, "scale", "1.0"),
    ),
    "delete_config": (
        [
            (
                "write_config",
                lambda G: (G.b_stmt.after(), G.helpers.BenchConfig, "scale", "1.0"),
            )
        ],
        lambda G: (G.b_stmt.next(),),
    ),
    # backend annotations
    "set_precision": ((), lambda G: (G.alloc("t"), "f64")),
    "set_window": ((), lambda G: ("x",)),
    "set_memory": ((), lambda G: (G.alloc("t"), DRAM_STATIC)),
    # legacy
    "autofission": ((), lambda G: (G.x_stmt.after(),)),
    "add_unsafe_guard": ((), lambda G: (G.b_stmt, "n > 2")),
}


def missing_primitives(name):
    """The primitives case `name` needs that are not exported."""
    setup, _ = CASES[name]
    needed = [name] + [op for op, _ in setup]
    return [op for op in needed if not hasattr(S, op)]


def prepare(setup, p, group_index, helpers):
    """The group of the case's procedure after its setup steps."""
    group = Group(p, group_index, helpers)
    for op, arguments in setup:
        result = getattr(S, op)(group.p, *arguments(group))
        if isinstance(result, tuple):  # extract_subproc
            result = result[0]
        group = Group(result, group_index, helpers)
    return group


def measure(op_name, arguments, group, repeats):
    """Timings and query counts of `repeats` applications of the case."""
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
    parser.add_argument(
        "--only", nargs="+", metavar="PRIMITIVE", help="measure these cases only"
    )
    options = parser.parse_args()
    sizes = [2 + GROUP_STATEMENTS * g for g in (SMALL_GROUPS, LARGE_GROUPS)]
    rows, skipped, failed = {}, {}, {}
    # The kernels' source files stay until the end: error reports read them.
    with tempfile.TemporaryDirectory() as directory:
        procs = [
            load_kernel(kernel_source(g), directory)
            for g in (SMALL_GROUPS, LARGE_GROUPS)
        ]
        helpers = load_helpers(directory)
        for name, (setup, arguments) in CASES.items():
            if options.only and name not in options.only:
                continue
            if missing := missing_primitives(name):
                skipped[name] = missing
                continue
            try:
                rows[name] = [
                    measure(
                        name,
                        arguments,
                        prepare(setup, p, groups // 2, helpers),
                        options.repeats,
                    )
                    for p, groups in zip(
                        procs, (SMALL_GROUPS, LARGE_GROUPS), strict=True
                    )
                ]
            except Exception as e:  # a setup or a recipe that no longer fits
                failed[name] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    table = markdown(rows, sizes)
    print(table)
    if skipped:
        print("\nnot exported (skipped):")
        for name, missing in skipped.items():
            needs = "" if missing == [name] else f" (needs {', '.join(missing)})"
            print(f"  {name}{needs}")
    if failed:
        print("\ncase failed (not timed):")
        for name, error in failed.items():
            print(f"  {name}: {error}")
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
                "skipped": skipped,
                "failed": failed,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
