"""exo2.stdlib.stdlib.accumulate_in_registers: an output tile kept in vector
registers across the loop that accumulates into it, on the three shapes
it is for (a 3x3 convolution, a GEMM tile, a transposed GEMV): the printed
result, runs before and after on random inputs at odd and edge sizes
(AVX2, where the CPU has it), and the refusals."""

from __future__ import annotations

import pytest
from exo2 import SchedulingError, proc
from exo2.API_scheduling import divide_loop, fission, reorder_loops
from exo2.libs.memories import AVX2
from exo2.platforms import x86
from exo2.stdlib.stdlib import accumulate_in_registers
from schedule_check import assert_same_results

with open("/proc/cpuinfo") as _cpu:
    HAS_AVX2 = {"avx2", "fma"} <= set(_cpu.read().split())

AVX2_F32 = [
    x86.mm256_loadu_ps,
    x86.mm256_storeu_ps,
    x86.mm256_setzero_ps,
    x86.mm256_broadcast_ss,
    x86.mm256_fmadd_ps,
]


def check_runs(before, after, sizes_list):
    if not HAS_AVX2:
        return
    kernel, scheduled = before.jit(), after.jit()
    for sizes in sizes_list:
        # sums reassociated across lanes: compare loosely
        assert_same_results(kernel, scheduled, sizes, rtol=1e-4, atol=1e-4)


@proc
def conv3x3(H: size, W: size, inp: f32[H + 2, W + 2], w: f32[3, 3], out: f32[H, W]):
    for y in seq(0, H):
        for x in seq(0, W):
            out[y, x] = 0.0
            for ky in seq(0, 3):
                for kx in seq(0, 3):
                    out[y, x] += w[ky, kx] * inp[y + ky, x + kx]


def test_conv_row_of_8_outputs_stays_in_one_register_across_ky_kx():
    p = divide_loop(conv3x3, "x", 8, ["xo", "xi"], tail="cut")
    p, (acc,) = accumulate_in_registers(
        p, p.find_loop("xi"), "out[y, 8 * xo:8 * xo + 8]", 8, "f32", AVX2,
        AVX2_F32, rc=True,
    )  # fmt: skip
    assert acc.name() == "acc" and acc.mem() is AVX2
    lines = str(p).splitlines()
    start = lines.index("            acc: f32[1, 8] @ AVX2")
    assert lines[start + 1 : start + 11] == [
        "            mm256_setzero_ps(acc[0, 0:8])",
        "            for ky in seq(0, 3):",
        "                for kx in seq(0, 3):",
        "                    var0: f32[8] @ AVX2",
        "                    var1: f32[8] @ AVX2",
        "                    mm256_broadcast_ss(var0[0:8], w[ky, kx:1 + kx])",
        "                    mm256_loadu_ps(var1[0:8], inp[ky + y,",
        "                                                  kx + 8 * xo:8 + kx + 8 * xo])",
        "                    mm256_fmadd_ps(acc[0, 0:8], var0[0:8], var1[0:8])",
        "            mm256_storeu_ps(out[y, 8 * xo:8 + 8 * xo], acc[0, 0:8])",
    ]
    sizes = [(1, 1), (2, 8), (3, 7), (5, 17), (4, 33)]
    check_runs(conv3x3, p, [{"H": h, "W": w} for h, w in sizes])


@proc
def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


def test_gemm_4x16_tile_is_8_registers_across_k():
    p = divide_loop(sgemm, "j", 16, ["jo", "ji"], tail="cut")
    p = fission(p, p.find_loop("jo").after())
    p = divide_loop(p, "i", 4, ["io", "ii"], tail="cut")
    for pair in ["ii jo", "ji k", "ii k"]:  # io > jo > k > ii > ji
        p = reorder_loops(p, pair)
    tile = "C[4 * io:4 * io + 4, 16 * jo:16 * jo + 16]"
    p = accumulate_in_registers(p, p.find_loop("k"), tile, 8, "f32", AVX2, AVX2_F32)
    text = str(p)
    assert "        acc: f32[4, 2, 8] @ AVX2\n" in text
    # loaded once before k, stored once after, 8 FMAs per k step
    assert text.count("mm256_loadu_ps(acc[") == 8
    assert text.count("mm256_storeu_ps(C[") == 8
    assert text.count("mm256_fmadd_ps(acc[") == 8
    assert "mm256_fmadd_ps(acc[3, 1, 0:8]" in text
    k_loop = p.find_loop("k")
    assert all("acc" not in str(s) or "fmadd" in str(s) for s in k_loop.body())
    sizes = [(1, 1, 1), (4, 16, 1), (5, 17, 3), (13, 35, 20)]
    check_runs(sgemm, p, [{"M": m, "N": n, "K": k} for m, n, k in sizes])


