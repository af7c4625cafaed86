"""exo2.stdlib.stdlib.vectorize on BLAS level-1 loops (saxpy, sdot, sasum,
sscal) in f32 and f64, with every tail strategy: the printed result, and
before/after runs through the JIT (AVX2, on machines that have it) at odd
sizes. AVX-512 variants are printed and compiled only."""

from __future__ import annotations

import numpy as np
import pytest
from exo2 import SchedulingError, instr, proc
from exo2.libs.externs import select
from exo2.libs.memories import AVX2, AVX512, DRAM
from exo2.platforms import x86
from exo2.stdlib.stdlib import (
    abs_rule,
    fma_rule,
    max_rule,
    unmatched_vector_stmts,
    vectorize,
    vectorize_predicate_head,
)
from schedule_check import assert_same_results

with open("/proc/cpuinfo") as _cpu:
    _FLAGS = set(_cpu.read().split())
HAS_AVX2 = {"avx2", "fma"} <= _FLAGS

needs_avx2 = pytest.mark.skipif(not HAS_AVX2, reason="this CPU lacks AVX2/FMA")

SIZES = [1, 7, 33, 1000]


@proc
def saxpy_f32(n: size, alpha: f32[1], x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] += alpha[0] * x[i]


@proc
def saxpy_f64(n: size, alpha: f64[1], x: f64[n], y: f64[n]):
    for i in seq(0, n):
        y[i] += alpha[0] * x[i]


@proc
def sdot_f32(n: size, x: f32[n], y: f32[n], result: f32):
    for i in seq(0, n):
        result += x[i] * y[i]


@proc
def sdot_f64(n: size, x: f64[n], y: f64[n], result: f64):
    for i in seq(0, n):
        result += x[i] * y[i]


@proc
def sasum_f32(n: size, x: f32[n], result: f32):
    for i in seq(0, n):
        result += select(0.0, x[i], x[i], -x[i])


@proc
def sasum_f64(n: size, x: f64[n], result: f64):
    for i in seq(0, n):
        result += select(0.0, x[i], x[i], -x[i])


@proc
def sscal_f32(n: size, alpha: f32[1], x: f32[n]):
    for i in seq(0, n):
        x[i] = alpha[0] * x[i]


@proc
def sscal_f64(n: size, alpha: f64[1], x: f64[n]):
    for i in seq(0, n):
        x[i] = alpha[0] * x[i]


KERNELS = {
    "saxpy_f32": saxpy_f32,
    "saxpy_f64": saxpy_f64,
    "sdot_f32": sdot_f32,
    "sdot_f64": sdot_f64,
    "sasum_f32": sasum_f32,
    "sasum_f64": sasum_f64,
    "sscal_f32": sscal_f32,
    "sscal_f64": sscal_f64,
}

# The AVX2 instructions vectorize may pick, per precision ({s}: ps / pd,
# {b}: ss / sd).
_AVX2_NAMES = [
    "mm256_loadu_{s}",
    "mm256_storeu_{s}",
    "mm256_setzero_{s}",
    "mm256_broadcast_{b}",
    "mm256_addmul_{s}",
    "mm256_fmadd_{s}",
    "mm256_mul_{s}",
    "mm256_add_{s}",
    "avx2_abs_{s}",
    "avx2_reduce_add_wide_{s}",
    "avx2_assoc_reduce_add_{s}",
    "avx2_mask_loadu_{s}",
    "avx2_mask_storeu_{s}",
    "mm256_prefix_broadcast_{b}",
    "mm256_prefix_fmadd_{s}",
    "mm256_prefix_mul_{s}",
    "mm256_prefix_add_{s}",
]


def avx2_instructions(precision):
    s, b = ("ps", "ss") if precision == "f32" else ("pd", "sd")
    return [getattr(x86, n.format(s=s, b=b)) for n in _AVX2_NAMES]


RULES = {"saxpy": [], "sdot": [fma_rule], "sasum": [abs_rule], "sscal": []}


def vectorized(name, tail):
    kernel = KERNELS[name]
    base, precision = name.split("_")
    width = 8 if precision == "f32" else 4
    return vectorize(
        kernel,
        kernel.find_loop("i"),
        width,
        precision,
        AVX2,
        avx2_instructions(precision),
        RULES[base],
        tail=tail,
    )


def vector_loops_are_calls(p, vector_loop_name="io"):
    """Every statement inside the vector loops is an instruction call or an
    allocation (nothing scalar is left in them)."""
    for loop in p.find_loop(vector_loop_name, many=True):
        for stmt in loop.body():
            text = str(stmt)
            assert text.startswith(("mm", "avx")) or "@" in text, text


# --------------------------------------------------------------------------- #
# Printed results


