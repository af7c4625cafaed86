"""The differential run of exo2's own tests (docs/internals/conformance.md,
"Differential runs"): each test module of `differential_tests.toml` runs on
exo2 and, through the import alias `exo2` -> `exo`, on Exo
(differential_tests_side.py); per test function, aligned by test id, the
two sides' events are compared up to the test's first disagreement:
acceptance of each kernel and scheduling operation, the printed
procedures, and the results of running them on the same inputs.

    python differential_tests.py --exo-python VENV/bin/python --out DIR \\
        [--exo2-python PYTHON] [--jobs 2] [--report-only] [MODULE...]

A disagreement is listed in `expected_differences.toml` under
`differential:tests:<module>::<test id>:<class>` (globs allowed; `match`, a
regular expression its details must contain), the classes being
`exo2-refuses`, `exo-refuses`, `text-differs`, `codegen-differs`,
`results-differ`, `different-steps`, `import-fails` and `exo-mutates-input`;
any other one is a problem, and the exit status is 1. A module Exo cannot import (an exo2-only
name: ImportError, AttributeError or NameError) is not expressible in Exo,
and so is the rest of a test whose Exo run stops on an AttributeError or
NameError outside the operations recorded: counted, not disagreements.
Written: `tests.md` in DIR, and both sides' traces per module.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from differential_c import malloc_environment, same_outputs  # noqa: E402
from report import find_entry, load_expected, print_problems, text_diff  # noqa: E402

MODULE_TIMEOUT_S = 900
INEXPRESSIBLE = ("ImportError", "ModuleNotFoundError", "AttributeError", "NameError")
CLASSES = (
    "exo2-refuses",
    "exo-refuses",
    "text-differs",
    "codegen-differs",
    "results-differ",
    "different-steps",
    "import-fails",
    "exo-mutates-input",
)


# --------------------------------------------------------------------------- #
# Running both sides


def run_side(python, side, modules, out, *options):
    """Runs one side on the modules, in one process while it does not
    crash (a module whose trace a crashed process did not write gets a
    trace saying so, and a new process goes on with the next). The traces
    are written in `out`."""
    todo = list(modules)
    while todo:
        for module in todo:
            (out / f"{Path(module).stem}.{side}.json").unlink(missing_ok=True)
        command = [python, str(HERE / "differential_tests_side.py"), "--side", side]
        command += ["--out", str(out), *options, *(str(ROOT / m) for m in todo)]
        try:
            result = subprocess.run(
                command,
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=MODULE_TIMEOUT_S * len(todo),
                env=malloc_environment(os.environ),
            )
            stderr = result.stderr
        except subprocess.TimeoutExpired:
            stderr = "timed out"
        done = [m for m in todo if (out / f"{Path(m).stem}.{side}.json").exists()]
        missing = [m for m in todo if m not in done]
        if not missing:
            return
        failed = missing[0]
        (out / f"{Path(failed).stem}.{side}.json").write_text(
            json.dumps({"failed": stderr[-2000:] or "the process ended"})
        )
        todo = todo[todo.index(failed) + 1 :]


def cost(module, out):
    """A module's seconds in the last run whose traces are in `out` (else
    its source's size, in kB)."""
    seconds = 0.0
    for side in ("exo2", "exo"):
        path = out / f"{Path(module).stem}.{side}.json"
        try:
            run = json.loads(path.read_text())["seconds"]
            seconds += run["tests"] + run["results"]
        except (OSError, ValueError, KeyError):
            return (ROOT / module).stat().st_size / 1000
    return seconds


def balanced(modules, jobs, out):
    """The modules in `jobs` groups of about equal cost, the costliest
    first into the cheapest group."""
    groups, total = [[] for _ in range(jobs)], [0.0] * jobs
    for m in sorted(modules, key=lambda m: -cost(m, out)):
        k = total.index(min(total))
        groups[k].append(m)
        total[k] += cost(m, out)
    return [g for g in groups if g]


def run_group(args, modules, out, not_expressible=()):
    run_side(args.exo2_python, "exo2", modules, out)
    ran = [
        m
        for m in modules
        if "failed" not in json.loads((out / f"{Path(m).stem}.exo2.json").read_text())
    ]
    run_side(args.exo_python, "exo", ran, out, "--sizes-from")
    if not_expressible:
        run_side(args.exo_python, "exo", not_expressible, out, "--import-only")


