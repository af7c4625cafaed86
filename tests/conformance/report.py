"""Compares the control run of Exo's tests (on Exo) with the run on exo2 and
writes the conformance report (docs/internals/conformance.md).

    python report.py --exo control.json --exo2 exo2.json \\
        --expected expected_differences.toml --out report.md

Every test that passes on Exo must pass on exo2 or be listed in
`expected_differences.toml` with a category and a reason; a listed test must
still differ (else its entry is stale) and its category must fit what
happened (`generated-c-text` only for a test whose sole difference is the C
text). The exit status is 1 when any of that does not hold.
"""

import argparse
import difflib
import fnmatch
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import tomllib

CATEGORIES = {
    "exo-internal": "imports Exo's internals (LoopIR, internal cursors, effect engine)",
    "generated-c-text": "generated C differs textually; it compiles and the test's runs pass",
    "exo-unsound": "exo2 refuses on purpose: Exo's acceptance changes results",
    "exo-conservative": "exo2 accepts, proven safe, a schedule Exo refuses",
    "todo": "a known gap being worked on (diagnosis in the reason)",
    "documented": "an intended difference the docs describe (the reason says where)",
}

PASSING = {"passed"}


def load_run(path):
    data = json.loads(Path(path).read_text())
    return data["tests"], data.get("collect_errors", {})


def outcome_of(tests, collect_errors, nodeid):
    """A test's outcome; a test its file could not even collect is an error
    with the collection message."""
    if nodeid in tests:
        return tests[nodeid]
    test_file = nodeid.split("::")[0]
    for path, message in collect_errors.items():
        if path == test_file or path.endswith("/" + test_file):
            return {"outcome": "error", "message": f"collection: {message}"}
    return {"outcome": "not run", "message": ""}


def load_expected(path):
    entries = tomllib.loads(Path(path).read_text()) if Path(path).exists() else {}
    for pattern, entry in entries.items():
        if entry.get("category") not in CATEGORIES:
            raise SystemExit(
                f"{path}: '{pattern}' has category {entry.get('category')!r}; "
                f"expected one of {sorted(CATEGORIES)}"
            )
        if not entry.get("reason"):
            raise SystemExit(f"{path}: '{pattern}' has no reason")
    return entries


def match_entry(entries, nodeid):
    if nodeid in entries:
        return nodeid, entries[nodeid]
    for pattern, entry in entries.items():
        if fnmatch.fnmatchcase(nodeid, pattern):
            return pattern, entry
    return None, None


def find_entry(entries, key, detail):
    """The entry of expected_differences.toml that lists a disagreement: its
    key (a glob) matches, and its `match` (a regular expression, optional)
    is found in the disagreement's details (for a refusal, the error). The
    entry of the key itself first, then globs in the order of the file."""
    ordered = sorted(entries.items(), key=lambda item: item[0] != key)
    for pattern, entry in ordered:
        if (pattern == key or fnmatch.fnmatchcase(key, pattern)) and (
            "match" not in entry or re.search(entry["match"], detail)
        ):
            return dict(entry, key=pattern)
    return None