def test_saxpy_f32_cut_and_predicate_prints_vector_body_and_masked_tail():
    p = vectorized("saxpy_f32", "cut_and_predicate")
    text = str(p)
    assert "    for io in seq(0, (7 + n) / 8 - 1):\n" in text
    assert (
        "        mm256_loadu_ps(var1[0:8], y[8 * io + 0:8 * io + 8])\n"
        "        mm256_broadcast_ss(var3[0:8], alpha[0:1])\n"
        "        mm256_loadu_ps(var4[0:8], x[8 * io + 0:8 * io + 8])\n"
        "        mm256_mul_ps(var2[0:8], var3[0:8], var4[0:8])\n"
        "        mm256_add_ps(var0[0:8], var1[0:8], var2[0:8])\n"
        "        mm256_storeu_ps(y[8 * io + 0:8 * io + 8], var0[0:8])\n"
    ) in text
    assert "    for io in seq((7 + n) / 8 - 1, (7 + n) / 8):\n" in text
    assert (
        "        avx2_mask_loadu_ps(-8 * io + n + 0, var1[0:8], y[8 * io + 0:n + 0])\n"
        "        mm256_prefix_broadcast_ss(var3[0:8], alpha[0:1], -8 * io + n + 0)\n"
        "        avx2_mask_loadu_ps(-8 * io + n + 0, var4[0:8], x[8 * io + 0:n + 0])\n"
        "        mm256_prefix_mul_ps(var2[0:8], var3[0:8], var4[0:8], -8 * io + n + 0)\n"
        "        mm256_prefix_add_ps(var0[0:8], var1[0:8], var2[0:8], -8 * io + n + 0)\n"
        "        avx2_mask_storeu_ps(-8 * io + n + 0, y[8 * io + 0:n + 0], var0[0:8])"
    ) in text


def test_sdot_f32_cut_prints_fma_accumulator_and_scalar_tail():
    p = vectorized("sdot_f32", "cut")
    assert str(p) == (
        "def sdot_f32(n: size, x: f32[n] @ DRAM, y: f32[n] @ DRAM, "
        "result: f32 @ DRAM):\n"
        "    var0: f32[8] @ AVX2\n"
        "    mm256_setzero_ps(var0[0:8])\n"
        "    for io in seq(0, n / 8):\n"
        "        var1: f32[8] @ AVX2\n"
        "        var2: f32[8] @ AVX2\n"
        "        mm256_loadu_ps(var1[0:8], x[8 * io + 0:8 * io + 8])\n"
        "        mm256_loadu_ps(var2[0:8], y[8 * io + 0:8 * io + 8])\n"
        "        mm256_fmadd_ps(var0[0:8], var1[0:8], var2[0:8])\n"
        "    avx2_assoc_reduce_add_ps(var0[0:8], result)\n"
        "    for ii in seq(0, n % 8):\n"
        "        result += x[ii + n / 8 * 8] * y[ii + n / 8 * 8]"
    )


def test_sasum_f64_abs_rule_keeps_the_three_operands_in_one_register():
    p = vectorized("sasum_f64", "cut")
    text = str(p)
    assert "        avx2_abs_pd(var1[0:4], var2[0:4])\n" in text
    assert "        avx2_reduce_add_wide_pd(var0[0:4], var1[0:4])\n" in text
    assert "    avx2_assoc_reduce_add_pd(var0[0:4], result)\n" in text


def test_vectorize_returns_the_vector_loop():
    p, (loop,) = vectorize(
        sscal_f32,
        sscal_f32.find_loop("i"),
        8,
        "f32",
        AVX2,
        avx2_instructions("f32"),
        tail="cut",
        rc=True,
    )
    assert loop.name() == "io" and p.forward(loop) == loop
    assert loop.hi().op() == "/"


def test_cut_and_guard_puts_the_scalar_tail_under_an_if():
    p = vectorized("sscal_f64", "cut_and_guard")
    assert "    if n % 4 > 0:\n        for ii in seq(0, n % 4):\n" in str(p)
    vector_loops_are_calls(p)


# --------------------------------------------------------------------------- #
# Running before and after


# (kernel, tails): `cut_and_predicate` needs a masked form of every
# instruction of the body (there is no masked abs).
CASES = [
    (name, tail)
    for name in KERNELS
    for tail in ("cut", "cut_and_guard", "cut_and_predicate")
    if not (name.startswith("sasum") and tail == "cut_and_predicate")
]


@needs_avx2
@pytest.mark.parametrize("name,tail", CASES, ids=[f"{n}-{t}" for n, t in CASES])
def test_vectorized_kernel_computes_the_same(name, tail):
    p = vectorized(name, tail)
    vector_loops_are_calls(p)
    kernel, after = KERNELS[name].jit(), p.jit()
    for n in SIZES:
        # the reductions assume + associative: compare loosely
        assert_same_results(kernel, after, {"n": n}, rtol=1e-4, atol=1e-4)