# --------------------------------------------------------------------------- #
# Comparing


def _compiles(result):
    return not (isinstance(result, str) and result.startswith("does not compile"))


def _ran(result):
    return isinstance(result, list)


def keeps(results):
    """For an event whose first procedure ran with the one it came from
    (`results_of`: the result and the procedure given, or a check's before
    and after): whether the two computed the same; None when not both ran."""
    if not isinstance(results, list) or len(results) != 2:
        return None
    if _reads_garbage(results[0]) and _ran(results[1]):
        return False  # its results vary where the other's do not
    if not (_ran(results[0]) and _ran(results[1])):
        return None
    return same_outputs(results[0], results[1])


def _reads_garbage(result):
    return isinstance(result, str) and result.startswith("reads memory it never wrote")


def keeps_text(event, side):
    kept = keeps(event.get("results"))
    if kept is None:
        return None
    before = "the procedure it was given" if event["kind"] != "check" else "before"
    what = "procedure" if event["kind"] != "check" else "scheduled procedure"
    return (
        f"{side}'s {what} {'keeps' if kept else 'CHANGES'} the results of {before} "
        f"(sizes {event.get('sizes')})"
    )


def compare_results(a, b):
    """How two events' results compare: ("same" | "not run" | "differ" |
    "codegen", detail)."""
    ra, rb = a.get("results"), b.get("results")
    if ra is None or rb is None or len(ra) != len(rb):
        return "not run", a.get("not_run") or b.get("not_run") or "no procedure"
    verdict, details = "same", []
    for k, (x, y) in enumerate(zip(ra, rb, strict=True)):
        what = b.get("results_of", ["procedure"] * len(rb))[k]
        if _ran(x) and _ran(y):
            if not same_outputs(x, y):
                verdict = "differ"
                details.append(f"{what}: different outputs on the same inputs")
        elif _compiles(x) != _compiles(y):
            verdict = "codegen" if verdict == "same" else verdict
            details.append(f"{what}: Exo: {str(x)[:300]}; exo2: {str(y)[:300]}")
        elif _ran(x) != _ran(y):
            verdict = "differ"
            details.append(f"{what}: Exo: {str(x)[:300]}; exo2: {str(y)[:300]}")
        elif verdict == "same":
            verdict = "not run"
            details.append(f"{what}: {str(y)[:200]}")
    details += [t for t in (keeps_text(a, "Exo"), keeps_text(b, "exo2")) if t]
    return verdict, "; ".join(details)


def _error_or_ok(event):
    return event["text"][:300] if event["outcome"] == "error" else "accepts"


def compare_events(exo_events, exo2_events):
    """`(rows, disagreement)`: one row per event both sides recorded, up
    to and including the first disagreement (`(class, row)` or None)."""
    rows = []
    for a, b in zip(exo_events, exo2_events, strict=False):
        row = {"site": b["site"], "name": b["name"]}
        rows.append(row)
        if (a["site"], a["name"]) != (b["site"], b["name"]):
            row["detail"] = (
                f"the sides ran different steps here: Exo {a['name']} at "
                f"{a['site']}, exo2 {b['name']} at {b['site']}"
            )
            return rows, ("different-steps", row)
        if a["outcome"] != b["outcome"]:
            row["detail"] = f"Exo: {_error_or_ok(a)}\nexo2: {_error_or_ok(b)}"
            evidence = keeps_text(a, "Exo")
            if evidence:
                row["detail"] += f"\n{evidence}"
                row["exo_keeps"] = keeps(a.get("results"))
            cls = "exo2-refuses" if a["outcome"] == "ok" else "exo-refuses"
            return rows, (cls, row)
        if a["outcome"] != "ok":
            row["results"] = "both refuse"
            continue
        if a["text"] != b["text"]:
            row["detail"] = text_diff(a["text"], b["text"])
            return rows, ("text-differs", row)
        verdict, detail = compare_results(a, b)
        row["results"], row["results_detail"] = verdict, detail
        if verdict in ("differ", "codegen"):
            row["detail"] = f"{detail}\nthe procedure(s):\n{b['text']}"
            cls = "results-differ" if verdict == "differ" else "codegen-differs"
            return rows, (cls, row)
    return rows, None


