"""The whole-schedule test (issue 6): a naive SGEMM scheduled with
primitives only into a tiled, staged, register-blocked kernel
(examples/sgemm_primitives.py), run and compared with NumPy."""

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples"))
import sgemm_primitives as example  # noqa: E402


@pytest.fixture(scope="module")
def scheduled():
    return example.schedule_sgemm()


def test_schedule_has_the_planned_shape(scheduled):
    text = str(scheduled)
    for expected in [
        "C_reg: f32[6, 16] @ DRAM",
        "A_pack: f32[6, 32] @ DRAM",
        "B_pack: f32[32, 16] @ DRAM",
        "for io in seq(0, M / 6):",
        "for jo in seq(0, N / 16):",
        "for ko in seq(0, K / 32):",
        "for ki in seq(0, 32):",
        "C_reg[5, ji] += A_pack[5, ki] * B_pack[ki, ji]",
    ]:
        assert expected in text, f"missing {expected!r} in\n{text}"
    # The six rows are unrolled: no loop over ii is left.
    assert "for ii" not in text


@pytest.mark.parametrize("M, N, K", [(6, 16, 32), (12, 48, 64), (18, 32, 96)])
def test_scheduled_sgemm_matches_numpy(scheduled, M, N, K):
    rng = np.random.default_rng(M * N * K)
    A = rng.standard_normal((M, K), dtype=np.float32)
    B = rng.standard_normal((K, N), dtype=np.float32)
    C = rng.standard_normal((M, N), dtype=np.float32)
    expected = C + A @ B
    scheduled.jit()(M, N, K, A, B, C)
    np.testing.assert_allclose(C, expected, rtol=1e-4, atol=1e-4)


def test_scheduled_sgemm_matches_the_naive_kernel(scheduled):
    from schedule_check import assert_same_results

    assert_same_results(
        example.sgemm, scheduled, {"M": 12, "N": 32, "K": 64}, rtol=1e-4, atol=1e-4
    )