@proc
def saxpy_by_8(n: size, alpha: f32[1], x: f32[n], y: f32[n]):
    assert n % 8 == 0
    for i in seq(0, n):
        y[i] += alpha[0] * x[i]


@needs_avx2
def test_perfect_tail_divides_without_remainder():
    p = vectorize(
        saxpy_by_8,
        saxpy_by_8.find_loop("i"),
        8,
        "f32",
        AVX2,
        avx2_instructions("f32"),
        tail="perfect",
    )
    assert "    for io in seq(0, n / 8):\n" in str(p)
    assert "ii" not in str(p)
    for n in [8, 32, 1000]:
        assert_same_results(saxpy_by_8, p, {"n": n})


def test_perfect_tail_is_refused_when_the_size_may_not_divide():
    with pytest.raises(SchedulingError, match="cannot perfectly divide") as info:
        vectorized("saxpy_f32", "perfect")
    names = [name for name, _, _ in info.value.op_stack]
    assert names[0] == "vectorize" and names[-1] == "divide_loop"
    assert "divide_loop_" in names
    assert any(
        "vectorize" in note and "divide_loop" in note
        for note in getattr(info.value, "__notes__", [])
    )


def test_unknown_tail_is_a_value_error():
    with pytest.raises(ValueError, match="tail must be one of"):
        vectorized("saxpy_f32", "wrap")


# --------------------------------------------------------------------------- #
# Guarded tails with instructions whose bound is not limited to the width
#
# `guard` and `predicate` divide with a guard in every vector iteration:
# `x[8 * io + ii]` for `8 * io + ii < n`, where `-8 * io + n + 0` exceeds 8
# except in the last iteration. The x86 library's masked instructions assert
# `N <= 8`, which exo2's `replace` proves (Exo does not check it), so they
# do not match there; these variants mask any prefix of the 8 lanes.

_MASK = (
    "__m256i exo2_cmp = _mm256_cmpgt_epi32(_mm256_set1_epi32({N}), "
    "_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));"
)


