"""Times exo2's kernels against MKL, OpenBLAS, BLIS and NumPy.

    bash scripts/bench_setup.sh                 # installs the missing baselines
    python3 benchmarks/run.py sgemm --quick     # or dgemm, level1, halide, all

For each kernel of a suite (benchmarks/kernels/) and each case (size), every
implementation (the kernel's exo2 variants, JIT-compiled with -O3
-march=native, and each library found) first runs once on fresh inputs and
is checked against the NumPy reference; a wrong result is reported and not
timed. Then all implementations are timed on the same inputs, one thread,
interleaved repetition by repetition (so drift of a loaded machine hits all
alike): each repetition repeats calls for at least `--min-time` seconds
(one call if longer) and the per-call time of each repetition is kept. The
median is reported, with the minimum and the maximum. Once one call takes
more than `--max-call` seconds, larger cases of that implementation are
skipped (`timeout`).

Outputs, in `--out` (default benchmarks/results/): `<suite>.json` (machine,
libraries, every repetition), `<suite>.md` (GFLOP/s or GB/s from the
medians, and t_best_library / t_exo2: above 1, exo2 is faster) and
`<suite>.png` (GFLOP/s against size with the roofs; needs matplotlib).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# One thread for every library, set before NumPy loads its OpenBLAS.
os.environ.update(
    OMP_NUM_THREADS="1",
    MKL_NUM_THREADS="1",
    OPENBLAS_NUM_THREADS="1",
    BLIS_NUM_THREADS="1",
    MKL_THREADING_LAYER="SEQUENTIAL",
)

import numpy as np  # noqa: E402
from exo2.bench import calibrate, time_batch  # noqa: E402

from benchmarks import baselines, roofline  # noqa: E402
from benchmarks.kernels import SUITES, check_outputs, kernels_of  # noqa: E402

DEFAULT_OUT = ROOT / "benchmarks" / "results"


# ---- implementations --------------------------------------------------------


class Implementation:
    """One timed thing: an exo2 variant or a library."""

    def __init__(self, name, kind, prepare):
        self.name = name  # "exo2 naive", "mkl", ...
        self.kind = kind  # "exo2" or "library"
        self.prepare = prepare  # (case, inputs) -> zero-argument callable
        self.flops_limit = math.inf  # cases with at least these flops time out
        self.info = {}


class NotApplicable(Exception):
    """The implementation does not handle this case (a precondition)."""


def _exo2_implementation(variant):
    state = {}

    def prepare(case, inputs):
        if "error" in state:  # scheduling or compiling failed: once is enough
            raise state["error"]
        if "kernel" not in state:
            from exo2.jit import jit

            try:
                t0 = time.perf_counter()
                procedure = variant.make()
                t1 = time.perf_counter()
                state["kernel"] = jit(procedure)
                t2 = time.perf_counter()
            except Exception as error:
                state["error"] = error
                raise
            impl.info.update(schedule_s=t1 - t0, compile_s=t2 - t1)
        kernel = state["kernel"]
        args = variant.arguments(kernel.proc, case.sizes, inputs)
        try:
            return baselines.direct_call(kernel, args)
        except ValueError as error:
            if "precondition" in str(error):
                raise NotApplicable(str(error).split(": ", 1)[-1]) from None
            raise

    impl = Implementation(f"exo2 {variant.name}", "exo2", prepare)
    return impl


def _library_implementation(kernel, library):
    def prepare(case, inputs):
        call = kernel.baseline(library, inputs)
        if call is None:
            raise NotApplicable(f"{library.name} has no {kernel.name}")
        return call

    impl = Implementation(library.name, "library", prepare)
    impl.info.update(version=library.version, path=library.path)
    return impl


# ---- checking and timing ----------------------------------------------------


def _copy(inputs):
    return {k: v.copy() for k, v in inputs.items()}


def check(call, inputs, checks):
    """Runs `call` once on `inputs`; None if the outputs are right, else a
    message."""
    call()
    return check_outputs(checks, inputs)


# ---- one suite --------------------------------------------------------------


def _log(message):
    print(message, flush=True)


def run_kernel(kernel, cases, implementations, options):
    records = []
    for case in cases:
        seed = zlib.crc32(f"{kernel.name} {case.label}".encode())
        pristine = kernel.inputs(case.sizes, np.random.default_rng(seed))
        checks = kernel.reference(_copy(pristine))
        timed_inputs = _copy(pristine)
        active = []
        for impl in implementations:
            record = {
                "kernel": kernel.name,
                "group": case.group,
                "case": case.label,
                "x": case.x,
                "sizes": case.sizes,
                "flops": case.flops,
                "bytes": case.bytes,
                "implementation": impl.name,
                "kind": impl.kind,
                "status": "ok",
            }
            records.append(record)
            if case.flops >= impl.flops_limit:
                record["status"] = "timeout"
                continue
            try:
                inputs = _copy(pristine)
                call = impl.prepare(case, inputs)
                problem = check(call, inputs, checks)
                if problem is not None:
                    record.update(status="wrong", error=problem)
                    _log(f"  {kernel.name} {case.label} {impl.name}: WRONG: {problem}")
                    continue
                call = impl.prepare(case, timed_inputs)
                call = getattr(call, "timed", call)
                number, first = calibrate(call, options.min_time)
            except NotApplicable as reason:
                record.update(status="n/a", error=str(reason))
                continue
            except Exception as error:  # report, and go on with the others
                record.update(status="failed", error=f"{type(error).__name__}: {error}")
                _log(f"  {kernel.name} {case.label} {impl.name}: FAILED: {error}")
                continue
            record["calls_per_repeat"] = number
            if first > options.max_call:
                impl.flops_limit = case.flops * 1.0001
                record.update(times_s=[first], note="one call: over --max-call")
                continue
            repeats = options.repeats if first < 0.25 else min(options.repeats, 3)
            active.append((call, number, record, repeats))
            record["times_s"] = []
        for repeat in range(max((a[3] for a in active), default=0)):
            for call, number, record, repeats in active:
                if repeat < repeats:
                    record["times_s"].append(time_batch(call, number))
        line = []
        for record in records[-len(implementations) :]:
            if record.get("times_s"):
                times = record["times_s"]
                median = float(np.median(times))
                record.update(
                    median_s=median,
                    min_s=min(times),
                    max_s=max(times),
                    gflops=case.flops / median / 1e9,
                    gbs=case.bytes / median / 1e9,
                )
                value = record["gflops"] if kernel.metric == "gflops" else record["gbs"]
                line.append(f"{record['implementation']} {value:.3g}")
            else:
                line.append(f"{record['implementation']} {record['status']}")
        unit = "GFLOP/s" if kernel.metric == "gflops" else "GB/s"
        _log(f"  {kernel.name} {case.label} ({unit}): " + ", ".join(line))
    return records


def run_suite(suite, options, machine, libraries, missing):
    kernels, notes = kernels_of(suite)
    for note in notes:
        _log(f"note: {note}")
    if options.kernels:
        kernels = [k for k in kernels if k.name in options.kernels]
    if not kernels:
        _log(f"suite {suite}: no kernels; skipped")
        return None
    result = {
        "suite": suite,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "command": " ".join(sys.argv),
        "quick": options.quick,
        "machine": machine,
        "exo2": _exo2_info(),
        "libraries": {
            name: {"version": lib.version, "path": lib.path}
            for name, lib in libraries.items()
        },
        "missing_libraries": missing,
        "timing": {
            "min_time_s": options.min_time,
            "repeats": options.repeats,
            "max_call_s": options.max_call,
            "threads": 1,
            "statistic": "median of per-call times of the repetitions",
        },
        "notes": notes,
        "kernels": {},
        "results": [],
    }
    for kernel in kernels:
        _log(f"{suite}: {kernel.name} ({kernel.description})")
        variants = [
            v
            for name, v in kernel.variants.items()
            if not options.variants or name in options.variants
        ]
        implementations = [_exo2_implementation(v) for v in variants]
        implementations += [
            _library_implementation(kernel, lib)
            for name, lib in libraries.items()
            if (not options.libraries or name in options.libraries)
            and (kernel.libraries is None or name in kernel.libraries)
        ]
        cases = kernel.cases(options.quick, options.sizes)
        result["results"] += run_kernel(kernel, cases, implementations, options)
        result["kernels"][kernel.name] = {
            "description": kernel.description,
            "prec": kernel.prec,
            "metric": kernel.metric,
            "implementations": {i.name: i.info for i in implementations},
        }
    return result


def _exo2_info():
    from exo2.jit import DEFAULT_CFLAGS

    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {
        "commit": commit or None,
        "cflags": list(DEFAULT_CFLAGS),
        "python": platform.python_version(),
    }


# ---- reports ------------------------------------------------------------------


def _by_kernel_group(result):
    table = {}
    for record in result["results"]:
        table.setdefault((record["kernel"], record["group"]), []).append(record)
    return table


def markdown(result):
    """Tables of GFLOP/s (or GB/s) from the medians, and for each exo2
    variant t_best_library / t_variant."""
    lines = [f"# Benchmark `{result['suite']}`", ""]
    machine = result["machine"]
    peaks = machine.get("peak_gflops_measured") or {}
    lines.append(
        f"{machine.get('model')}, {machine.get('mhz')} MHz, one thread; "
        f"exo2 {result['exo2']['commit']}; {result['date']}"
        + (" (--quick)" if result["quick"] else "")
        + (
            f"; load average {machine['load_average_1min']:.2f} at the start"
            if "load_average_1min" in machine
            else ""
        )
        + "."
    )
    if peaks:
        lines.append(
            f"Measured FMA peak {peaks['f32']:.1f} (f32) / {peaks['f64']:.1f} (f64) GFLOP/s; "
            f"STREAM triad {machine['bandwidth']['triad_gbs']:.1f} GB/s."
        )
    libraries = ", ".join(
        f"{n}: {v['version']}" for n, v in result["libraries"].items()
    )
    lines.append(f"Libraries: {libraries}.")
    for name, reason in result["missing_libraries"].items():
        lines.append(f"Missing: {name} ({reason}).")
    lines.append(
        "Cells are computed from the median time of the repetitions; a ratio is "
        "t_best_library / t_exo2 (above 1: exo2 is faster), the best library named."
    )
    for (kernel, group), records in _by_kernel_group(result).items():
        info = result["kernels"][kernel]
        unit = "GFLOP/s" if info["metric"] == "gflops" else "GB/s"
        names = list(dict.fromkeys(r["implementation"] for r in records))
        exo2 = [n for n in names if n.startswith("exo2 ")]
        title = kernel if group == "default" else f"{kernel}, {group}"
        lines += ["", f"## {title}: {info['description']} ({unit})", ""]
        header = ["size", *names, *(f"{n[5:]} / best" for n in exo2)]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---:" for _ in header) + "|")
        for label in dict.fromkeys(r["case"] for r in records):
            row = {r["implementation"]: r for r in records if r["case"] == label}
            cells = [label]
            for n in names:
                r = row.get(n)
                if r is None or "median_s" not in r:
                    cells.append(r["status"] if r else "")
                else:
                    cells.append(f"{r['gflops' if unit == 'GFLOP/s' else 'gbs']:.3g}")
            libs = [
                r for r in row.values() if r["kind"] == "library" and "median_s" in r
            ]
            best = min(libs, key=lambda r: r["median_s"], default=None)
            for n in exo2:
                r = row.get(n)
                if best is None or r is None or "median_s" not in r:
                    cells.append("")
                else:
                    cells.append(
                        f"{best['median_s'] / r['median_s']:.3g} ({best['implementation']})"
                    )
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(result, path):
    """GFLOP/s against size, one panel per kernel and shape group, with the
    peak and the bandwidth roof. Returns False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    machine = result["machine"]
    panels = _by_kernel_group(result)
    columns = 2 if len(panels) > 1 else 1
    rows = math.ceil(len(panels) / columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(6.5 * columns, 4.2 * rows), squeeze=False
    )
    for axis in axes.flat[len(panels) :]:
        axis.set_visible(False)
    for axis, ((kernel, group), records) in zip(
        axes.flat, panels.items(), strict=False
    ):
        prec = result["kernels"][kernel]["prec"]
        names = list(dict.fromkeys(r["implementation"] for r in records))
        for name in names:
            points = sorted(
                (
                    r["x"],
                    r["gflops"],
                    r["flops"] / r["max_s"] / 1e9,
                    r["flops"] / r["min_s"] / 1e9,
                )
                for r in records
                if r["implementation"] == name and "median_s" in r
            )
            if not points:
                continue
            x, y, low, high = zip(*points, strict=True)
            style = "-o" if name.startswith("exo2") else "--s"
            line = axis.plot(x, y, style, label=name, markersize=3.5)[0]
            axis.fill_between(x, low, high, color=line.get_color(), alpha=0.15)
        cases = sorted({(r["x"], r["flops"], r["bytes"]) for r in records})
        xs = [c[0] for c in cases]
        axis.plot(
            xs,
            [roofline.roof(machine, prec, f, b) for _, f, b in cases],
            "k:",
            label="roof (peak, triad BW)",
        )
        theoretical = (machine.get("peak_gflops_theoretical") or {}).get(prec)
        if theoretical:
            axis.axhline(
                theoretical, color="grey", linewidth=0.8, label="theoretical peak"
            )
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        xlabel = (
            "n" if group in ("default", "square") else f"{group[-1]} (others fixed)"
        )
        axis.set_xlabel(xlabel)
        axis.set_ylabel("GFLOP/s")
        axis.set_title(kernel if group == "default" else f"{kernel} ({group})")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    figure.suptitle(
        f"{result['suite']}: {machine.get('model')}, one thread"
        + (" (--quick)" if result["quick"] else ""),
    )
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


