"""Shared setup of the Python tests: kernel helper modules in `kernels/`
are importable as `kernels.<name>`, and the BLAS suite's package
(`benchmarks/blas/exo2blas`) as `exo2blas`, for the examples of
docs/blas-library.md."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
_BLAS_SUITE = os.path.join(_HERE, "..", "..", "benchmarks", "blas")
if os.path.abspath(_BLAS_SUITE) not in map(os.path.abspath, sys.path):
    sys.path.append(os.path.abspath(_BLAS_SUITE))


def pytest_terminal_summary(terminalreporter):
    """The randomized schedule test's per-primitive table, when it ran."""
    running = sys.modules.get("random_schedules.running")
    for summary in running.LAST_SUMMARY if running else ():
        terminalreporter.write_line(summary)


# --------------------------------------------------------------------------- #
# CUDA markers (docs/cuda.md, "Testing"): `cuda_compile` tests need nvcc,
# `cuda_gpu` tests a GPU. Without them the tests are skipped, unless
# EXO2_REQUIRE_GPU=1 (GPU CI), which turns the skips into failures.

import functools  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import pytest  # noqa: E402


@functools.cache
def _nvcc():
    return (
        os.environ.get("EXO2_NVCC")
        or shutil.which("nvcc")
        or (
            "/usr/local/cuda/bin/nvcc"
            if os.access("/usr/local/cuda/bin/nvcc", os.X_OK)
            else None
        )
    )


@functools.cache
def _gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def pytest_runtest_setup(item):
    required = os.environ.get("EXO2_REQUIRE_GPU") == "1"
    missing = None
    if item.get_closest_marker("cuda_compile") and not _nvcc():
        missing = "nvcc is not available"
    if item.get_closest_marker("cuda_gpu") and not _gpu():
        missing = missing or "no CUDA device"
    if missing:
        if required:
            pytest.fail(f"EXO2_REQUIRE_GPU=1 but {missing}")
        pytest.skip(missing)
