"""SGEMM for AVX2 (issue 7): the stdlib schedule of examples/sgemm_avx2.py,
its shape, its C, and its results against NumPy at odd and K-blocked
sizes (the run tests skip on CPUs without AVX2/FMA)."""

import pathlib
import sys

import exo2
import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples"))
import sgemm_avx2 as example  # noqa: E402

with open("/proc/cpuinfo") as _cpu:
    HAS_AVX2 = {"avx2", "fma"} <= set(_cpu.read().split())
needs_avx2 = pytest.mark.skipif(not HAS_AVX2, reason="this CPU lacks AVX2/FMA")


@pytest.fixture(scope="module")
def scheduled():
    return example.schedule_sgemm_avx2()


@pytest.fixture(scope="module")
def compiled(scheduled):
    return scheduled.jit()


def test_schedule_has_the_planned_shape(scheduled):
    text = " ".join(str(scheduled).split())  # the printer wraps long lines
    for expected in [
        "for ko in seq(0, K / 256):",
        "for jc in seq(0, N / 256): for io in seq(0, M / 6): for jo in seq(0, 16):",
        "for jo in seq(0, N / 16 % 16):",
        "C_reg: f32[6, 2, 8] @ AVX2",
        "B_reg: f32[2, 8] @ AVX2",
        "C_tail: f32[6, 2, 8] @ AVX2",
        "C_reg1: f32[1, 2, 8] @ AVX2",  # the M % 6 rows
        "mm256_loadu_ps( B_reg[1, 0:8], B[ki + 256 * ko, 8 + 16 * jo + 256 * jc:16 + 16 * jo + 256 * jc])",
        "mm256_fmadd_ps_broadcast( C_reg[5, 1, 0:8], B_reg[1, 0:8], A[5 + 6 * io, ki + 256 * ko:1 + ki + 256 * ko])",
        "mm256_storeu_ps( C[5 + 6 * io, 8 + 16 * jo + 256 * jc:16 + 16 * jo + 256 * jc], C_reg[5, 1, 0:8])",
    ]:
        assert expected in text, f"missing {expected!r} in\n{text}"
    # Rows and column vectors of the micro-kernel are unrolled.
    assert "for ii in seq(0, 6)" not in text and "for jt" not in text


def test_c_code_uses_avx2_registers(scheduled):
    c_code, _ = exo2.compile_procs_to_strings([scheduled], "sgemm_avx2.h")
    assert "__m256 C_reg[6][2];" in c_code
    assert "C_reg[5][1] = _mm256_fmadd_ps(B_reg[1], _mm256_broadcast_ss(" in c_code
    # Per K nest: 12 (6 x 16 tiles) + 12 (the N % 256 blocks) + 2 (M % 6 rows).
    assert c_code.count("= _mm256_fmadd_ps(B_") == 52


@needs_avx2
@pytest.mark.parametrize(
    "M, N, K",
    [
        (1, 1, 1),
        (7, 7, 7),
        (33, 33, 33),
        (6, 16, 256),
        (12, 32, 5),
        (97, 65, 300),
        (50, 70, 600),
        (130, 200, 513),
    ],
)
def test_matches_numpy(compiled, M, N, K):
    rng = np.random.default_rng(M * N * K)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C = rng.standard_normal((M, N), dtype=np.float32)
    expected = C.astype(np.float64) + A.astype(np.float64) @ B
    compiled(M, N, K, A, B, C)
    np.testing.assert_allclose(C, expected, rtol=1e-4, atol=1e-4 * np.sqrt(K))


@needs_avx2
def test_matches_the_naive_kernel(scheduled):
    from schedule_check import assert_same_results

    assert_same_results(
        example.sgemm, scheduled, {"M": 19, "N": 37, "K": 270}, rtol=1e-4, atol=1e-3
    )
