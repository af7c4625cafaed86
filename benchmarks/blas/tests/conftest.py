"""The BLAS sweep's profile: `--blas-profile smoke|quick|full` (default
$EXO2BLAS_PROFILE, else smoke); see sweep.py."""

from __future__ import annotations

import os

import pytest
from sweep import PROFILES


def pytest_addoption(parser):
    parser.addoption(
        "--blas-profile",
        default=os.environ.get("EXO2BLAS_PROFILE", "smoke"),
        choices=sorted(PROFILES),
        help="how much of the BLAS correctness sweep to run",
    )


@pytest.fixture(scope="session")
def profile(request):
    return PROFILES[request.config.getoption("--blas-profile")]
