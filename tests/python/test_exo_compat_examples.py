"""examples/exo_compat: programs shaped like Exo's x86 apps, written against
Exo's API (the differential run executes them on Exo too). On exo2 the blur
schedule keeps its results; the SGEMM and unsharp schedules stop at the
steps exo2 cannot prove safe yet (tests/conformance/expected_differences.toml),
with the refusal saying which loop."""

import importlib.util
import sys
from pathlib import Path

import pytest
from exo2 import SchedulingError
from schedule_check import assert_same_results

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "exo_compat"


def load(name):
    spec = importlib.util.spec_from_file_location(
        f"exo_compat_{name}", EXAMPLES / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_blur_tiled_with_compute_and_store_at_keeps_results():
    blur = load("blur")
    p = blur.schedule_blur()
    assert "blur_x: f32[34, 64] @ DRAM" in str(p)
    for sizes in [dict(W=64, H=32), dict(W=128, H=64)]:
        assert_same_results(blur.blur, p, sizes)


def test_sgemm_avx512_stops_at_the_reload_fission_not_proven_yet():
    sgemm = load("sgemm_avx512")
    with pytest.raises(
        SchedulingError, match="autofission: Cannot fission loop over k"
    ):
        sgemm.schedule_sgemm()


def test_unsharp_stops_at_the_invariant_write_fission_not_proven_yet():
    unsharp = load("unsharp")
    with pytest.raises(
        SchedulingError, match="autofission: Cannot fission loop over x"
    ):
        unsharp.schedule_unsharp()
