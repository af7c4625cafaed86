"""The runner's accuracy check of every library's level-1 reductions
(exo2blas/accuracy.py): a dsdot summed in f32 is caught, an exact one and
exo2blas's own pass, and a caught (library, variant) is timed but enters
no ratio and is named in the report."""

from __future__ import annotations

import ctypes
import json

import numpy as np
import pytest
from exo2blas import accuracy
from exo2blas import run as runner
from exo2blas.library import default_path
from exo2blas.report import write_report
from exo2blas.report.figures import ratios


class _Library:
    """cblas_dsdot and cblas_sdot over raw pointers, summing in `dtype`."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.cblas_dsdot = self._dot(np.float32, np.float64)
        self.cblas_sdot = self._dot(np.float32, np.float32)

    def _dot(self, element, result):
        def dot(n, px, incx, py, incy):
            x, y = (
                np.ctypeslib.as_array(
                    ctypes.cast(p, ctypes.POINTER(ctypes.c_float)), (n,)
                )
                for p in (px, py)
            )
            total = self.dtype(0)
            for a, b in zip(x.astype(self.dtype), y.astype(self.dtype), strict=True):
                total += a * b
            return result(total)

        return dot


def test_a_dsdot_summed_in_f32_is_caught_and_one_summed_in_f64_is_not():
    found = accuracy.misses(_Library(np.float32), ["dsdot"])
    assert list(found) == ["dsdot"]
    assert found["dsdot"].startswith("n = ") and "bound" in found["dsdot"]
    # sdot summed in f32 is sdot: its bound is in f32
    assert accuracy.misses(_Library(np.float32), ["sdot"]) == {}
    assert accuracy.misses(_Library(np.float64), ["dsdot", "sdot"]) == {}
    # routines the check does not cover are not called
    assert accuracy.misses(_Library(np.float32), ["sgemv_n", "saxpy"]) == {}


@pytest.mark.skipif(not default_path().exists(), reason="libexo2blas is not built")
def test_exo2blas_meets_every_checked_bound():
    assert accuracy.misses(ctypes.CDLL(str(default_path())), accuracy.VARIANTS) == {}


def _record(library, median):
    return {
        "library": library, "kernel": "dsdot", "variant": "dsdot", "level": 1,
        "cache": "warm", "sizes": {"n": 1024}, "length": 1024, "status": "ok",
        "flops": 2048, "bytes": 8192, "min": median, "iqr": 0.0, "times": [median],
        "median": median,
    }  # fmt: skip


def test_an_inaccurate_baseline_is_timed_but_enters_no_ratio(tmp_path):
    found = [runner.benchcases.BenchCase("dsdot", "ds", "dsdot", {}, {"n": 64})]
    case = found[0].id
    status = tmp_path / "status.txt"
    status.write_text(f"exo2blas {case} ok\nopenblas {case} ok\n")
    gbench = tmp_path / "gbench.json"
    gbench.write_text(
        json.dumps(
            {
                "benchmarks": [
                    {
                        "run_type": "iteration",
                        "run_name": f"{lib}/{case}",
                        "real_time": t,
                        "time_unit": "ns",
                    }
                    for lib, t in (("exo2blas", 10.0), ("openblas", 5.0))
                ]
            }
        )  # fmt: skip
    )
    miss = {("openblas", "dsdot"): "n = 33: off"}
    records = {r["library"]: r for r in runner.results(found, gbench, status, {}, miss)}
    assert records["openblas"]["status"] == "inaccurate"
    assert records["openblas"]["detail"] == "n = 33: off"
    assert records["openblas"]["median"] == pytest.approx(5e-9)  # still timed
    assert records["exo2blas"]["status"] == "ok"

    table = [_record("exo2blas", 1.0), _record("mkl", 1.2), _record("openblas", 0.5)]
    table[2]["status"] = "inaccurate"
    assert ratios(table, "fastest", 1)["dsdot"] == {5: pytest.approx(1.2)}

    summary = {
        "profile": "quick",
        "libraries": {"exo2blas": "x", "mkl": "y", "openblas": "z"},
        "inaccurate": [
            {"library": "openblas", "variant": "dsdot", "detail": "n = 33: off"}
        ],
    }
    (tmp_path / "results.json").write_text(
        json.dumps({"summary": summary, "records": table})
    )
    (tmp_path / "machine.json").write_text(json.dumps({"model": "cpu", "isa": "avx2"}))
    report = write_report(tmp_path).read_text()
    assert "- openblas dsdot: inaccurate, left out of every ratio" in report
    assert "n = 33: off" in report
    assert "Cases not timed" not in report
