"""Cursor benchmark: time to find and to forward cursors on procedures of
10, 100, 1,000 and 10,000 statements.

Kernels are generated as source text (groups of a loop holding two
statements), written to a temporary file and imported, since exo2 parses
kernels from their source. Prints a table of medians and writes JSON to
benchmarks/results/cursor_benchmark.json.

    python3 benchmarks/compiler/cursor_benchmark.py
"""

import importlib.util
import json
import pathlib
import statistics
import sys
import tempfile
import time

from exo2 import Procedure, _core

SIZES = [10, 100, 1_000, 10_000]
RESULTS = pathlib.Path(__file__).resolve().parents[1] / "results"


def kernel_source(statements):
    """A procedure of about `statements` statements: one allocation, then
    groups `for iK in seq(0, n): acc += K.0; acc = acc * 0.5`."""
    groups = max(1, (statements - 1) // 3)
    lines = [
        "from __future__ import annotations",
        "from exo2 import proc",
        "",
        "@proc",
        "def kernel(n: size):",
        "    acc: R",
    ]
    for k in range(groups):
        lines += [
            f"    for i{k} in seq(0, n):",
            f"        acc += {k}.0",
            "        acc = acc * 0.5",
        ]
    return "\n".join(lines) + "\n", groups


def load_kernel(source, directory):
    path = pathlib.Path(directory) / f"kernel_{abs(hash(source))}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def derive(p, edit, *cursors):
    prov = _core.apply_test_edit(p._provenance, edit, [c._impl for c in cursors])
    return Procedure(prov.proc(), _provenance=prov)


def measure(statements, directory):
    source, groups = kernel_source(statements)
    p = load_kernel(source, directory)
    count = 1 + 3 * groups
    last = f"for i{groups - 1} in _: _"
    repeats = 21 if count <= 1_000 else 7
    row = {"statements": count}
    row["find_first"] = median_seconds(lambda: p.find("acc += _"), repeats)
    row["find_last"] = median_seconds(lambda: p.find(last), repeats)
    row["find_all"] = median_seconds(lambda: p.find("acc += _", many=True), repeats)
    # One edit at the top (the worst place: every later path shifts), then
    # forward a cursor deep at the end, and one across a chain of 10 edits.
    deep = p.find("acc = _ #%d" % (groups - 1))
    row["edit_insert"] = median_seconds(
        lambda: derive(p, "insert_pass", p.body()[0].before()), repeats
    )
    p1 = derive(p, "insert_pass", p.body()[0].before())
    row["forward_1_edit"] = median_seconds(lambda: p1.forward(deep), repeats)
    chain = p
    for _ in range(10):
        chain = derive(chain, "insert_pass", chain.body()[0].before())
    row["forward_10_edits"] = median_seconds(lambda: chain.forward(deep), repeats)
    assert chain.forward(deep) == chain.find("acc = _ #%d" % (groups - 1))
    return row


def main():
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        sys.path.insert(0, directory)
        for n in SIZES:
            rows.append(measure(n, directory))
    columns = [
        "find_first",
        "find_last",
        "find_all",
        "edit_insert",
        "forward_1_edit",
        "forward_10_edits",
    ]
    print(f"{'statements':>10}" + "".join(f"{c:>18}" for c in columns))
    for row in rows:
        cells = "".join(f"{row[c] * 1e6:>15.1f} us" for c in columns)
        print(f"{row['statements']:>10}" + cells)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "cursor_benchmark.json"
    out.write_text(json.dumps({"unit": "seconds (median)", "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
