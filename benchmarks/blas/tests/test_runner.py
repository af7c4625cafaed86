"""The runner's parts: the case list and its budget, the harness's
Google Benchmark flags (applied, not only passed), the progress bar, the
report drawn from JSON alone, and the schedule-size count."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest
from exo2 import bench
from exo2blas import benchcases
from exo2blas import run as runner
from exo2blas.library import default_path
from exo2blas.report import write_report
from exo2blas.report.bandwidth import dram_fractions
from exo2blas.report.figures import ratios
from exo2blas.report.loc import count
from exo2blas.report.progress import Progress


def test_cases_cover_every_timed_variant_once_per_size():
    found = benchcases.cases("smoke")
    variants = {c.variant for c in found}
    # 214 variants, less the two rotm flag -2 ones (a quick return).
    assert len(variants) == 212
    assert {"srotm_m1", "dtrsm_rlnu", "sgbmv_t", "dsdot", "idamax"} <= variants
    assert len({c.id for c in found}) == len(found)


def test_counts_follow_the_roofline_table():
    gemv = benchcases.BenchCase(
        "gemv", "d", "dgemv_t", {"trans": "T"}, {"m": 100, "n": 50}
    )
    assert gemv.counts() == (2 * 100 * 50, 8 * (100 * 50 + 100 + 2 * 50))
    gemm = benchcases.BenchCase("gemm", "s", "sgemm_nn", {}, {"m": 8, "n": 8, "k": 8})
    assert gemm.counts() == (1024, 4 * (64 + 64 + 128))


def test_cases_past_the_l2_get_more_repetitions():
    # 16 MiB moved (two vectors of 2^20 doubles): three times the profile's
    small = benchcases.BenchCase("dot", "s", "sdot", {}, {"n": 1024})
    large = benchcases.BenchCase("dot", "d", "ddot", {}, {"n": 1 << 20})
    assert large.counts()[1] >= benchcases.LARGE_BYTES > small.counts()[1]
    assert small.repetitions(3) == 3
    assert large.repetitions(3) == 3 * benchcases.LARGE_REPETITIONS
    assert "repetitions=3 " in small.line(256, 3)
    assert f"repetitions={3 * benchcases.LARGE_REPETITIONS} " in large.line(256, 3)
    # the budget counts them
    assert large.estimate(3, 0.02) > 2 * 3 * benchcases.LARGE_REPETITIONS * 0.02


def test_budget_drops_the_largest_odd_sizes_first():
    found = benchcases.cases("full", routines=["dot"], precisions=("s",))
    total = sum(c.estimate(5, 0.02) for c in found)
    kept, dropped = benchcases.fit_budget(found, total * 0.9, 1, 5, 0.02)
    assert dropped and all(
        c.length & (c.length - 1) for c in dropped
    )  # none a power of two
    assert max(c.length for c in dropped) == max(
        c.length for c in found if c.length & (c.length - 1)
    )
    assert len(kept) + len(dropped) == len(found)


def test_progress_bar_prints_one_line_per_percent_without_a_terminal():
    stream = io.StringIO()
    bar = Progress(200, stream=stream)
    bar.set_phase("benchmarks")
    for _ in range(400):
        bar.advance(0.5, "exo2blas/sdot_1024")
    lines = stream.getvalue().splitlines()
    assert lines[-1].startswith("100% benchmarks: exo2blas/sdot_1024")
    assert len(lines) == 101  # 0% .. 100%, once each


def _record(library, variant, length, median, level=1):
    return {"library": library, "variant": variant, "kernel": variant[1:], "precision": "s",
            "level": level, "sizes": {"n": length}, "length": length, "cache": "warm",
            "status": "ok", "median": median, "min": median, "iqr": 0.0, "times": [median],
            "flops": 2 * length, "bytes": 8 * length}  # fmt: skip


def test_heatmap_cells_are_geomeans_of_baseline_over_exo2_per_bin():
    records = [
        _record("exo2blas", "sdot", 16, 1.0), _record("mkl", "sdot", 16, 2.0),
        _record("exo2blas", "sdot", 32, 1.0), _record("mkl", "sdot", 32, 0.5),
        _record("openblas", "sdot", 32, 0.25), _record("exo2blas", "sdot", 1, 1.0),
        _record("mkl", "sdot", 1, 3.0),
    ]  # fmt: skip
    table = ratios(records, "mkl", 1)["sdot"]  # 16 and 32 are in [4^2, 4^3)
    assert table == {0: pytest.approx(3.0), 2: pytest.approx(1.0)}
    assert ratios(records, "fastest", 1)["sdot"][2] == pytest.approx(
        (2.0 * 0.25) ** 0.5
    )


def test_skinny_level2_shapes_are_timed_and_binned_apart():
    quick = benchcases.cases("quick", routines=["gemv", "ger"], precisions=("s",))
    skinny = {c.id for c in quick if benchcases.SKINNY in c.sizes.values()}
    assert {"sgemv_t_131072x40_warm", "sgemv_n_40x131072_warm", "sger_40x1_warm"} <= (
        skinny
    )
    assert not any(
        benchcases.SKINNY in c.sizes.values()
        for c in benchcases.cases("smoke", routines=["gemv"])
    )

    def gemv(library, m, n, median):
        record = _record(library, "sgemv_n", max(m, n), median, level=2)
        return dict(record, kernel="gemv", sizes={"m": m, "n": n})

    records = [
        gemv("exo2blas", 64, 64, 1.0), gemv("mkl", 64, 64, 2.0),
        gemv("exo2blas", 64, 40, 1.0), gemv("mkl", 64, 40, 0.5),
    ]  # fmt: skip
    table = ratios(records, "mkl", 2)
    assert table["sgemv_n"] == {3: pytest.approx(2.0)}
    assert table["sgemv_n_skinny"] == {3: pytest.approx(0.5)}


def test_report_is_drawn_from_the_json_alone(tmp_path):
    records = [
        _record(lib, "sdot", n, t)
        for lib, t in (("exo2blas", 1.0), ("mkl", 1.5))
        for n in (16, 1024)
    ]
    summary = {
        "profile": "quick",
        "libraries": {"exo2blas": "x", "mkl": "y"},
        "dispatch": {"openblas": "core Prescott"},
        "dropped": ["sdot_9_warm"],
    }
    (tmp_path / "results.json").write_text(
        json.dumps({"summary": summary, "records": records})
    )
    # the probe as exo2.bench writes it: the plots draw its rooflines
    probe = bench.Machine(
        key="k", model="cpu", host="h", isas=["avx2"], caches={"L1": 32768},
        clock_ghz=3.0, fma_gflops={"avx2": {"f32": 90.0, "f64": 45.0}},
        bandwidth_gbs={"L1": {"read": 150.0, "triad": 120.0}, "DRAM": {"read": 15.0}},
    ).to_json()  # fmt: skip
    machine = {"model": "cpu", "isa": "avx2", "probe": probe}
    (tmp_path / "machine.json").write_text(json.dumps(machine))
    report = write_report(tmp_path).read_text()
    assert "| P1 (level 1) vs mkl | pass (4^2: 1.50, 4^5: 1.50)" in report
    assert "| 1 | dot | " in report and "1.50 / 1.50" in report
    assert "sdot_9_warm" in report
    assert "- openblas: core Prescott picked at run time on this CPU" in report
    if (tmp_path / "figures").exists():
        assert (tmp_path / "figures" / "heatmap_level1_mkl_warm.png").exists()
        assert (tmp_path / "figures" / "sdot.png").exists()


def test_dispatch_names_the_kernels_each_baseline_picked():
    found, _ = runner.libraries(default_path().parent)
    baselines = {k: v for k, v in found.items() if k in ("openblas", "blis")}
    if not baselines:
        pytest.skip("neither OpenBLAS nor BLIS is installed")
    picked = runner.dispatch(baselines)
    prefix = {"openblas": "core ", "blis": "configuration "}
    for name in baselines:
        assert picked[name].startswith(prefix[name]), picked
        assert len(picked[name]) > len(prefix[name]), picked


def test_loc_splits_algorithm_variants_and_schedule():
    c = count()
    assert set(c["levels"]) == {"level1", "level2", "level3"}
    assert (
        c["kernels"]["level2/gemv"]["algorithm"] == 8
    )  # the @proc, its 7 lines and decorator
    # kernel(, gemv, axes=, cases=, ): variants; the schedule= argument,
    # over five lines: schedule
    assert c["kernels"]["level2/gemv"]["variants"] == 5
    assert c["kernels"]["level2/gemv"]["schedule"] == 5
    assert c["kernels"]["level2/trmv"]["variants"] == 5  # as gemv's
    assert c["kernels"]["level2/trmv"]["schedule"] == 1  # on one line
    # a kernel(...) on one line is its schedule's line
    assert c["kernels"]["level2/syr2"]["variants"] == 0
    assert c["kernels"]["level2/syr2"]["schedule"] == 1
    assert c["library"] > 0 and c["variants"] > 0  # counted apart


HARNESS = (
    Path(os.environ.get("EXO2BLAS_LIBRARY", default_path())).parent
    / "bench"
    / "harness"
)


def _harness(tmp_path, lines, *flags, env=None):
    """Runs the harness on the case `lines` against libexo2blas with
    Google Benchmark's `flags` (in the environment `env`, by default this
    process's); returns the paths of its JSON output and of its status
    file."""
    cases = tmp_path / "cases.txt"
    cases.write_text("".join(line + "\n" for line in lines))
    out, status = tmp_path / "gb.json", tmp_path / "status.txt"
    library = HARNESS.parent.parent / "libexo2blas.so"
    subprocess.run(
        [str(HARNESS), "--cases", str(cases), "--library", f"exo2blas={library}",
         "--status", str(status), *flags,
         f"--benchmark_out={out}", "--benchmark_out_format=json"],
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    return out, status


@pytest.mark.skipif(
    not HARNESS.exists(), reason="the harness is not built (needs Google Benchmark)"
)
def test_harness_applies_the_google_benchmark_flags(tmp_path):
    out, status = _harness(
        tmp_path,
        ["id=sdot_64 routine=dot variant=sdot p=s n=64"],
        "--benchmark_min_time=0.05",
        "--benchmark_repetitions=3",
    )
    runs = [
        b
        for b in json.loads(out.read_text())["benchmarks"]
        if b["run_type"] == "iteration"
    ]
    assert len(runs) == 3
    # Google Benchmark grows the first repetition's iterations until it lasts
    # the minimum CPU time, then runs the others with that count: a later
    # repetition is shorter when the first was slowed by its warm-up.
    first = runs[0]
    assert first["iterations"] * first["cpu_time"] * 1e-9 >= 0.05 * 0.9
    assert {run["iterations"] for run in runs} == {first["iterations"]}
    assert status.read_text().split() == ["exo2blas", "sdot_64", "ok"]


@pytest.mark.skipif(
    not HARNESS.exists(), reason="the harness is not built (needs Google Benchmark)"
)
def test_harness_runs_every_library_on_one_thread(tmp_path):
    # run by hand, without the runner's environment, the harness sets the
    # libraries' thread counts to 1 itself (a library's spare threads spin
    # on the one core and slow every library), keeping a value already set,
    # and records them in its output's context
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    env.pop("MKL_THREADING_LAYER", None)
    env["OPENBLAS_NUM_THREADS"] = "3"
    out, _ = _harness(
        tmp_path,
        ["id=sdot_64 routine=dot variant=sdot p=s n=64"],
        "--benchmark_min_time=0.001",
        env=env,
    )
    threads = json.loads(out.read_text())["context"]["threads"]
    assert threads.split() == [
        "OMP_NUM_THREADS=1",
        "OPENBLAS_NUM_THREADS=3",
        "BLIS_NUM_THREADS=1",
        "MKL_NUM_THREADS=1",
        "MKL_THREADING_LAYER=SEQUENTIAL",
    ]


@pytest.mark.skipif(
    not HARNESS.exists(), reason="the harness is not built (needs Google Benchmark)"
)
def test_harness_runs_a_case_its_own_repetitions(tmp_path):
    # a case line's `repetitions` overrides --benchmark_repetitions; Google
    # Benchmark then names its runs ".../repeats:5", and the runner's
    # records still find them under the case
    found = [
        benchcases.BenchCase("dot", "s", "sdot", {}, {"n": 64}),
        benchcases.BenchCase("dot", "d", "ddot", {}, {"n": 64}),
    ]
    lines = [
        found[0].line(1, 1).replace("repetitions=1", "repetitions=5"),
        found[1].line(1, 1).replace(" repetitions=1", ""),
    ]
    out, status = _harness(
        tmp_path, lines, "--benchmark_min_time=0.001", "--benchmark_repetitions=2"
    )
    records = {r["variant"]: r for r in runner.results(found, out, status, {})}
    assert len(records["sdot"]["times"]) == 5
    assert len(records["ddot"]["times"]) == 2
    assert records["sdot"]["median"] > 0 and records["ddot"]["median"] > 0


@pytest.mark.skipif(
    not HARNESS.exists(), reason="the harness is not built (needs Google Benchmark)"
)
def test_harness_times_the_drift_sentinels_of_a_baseline(tmp_path):
    from exo2blas.run import drift, libraries

    found, _ = libraries(HARNESS.parent.parent)
    baseline = next((name for name in found if name != "exo2blas"), None)
    if baseline is None:
        pytest.skip("no baseline library (bash scripts/bench_setup.sh installs them)")
    cases = tmp_path / "cases.txt"
    cases.write_text("id=sdot_64 routine=dot variant=sdot p=s n=64\n")
    path = tmp_path / "drift.txt"
    subprocess.run(
        [str(HARNESS), "--cases", str(cases), "--library", f"exo2blas={found['exo2blas']}",
         "--library", f"{baseline}={found[baseline]}", "--drift", str(path),
         "--drift-every", "0", "--benchmark_min_time=0.01", "--benchmark_repetitions=2",
         "--benchmark_enable_random_interleaving=true"],
        check=True, capture_output=True,
    )  # fmt: skip
    checks = drift(path)
    assert set(checks) == {f"{baseline}/sdot_1048576", f"{baseline}/sgemm_1024"}
    # at the start, before each run of a benchmark (every 0 s), at the end
    for timings in checks.values():
        assert len(timings) >= 6
        assert all(median > 0 for _, median in timings)
        assert [t for t, _ in timings] == sorted(t for t, _ in timings)


def test_p3_is_the_fraction_of_dram_bandwidth_reached_beyond_the_caches(tmp_path):
    probe = bench.Machine(
        key="k", model="cpu", host="h", isas=["avx2"], caches={"L1": 32768},
        clock_ghz=3.0, fma_gflops={"avx2": {"f32": 90.0}},
        bandwidth_gbs={"L1": {"read": 150.0, "triad": 120.0},
                       "DRAM": {"read": 15.0, "triad": 12.0}},
    ).to_json()  # fmt: skip
    machine = {"model": "cpu", "isa": "avx2", "probe": probe}
    n = 1 << 20  # 8 MiB of traffic: beyond the probe's only cache
    axpy = dict(_record("exo2blas", "saxpy", n, 8 * n / 6e9), kernel="axpy")
    gemv = dict(_record("exo2blas", "sgemv_t", n, 8 * n / 12e9, level=2), kernel="gemv")
    records = [
        _record("exo2blas", "sdot", n, 8 * n / 13.5e9),  # 90% of `read`
        _record("mkl", "sdot", n, 8 * n / 15e9),
        _record("openblas", "sdot", n, 8 * n / 7.5e9),
        _record("exo2blas", "sdot", 1024, 1.0),  # in L1: not a P3 case
        axpy,  # writes y: judged against `triad`, 50%
        gemv,  # reads A, writes only y: judged against `read`, 80%
    ]
    fractions = dram_fractions(records, machine)
    assert fractions == {
        (1, "dot"): (pytest.approx(0.9), pytest.approx(1.0), 1),
        (1, "axpy"): (pytest.approx(0.5), None, 1),
        (2, "gemv"): (pytest.approx(0.8), None, 1),
    }
    (tmp_path / "results.json").write_text(
        json.dumps({"summary": {}, "records": records})
    )
    (tmp_path / "machine.json").write_text(json.dumps(machine))
    report = write_report(tmp_path).read_text()
    assert "| P3 (DRAM bandwidth) | FAIL: worst family axpy (level 1) at 50%" in report
    assert "| 1 | dot | 1 | 90% | 100% |" in report


def test_report_judges_c1_on_the_cold_regeneration(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({"summary": {}, "records": []}))
    kernel = {"level": 2, "procs": 32, "schedule_s": 6.0, "cpu_s": 4.5}
    regenerate = {
        "jobs": 2,
        "wall_s": 9.5,
        "startup_s": 1.0,
        "load_average": [1.25, 1.0, 1.0],
        "kernels": {"avx2": {"tbmv": kernel, "gemv": dict(kernel, cpu_s=2.0)}},
        "emit": {"avx2": {"2": {"procs": 64, "emit_s": 1.0, "cpu_s": 1.0}}},
    }
    (tmp_path / "regenerate_times.json").write_text(json.dumps(regenerate))
    report = write_report(tmp_path).read_text()
    assert (
        "| C1 (avx2) | levels 1 and 2 generated cold with 2 jobs: wall 10.50 s "
        "(FAIL against 10 s; 1.00 s of it starting Python, importing exo2 and "
        "loading the kernels), "
        "CPU 7.50 s; slowest kernel tbmv 4.50 s CPU "
        "(pass against 5 s), 6.00 s wall; load average 1.25 |"
    ) in report
    # a record written before start-up was recorded says so
    del regenerate["startup_s"]
    (tmp_path / "regenerate_times.json").write_text(json.dumps(regenerate))
    report = write_report(tmp_path).read_text()
    assert "wall 9.50 s (pass against 10 s; its start-up and imports not recorded)" in (
        report
    )


def test_an_unknown_routine_is_refused_naming_the_known_ones(capsys):
    with pytest.raises(SystemExit) as exit_:
        runner.main(["--kernels", "gemv,isamax", "--skip-build", "--skip-bench"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert "unknown routine isamax: --kernels takes routines without" in error
    assert "gemv" in error and "iamax" in error