def _stop_class(status):
    """Why a side's run of a test ended early, in a word."""
    if status == "passed":
        return None
    if status.startswith("skipped") or status.startswith("not run"):
        return "skipped"
    if "refused kernel" in status:
        return "uses a kernel it refused"
    error = status.removeprefix("stopped: ").split(":", 1)[0]
    if error in INEXPRESSIBLE:
        return "not expressible"
    return f"stopped ({error})"


def compare_module(module, exo2, exo):
    """The module's rows: per test, its comparison; and the disagreements
    as (key, class, test id, row)."""
    name = Path(module).name
    summary = Counter()
    disagreements, notes = [], []
    if "failed" in exo2 or "failed" in exo:
        which = "exo2" if "failed" in exo2 else "Exo"
        notes.append(f"the {which} side failed: {(exo2 | exo)['failed']}")
        summary["side failed"] += 1
        return summary, disagreements, notes

    def count(rows, disagreement):
        summary["events compared"] += len(rows) - (disagreement is not None)
        summary["results equal"] += sum(r.get("results") == "same" for r in rows)
        summary["results not run"] += sum(r.get("results") == "not run" for r in rows)

    # the module's import: its kernels
    a, b = exo["import"], exo2["import"]
    rows, disagreement = compare_events(a["events"], b["events"])
    count(rows, disagreement)
    if disagreement:
        disagreements.append((name, "<import>", *disagreement))
    exo_stop = _stop_class(a["status"])
    if b["status"] != "passed":
        notes.append(f"exo2's import of the module {b['status']}")
        summary["side failed"] += 1
        return summary, disagreements, notes
    if exo_stop == "not expressible":
        summary["module not expressible"] += 1
        summary["tests"] += len(exo2["tests"])
        summary["tests not expressible"] += len(exo2["tests"])
        notes.append(f"not expressible in Exo: its import {a['status']}")
        return summary, disagreements, notes
    if exo_stop is not None and not disagreement:
        row = {"site": "(import)", "name": "import", "detail": f"Exo: {a['status']}"}
        disagreements.append((name, "<import>", "import-fails", row))
    if a.get("refused"):
        notes.append(
            "kernels Exo refuses at import: "
            + ", ".join(f"{k} ({v})" for k, v in sorted(a["refused"].items()))
        )
    exo_tests = {t["id"]: t for t in exo["tests"]}
    for test in exo2["tests"]:
        summary["tests"] += 1
        other = exo_tests.get(test["id"])
        mine_stop = _stop_class(test["status"])
        if mine_stop == "skipped" or other is None:
            summary["tests skipped"] += 1
            continue
        if other.get("uses_refused"):
            summary["tests on a kernel Exo refuses"] += 1
            continue
        if other.get("uses_mutated"):
            summary["tests on a kernel Exo changed in place"] += 1
            continue
        summary["tests compared"] += 1
        rows, disagreement = compare_events(other["events"], test["events"])
        count(rows, disagreement)
        if other.get("mutated") and not disagreement:
            row = {
                "site": "(after the test)",
                "name": "the module's kernels",
                "detail": "Exo changed in place the module's kernel(s) "
                + ", ".join(other["mutated"]),
            }
            disagreement = ("exo-mutates-input", row)
        if disagreement:
            summary["tests with a disagreement"] += 1
            disagreements.append((name, test["id"], *disagreement))
            continue
        if mine_stop is not None:
            summary["tests failing on exo2 here"] += 1
            notes.append(f"{test['id']}: exo2's run {test['status']}")
        theirs = _stop_class(other["status"])
        if theirs is None and mine_stop is None:
            summary["tests agreeing to the end"] += 1
        elif theirs == "not expressible":
            summary["tests not expressible from a point"] += 1
        elif theirs is not None:
            summary[f"tests whose Exo run {theirs}"] += 1
    return summary, disagreements, notes


def check_not_expressible(module, exo):
    """A module listed as not expressible in Exo: Exo's import of it must
    fail so (the run only imports it)."""
    summary, notes = Counter(), []
    status = exo.get("failed") or exo["import"]["status"]
    if _stop_class(status) == "not expressible":
        summary["module not expressible"] += 1
        notes.append(f"not expressible in Exo: its import {status}")
    elif status == "passed":
        summary["listed as not expressible, but Exo imports it"] += 1
        notes.append(
            "PROBLEM: listed as not expressible, but Exo imports it: move it to "
            "`modules` in differential_tests.toml"
        )
    else:
        notes.append(f"Exo's import {status}")
    return summary, [], notes