@proc
def sgemv_t(m: size, n: size, A: f32[m, n], x: f32[m], y: f32[n]):
    for i in seq(0, m):
        for j in seq(0, n):
            y[j] += A[i, j] * x[i]


def test_transposed_gemv_keeps_32_outputs_in_4_registers_across_rows():
    p = divide_loop(sgemv_t, "j", 32, ["jo", "ji"], tail="cut")
    p = fission(p, p.find_loop("jo").after())
    p = reorder_loops(p, "i jo")
    p = accumulate_in_registers(
        p, p.find_loop("i"), "y[32 * jo:32 * jo + 32]", 8, "f32", AVX2, AVX2_F32
    )
    text = str(p)
    assert "        acc: f32[4, 8] @ AVX2\n" in text
    assert "            mm256_fmadd_ps(acc[3, 0:8], var0_3[0:8], var1_3[0:8])\n" in text
    sizes = [(1, 1), (3, 32), (5, 33), (7, 70)]
    check_runs(sgemv_t, p, [{"m": m, "n": n} for m, n in sizes])


@proc
def sgemv(m: size, n: size, A: f32[m, n], x: f32[n], y: f32[m]):
    for i in seq(0, m):
        for j in seq(0, n):
            y[i] += A[i, j] * x[j]


def test_a_tile_that_is_not_whole_vectors_is_refused():
    p = divide_loop(sgemv, "i", 4, ["io", "ii"], tail="cut")
    with pytest.raises(SchedulingError) as info:
        accumulate_in_registers(
            p, p.find_loop("ii"), "y[4 * io:4 * io + 4]", 8, "f32", AVX2, AVX2_F32
        )
    assert "must have a constant last extent that is a multiple of vec_width = 8" in (
        str(info.value)
    )


def test_lanes_along_a_sum_are_refused_with_the_alternative():
    # y[i] for 8 rows i, accumulated over j: the lanes would run along the
    # rows, reading A by columns (strided); vectorize names the load it needs
    p = divide_loop(sgemv, "i", 8, ["io", "ii"], tail="cut")
    p = reorder_loops(p, "ii j")
    with pytest.raises(SchedulingError) as info:
        accumulate_in_registers(
            p, p.find_loop("j"), "y[8 * io:8 * io + 8]", 8, "f32", AVX2, AVX2_F32
        )
    assert "needs a strided (lanes not adjacent in 'A') load from DRAM" in str(
        info.value
    )


@proc
def shifted(n: size, x: f32[n + 8], y: f32[8]):
    for i in seq(0, n):
        for lane in seq(0, 8):
            y[lane] += x[i + lane]


def test_missing_instructions_are_named_with_their_form():
    with pytest.raises(SchedulingError) as info:
        accumulate_in_registers(
            shifted, shifted.find_loop("i"), "y[0:8]", 8, "f32", AVX2, AVX2_F32
        )
    message = str(info.value)
    assert "no instruction given matches 1 statement on AVX2 vectors" in message
    assert "needs a lane-wise `dst += a` (AVX2 vectors of f32)" in message
    add = x86.avx2_reduce_add_wide_ps
    p = accumulate_in_registers(
        shifted, shifted.find_loop("i"), "y[0:8]", 8, "f32", AVX2, [*AVX2_F32, add]
    )
    assert "        avx2_reduce_add_wide_ps(acc[0, 0:8], var0[0:8])\n" in str(p)
    check_runs(shifted, p, [{"n": 1}, {"n": 5}])