# ---- command line -------------------------------------------------------------


def _names(text):
    return [t for t in text.split(",") if t] if text else None


def _sizes(text):
    return [int(t) for t in text.split(",") if t] if text else None


def parse_arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="+", choices=[*SUITES, "all"])
    parser.add_argument(
        "--quick", action="store_true", help="smaller maximum sizes, shorter timing"
    )
    parser.add_argument(
        "--sizes",
        type=_sizes,
        help="comma-separated sizes (n) replacing the suite's cases",
    )
    parser.add_argument(
        "--kernels", type=_names, help="only these kernels (e.g. saxpy,sdot)"
    )
    parser.add_argument(
        "--variants", type=_names, help="only these exo2 variants (e.g. naive)"
    )
    parser.add_argument(
        "--libraries",
        type=_names,
        help="only these libraries (mkl,openblas,blis,numpy)",
    )
    parser.add_argument(
        "--repeats", type=int, help="repetitions per case (default 5, 3 with --quick)"
    )
    parser.add_argument(
        "--min-time",
        type=float,
        help="seconds per repetition (default 0.02, 0.01 with --quick)",
    )
    parser.add_argument(
        "--max-call",
        type=float,
        help="seconds of one call above which larger cases are skipped (default 5, 2 with --quick)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="output directory"
    )
    parser.add_argument("--no-plot", action="store_true")
    options = parser.parse_args(argv)
    defaults = (3, 0.01, 2.0) if options.quick else (5, 0.02, 5.0)
    for key, default in zip(("repeats", "min_time", "max_call"), defaults, strict=True):
        if getattr(options, key) is None:
            setattr(options, key, default)
    if "all" in options.suites:
        options.suites = list(SUITES)
    return options


