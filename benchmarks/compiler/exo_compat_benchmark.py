"""exo2 against Exo 1.0 on the programs of examples/exo_compat/ (written
against Exo's API, so both compilers run them unchanged): how long each
program's schedule takes on each compiler, and how fast the kernel each
compiler generates from it runs.

    python3 benchmarks/compiler/exo_compat_benchmark.py \\
        [--exo-python ~/.cache/exo2-conformance/venv-exo-1.0.0/bin/python] \\
        [--programs conv,blas_axpy] [--repeats 10] [--quick] [--out FILE]

Each compiler runs in a process of its own: exo2 with this Python, Exo with
the Exo virtual environment's Python through the import alias `exo2` ->
`exo` (tests/conformance/exo_alias.py; the conformance run makes that
environment, docs/internals/conformance.md). In each, the program's
schedule function runs once (the first, cold, run: caches empty) and then
`--repeats` more times, whose median is the warm time; the process then
writes the scheduled procedure's C. This process compiles both C files with
the same flags (`--cflags`, default `-O3 -march=native`), runs both kernels
on the same random inputs, checks that their outputs agree, and times them
alternately (median of `--kernel-repeats` repetitions, each repeating calls
for at least `--min-time` seconds). Prints a Markdown table and writes JSON
to benchmarks/results/exo_compat_benchmark.json.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "exo_compat"
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_EXO_PYTHON = Path.home() / ".cache/exo2-conformance/venv-exo-1.0.0/bin/python"
sys.path.insert(0, str(ROOT / "tests" / "conformance"))
# shared with the differential runs: dtypes, shapes, compiling C
from differential_c import DTYPES, cc_library, shape_value  # noqa: E402

# name: (program file, schedule function, sizes of the timed run, the
# sizes of --quick, CPU flags the kernel needs)
PROGRAMS = {
    "conv": (
        "conv.py",
        "schedule_conv",
        dict(H=32, W=32, IC=64),
        dict(H=4, W=8, IC=8),
        {"avx2", "fma"},
    ),
    "blur": ("blur.py", "schedule_blur", dict(W=512, H=512), dict(W=64, H=32), set()),
    "sgemm_avx512": (
        "sgemm_avx512.py",
        "schedule_sgemm",
        dict(K=512),
        dict(K=37),
        {"avx512f"},
    ),
    "unsharp": (
        "unsharp.py",
        "schedule_unsharp",
        dict(W=512, H=512),
        dict(W=13, H=7),
        set(),
    ),
    "blas_axpy": (
        "blas_library/blas_kernels.py",
        "schedule_axpy",
        dict(n=1 << 16),
        dict(n=37),
        {"avx2", "fma"},
    ),
    "blas_scal": (
        "blas_library/blas_kernels.py",
        "schedule_scal",
        dict(n=1 << 16),
        dict(n=37),
        {"avx2"},
    ),
    "blas_dot": (
        "blas_library/blas_kernels.py",
        "schedule_dot",
        dict(n=1 << 16),
        dict(n=37),
        {"avx2", "fma"},
    ),
    "blas_gemv": (
        "blas_library/blas_kernels.py",
        "schedule_gemv",
        dict(m=512, n=512),
        dict(m=7, n=37),
        {"avx2", "fma"},
    ),
}

# --------------------------------------------------------------------------- #
# The worker: one compiler, one program


def signature(p, sizes):
    """The arguments of `p`: sizes (with their value), scalars and arrays
    (dtype, shape)."""
    args = []
    for arg in p.args():
        kind = arg.type().name
        if kind in ("Size", "Index", "Int"):
            args.append(
                {"name": arg.name(), "kind": "size", "value": sizes[arg.name()]}
            )
        elif arg.is_tensor():
            shape = [shape_value(d, sizes) for d in arg.shape()]
            args.append(
                {
                    "name": arg.name(),
                    "kind": "array",
                    "dtype": DTYPES[kind],
                    "shape": shape,
                }
            )
        else:
            args.append(
                {
                    "name": arg.name(),
                    "kind": "scalar",
                    "dtype": DTYPES[kind],
                    "shape": [1],
                }
            )
    return args


def worker(args):
    if args.side == "exo":
        import exo_alias

        exo_alias.install("exo2", "exo")
    import exo2

    file, function, sizes, quick_sizes, _ = PROGRAMS[args.program]
    sizes = quick_sizes if args.quick else sizes
    program = EXAMPLES / file
    sys.path.insert(0, str(program.parent))
    import runpy

    namespace = runpy.run_path(str(program), run_name="exo_compat_benchmark")
    schedule = namespace[function]
    times, cpu_times = [], []
    for _ in range(1 + args.repeats):
        gc.collect()  # untimed: each run starts without the last one's garbage
        start, cpu_start = time.perf_counter(), time.process_time()
        p = schedule()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    out = Path(args.out)
    exo2.compile_procs([p], out.parent, out.name, out.stem + ".h")
    json.dump(
        {
            "side": args.side,
            "program": args.program,
            "proc": p.name(),
            "cold_s": times[0],
            "warm_s": times[1:],
            "cold_cpu_s": cpu_times[0],
            "warm_cpu_s": cpu_times[1:],
            "signature": signature(p, sizes),
        },
        sys.stdout,
    )


# --------------------------------------------------------------------------- #
# The driver


def run_worker(python, side, program, workdir, repeats, quick):
    c_file = workdir / f"{program}_{side}.c"
    command = [python, str(Path(__file__).resolve()), "--worker", "--side", side]
    command += ["--program", program, "--repeats", str(repeats), "--out", str(c_file)]
    command += ["--quick"] if quick else []
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(
            f"the {side} run of {program} failed:\n{result.stderr[-3000:]}"
        )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    report["c_file"] = str(c_file)
    return report


def build(c_file, cflags):
    return cc_library(c_file, Path(c_file).with_suffix(".so"), cflags)


def make_inputs(sig, seed, timing):
    """NumPy arrays for the arguments (scalars are 1-element arrays, passed
    by pointer). For timing, scalars are 1.0: a kernel called thousands of
    times on its own output (x = a x) then neither overflows nor reaches
    denormal numbers, which would time the FPU's slow path."""
    import numpy as np

    rng = np.random.default_rng(seed)
    values = {}
    for a in sig:
        if a["kind"] == "size":
            continue
        if a["kind"] == "scalar" and timing:
            values[a["name"]] = np.ones(1, dtype=a["dtype"])
        else:
            values[a["name"]] = rng.uniform(-1, 1, size=a["shape"]).astype(a["dtype"])
    return values


