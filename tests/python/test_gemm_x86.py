"""GEMM for x86 (issue 7): the stdlib schedule of examples/gemm_x86.py for
its four targets, its shape, its C, and its results against NumPy at odd,
K-blocked and N-blocked sizes. Runs skip on CPUs without the instruction
set; the AVX-512 kernels are then still scheduled and compiled."""

import pathlib
import re
import subprocess
import sys

import exo2
import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples"))
import gemm_x86 as example  # noqa: E402

with open("/proc/cpuinfo") as _cpu:
    _FLAGS = set(_cpu.read().split())
CAN_RUN = {
    "avx2": {"avx2", "fma"} <= _FLAGS,
    "avx512": "avx512f" in _FLAGS,
}
KERNELS = {"f32": example.sgemm, "f64": example.dgemm}
DTYPES = {"f32": np.float32, "f64": np.float64}
TARGET_IDS = [f"{t.name}-{t.precision}" for t in example.TARGETS]

SIZES = [
    (1, 1, 1),
    (7, 7, 7),
    (33, 33, 33),
    (6, 16, 256),
    (12, 32, 5),
    (97, 65, 300),
    (50, 70, 600),
    (130, 300, 513),  # two K slices and a tail, an N block and a tail
    (1000, 9, 3),
    (5, 1000, 17),
]


@pytest.fixture(scope="module", params=example.TARGETS, ids=TARGET_IDS)
def scheduled(request):
    target = request.param
    return target, example.schedule_gemm(KERNELS[target.precision], target)


def _text(procedure):
    return " ".join(str(procedure).split())  # the printer wraps long lines


def test_avx2_f32_schedule_has_the_planned_shape():
    text = _text(example.schedule_gemm(example.sgemm, example.AVX2_F32))
    for expected in [
        "for ko in seq(0, K / 256):",
        # B packed in 16-column panels, the copy vectorized
        "B_pack: f32[N / 16 * 16 / 16, 256, 16] @ DRAM",
        "mm256_storeu_ps(B_pack[i1o, i0, 8 * i1io:8 + 8 * i1io], var0[0:8])",
        # A packed so that the 6 values of a k step are adjacent
        "A_pack: f32[M / 6 * 6 / 6, 256, 6] @ DRAM",
        "A_pack[i0o, i1, i0i] = A[i0i + 6 * i0o, i1 + 256 * ko]",
        "for jc in seq(0, N / 256): for io in seq(0, M / 6): for jo in seq(0, 16):",
        "C_reg: f32[6, 2, 8] @ AVX2",
        "B_reg: f32[2, 8] @ AVX2",
        "mm256_loadu_ps(B_reg[1, 0:8], B_pack[jo + 16 * jc, ki, 8:16])",
        "mm256_fmadd_ps_broadcast(C_reg[5, 1, 0:8], B_reg[1, 0:8], A_pack[io, ki, 5:6])",
        # the M % 6 rows: pairs, then one
        "C_reg2: f32[2, 2, 8] @ AVX2",
        "C_reg1: f32[1, 2, 8] @ AVX2",
        # the N % 16 columns: one 8-wide kernel, then N % 8 dot products
        "for jo in seq(0, N % 16 / 8):",
        "C_reg_n: f32[6, 1, 8] @ AVX2",
        "for ji in seq(0, N % 16 % 8):",
        "B_t[i1, i0] = B[i0 + 256 * ko, i1 + (N / 16 * 16 + N % 16 / 8 * 8)]",
        "avx2_assoc_reduce_add_ps(var1[0:8], C_sum)",
        # the K % 256 slice
        "B_pack_k: f32[N / 16 * 16 / 16, K - K / 256 * 256, 16] @ DRAM",
        "C_reg_k: f32[6, 2, 8] @ AVX2",
    ]:
        assert expected in text, f"missing {expected!r}"
    # Rows and column vectors of the micro-kernels are unrolled.
    assert "for ii in seq(0, 6)" not in text and "for jt" not in text