def main(argv=None):
    options = parse_arguments(argv)
    libraries, missing = baselines.libraries()
    if options.libraries:
        missing = {n: r for n, r in missing.items() if n in options.libraries}
    for name, reason in missing.items():
        _log(f"note: baseline {name} skipped: {reason}")
    _log("measuring the machine (FMA peak, STREAM bandwidth) ...")
    machine = roofline.machine_info(quick=options.quick)
    load = machine.get("load_average_1min")
    if load is not None and load > 0.5:
        _log(
            f"warning: load average {load:.2f}: other jobs are running, timings will be noisy"
        )
    peaks = (
        machine.get("peak_gflops_measured")
        or machine.get("peak_gflops_theoretical")
        or {}
    )
    _log(
        "  peak f32 {:.1f} / f64 {:.1f} GFLOP/s, triad {:.1f} GB/s".format(
            peaks.get("f32", float("nan")),
            peaks.get("f64", float("nan")),
            machine["bandwidth"]["triad_gbs"],
        )
    )
    options.out.mkdir(parents=True, exist_ok=True)
    for suite in options.suites:
        result = run_suite(suite, options, machine, libraries, missing)
        if result is None:
            continue
        json_path = options.out / f"{suite}.json"
        json_path.write_text(json.dumps(result, indent=1) + "\n")
        md_path = options.out / f"{suite}.md"
        md_path.write_text(markdown(result))
        written = [json_path, md_path]
        if not options.no_plot:
            png_path = options.out / f"{suite}.png"
            if plot(result, png_path):
                written.append(png_path)
            else:
                _log("note: matplotlib not installed; no plot")
        _log("wrote " + ", ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