def text_diff(before, after, before_name="exo", after_name="exo2"):
    """The unified diff of two texts, one line of context: how the
    differential runs show a printed text that differs."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(True), after.splitlines(True),
            before_name, after_name, n=1,
        )
    )  # fmt: skip


def one_line(text, limit=160):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def print_problems(report_path, limit=40):
    """Prints the unlisted disagreements of a differential report (its
    headings marked PROBLEM), each with the first lines of what differs:
    the CI log then says what failed without the report file."""
    lines = Path(report_path).read_text().splitlines()
    shown = 0
    for k, line in enumerate(lines):
        if not (line.startswith("### ") and "PROBLEM" in line):
            continue
        if shown == limit:
            print(f"  ... and more in {report_path}")
            return
        body = [
            b for b in lines[k + 1 : k + 8] if b.strip() and not b.startswith("```")
        ]
        print(f"  {line[4:]}")
        for b in body[:2]:
            if b.startswith("### "):
                break
            print(f"    {one_line(b, 200)}")
        shown += 1


def cell(text):
    return one_line(text).replace("|", "\\|")


def compare(exo_tests, exo_errors, exo2_tests, exo2_errors, entries):
    rows = []
    used_patterns = set()
    for nodeid in sorted(exo_tests):
        exo = exo_tests[nodeid]
        exo2 = outcome_of(exo2_tests, exo2_errors, nodeid)
        pattern, entry = match_entry(entries, nodeid)
        row = {
            "test": nodeid,
            "file": nodeid.split("::")[0],
            "exo": exo["outcome"],
            "exo2": exo2["outcome"],
            "message": exo2.get("message", ""),
            "diff": exo2.get("diff", ""),
            "entry": entry,
            "status": "",
        }
        if exo["outcome"] in PASSING:
            if exo2["outcome"] in PASSING:
                row["status"] = "stale entry" if entry else "same"
            elif entry is None:
                row["status"] = "unlisted difference"
            elif (entry["category"] == "generated-c-text") != (
                exo2["outcome"] == "passed-c-text-differs"
            ):
                row["status"] = "category does not fit"
            else:
                row["status"] = "listed"
        elif exo2["outcome"] in PASSING:
            row["status"] = "exo2 only"
        else:
            row["status"] = "fails on both"
        if entry is not None:
            used_patterns.add(pattern)
        rows.append(row)
    # entries of the differential runs are checked by differential.py
    unknown = sorted(
        k for k in set(entries) - used_patterns if not k.startswith("differential:")
    )
    return rows, unknown


def write_report(rows, unknown, out):
    by_file = defaultdict(list)
    for row in rows:
        by_file[row["file"]].append(row)
    lines = ["# Exo conformance report", ""]
    total_exo = sum(r["exo"] in PASSING for r in rows)
    total_both = sum(r["exo"] in PASSING and r["exo2"] in PASSING for r in rows)
    listed = Counter(r["entry"]["category"] for r in rows if r["status"] == "listed")
    not_internal = sum(v for k, v in listed.items() if k != "exo-internal")
    problems = [
        r
        for r in rows
        if r["status"]
        in ("unlisted difference", "stale entry", "category does not fit")
    ]
    lines += [
        f"Tests: {len(rows)}; passing on Exo: {total_exo}; of those passing on "
        f"exo2: {total_both} ({100.0 * total_both / max(total_exo, 1):.1f}%).",
        "",
        "Listed differences: "
        + (", ".join(f"{k} {v}" for k, v in sorted(listed.items())) or "none")
        + f". Problems (unlisted, stale or misfiled): {len(problems)}"
        + (f"; entries matching no test: {len(unknown)}" if unknown else "")
        + ".",
        "",
        f"Listed for reasons other than exo-internal: {not_internal} "
        f"({100.0 * not_internal / max(total_exo, 1):.1f}% of the tests passing on Exo).",
        "",
        "## Per test file",
        "",
        "| file | tests | pass on Exo | pass on exo2 (of those) | listed | unlisted |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in sorted(by_file):
        group = by_file[name]
        lines.append(
            f"| {name} | {len(group)} | {sum(r['exo'] in PASSING for r in group)} | "
            f"{sum(r['exo'] in PASSING and r['exo2'] in PASSING for r in group)} | "
            f"{sum(r['status'] == 'listed' for r in group)} | "
            f"{sum(r['status'] == 'unlisted difference' for r in group)} |"
        )
    lines.append(
        f"| **all** | {len(rows)} | {total_exo} | {total_both} | {sum(listed.values())} "
        f"| {sum(r['status'] == 'unlisted difference' for r in rows)} |"
    )

    def section(title, selected, with_entry=False):
        lines.extend(["", f"## {title} ({len(selected)})", ""])
        if not selected:
            lines.append("None.")
            return
        if with_entry:
            lines.append("| test | exo2 | category | reason |")
            lines.append("|---|---|---|---|")
            for r in selected:
                lines.append(
                    f"| {r['test']} | {r['exo2']} | {r['entry']['category']} | "
                    f"{cell(r['entry']['reason'])} |"
                )
        else:
            lines.append("| test | Exo | exo2 | exo2's message |")
            lines.append("|---|---|---|---|")
            for r in selected:
                lines.append(
                    f"| {r['test']} | {r['exo']} | {r['exo2']} | {cell(r['message'])} |"
                )

    section("Problems: unlisted, stale or misfiled", problems)
    if unknown:
        lines.extend(["", "Entries matching no test: " + ", ".join(unknown)])
    section(
        "Listed differences",
        [r for r in rows if r["status"] == "listed"],
        with_entry=True,
    )
    section("Passing on exo2 only", [r for r in rows if r["status"] == "exo2 only"])
    section("Failing on both", [r for r in rows if r["status"] == "fails on both"])

    diffs = [r for r in problems if r["diff"]]
    if diffs:
        lines.extend(["", "## Printed text that differs from Exo's", ""])
        for r in diffs:
            lines.extend(
                [f"### {r['test']}", "", "```diff", r["diff"].rstrip(), "```", ""]
            )

    lines.extend(
        ["", "## Every test", "", "| test | Exo | exo2 | status |", "|---|---|---|---|"]
    )
    for r in rows:
        lines.append(f"| {r['test']} | {r['exo']} | {r['exo2']} | {r['status']} |")
    Path(out).write_text("\n".join(lines) + "\n")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exo", required=True, help="the control run's JSON")
    parser.add_argument("--exo2", required=True, help="the exo2 run's JSON")
    parser.add_argument("--expected", required=True, help="expected_differences.toml")
    parser.add_argument("--out", required=True, help="the Markdown report to write")
    parser.add_argument(
        "--subset",
        action="store_true",
        help="the runs covered a subset of the tests: entries matching none "
        "of them are not an error",
    )
    args = parser.parse_args(argv)

    exo_tests, exo_errors = load_run(args.exo)
    exo2_tests, exo2_errors = load_run(args.exo2)
    entries = load_expected(args.expected)
    rows, unknown = compare(exo_tests, exo_errors, exo2_tests, exo2_errors, entries)
    if args.subset:
        unknown = []
    problems = write_report(rows, unknown, args.out)

    passing = [r for r in rows if r["exo"] in PASSING]
    both = sum(r["exo2"] in PASSING for r in passing)
    print(
        f"conformance: {both}/{len(passing)} of the tests passing on Exo pass on exo2; "
        f"{len(problems)} problem(s)"
    )
    for r in problems:
        print(
            f"  {r['status']}: {r['test']} ({r['exo2']}: {one_line(r['message'], 120)})"
        )
    return 1 if problems or unknown else 0


if __name__ == "__main__":
    sys.exit(main())
