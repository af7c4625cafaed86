"""examples/exo_compat: programs shaped like Exo's x86 apps, written against
Exo's API (the differential run executes them on Exo too). On exo2 each
schedule is accepted and keeps its results."""

import importlib.util
import sys
from pathlib import Path

import pytest
from schedule_check import assert_same_results

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "exo_compat"


def _has_avx512():
    try:
        return " avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


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


def test_sgemm_avx512_splits_the_reload_and_keeps_results():
    sgemm = load("sgemm_avx512")
    p = sgemm.schedule_sgemm()
    assert "mm512_fmadd_ps" in str(p)
    if not _has_avx512():
        pytest.skip("the schedule is checked; running it needs AVX-512")
    for K in [1, 2, 17]:
        assert_same_results(sgemm.sgemm_6x64, p, {"K": K}, rtol=1e-4, atol=1e-5)


def test_unsharp_writes_the_weight_once_and_keeps_results():
    unsharp = load("unsharp")
    p = unsharp.schedule_unsharp()
    assert str(p).count("weight = 1.5") == 1
    for sizes in [dict(W=1, H=1), dict(W=13, H=7)]:
        assert_same_results(unsharp.unsharp, p, sizes)


def test_conv_keeps_an_output_pixel_in_registers_and_keeps_results():
    conv = load("conv")
    p = conv.schedule_conv()
    text = str(p)
    assert "out_reg: f32[2, 8] @ AVX2" in text
    assert text.count("mm256_fmadd_ps(") == 2
    for sizes in [dict(H=1, W=1, IC=1), dict(H=3, W=5, IC=7)]:
        assert_same_results(conv.conv3x3, p, sizes, rtol=1e-4, atol=1e-5)


def test_blas_library_schedules_level_1_and_2_kernels_and_keeps_results():
    # the kernels import their scheduling library from their folder
    sys.path.insert(0, str(EXAMPLES / "blas_library"))
    try:
        import blas_kernels as kernels
    finally:
        sys.path.remove(str(EXAMPLES / "blas_library"))
    cases = [
        (kernels.saxpy, kernels.schedule_axpy(), "avx2_fmadd3_ps("),
        (kernels.sscal, kernels.schedule_scal(), "mm256_mul_ps("),
        (kernels.sdot, kernels.schedule_dot(), "avx2_assoc_reduce_add_ps("),
        (kernels.sgemv_n, kernels.schedule_gemv(), "mm256_fmadd_ps("),
    ]
    for original, p, instruction in cases:
        assert instruction in str(p)
        for sizes in [dict(n=1, m=1), dict(n=37, m=7), dict(n=64, m=8)]:
            names = {a.name() for a in original.args()}
            sizes = {k: v for k, v in sizes.items() if k in names}
            assert_same_results(original, p, sizes, rtol=1e-4, atol=1e-4)
