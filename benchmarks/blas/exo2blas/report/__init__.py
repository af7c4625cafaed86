"""`python -m exo2blas.report RESULTS_DIR`: report.md and figures/ of a
run, from its JSON files alone (results.json, machine.json,
regenerate_times.json, loc.json). Figures need matplotlib; without it the
report says so and lists no figures.

report.md holds the machine, the libraries, the targets judged on this
run (P1 and P2: per size bin, the geo-mean over variants of
t_baseline / t_exo2 >= 1.0 against MKL and against the fastest baseline;
P6: no cell below 0.8; P3: the DRAM bandwidth reached beyond the caches,
report/bandwidth.py; C1: levels 1 and 2 of one ISA generated cold with two
jobs within 10 s, no kernel over 5 s of CPU), the libraries left out of
a variant's ratios for inaccurate results (exo2blas/accuracy.py), the
table per kernel family and size bin, the statuses other than ok, the
cases the budget dropped, the schedule sizes and links to every figure.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from .bandwidth import TARGET, dram_fractions
from .figures import BASELINES, geomean, heatmap, ratios, row_label, variant_plot


def _load(path):
    return json.loads(path.read_text()) if path.exists() else None


def _family(variant):
    """sgemv_t -> gemv; sgemv_t_skinny -> gemv (skinny); isamax -> iamax;
    dsdot stays."""
    if variant.endswith("_skinny"):
        return _family(variant.removesuffix("_skinny")) + " (skinny)"
    base = variant.split("_")[0]
    if base in ("dsdot", "sdsdot"):
        return base
    return "iamax" if base.endswith("amax") else base[1:]


def _figures(out, records, machine, lines):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        lines.append("Figures: not drawn (matplotlib is not installed).\n")
        return {}
    directory = out / "figures"
    directory.mkdir(exist_ok=True)
    tables = {}
    for level in (1, 2, 3):
        for baseline in (*BASELINES, "fastest"):
            table = ratios(records, baseline, level)
            tables[(level, baseline)] = table
            path = directory / f"heatmap_level{level}_{baseline}_warm.png"
            title = f"level {level}: t_{baseline} / t_exo2, 1 thread, warm ({machine.get('isa')})"
            if heatmap(table, title, path):
                lines.append(
                    f"- [heatmap level {level} vs {baseline}](figures/{path.name})"
                )
    variants = sorted({row_label(r) for r in records if r.get("status") == "ok"})
    plotted = []
    for variant in variants:
        path = directory / f"{variant}.png"
        if variant_plot(records, variant, machine, path):
            plotted.append(f"[{variant}](figures/{path.name})")
    if plotted:
        lines.append("\nPer-variant plots: " + ", ".join(plotted) + "\n")
    return tables


def _family_table(records, lines):
    """Per kernel family and size bin: geo-mean ratio to MKL and to the
    fastest baseline."""
    rows = defaultdict(lambda: defaultdict(lambda: {"mkl": [], "fastest": []}))
    for baseline in ("mkl", "fastest"):
        for level in (1, 2, 3):
            for variant, cells in ratios(records, baseline, level).items():
                for b, value in cells.items():
                    rows[(level, _family(variant))][b][baseline].append(value)
    if not rows:
        lines.append("No benchmark results.\n")
        return
    bins = sorted({b for cells in rows.values() for b in cells})
    lines.append("| level | kernel | " + " | ".join(f"4^{b}" for b in bins) + " |")
    lines.append("|---|---|" + "---|" * len(bins))
    for (level, family), cells in sorted(rows.items()):
        out = []
        for b in bins:
            mkl, fast = (
                geomean(cells[b][k]) if b in cells else None for k in ("mkl", "fastest")
            )
            out.append(
                "" if mkl is None and fast is None
                else f"{mkl:.2f} / {fast:.2f}" if mkl and fast
                else f"- / {fast:.2f}" if fast else f"{mkl:.2f} / -"
            )  # fmt: skip
        lines.append(f"| {level} | {family} | " + " | ".join(out) + " |")
    lines.append(
        "\nCells: t_MKL / t_exo2 and t_fastest / t_exo2, geo-means over the family's variants and the bin's sizes (above 1: exo2 faster).\n"
    )


def _bandwidth(fractions, lines):
    """P3's row of the targets: every memory-bound family at its large
    sizes within 90% of the DRAM bandwidth."""
    if not fractions:
        lines.append(
            "| P3 (DRAM bandwidth) | not measured (no probe or no case beyond the caches) |"
        )
        return
    worst = min(fractions.items(), key=lambda kv: kv[1][0])
    (level, kernel), (ours, _, _) = worst
    passed = ours >= TARGET
    lines.append(
        f"| P3 (DRAM bandwidth) | {'pass' if passed else 'FAIL'}: worst family {kernel} "
        f"(level {level}) at {ours:.0%} of the probe's DRAM bandwidth for its mix, "
        f"against {TARGET:.0%}; table below |"
    )


def _bandwidth_table(fractions, lines):
    lines.append("## DRAM bandwidth at large sizes (P3)\n")
    lines.append(
        "Cases whose traffic exceeds the last cache: achieved bandwidth (bytes / median) "
        "over the probe's DRAM bandwidth for the kernel's mix (read; triad where it "
        "writes a stream as long as one it reads), geo-mean over the family's cases.\n"
    )
    lines.append("| level | kernel | cases | exo2blas | fastest baseline |")
    lines.append("|---|---|---|---|---|")
    for (level, kernel), (ours, fastest, count) in sorted(fractions.items()):
        theirs = f"{fastest:.0%}" if fastest else "-"
        lines.append(f"| {level} | {kernel} | {count} | {ours:.0%} | {theirs} |")
    lines.append("")


def _targets(tables, fractions, regenerate, lines):
    lines.append("| target | result |")
    lines.append("|---|---|")
    for name, level in (
        ("P1 (level 1)", 1),
        ("P2 (level 2)", 2),
        ("P4, P5 (level 3)", 3),
    ):
        for baseline in ("mkl", "fastest"):
            table = tables.get((level, baseline)) or {}
            if not table:
                lines.append(f"| {name} vs {baseline} | not measured |")
                continue
            bins = sorted({b for cells in table.values() for b in cells})
            means = {
                b: geomean([cells.get(b) for cells in table.values()]) for b in bins
            }
            worst = min(v for cells in table.values() for v in cells.values() if v)
            passed = all(m and m >= 1.0 for m in means.values())
            shown = ", ".join(f"4^{b}: {m:.2f}" for b, m in means.items() if m)
            lines.append(
                f"| {name} vs {baseline} | {'pass' if passed else 'FAIL'} ({shown}); "
                f"P6 worst cell {worst:.2f} ({'pass' if worst >= 0.8 else 'FAIL'}) |"
            )
    _bandwidth(fractions, lines)
    if regenerate:
        for isa, kernels in regenerate.get("kernels", {}).items():
            # cold: the new process's start-up and imports count too
            startup = regenerate.get("startup_s")
            wall = regenerate["wall_s"] + (startup or 0.0)
            startup_text = (
                "its start-up and imports not recorded"
                if startup is None
                else f"{startup:.2f} s of it starting Python, importing exo2 "
                "and loading the kernels"
            )
            cpu = sum(k["cpu_s"] for k in kernels.values())
            cpu += sum(
                e["cpu_s"] for e in regenerate.get("emit", {}).get(isa, {}).values()
            )
            name, slowest = max(kernels.items(), key=lambda kv: kv[1]["cpu_s"])
            lines.append(
                f"| C1 ({isa}) | levels 1 and 2 generated cold with {regenerate['jobs']} "
                f"jobs: wall {wall:.2f} s ({'pass' if wall <= 10 else 'FAIL'} against "
                f"10 s; {startup_text}), "
                f"CPU {cpu:.2f} s; slowest kernel {name} {slowest['cpu_s']:.2f} s "
                f"CPU ({'pass' if slowest['cpu_s'] <= 5 else 'FAIL'} against 5 s), "
                f"{slowest['schedule_s']:.2f} s wall; load average "
                f"{regenerate['load_average'][0]:.2f} |"
            )
    else:
        lines.append("| C1 | not measured (no regenerate_times.json) |")
    lines.append("")


def write_report(out):
    out = Path(out)
    data = _load(out / "results.json") or {"summary": {}, "records": []}
    machine = _load(out / "machine.json") or {}
    regenerate = _load(out / "regenerate_times.json")
    loc = _load(out / "loc.json")
    records, summary = data["records"], data["summary"]
    lines = [f"# exo2blas benchmark report ({summary.get('profile', '?')} profile)\n"]
    lines.append(
        f"Machine: {machine.get('model')} ({machine.get('host')}), {machine.get('cores')} "
        f"cores, ISA {machine.get('isa')}; load average at start "
        f"{machine.get('load_average')}; compiler {machine.get('compiler')}; exo2 commit "
        f"{machine.get('exo2_commit')}.\n"
    )
    if machine.get("probe_missing"):
        lines.append(f"Probe: {machine['probe_missing']}.\n")
    libs = summary.get("libraries", {})
    lines.append("Libraries: " + ", ".join(f"{k} ({v})" for k, v in libs.items()) + ".")
    for name, kernels in summary.get("dispatch", {}).items():
        lines.append(f"- {name}: {kernels} picked at run time on this CPU")
    for name, why in summary.get("unavailable", {}).items():
        lines.append(
            f"- {name}: unavailable, {why}; MKL targets are judged against the fastest baseline."
        )
    for name, checks in summary.get("drift", {}).items():
        times = [median for _, median in checks]
        lines.append(
            f"- drift sentinel {name}: {len(times)} checks over {checks[-1][0] / 60:.0f} min, "
            f"slowest / fastest {max(times) / min(times):.2f}"
        )
    for miss in summary.get("inaccurate", []):
        lines.append(
            f"- {miss['library']} {miss['variant']}: inaccurate, left out of every ratio "
            f"(its result misses the routine's error bound, {miss['detail']})"
        )
    failures = summary.get("correctness_failures")
    lines.append(
        f"\nCorrectness: {'not run' if failures is None else 'passed' if not failures else 'FAILED: ' + ', '.join(failures)}.\n"
    )
    lines.append("## Targets\n")
    figure_lines = []
    tables = _figures(out, records, machine, figure_lines)
    fractions = dram_fractions(records, machine)
    _targets(tables, fractions, regenerate, lines)
    lines.append("## Per kernel family and size bin\n")
    _family_table(records, lines)
    if fractions:
        _bandwidth_table(fractions, lines)
    statuses = defaultdict(list)
    for r in records:
        if r.get("status") not in ("ok", "unavailable", "inaccurate"):
            statuses[r["status"]].append(
                f"{r['library']} {r['variant']} {r['sizes']} {r.get('detail', '')}".strip()
            )
    if statuses:
        lines.append("## Cases not timed\n")
        for status, which in sorted(statuses.items()):
            lines.append(
                f"- {status} ({len(which)}): "
                + "; ".join(which[:20])
                + (" ..." if len(which) > 20 else "")
            )
        lines.append("")
    if summary.get("dropped"):
        lines.append(f"## Dropped by the budget ({len(summary['dropped'])} cases)\n")
        lines.append(", ".join(summary["dropped"][:200]) + "\n")
    if loc:
        lines.append("## Schedule sizes (loc.json)\n")
        lines.append("| level | algorithm | variants | schedule |")
        lines.append("|---|---|---|---|")
        for level, c in sorted(loc["levels"].items()):
            lines.append(
                f"| {level} | {c['algorithm']} | {c['variants']} | {c['schedule']} |"
            )
        lines.append(
            f"\nScheduling library (sched + machines): {loc['library']} lines; "
            f"variant expansion (variants): {loc.get('variants', '-')} lines.\n"
        )
    lines.append("## Figures\n")
    lines.extend(figure_lines)
    (out / "report.md").write_text("\n".join(lines) + "\n")
    return out / "report.md"