# --------------------------------------------------------------------------- #
# The report


def write_report(out, modules, results, entries, elapsed):
    total = Counter()
    lines = [
        "# Differential run of exo2's tests on Exo and on exo2",
        "",
        f"{len(modules)} test modules in {elapsed:.0f} s.",
        "",
        "| module | tests | compared | events compared | results equal "
        "| disagreements | unlisted | notes |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    details, problems, by_class = [], 0, Counter()
    for module in modules:
        summary, disagreements, notes = results[module]
        total.update(summary)
        unlisted = 0
        for name, test_id, cls, row in disagreements:
            key = f"differential:tests:{name}::{test_id}:{cls}"
            detail = f"{row['site']} {row['name']}\n{row.get('detail', '')}"
            entry = find_entry(entries, key, detail)
            by_class[cls, entry["category"] if entry else "UNLISTED"] += 1
            unlisted += entry is None
            status = (
                f"listed ({entry['category']}: `{entry['key']}`)"
                if entry
                else "PROBLEM: not listed"
            )
            details += [
                f"### {key}: {status}",
                "",
                f"At {row['site']}, `{row['name']}`:",
                "",
                "```text",
                detail.split("\n", 1)[1].rstrip()[:4000],
                "```",
                "",
            ]
        problems += unlisted
        note = "; ".join(notes)
        lines.append(
            f"| {Path(module).name} | {summary['tests']} | {summary['tests compared']} "
            f"| {summary['events compared']} | {summary['results equal']} "
            f"| {len(disagreements)} | {unlisted} | {note[:300].replace('|', '/')} |"
        )
    lines += ["", "## Totals", "", "| what | count |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(total.items())]
    lines += ["", "| disagreement class | category | count |", "|---|---|---:|"]
    lines += [f"| {c} | {cat} | {n} |" for (c, cat), n in sorted(by_class.items())]
    lines += ["", "## Disagreements", ""] + (details or ["None."])
    (out / "tests.md").write_text("\n".join(lines) + "\n")
    return problems, total, by_class


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exo-python", help="the interpreter that imports exo")
    parser.add_argument("--exo2-python", default=sys.executable)
    parser.add_argument("--list", default=str(HERE / "differential_tests.toml"))
    parser.add_argument("--expected", default=str(HERE / "expected_differences.toml"))
    parser.add_argument(
        "--out", default=str(ROOT / "build" / "conformance" / "differential")
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="compare the traces already in --out again (after editing "
        "expected_differences.toml)",
    )
    parser.add_argument("modules", nargs="*", help="a subset of the list")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    out = Path(args.out) / "tests"
    out.mkdir(parents=True, exist_ok=True)
    listed = tomllib.loads(Path(args.list).read_text())
    modules = [m for m in listed["modules"] if not args.modules or m in args.modules]
    not_expressible = [
        m for m in listed["not_expressible"] if not args.modules or m in args.modules
    ]
    if not args.report_only:
        if not args.exo_python:
            parser.error("--exo-python is required")
        groups = balanced(modules, args.jobs, out) or [[]]
        with ThreadPoolExecutor(max_workers=len(groups)) as pool:
            runs = [
                pool.submit(run_group, args, g, out, not_expressible if k == 0 else ())
                for k, g in enumerate(reversed(groups))
            ]
            for run in runs:
                run.result()

    def trace(module, side):
        path = out / f"{Path(module).stem}.{side}.json"
        return json.loads(path.read_text()) if path.exists() else {"failed": "no trace"}

    results = {m: compare_module(m, trace(m, "exo2"), trace(m, "exo")) for m in modules}
    results |= {m: check_not_expressible(m, trace(m, "exo")) for m in not_expressible}
    modules += not_expressible
    entries = load_expected(args.expected)
    problems, total, by_class = write_report(
        Path(args.out), modules, results, entries, time.perf_counter() - started
    )
    print(
        f"differential_tests: {len(modules)} modules, {total['tests']} tests, "
        f"{total['tests compared']} compared, {total['events compared']} events "
        f"agreeing, {sum(by_class.values())} disagreement(s), {problems} unlisted; "
        f"report in {Path(args.out) / 'tests.md'}"
    )
    print_problems(Path(args.out) / "tests.md")
    return (
        1 if problems or total["listed as not expressible, but Exo imports it"] else 0
    )


if __name__ == "__main__":
    sys.exit(main())