def call_args(sig, values):
    out = [ctypes.c_void_p(None)]  # the context argument
    for a in sig:
        if a["kind"] == "size":
            out.append(ctypes.c_long(a["value"]))
        else:
            out.append(ctypes.c_void_p(values[a["name"]].ctypes.data))
    return out


def time_kernels(functions, sig, repeats, min_time):
    """Median seconds per call of each function, timed alternately."""
    values = [make_inputs(sig, 1, timing=True) for _ in functions]
    argss = [call_args(sig, v) for v, _ in zip(values, functions, strict=True)]
    for f, a in zip(functions, argss, strict=True):
        f(*a)
    number = 1
    while True:  # calls per repetition: at least min_time on the first
        start = time.perf_counter()
        for _ in range(number):
            functions[0](*argss[0])
        if time.perf_counter() - start >= min_time:
            break
        number *= 2
    samples = [[] for _ in functions]
    for _ in range(repeats):
        for k, (f, a) in enumerate(zip(functions, argss, strict=True)):
            start = time.perf_counter()
            for _ in range(number):
                f(*a)
            samples[k].append((time.perf_counter() - start) / number)
    return [statistics.median(s) for s in samples], number


def check_outputs(functions, sig):
    """Both kernels on copies of the same random inputs: the largest
    difference of any output element, relative to its magnitude."""
    import numpy as np

    runs = []
    for f in functions:
        values = make_inputs(sig, 0, timing=False)
        f(*call_args(sig, values))
        runs.append(values)
    worst = 0.0
    for name in runs[0]:
        a, b = runs[0][name].astype("float64"), runs[1][name].astype("float64")
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        worst = max(worst, float(np.max(np.abs(a - b) / scale)))
    return worst


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            return set(f.read().split())
    except OSError:
        return set()


def cpu_name():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def same_c(exo_c, exo2_c):
    """Whether the two generated C files are the same text but for the
    names of their own files (the header each includes, its guard)."""
    texts = []
    for path in (exo_c, exo2_c):
        stem = Path(path).stem
        texts.append(Path(path).read_text().replace(stem, "KERNEL"))
    return texts[0] == texts[1]


def bench_program(name, args, workdir):
    record = {"program": name}
    sides = {}
    for side, python in (("exo", args.exo_python), ("exo2", sys.executable)):
        sides[side] = run_worker(python, side, name, workdir, args.repeats, args.quick)
    for side, r in sides.items():
        record[side] = {"proc": r["proc"]}
        for clock in ("", "cpu_"):
            cold, warm = r[f"cold_{clock}s"], r[f"warm_{clock}s"]
            record[side][f"schedule_cold_{clock}s"] = cold
            record[side][f"schedule_warm_{clock}s"] = warm
            median = statistics.median(warm) if warm else cold
            record[side][f"schedule_median_{clock}s"] = median
    for clock in ("", "cpu_"):
        key = f"schedule_median_{clock}s"
        record[f"schedule_{clock}speedup"] = record["exo"][key] / record["exo2"][key]
    record["schedule_cold_speedup"] = (
        record["exo"]["schedule_cold_s"] / record["exo2"]["schedule_cold_s"]
    )
    record["same_c"] = same_c(sides["exo"]["c_file"], sides["exo2"]["c_file"])
    sig = sides["exo2"]["signature"]
    if sides["exo"]["signature"] != sig:
        record["kernel"] = "n/a: the two procedures' signatures differ"
        return record
    missing = PROGRAMS[name][4] - cpu_flags()
    if missing:
        record["kernel"] = f"n/a: this CPU lacks {', '.join(sorted(missing))}"
        return record
    functions = []
    for side in ("exo", "exo2"):
        library = build(sides[side]["c_file"], args.cflags)
        functions.append(getattr(library, sides[side]["proc"]))
    worst = check_outputs(functions, sig)
    medians, number = time_kernels(functions, sig, args.kernel_repeats, args.min_time)
    record["kernel"] = {
        "exo_s": medians[0],
        "exo2_s": medians[1],
        "exo2_over_exo": medians[1] / medians[0],
        "calls_per_repetition": number,
        "max_relative_difference": worst,
        "outputs_agree": worst <= 1e-4,
    }
    return record