@instr("{{" + _MASK + " {dst_data} = _mm256_maskload_ps(&{src_data}, exo2_cmp);}}")
def load_prefix(N: size, dst: [f32][8] @ AVX2, src: [f32][N] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    for i in seq(0, 8):
        if i < N:
            dst[i] = src[i]


@instr("{{" + _MASK + " _mm256_maskstore_ps(&{dst_data}, exo2_cmp, {src_data});}}")
def store_prefix(N: size, dst: [f32][N] @ DRAM, src: [f32][8] @ AVX2):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    for i in seq(0, 8):
        if i < N:
            dst[i] = src[i]


@instr("{dst_data} = _mm256_broadcast_ss(&{val_data});")
def broadcast_prefix(N: size, dst: [f32][8] @ AVX2, val: [f32][1] @ DRAM):
    assert stride(dst, 0) == 1
    for i in seq(0, 8):
        if i < N:
            dst[i] = val[0]


@instr("{out_data} = _mm256_mul_ps({x_data}, {y_data});")
def mul_prefix(N: size, out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    for i in seq(0, 8):
        if i < N:
            out[i] = x[i] * y[i]


@instr("{out_data} = _mm256_add_ps({x_data}, {y_data});")
def add_prefix(N: size, out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    for i in seq(0, 8):
        if i < N:
            out[i] = x[i] + y[i]


PREFIX_INSTRUCTIONS = [
    load_prefix,
    store_prefix,
    broadcast_prefix,
    mul_prefix,
    add_prefix,
]


@pytest.mark.parametrize("tail", ["guard", "predicate"])
def test_guarded_tails_mask_every_vector_iteration(tail):
    p = vectorize(
        saxpy_f32,
        saxpy_f32.find_loop("i"),
        8,
        "f32",
        AVX2,
        PREFIX_INSTRUCTIONS,
        tail=tail,
    )
    text = str(p)
    assert "    for io in seq(0, (n + 7) / 8):\n" in text or (
        "    for io in seq(0, (7 + n) / 8):\n" in text
    )
    assert (
        "        load_prefix(-8 * io + n + 0, var1[0:8], y[8 * io + 0:n + 0])\n" in text
    )
    assert (
        "        store_prefix(-8 * io + n + 0, y[8 * io + 0:n + 0], var0[0:8])" in text
    )
    vector_loops_are_calls(p)
    if HAS_AVX2:
        kernel, after = saxpy_f32.jit(), p.jit()
        for n in SIZES:
            assert_same_results(kernel, after, {"n": n})


def test_x86_masked_instructions_do_not_match_non_final_iterations():
    # with only the library's masked forms (`N <= 8`), no instruction matches
    # the guarded loops of the `predicate` tail: vectorize names each one
    # and the masked form it needs, instead of leaving code the C code
    # generator refuses
    with pytest.raises(SchedulingError) as info:
        vectorize(
            sscal_f32,
            sscal_f32.find_loop("i"),
            8,
            "f32",
            AVX2,
            avx2_instructions("f32"),
            tail="predicate",
        )
    message = str(info.value)
    assert "no instruction given matches 4 statements on AVX2 vectors" in message
    assert (
        "  for ii in seq(0, 8): if ii + 8 * io < n: var2[ii] = x[ii + 8 * io]\n"
        "    needs a masked load from DRAM (AVX2 vectors of f32; only the lanes "
        "where ii + 8 * io < n)"
    ) in message
    assert "needs a masked store into DRAM" in message
    assert "needs a masked lane-wise `dst = a * b`" in message
    assert 'tail="cut_and_predicate", the last vector iteration' in message


# --------------------------------------------------------------------------- #
# AVX-512 (compiled, not run: this machine may lack AVX-512)

_AVX512_NAMES = [
    "mm512_loadu_{s}",
    "mm512_storeu_{s}",
    "mm512_setzero_{s}",
    "mm512_fmadd_{s}",
    "mm512_mul_{s}",
    "mm512_add_{s}",
    "avx512_reduce_add_wide_{s}",
    "avx512_assoc_reduce_add_{s}",
    "mm512_maskz_loadu_{s}",
    "mm512_mask_storeu_{s}",
    "mm512_mask_fmadd_{s}",
    "mm512_mask_mul_{s}",
    "mm512_mask_add_{s}",
]


def avx512_instructions(precision):
    s = "ps" if precision == "f32" else "pd"
    return [getattr(x86, n.format(s=s)) for n in _AVX512_NAMES]


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_avx512_sdot_is_all_instructions_and_compiles(precision):
    s, width = ("ps", 16) if precision == "f32" else ("pd", 8)
    kernel = KERNELS[f"sdot_{precision}"]
    p = vectorize(
        kernel,
        kernel.find_loop("i"),
        width,
        precision,
        AVX512,
        avx512_instructions(precision),
        [fma_rule],
        tail="cut",
    )
    text = str(p)
    assert f"    mm512_setzero_{s}(var0[0:{width}])\n" in text
    assert (
        f"        mm512_fmadd_{s}(var1[0:{width}], var2[0:{width}], var0[0:{width}])\n"
        in text
    )
    assert f"    avx512_assoc_reduce_add_{s}(var0[0:{width}], result)\n" in text
    vector_loops_are_calls(p)
    # compiling is enough: the JIT compiles when the kernel is created
    compiled = p.jit(extra_cflags=("-mavx512f",))
    assert f"_mm512_fmadd_{s}" in compiled.c_code


@proc
def vadd_f32(n: size, x: f32[n], y: f32[n], z: f32[n]):
    for i in seq(0, n):
        z[i] = x[i] + y[i]


@proc
def vadd_f64(n: size, x: f64[n], y: f64[n], z: f64[n]):
    for i in seq(0, n):
        z[i] = x[i] + y[i]


@pytest.mark.parametrize("kernel", [vadd_f32, vadd_f64], ids=["f32", "f64"])
def test_avx512_masked_tail_compiles(kernel):
    # (mm512_mask_set1 and mm512_mask_fmadd assert N < 16 / 8, as in Exo, so
    # a full last vector would not match them: this kernel needs neither)
    precision = kernel.name().split("_")[1]
    s, width = ("ps", 16) if precision == "f32" else ("pd", 8)
    p = vectorize(
        kernel,
        kernel.find_loop("i"),
        width,
        precision,
        AVX512,
        avx512_instructions(precision),
        tail="cut_and_predicate",
    )
    text = " ".join(str(p).split())  # calls may be wrapped
    assert f"mm512_add_{s}(var0[0:{width}], var1[0:{width}], var2[0:{width}])" in text
    assert (
        f"mm512_maskz_loadu_{s}(-{width} * io + n + 0, var1[0:{width}], x[{width} * io + 0:n + 0])"
        in text
    )
    assert f"mm512_mask_add_{s}(-{width} * io + n + 0, var0[0:{width}]" in text
    assert (
        f"mm512_mask_storeu_{s}(-{width} * io + n + 0, z[{width} * io + 0:n + 0], var0[0:{width}])"
        in text
    )
    vector_loops_are_calls(p)
    compiled = p.jit(extra_cflags=("-mavx512f",))
    assert f"_mm512_mask_storeu_{s}" in compiled.c_code


def test_vectorizing_into_dram_needs_no_instructions():
    # a platform-free use: stage into DRAM temporaries, no replacement
    p = vectorize(saxpy_f32, saxpy_f32.find_loop("i"), 4, "f32", DRAM, tail="cut")
    assert_same_results(saxpy_f32, p, {"n": 7})


def test_predicate_head_runs_the_first_iterations_as_the_last_lanes():
    # the first (n - 1) % 4 + 1 iterations (1 to 4) are one vector whose
    # last lanes they are, under the test widen_loop adds; the whole
    # vectors follow, aligned to the loop's end
    p, (loop,) = vectorize_predicate_head(
        saxpy_f32, saxpy_f32.find_loop("i"), 4, "f32", DRAM, rc=True
    )
    lines = str(p).splitlines()
    assert lines[2:9] == [
        "    var1: f32[4] @ DRAM",
        "    for ii in seq(0, 4):",
        "        if 4 - ((-1 + n) % 4 + 1) <= ii:",
        "            var1[ii] = alpha[0] * x[ii + -(4 - ((-1 + n) % 4 + 1))]",
        "    for ii in seq(0, 4):",
        "        if 4 - ((-1 + n) % 4 + 1) <= ii:",
        "            y[ii + -(4 - ((-1 + n) % 4 + 1))] += var1[ii]",
    ]
    assert loop == p.find_loop("io")  # the loop over whole vectors
    for n in range(1, 14):
        assert_same_results(saxpy_f32, p, {"n": n}, seed=n)


def test_predicate_head_refuses_a_sum_and_a_loop_from_elsewhere():
    with pytest.raises(SchedulingError, match="sums into result across"):
        vectorize_predicate_head(sdot_f32, sdot_f32.find_loop("i"), 4, "f32", DRAM)

    @proc
    def tail(n: size, x: f32[n]):
        for i in seq(1, n):
            x[i] = 0.0

    with pytest.raises(SchedulingError, match="must start at 0"):
        vectorize_predicate_head(tail, tail.find_loop("i"), 4, "f32", DRAM)


def test_predicate_head_refuses_a_loop_that_may_run_no_iteration():
    @proc
    def rest(n: size, m: size, x: f32[n]):
        assert m <= n
        for i in seq(0, n - m):
            x[i] = 0.0

    with pytest.raises(
        SchedulingError, match=r"`for i in seq\(0, n - m\):` may run no"
    ):
        vectorize_predicate_head(rest, rest.find_loop("i"), 4, "f32", DRAM)


# --------------------------------------------------------------------------- #
# Loops with inner loops, checks up front, and statements no instruction
# matches


@proc
def conv3x3(H: size, W: size, inp: f32[H + 2, W + 2], w: f32[3, 3], out: f32[H, W]):
    for y in seq(0, H):
        for x in seq(0, W):
            out[y, x] = 0.0
            for ky in seq(0, 3):
                for kx in seq(0, 3):
                    out[y, x] += w[ky, kx] * inp[y + ky, x + kx]


CONV_INSTRUCTIONS = [
    x86.mm256_loadu_ps,
    x86.mm256_storeu_ps,
    x86.mm256_setzero_ps,
    x86.mm256_broadcast_ss,
    x86.mm256_addmul_ps,
]


def test_vectorize_moves_the_lane_loop_inside_an_inner_reduction_loop():
    p = vectorize(
        conv3x3,
        conv3x3.find_loop("x"),
        8,
        "f32",
        AVX2,
        CONV_INSTRUCTIONS,
        [fma_rule],
        tail="cut",
    )
    lines = str(p).splitlines()
    assert lines[3:8] == [
        "        for xo in seq(0, W / 8):",
        "            var0: f32[8] @ AVX2",
        "            mm256_setzero_ps(var0[0:8])",
        "            mm256_storeu_ps(out[y + 0, 8 * xo + 0:8 * xo + 8], var0[0:8])",
        "            for ky in seq(0, 3):",
    ]
    assert (
        "                    mm256_addmul_ps(var1[0:8], var3[0:8], var4[0:8], var2[0:8])"
        in lines
    )
    assert "        for xi in seq(0, W % 8):" in lines  # the scalar tail
    vector_loops_are_calls(p, "kx")
    if HAS_AVX2:
        kernel, after = conv3x3.jit(), p.jit()
        for H, W in [(1, 1), (3, 7), (2, 8), (5, 17)]:
            assert_same_results(kernel, after, {"H": H, "W": W}, rtol=1e-5, atol=1e-5)


@proc
def call_in_loop(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        x[i] = y[i]
        sscal_f32(n, y[i : i + 1], x)


@proc
def triangle(n: size, A: f32[n, n], s: f32[n]):
    for i in seq(0, n):
        for j in seq(0, i):
            s[i] += A[i, j]


def test_vectorize_checks_what_the_loop_contains_before_rewriting():
    with pytest.raises(SchedulingError) as info:
        vectorize(call_in_loop, call_in_loop.find_loop("i"), 8, "f32", AVX2)
    assert "cannot vectorize the loop over 'i': its body calls sscal_f32" in str(
        info.value
    )
    assert "sscal_f32(n, y[i:i + 1], x)" in str(info.value)
    with pytest.raises(SchedulingError) as info:
        vectorize(triangle, triangle.find_loop("i"), 8, "f32", AVX2, tail="cut")
    assert "has a loop whose bounds depend on 'i'" in str(info.value)
    assert "for j in seq(0, i): s[i] += A[i, j]" in str(info.value)
    with pytest.raises(SchedulingError, match="vec_width must be a positive int"):
        vectorize(sscal_f32, sscal_f32.find_loop("i"), 0, "f32", AVX2)
    with pytest.raises(SchedulingError, match="mem_type must be a memory class"):
        vectorize(sscal_f32, sscal_f32.find_loop("i"), 8, "f32", "AVX2")


def test_vectorize_names_each_statement_no_instruction_matches():
    # no fused multiply-add among the instructions: the one statement that
    # needs it is named with its form, instead of a MemGenError at jit time
    with pytest.raises(SchedulingError) as info:
        vectorize(
            conv3x3,
            conv3x3.find_loop("x"),
            8,
            "f32",
            AVX2,
            CONV_INSTRUCTIONS[:-1],
            [fma_rule],
            tail="cut",
        )
    message = str(info.value)
    assert "vectorize: no instruction given matches 1 statement on AVX2" in message
    assert (
        "  for xi in seq(0, 8): var1[xi] = var2[xi] + var3[xi] * var4[xi]\n"
        "    needs a lane-wise `dst = a + b * c` (AVX2 vectors of f32)"
    ) in message
    # the reduction over the lanes and its zeroing, without any instruction
    with pytest.raises(SchedulingError) as info:
        vectorize(
            sdot_f32, sdot_f32.find_loop("i"), 8, "f32", AVX2, [], [fma_rule], "cut"
        )
    message = str(info.value)
    for need in [
        "needs a set of every lane to 0.0",
        "needs a load from DRAM",
        "needs a fused multiply-add `dst += a * b`",
        "needs a horizontal sum of the lanes into one DRAM value",
    ]:
        assert need in message, need


@proc
def one_name_two_memories(n: size, x: f32[n, 8], y: f32[n, 8]):
    for i in seq(0, n):
        v: f32[8] @ AVX2
        for lane in seq(0, 8):
            v[lane] = x[i, lane]
    for j in seq(0, n):
        v: f32[8] @ DRAM
        for lane in seq(0, 8):
            v[lane] = y[j, lane]


def test_unmatched_vector_stmts_reads_the_declaration_each_statement_sees():
    # `v` names an AVX2 vector in the first loop and a DRAM array in the
    # second: only the first loop's statement needs an instruction
    found = unmatched_vector_stmts(one_name_two_memories, AVX2)
    assert [s.rhs().name() for s in found] == ["x"]
    assert unmatched_vector_stmts(one_name_two_memories, AVX512) == []


@proc
def vector_left_before(n: size, x: f32[8, n], y: f32[n], z: f32[n]):
    for i in seq(0, n):
        v: f32[8] @ AVX2
        for lane in seq(0, 8):
            v[lane] = x[lane, i]
    for k in seq(0, n):
        y[k] = z[k]


def test_vectorize_reports_only_the_statements_it_left_on_vectors():
    # the strided load into AVX2 before the loop, which no instruction
    # matches, is not vectorize's: vectorizing the second loop succeeds
    # without naming it, and a failure names only the statements of the
    # loop vectorized
    p = vectorize(
        vector_left_before,
        vector_left_before.find_loop("k"),
        8,
        "f32",
        AVX2,
        CONV_INSTRUCTIONS,
        tail="cut",
    )
    assert "for ko in seq(0, n / 8):" in str(p)
    assert [s.rhs().name() for s in unmatched_vector_stmts(p, AVX2)] == ["x"]
    with pytest.raises(SchedulingError) as info:
        vectorize(
            vector_left_before,
            vector_left_before.find_loop("k"),
            8,
            "f32",
            AVX2,
            [],
            tail="cut",
        )
    message = str(info.value)
    assert "no instruction given matches 2 statements on AVX2" in message
    assert "x[lane, i]" not in message


@proc
def column_of(n: size, A: f32[n, 4], x: f32[n]):
    for i in seq(0, n):
        x[i] = A[i, 0]


def test_vectorize_names_a_strided_load():
    with pytest.raises(SchedulingError) as info:
        vectorize(
            column_of, column_of.find_loop("i"), 8, "f32", AVX2, CONV_INSTRUCTIONS
        )
    assert "needs a strided (lanes not adjacent in 'A') load from DRAM" in str(
        info.value
    )


@proc
def sswap_f32(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        t: f32
        t = x[i]
        x[i] = y[i]
        y[i] = t


SWAP_INSTRUCTIONS = [
    x86.mm256_loadu_ps,
    x86.mm256_storeu_ps,
    x86.avx2_mask_loadu_ps,
    x86.avx2_mask_storeu_ps,
]


def test_a_temporary_of_the_body_becomes_a_vector_register():
    # each lane gets its copy of `t`, in the vector memory: loaded and
    # stored directly, never through a DRAM array
    for tail in ("cut", "cut_and_predicate"):
        p = vectorize(
            sswap_f32,
            sswap_f32.find_loop("i"),
            8,
            "f32",
            AVX2,
            SWAP_INSTRUCTIONS,
            tail=tail,
        )
        text = str(p)
        assert "t: f32[8] @ AVX2" in text
        assert "@ DRAM\n" not in text.split("for io")[1].split("for ii")[0]
        assert "mm256_loadu_ps(t[0:8], x[8 * io + 0:8 * io + 8])" in text
        vector_loops_are_calls(p)


@needs_avx2
def test_a_predicated_tail_over_a_body_with_temporaries_computes_the_same():
    p = vectorize(
        sswap_f32,
        sswap_f32.find_loop("i"),
        8,
        "f32",
        AVX2,
        SWAP_INSTRUCTIONS,
        tail="cut_and_predicate",
    )
    assert "avx2_mask_loadu_ps(-8 * io + n + 0, t[0:8]" in str(p)
    kernel, after = sswap_f32.jit(), p.jit()
    for n in SIZES:
        assert_same_results(kernel, after, {"n": n})


@proc
def sdot2_f32(n: size, x: f32[n], a: f32[n], b: f32[n], r0: f32, r1: f32):
    for i in seq(0, n):
        r0 += a[i] * x[i]
        r1 += b[i] * x[i]


SDOT2_INSTRUCTIONS = [
    x86.mm256_loadu_ps,
    x86.mm256_fmadd_ps,
    x86.mm256_setzero_ps,
    x86.avx2_assoc_reduce_add_ps,
]


def test_a_body_of_several_statements_declares_all_its_vectors_first():
    # Exo's order (checked against Exo 1.0 by the differential run of
    # examples/exo_compat/blas_library): the whole body is staged, then
    # fissioned, so every vector of the body is declared before the first
    # instruction
    p = vectorize(
        sdot2_f32,
        sdot2_f32.find_loop("i"),
        8,
        "f32",
        AVX2,
        SDOT2_INSTRUCTIONS,
        [fma_rule],
        tail="cut",
    )
    assert str(p).split("for io in seq(0, n / 8):\n")[1].split("    avx2")[0] == (
        "        var2: f32[8] @ AVX2\n"
        "        var3: f32[8] @ AVX2\n"
        "        var4: f32[8] @ AVX2\n"
        "        var5: f32[8] @ AVX2\n"
        "        mm256_loadu_ps(var2[0:8], a[8 * io + 0:8 * io + 8])\n"
        "        mm256_loadu_ps(var3[0:8], x[8 * io + 0:8 * io + 8])\n"
        "        mm256_fmadd_ps(var0[0:8], var2[0:8], var3[0:8])\n"
        "        mm256_loadu_ps(var4[0:8], b[8 * io + 0:8 * io + 8])\n"
        "        mm256_loadu_ps(var5[0:8], x[8 * io + 0:8 * io + 8])\n"
        "        mm256_fmadd_ps(var1[0:8], var4[0:8], var5[0:8])\n"
    )
    if HAS_AVX2:
        kernel, after = sdot2_f32.jit(), p.jit()
        for n in SIZES:
            assert_same_results(kernel, after, {"n": n}, rtol=1e-4, atol=1e-4)


@proc
def axpy_of_the_first(n: size, a: f32[n], x: f32[n + 1]):
    for i in seq(0, n):
        x[i + 1] += a[i] * x[0]


def test_a_reduction_reading_another_element_of_its_buffer_is_vectorized_whole():
    # the reduction's right-hand side reads x[0]: staging the element it
    # writes (not a window inferred from both accesses) unfolds it, so no
    # lane of the vector loop is left scalar
    p = vectorize(
        axpy_of_the_first,
        axpy_of_the_first.find_loop("i"),
        8,
        "f32",
        AVX2,
        avx2_instructions("f32"),
        [fma_rule],
        tail="cut",
    )
    vector_loops_are_calls(p)
    assert "mm256_broadcast_ss(var3[0:8], x[0:1])" in str(p)
    if HAS_AVX2:
        for n in [1, 7, 8, 33]:
            assert_same_results(axpy_of_the_first, p, {"n": n}, rtol=1e-5)


def test_vectorize_refuses_to_leave_statements_one_lane_at_a_time(monkeypatch):
    # a reduction staging cannot unfold stays in its lane loop: vectorize
    # names it instead of returning a loop that is half vectorized
    from exo2.stdlib import compute_staging

    def cannot_unfold(proc, reduce):
        raise SchedulingError("cannot unfold")

    monkeypatch.setattr(compute_staging, "unfold_reduce", cannot_unfold)
    with pytest.raises(SchedulingError) as info:
        vectorize(
            saxpy_f32,
            saxpy_f32.find_loop("i"),
            8,
            "f32",
            AVX2,
            avx2_instructions("f32"),
            tail="cut",
        )
    assert str(info.value).startswith(
        "vectorize: the vector loop io keeps 1 lane loop whose statements could "
        "not be staged into AVX2 vectors; they would run one lane at a time:\n"
        "  for ii in seq(0, 8): y[8 * io + ii] += alpha[0] * x[8 * io + ii]"
    )


# --------------------------------------------------------------------------- #
# `max_rule`: `select(a, b, b, a)` with each operand staged once, so that one
# max instruction matches it (with each occurrence in a register of its own,
# only a compare-and-blend over four registers would)


@proc
def running_max(n: size, x: f32[n], m: f32[n]):
    for i in seq(0, n):
        m[i] = select(m[i], x[i], x[i], m[i])


# _mm256_max_ps(b, a) is `b > a ? b : a`: `a` when they compare equal or
# either is NaN, as select(a, b, b, a) gives
@instr("{dst_data} = _mm256_max_ps({b_data}, {a_data});")
def max_lanes(dst: [f32][8] @ AVX2, a: [f32][8] @ AVX2, b: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(a, 0) == 1
    assert stride(b, 0) == 1
    for i in seq(0, 8):
        dst[i] = select(a[i], b[i], b[i], a[i])


def _vectorized_max(rules):
    instructions = [x86.mm256_loadu_ps, x86.mm256_storeu_ps, max_lanes]
    loop = running_max.find_loop("i")
    return vectorize(running_max, loop, 8, "f32", AVX2, instructions, rules, "cut")


def test_max_rule_stages_each_operand_once_for_one_max_instruction():
    text = str(_vectorized_max([max_rule]))
    assert (
        "    for io in seq(0, n / 8):\n"
        "        var0: f32[8] @ AVX2\n"
        "        var1: f32[8] @ AVX2\n"
        "        var2: f32[8] @ AVX2\n"
        "        mm256_loadu_ps(var1[0:8], m[8 * io + 0:8 * io + 8])\n"
        "        mm256_loadu_ps(var2[0:8], x[8 * io + 0:8 * io + 8])\n"
        "        max_lanes(var0[0:8], var1[0:8], var2[0:8])\n"
        "        mm256_storeu_ps(m[8 * io + 0:8 * io + 8], var0[0:8])\n"
    ) in text


def test_without_max_rule_no_instruction_matches_the_select():
    with pytest.raises(SchedulingError, match="no instruction given matches"):
        _vectorized_max([])


@needs_avx2
def test_max_rule_kernel_computes_the_same_bit_for_bit():
    after = _vectorized_max([max_rule]).jit()
    before = running_max.jit()
    special = [np.nan, 0.0, -0.0, -np.inf, np.inf, -1.5, 2.0]
    rng = np.random.default_rng(7)
    for n in [1, 7, 8, 33]:
        x = rng.choice(special, n).astype(np.float32)
        m = rng.choice(special, n).astype(np.float32)
        m_before, m_after = m.copy(), m.copy()
        before(n, x, m_before)
        after(n, x, m_after)
        assert m_before.view(np.int32).tolist() == m_after.view(np.int32).tolist()


@proc
def first_row_dot(n: size, x: f32[n], y: f32[n], out: f32[n]):
    assert n >= 2
    for i in seq(0, 1):
        acc: f32
        acc = 0.0
        for d in seq(0, i):  # i is 0: no iteration at all
            acc += x[d] * y[d]
        out[i] = acc


def test_a_loop_that_never_runs_a_whole_vector_is_named():
    # the cleanups prove the loop over whole vectors empty and remove it:
    # a SchedulingError that says so, not an internal cursor error
    with pytest.raises(SchedulingError) as e:
        vectorize(
            first_row_dot,
            first_row_dot.find_loop("d"),
            8,
            "f32",
            AVX2,
            avx2_instructions("f32"),
            [fma_rule],
            tail="cut",
        )
    assert "the loop over d never runs 8 iterations here" in str(e.value)
    assert "leave this loop scalar" in str(e.value)
