"""Differential runs (docs/internals/conformance.md): each program of
`differential_programs.toml` runs on exo2 and, through the import alias
`exo2` -> `exo`, on Exo; their traces (differential_trace.py) are compared
step by step: acceptance of each kernel and scheduling operation, the
printed procedures, and the results of running them on the same inputs.

    python differential.py --exo-python VENV/bin/python \\
        --programs differential_programs.toml \\
        --expected expected_differences.toml --out DIR

A disagreement is listed in `expected_differences.toml` under the key
`differential:<program>:<file>:<line>` (the step's call site) with a
category, a reason and optionally `match`, a regular expression the
differences must contain; or it is a problem: the exit status is then 1.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from differential_c import same_outputs  # noqa: E402
from report import find_entry, load_expected, print_problems, text_diff  # noqa: E402


def trace(python, side, program, spec, out):
    command = [python, str(HERE / "differential_trace.py"), "--side", side]
    command += ["--out", str(out), "--sizes", json.dumps(spec.get("sizes", {}))]
    for name in spec.get("call", []):
        command += ["--call", name]
    command.append(str(ROOT / program))
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if not out.exists():
        raise SystemExit(
            f"differential: the {side} run of {program} failed:\n{result.stderr}"
        )
    return json.loads(out.read_text())


def same_results(a, b, tolerance=1e-3):
    if isinstance(a, str) and isinstance(b, str):
        # neither side could run the procedure here (a step whose vectors
        # C cannot hold yet, or instructions this CPU lacks): nothing to
        # compare; the messages name each side's own temporary files
        return a.startswith("cannot run") and b.startswith("cannot run")
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a == b
    return same_outputs(a, b, tolerance)


def compare(exo, exo2):
    """One row per step: where, what, and how the two sides differ."""
    rows = []
    for k in range(max(len(exo["events"]), len(exo2["events"]))):
        a = exo["events"][k] if k < len(exo["events"]) else None
        b = exo2["events"][k] if k < len(exo2["events"]) else None
        step = b or a
        row = {"site": step["site"], "name": step["name"], "differences": []}
        if a is None or b is None or (a["site"], a["name"]) != (b["site"], b["name"]):
            row["differences"].append(
                "the sides ran different steps here (Exo: "
                f"{a and a['name']} at {a and a['site']}, exo2: "
                f"{b and b['name']} at {b and b['site']})"
            )
            rows.append(row)
            break
        if a["outcome"] != b["outcome"]:
            row["differences"].append(
                f"acceptance: Exo {a['outcome']} ({a['text'][:200] if a['outcome'] == 'error' else 'ok'}), "
                f"exo2 {b['outcome']} ({b['text'][:200] if b['outcome'] == 'error' else 'ok'})"
            )
        elif a["outcome"] == "ok" and a["text"] != b["text"]:
            row["differences"].append(
                "printed text differs:\n" + text_diff(a["text"], b["text"])
            )
        if a["outcome"] == b["outcome"] == "ok" and not same_results(
            a.get("results"), b.get("results")
        ):
            row["differences"].append("results differ on the same inputs")
        row["results"] = (
            "equal"
            if isinstance(b.get("results"), list)
            and same_results(a.get("results"), b.get("results"))
            else "not run"
        )
        rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exo-python", required=True)
    parser.add_argument("--exo2-python", default=sys.executable)
    parser.add_argument("--programs", default=str(HERE / "differential_programs.toml"))
    parser.add_argument("--expected", default=str(HERE / "expected_differences.toml"))
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    programs = tomllib.loads(Path(args.programs).read_text())
    entries = load_expected(args.expected)
    lines = ["# Differential runs: exo2's programs on Exo and on exo2", ""]
    lines += [
        "| program | steps | same acceptance | same text | results compared equal | problems |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    details, problems = [], 0
    for program, spec in programs.items():
        stem = program.replace("/", "_")
        exo = trace(args.exo_python, "exo", program, spec, out / f"{stem}.exo.json")
        exo2 = trace(args.exo2_python, "exo2", program, spec, out / f"{stem}.exo2.json")
        inexpressible = exo["status"].startswith("stopped: ImportError")
        if inexpressible:
            # Exo lacks an exo2 extension the program uses: compare the steps
            # Exo could run, then stop.
            exo2 = dict(exo2, events=exo2["events"][: len(exo["events"])])
        rows = compare(exo, exo2)
        program_problems = 0
        for row in rows:
            if not row["differences"]:
                continue
            key = f"differential:{program}:{row['site']}"
            entry = find_entry(entries, key, "\n".join(row["differences"]))
            status = (
                f"listed ({entry['category']}: {entry['reason']})"
                if entry
                else "PROBLEM"
            )
            program_problems += entry is None
            details.append(f"### {key} ({row['name']}): {status}\n")
            for d in row["differences"]:
                details.append("```text\n" + d.rstrip() + "\n```\n")
        problems += program_problems
        same_acceptance = sum(
            not any(d.startswith(("acceptance", "the sides")) for d in r["differences"])
            for r in rows
        )
        same_text = sum(not r["differences"] for r in rows)
        equal = sum(r.get("results") == "equal" for r in rows)
        lines.append(
            f"| {program} | {len(rows)} | {same_acceptance} | {same_text} | {equal} "
            f"| {program_problems} |"
        )
        if inexpressible:
            details.append(
                f"{program}: not expressible in Exo (its run {exo['status']}); "
                f"compared the {len(rows)} step(s) before that\n"
            )
        for side, run in (("Exo", exo), ("exo2", exo2)):
            if run["status"] != "completed" and not (inexpressible and side == "Exo"):
                details.append(f"{program}: the {side} run {run['status']}\n")
    report = "\n".join(lines + ["", "## Disagreements", ""] + (details or ["None."]))
    (out / "differential.md").write_text(report + "\n")
    print(
        f"differential: {len(programs)} program(s), {problems} unlisted disagreement(s)"
    )
    print_problems(out / "differential.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