def table(records):
    lines = [
        "| program | Exo scheduling (s) | exo2 scheduling (s) | speed-up "
        "| speed-up, CPU time | cold: Exo / exo2 (s) | Exo kernel | exo2 kernel "
        "| exo2 / Exo | same C |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in records:
        if "error" in r:
            cells = [r["program"], f"failed: {r['error'][:120]}"] + [""] * 8
            lines.append("| " + " | ".join(cells) + " |")
            continue
        e, x, k = r["exo"], r["exo2"], r["kernel"]
        cells = [
            r["program"],
            f"{e['schedule_median_s']:.4f}",
            f"{x['schedule_median_s']:.4f}",
            f"{r['schedule_speedup']:.0f}x",
            f"{r['schedule_cpu_speedup']:.0f}x",
            f"{e['schedule_cold_s']:.3f} / {x['schedule_cold_s']:.3f}",
        ]
        if isinstance(k, str):
            cells += [k, "", ""]
        else:
            agree = "" if k["outputs_agree"] else " (outputs differ!)"
            cells += [
                _us(k["exo_s"]),
                _us(k["exo2_s"]),
                f"{k['exo2_over_exo']:.2f}{agree}",
            ]
        cells.append("yes" if r["same_c"] else "no")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _us(seconds):
    return f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exo-python", default=str(DEFAULT_EXO_PYTHON))
    parser.add_argument(
        "--programs",
        default=",".join(PROGRAMS),
        help="comma-separated, of: " + ", ".join(PROGRAMS),
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=10,
        help="warm scheduling runs after the cold one",
    )
    parser.add_argument("--kernel-repeats", type=int, default=9)
    parser.add_argument(
        "--min-time", type=float, default=0.05, help="seconds per kernel repetition"
    )
    parser.add_argument("--cflags", default="-O3 -march=native")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes, 1 warm run, short kernel timing",
    )
    parser.add_argument("--out", default=str(RESULTS / "exo_compat_benchmark.json"))
    parser.add_argument("--keep-c", help="a folder to keep both sides' generated C in")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--side", choices=["exo", "exo2"], help=argparse.SUPPRESS)
    parser.add_argument("--program", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    if args.quick:
        args.repeats, args.kernel_repeats, args.min_time = 1, 3, 0.002
    args.cflags = shlex.split(args.cflags)
    if not Path(args.exo_python).exists():
        raise SystemExit(
            f"exo_compat_benchmark: no Exo Python at {args.exo_python} (run scripts/conformance.sh once, or pass --exo-python)"
        )
    names = [n for n in args.programs.split(",") if n]
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        raise SystemExit(
            f"exo_compat_benchmark: unknown program(s) {unknown}; known: {list(PROGRAMS)}"
        )
    records = []
    with tempfile.TemporaryDirectory(prefix="exo-compat-bench-") as tmp:
        workdir = Path(args.keep_c or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        for name in names:
            try:
                records.append(bench_program(name, args, workdir))
            except (RuntimeError, subprocess.CalledProcessError) as e:
                detail = getattr(e, "stderr", None) or str(e)
                records.append({"program": name, "error": str(detail).strip()})
            print(f"{name}: done", file=sys.stderr)
    print(table(records))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    exo_version = subprocess.run(
        [
            args.exo_python,
            "-c",
            "import importlib.metadata as m; print(m.version('exo-lang'))",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    out.write_text(
        json.dumps(
            {
                "cpu": cpu_name(),
                "cpus": os.cpu_count(),
                "load_average": os.getloadavg(),
                "exo_version": exo_version,
                "exo2_commit": subprocess.run(
                    ["git", "rev-parse", "--short", "HEAD"],
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                ).stdout.strip(),
                "cflags": args.cflags,
                "repeats": args.repeats,
                "kernel_repeats": args.kernel_repeats,
                "min_time_s": args.min_time,
                "quick": args.quick,
                "records": records,
            },
            indent=1,
        )
    )
    print(f"\nwrote {out}", file=sys.stderr)
    return 1 if any("error" in r for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
