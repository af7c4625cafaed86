"""The benchmark runner end to end (benchmarks/run.py --quick on tiny
sizes): it checks and times every implementation and writes the JSON, the
Markdown table and the plot."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(out, *arguments):
    command = [sys.executable, str(ROOT / "benchmarks" / "run.py"), *arguments]
    command += ["--quick", "--repeats", "2", "--min-time", "0.001", "--out", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_quick_run_writes_json_markdown_and_plot(tmp_path):
    stdout = _run(
        tmp_path, "sgemm", "level1", "--sizes", "64,96", "--kernels", "sgemm,sdot"
    )
    assert "measuring the machine" in stdout

    sgemm = json.loads((tmp_path / "sgemm.json").read_text())
    assert sgemm["suite"] == "sgemm" and sgemm["quick"] is True
    assert sgemm["machine"]["bandwidth"]["triad_gbs"] > 0
    assert sgemm["timing"]["threads"] == 1
    by_case = {(r["case"], r["implementation"]): r for r in sgemm["results"]}
    for case in ("64", "96"):
        naive = by_case[(case, "exo2 naive")]
        assert naive["status"] == "ok"
        assert len(naive["times_s"]) == 2
        assert naive["min_s"] <= naive["median_s"] <= naive["max_s"]
        assert naive["gflops"] > 0
        assert by_case[(case, "numpy")]["status"] == "ok"
    # The scheduled SGEMM asserts M % 6 == 0: not applicable at 64.
    assert by_case[("64", "exo2 primitives")]["status"] == "n/a"
    assert by_case[("96", "exo2 primitives")]["status"] == "ok"
    # Every library found was timed; every missing one is listed.
    for name in ("mkl", "openblas", "blis"):
        assert (name in sgemm["libraries"]) != (name in sgemm["missing_libraries"])
        if name in sgemm["libraries"]:
            assert by_case[("96", name)]["status"] == "ok"

    table = (tmp_path / "sgemm.md").read_text()
    assert "| size | exo2 naive | exo2 primitives |" in table
    assert "| 64 |" in table and "| 96 |" in table
    assert "naive / best" in table

    level1 = json.loads((tmp_path / "level1.json").read_text())
    assert {r["kernel"] for r in level1["results"]} == {"sdot"}
    assert "## sdot" in (tmp_path / "level1.md").read_text()

    if importlib.util.find_spec("matplotlib") is not None:
        for suite in ("sgemm", "level1"):
            png = tmp_path / f"{suite}.png"
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