def test_c_code_keeps_the_tile_in_registers(scheduled):
    target, procedure = scheduled
    c_code, _ = exo2.compile_procs_to_strings([procedure], "gemm.h")
    vector = {"avx2": "__m256", "avx512": "__m512"}[target.name]
    suffix = {"f32": "", "f64": "d"}[target.precision]
    assert f"{vector}{suffix} C_reg[6][2];" in c_code
    fma = {"avx2": "_mm256_fmadd_p", "avx512": "_mm512_fmadd_p"}[target.name]
    # per K slice: 12 (6 x NR tiles) + 12 (the N % (NB NR) blocks) + 4 + 2
    # (M % 6 rows) + 6 + 2 + 1 (the VW-wide column kernels)
    assert len(re.findall(rf"= {fma}[sd]\(B_reg", c_code)) == 2 * 39


def test_avx512_kernels_compile(scheduled, tmp_path):
    """The AVX-512 C compiles here even where the CPU cannot run it."""
    target, procedure = scheduled
    if target.name != "avx512":
        pytest.skip("compiled by the run tests")
    c_code, h_code = exo2.compile_procs_to_strings([procedure], "gemm.h")
    (tmp_path / "gemm.c").write_text(c_code)
    (tmp_path / "gemm.h").write_text(h_code)
    result = subprocess.run(
        ["cc", "-O2", "-mavx512f", "-mfma", "-c", "gemm.c", "-o", "gemm.o"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def compiled(scheduled):
    target, procedure = scheduled
    if not CAN_RUN[target.name]:
        pytest.skip(f"this CPU lacks {target.name}")
    return target, procedure.jit()


@pytest.mark.parametrize("M, N, K", SIZES)
def test_matches_numpy(compiled, M, N, K):
    target, kernel = compiled
    dtype = DTYPES[target.precision]
    rng = np.random.default_rng(M * N * K)
    A = rng.standard_normal((M, K)).astype(dtype)
    B = rng.standard_normal((K, N)).astype(dtype)
    C = rng.standard_normal((M, N)).astype(dtype)
    expected = C.astype(np.float64) + A.astype(np.float64) @ B
    kernel(M, N, K, A, B, C)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(C, expected, rtol=tol, atol=tol * np.sqrt(K))


def test_matches_the_naive_kernel(scheduled):
    from schedule_check import assert_same_results

    target, procedure = scheduled
    if not CAN_RUN[target.name]:
        pytest.skip(f"this CPU lacks {target.name}")
    assert_same_results(
        KERNELS[target.precision],
        procedure,
        {"M": 19, "N": 37, "K": 270},
        rtol=1e-4,
        atol=1e-3,
    )


BLOCKINGS = [
    # no packing, narrow tiles, panels outside the row blocks, small KC and NB
    example.Blocking(
        mr=4,
        nr_vecs=1,
        kc=64,
        nb=4,
        pack_a=False,
        pack_b=False,
        order=("jc", "jo", "io"),
    ),
    # one-row and two-row tiles (no pair kernels), A packed only, rows outermost
    example.Blocking(
        mr=1, nr_vecs=2, kc=32, nb=8, pack_b=False, order=("io", "jc", "jo")
    ),
    example.Blocking(mr=2, nr_vecs=3, kc=128, nb=1, pack_a=False),
]


@pytest.mark.parametrize("blocking", BLOCKINGS, ids=lambda b: f"mr{b.mr}-nr{b.nr_vecs}")
def test_other_blockings_keep_the_results(blocking):
    """The constants the tuner varies (examples/tune_gemm.py): each
    combination schedules and computes C += A B at odd, K-blocked and
    N-blocked sizes."""
    from schedule_check import assert_same_results

    procedure = example.schedule_gemm(example.sgemm, example.AVX2_F32, blocking)
    if not CAN_RUN["avx2"]:
        pytest.skip("this CPU lacks avx2")
    for sizes in ({"M": 19, "N": 37, "K": 270}, {"M": 7, "N": 100, "K": 65}):
        assert_same_results(example.sgemm, procedure, sizes, rtol=1e-4, atol=1e-3)


def test_a_loop_order_with_jo_before_jc_is_refused():
    with pytest.raises(ValueError, match="jc before jo"):
        example.schedule_gemm(
            example.sgemm, example.AVX2_F32, example.Blocking(order=("jo", "io", "jc"))
        )
