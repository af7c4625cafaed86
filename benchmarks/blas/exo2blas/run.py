"""`python -m exo2blas.run`: the whole suite in one command.

    python -m exo2blas.run --profile smoke|quick|full [--budget MIN] [--out DIR]
    python -m exo2blas.run loc            # schedule sizes -> loc.json

Phases, under one progress bar weighted by estimated seconds: build
(cmake: regenerate what changed, compile libexo2blas, the tests and the
harness), correctness (the ABI ctests and the pytest sweep of the profile;
`full` once per ISA this CPU runs), probe (this machine, from exo2.bench),
benchmarks (bench/harness.cpp on every library found, single thread,
pinned with taskset) and the report (python -m exo2blas.report).

Each run writes `results/<date>-<host>-<isa>/`: machine.json, cases.txt,
gbench.json (Google Benchmark's raw output), status.txt, results.json,
generate_times.json (the build's generation), regenerate_times.json (levels 1
and 2 of this CPU's ISA generated again, cold, with two jobs: target C1),
loc.json, report.md and figures/.

Baselines: MKL (pip `mkl`, or $MKLROOT), OpenBLAS and BLIS (Debian
`libopenblas0-serial`, `libblis4-serial`, which scripts/bench_setup.sh
installs), found where benchmarks/baselines.py finds them, or named by
$EXO2_BENCH_MKL, $EXO2_BENCH_OPENBLAS, $EXO2_BENCH_BLIS. A missing one is
reported `unavailable`; a (library, variant) whose level-1
reduction misses the routine's error bound (exo2blas/accuracy.py) is timed
but reported `inaccurate`, and enters no ratio.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from exo2 import bench  # probe, statistics, rooflines (docs/tuning-and-measuring.md)

from . import accuracy, benchcases
from .report.progress import Progress

PACKAGE = Path(__file__).resolve().parent
SUITE = PACKAGE.parent  # benchmarks/blas
ROOT = SUITE.parent.parent
MULTIARCH = "x86_64-linux-gnu"

PROFILES = {
    # repetitions, min seconds per repetition, cold cache, budget (minutes)
    "smoke": {"repetitions": 1, "min_time": 0.002, "cold": False, "budget": 1},
    "quick": {"repetitions": 3, "min_time": 0.02, "cold": False, "budget": 12},
    "full": {"repetitions": 5, "min_time": 0.02, "cold": True, "budget": 180},
}
ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "BLIS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MKL_THREADING_LAYER": "SEQUENTIAL",
}


def _first(paths):
    return next((str(p) for p in paths if p and Path(p).exists()), None)


def libraries(build):
    """`({name: path}, {name: why it is unavailable})`, exo2blas first."""
    prefixes = {sys.prefix, sys.base_prefix, os.environ.get("MKLROOT", sys.prefix)}
    lib = Path("/usr/lib") / MULTIARCH
    candidates = {
        "exo2blas": [build / "libexo2blas.so"],
        "mkl": [os.environ.get("EXO2_BENCH_MKL")]
        + [Path(p) / "lib" / f"libmkl_rt.so.{v}" for p in prefixes for v in (3, 2)],
        "openblas": [os.environ.get("EXO2_BENCH_OPENBLAS")]
        + [
            lib / f"{d}/libopenblas.so.0"
            for d in ("openblas-serial", "openblas-pthread", ".")
        ],
        "blis": [os.environ.get("EXO2_BENCH_BLIS")]
        + [lib / f"{d}/libblis.so.4" for d in ("blis-serial", "blis-pthread", ".")],
    }
    found, missing = {}, {}
    for name, paths in candidates.items():
        path = _first(paths)
        if path:
            found[name] = path
        else:
            missing[name] = "not found (bash scripts/bench_setup.sh installs it)"
    return found, missing


def dispatch(found):
    """{baseline: the kernels its run-time dispatch picked on this CPU}, for
    those that say: OpenBLAS's core, BLIS's configuration. A library older
    than the CPU falls back to generic kernels (Debian 12's OpenBLAS 0.3.21
    runs its SSE3 `Prescott` ones on the Intel Xeon model 207), which the
    report states beside its timings."""
    picked = {}
    for name in ("openblas", "blis"):
        if name not in found:
            continue
        library = ctypes.CDLL(found[name])
        if name == "openblas" and hasattr(library, "openblas_get_corename"):
            library.openblas_get_corename.restype = ctypes.c_char_p
            picked[name] = f"core {library.openblas_get_corename().decode()}"
        elif name == "blis" and hasattr(library, "bli_arch_query_id"):
            library.bli_arch_string.restype = ctypes.c_char_p
            library.bli_arch_string.argtypes = [ctypes.c_int]
            arch = library.bli_arch_string(library.bli_arch_query_id())
            picked[name] = f"configuration {arch.decode()}"
    return picked


def machine_record(isa):
    """machine.json: exo2.bench's probe (clock, FMA peaks, bandwidths),
    plus what the runner knows itself. The probe is measured again, not
    read from exo2.bench's cache: this VM's DRAM bandwidth drifts from day
    to day (read 38.0 GB/s cached, 35.5 the next day), and P3 compares the
    run's cases with the bandwidth of the same hour."""
    record = {
        "host": socket.gethostname(),
        "model": _cpu_model(),
        "isa": isa,
        "cores": os.cpu_count(),
        "load_average": list(os.getloadavg()),
        "compiler": _version(["cc", "--version"]),
        "exo2_commit": _version(["git", "-C", str(ROOT), "rev-parse", "HEAD"]),
    }
    record["probe"] = bench.probe(refresh=True).to_json()
    return record


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _version(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        return out.splitlines()[0].strip()
    except (OSError, subprocess.CalledProcessError, IndexError):
        return None


def host_isa():
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return "avx512" if " avx512f" in flags else "avx2"


def build(build_dir, progress):
    progress.set_phase("build")
    subprocess.run(
        ["cmake", "-S", str(SUITE), "-B", str(build_dir), f"-DEXO2BLAS_PYTHON={sys.executable}"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    subprocess.run(
        ["cmake", "--build", str(build_dir), "-j2"],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def regeneration(isa, out):
    """Target C1: levels 1 and 2 of `isa` generated cold (a new process,
    an empty output directory) with two jobs; writes its timing record to
    `out / "regenerate_times.json"`."""
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(
            [sys.executable, "-m", "exo2blas.generate", "--isa", isa,
             "--levels", "1,2", "--jobs", "2", "--out", scratch],
            check=True, cwd=SUITE, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        shutil.copy(
            Path(scratch) / "generate_times.json", out / "regenerate_times.json"
        )


def correctness(build_dir, profile, progress):
    """The ABI ctests and the sweep; returns the failures (empty: passed)."""
    progress.set_phase("correctness")
    failed = []
    if subprocess.run(
        ["ctest", "--test-dir", str(build_dir), "--output-on-failure"]
    ).returncode:
        failed.append("ctest")
    isas = ["avx2", "avx512"] if profile == "full" else [None]
    for isa in isas:
        if isa == "avx512" and host_isa() != "avx512":
            continue
        env = dict(os.environ, EXO2BLAS_LIBRARY=str(build_dir / "libexo2blas.so"))
        if isa:
            env["EXO2BLAS_ISA"] = isa
        command = [
            sys.executable,
            "-m",
            "pytest",
            "tests",
            "-q",
            f"--blas-profile={profile}",
        ]
        if subprocess.run(command, cwd=SUITE, env=env).returncode:
            failed.append(f"pytest ({isa or 'host ISA'})")
    return failed


def benchmark(build_dir, out, found, cases, settings, progress):
    """Runs the harness on `cases` for every library in `found`; returns
    the path of Google Benchmark's JSON and of the status file."""
    progress.set_phase("benchmarks")
    pool_mib = 256
    reps = settings["repetitions"]
    (out / "cases.txt").write_text(
        "".join(c.line(pool_mib, reps) + "\n" for c in cases)
    )
    command = [str(build_dir / "bench" / "harness"), "--cases", str(out / "cases.txt")]
    for name, path in found.items():
        command += ["--library", f"{name}={path}"]
    flags = [
        f"--benchmark_min_time={settings['min_time']}",
        f"--benchmark_repetitions={settings['repetitions']}",
        "--benchmark_enable_random_interleaving=true",
        f"--benchmark_out={out / 'gbench.json'}",
        "--benchmark_out_format=json",
    ]
    read_fd, write_fd = os.pipe()
    command += [
        "--status",
        str(out / "status.txt"),
        "--progress-fd",
        str(write_fd),
        "--drift",
        str(out / "drift.txt"),
        *flags,
    ]
    if shutil.which("taskset") and (os.cpu_count() or 1) > 1:
        command = ["taskset", "-c", "1", *command]
    cost = {c.id: c.estimate(reps, settings["min_time"]) for c in cases}
    case_reps = {c.id: c.repetitions(reps) for c in cases}
    env = dict(os.environ, **ONE_THREAD)
    with open(out / "harness.log", "w") as log:
        child = subprocess.Popen(
            command, env=env, stdout=log, stderr=log, pass_fds=(write_fd,)
        )
        os.close(write_fd)

        def follow():
            # Google Benchmark also runs a case while calibrating its
            # iteration count: a case never advances past its estimate.
            advanced = {}
            with os.fdopen(read_fd) as pipe:
                for line in pipe:
                    _, name, _ = line.split(" ", 2)
                    case = name.split("/", 1)[1]
                    budget = cost.get(case, 0)
                    step = min(
                        budget / case_reps.get(case, reps),
                        budget - advanced.get(name, 0),
                    )
                    advanced[name] = advanced.get(name, 0) + step
                    progress.advance(step, name)

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        child.wait()
        reader.join(timeout=5)
    if child.returncode:
        raise RuntimeError(
            f"the harness failed ({child.returncode}); see {out / 'harness.log'}"
        )
    (out / "flags.json").write_text(
        json.dumps({"command": command, "flags": flags}, indent=1)
    )
    return out / "gbench.json", out / "status.txt"


def results(cases, gbench, status, missing, inaccurate=None):
    """One record per (library, case); a case of a (library, variant) in
    `inaccurate` (accuracy.inaccurate) is timed but marked `inaccurate`."""
    inaccurate = inaccurate or {}
    runs = {}
    data = (
        json.loads(Path(gbench).read_text())
        if Path(gbench).exists()
        else {"benchmarks": []}
    )
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    invalid = set()
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        # a case's own repetitions (benchcases.LARGE_REPETITIONS) name
        # its runs "<library>/<case>/repeats:<n>"
        name = b["run_name"].split("/repeats:")[0]
        runs.setdefault(name, []).append(
            b["real_time"] * scale[b.get("time_unit", "ns")]
        )
        if b.get("invalid"):
            invalid.add(name)
    statuses = {}
    for line in Path(status).read_text().splitlines() if Path(status).exists() else []:
        library, case, state, *detail = line.split(" ")
        statuses[(library, case)] = (state, " ".join(detail))
    by_id = {c.id: c for c in cases}
    records = []
    for (library, case_id), (state, detail) in sorted(statuses.items()):
        c = by_id[case_id]
        flops, nbytes = c.counts()
        times = runs.get(f"{library}/{case_id}", [])
        record = {
            "library": library, "kernel": c.routine, "variant": c.variant, "precision": c.p,
            "level": c.level, "sizes": c.sizes, "flags": c.flags, "increments": 1,
            "layout": "row-major", "ld": "tight", "threads": 1, "cache": c.cache,
            "length": c.length, "flops": flops, "bytes": nbytes, "times": times,
            "status": "invalid" if f"{library}/{case_id}" in invalid else state,
            "detail": detail,
        }  # fmt: skip
        if times and record["status"] == "ok":
            timing = bench.Timing(tuple(times), 1)  # exo2.bench's statistics
            median = timing.median
            record.update(median=median, min=timing.min, iqr=timing.iqr)
            record["gflops"] = flops / median / 1e9 if flops else None
            record["gbs"] = nbytes / median / 1e9
            if (library, c.variant) in inaccurate:
                record["status"] = "inaccurate"
                record["detail"] = inaccurate[(library, c.variant)]
        records.append(record)
    for library, why in missing.items():
        for c in cases:
            records.append({"library": library, "kernel": c.routine, "variant": c.variant,
                            "precision": c.p, "level": c.level, "sizes": c.sizes,
                            "length": c.length, "cache": c.cache, "status": "unavailable",
                            "detail": why})  # fmt: skip
    return records


def _in_repository(path):
    """`path` relative to the repository when it is inside it (a report
    committed from one checkout names no other machine's folders)."""
    path = Path(path).resolve()
    root = SUITE.parent.parent
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def drift(path):
    """The drift sentinels the harness timed (--drift): per sentinel, its
    `[seconds since the start, median seconds]` checks."""
    checks = {}
    for line in Path(path).read_text().splitlines() if Path(path).exists() else []:
        since, name, median = line.split()
        checks.setdefault(name, []).append([float(since), float(median)])
    return checks


def run(args):
    settings = dict(PROFILES[args.profile])
    budget = (args.budget if args.budget is not None else settings["budget"]) * 60
    build_dir = Path(args.build_dir).resolve()
    isa = host_isa()
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M")
    out = Path(args.out or SUITE / "results" / f"{stamp}-{socket.gethostname()}-{isa}")
    out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    if load > 0.3:
        print(f"exo2blas.run: warning: load average {load:.2f} > 0.3; timings will be noisy",
              file=sys.stderr)  # fmt: skip
    routines = args.kernels.split(",") if args.kernels else None
    cases = benchcases.cases(args.profile, routines, cold=settings["cold"])
    found, missing = libraries(build_dir)
    kept, dropped = benchcases.fit_budget(
        cases, budget, max(len(found), 1), settings["repetitions"], settings["min_time"]
    )
    total = sum(
        c.estimate(settings["repetitions"], settings["min_time"]) for c in kept
    ) * len(found)
    progress = Progress(total + 60)
    shown = {name: _in_repository(path) for name, path in found.items()}
    summary = {"profile": args.profile, "budget_s": budget, "dropped": [c.id for c in dropped],
               "libraries": shown, "dispatch": dispatch(found),
               "unavailable": missing}  # fmt: skip
    if not args.skip_build:
        build(build_dir, progress)
    regeneration(isa, out)
    progress.advance(20, "built")
    if not args.skip_tests:
        summary["correctness_failures"] = correctness(build_dir, args.profile, progress)
    progress.advance(20, "checked")
    progress.set_phase("probe")
    (out / "machine.json").write_text(json.dumps(machine_record(isa), indent=1) + "\n")
    progress.advance(10, "probed")
    if not args.skip_bench and kept:
        checked = accuracy.inaccurate(found, {c.variant for c in kept})
        summary["inaccurate"] = [
            {"library": library, "variant": variant, "detail": detail}
            for (library, variant), detail in sorted(checked.items())
        ]
        gbench, status = benchmark(build_dir, out, found, kept, settings, progress)
        records = results(kept, gbench, status, missing, checked)
        summary["drift"] = drift(out / "drift.txt")
        (out / "results.json").write_text(
            json.dumps({"summary": summary, "records": records}, indent=1)
        )
    times = build_dir / "generated" / "generate_times.json"
    if times.exists():
        shutil.copy(times, out / "generate_times.json")
    write_loc(out / "loc.json")
    progress.set_phase("report")
    from .report import write_report

    write_report(out)
    progress.advance(10, "report")
    progress.close()
    print(f"exo2blas.run: {out / 'report.md'}")
    return 1 if summary.get("correctness_failures") else 0


def write_loc(path):
    from .report.loc import count

    path.write_text(json.dumps(count(), indent=1) + "\n")
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m exo2blas.run")
    parser.add_argument("command", nargs="?", default="run", choices=("run", "loc"))
    parser.add_argument("--profile", default="quick", choices=sorted(PROFILES))
    parser.add_argument("--budget", type=float, help="minutes for the benchmarks")
    parser.add_argument("--out", help="results directory")
    parser.add_argument("--build-dir", default=str(ROOT / "build" / "blas"))
    parser.add_argument("--kernels", help="comma-separated routines (gemv,dot,...)")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--skip-bench", action="store_true")
    args = parser.parse_args(argv)
    unknown = sorted(set((args.kernels or "").split(",")) - {"", *benchcases.ROUTINES})
    if unknown:
        parser.error(
            f"unknown routine {', '.join(unknown)}: --kernels takes routines "
            f"without their precision letter ({', '.join(benchcases.ROUTINES)})"
        )
    if args.command == "loc":
        path = write_loc(Path(args.out or "loc.json"))
        print(path.read_text())
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
