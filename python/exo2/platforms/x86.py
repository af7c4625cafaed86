"""The x86 instruction library (docs/platform-x86.md).

Exo's 60 instructions under their names and signatures, with exo2's
corrections to templates whose C did not do what the body says (each marked
`[fix]` below), followed by exo2's additions: AVX2 f64 counterparts, fused
multiply-add forms for vectorizers, absolute value, and AVX-512 f32/f64.

Every instruction's body is its specification; tests/python/
test_platform_x86.py runs each template against its own body. Templates
need AVX2 + FMA (`mm256_*`, `avx2_*`) or AVX-512F (`mm512_*`, `avx512_*`).
Variables declared inside templates are prefixed `exo2_` ([fix]: Exo's
`tmp`, `dst`, `cmp`... captured caller buffers of the same name).
"""

# ruff: noqa: F821  (kernel bodies use the object language's names)
from __future__ import annotations

from .. import DRAM, instr
from ..libs.externs import relu, select
from ..libs.memories import AVX2, AVX512

# --------------------------------------------------------------------------- #
#   Prefetching
# --------------------------------------------------------------------------- #


# [fix] Exo relied on some vector memory to include <immintrin.h>.
@instr("_mm_prefetch(&{A_data}, {locality_hint});", "#include <immintrin.h>")
def prefetch(A: [R][1] @ DRAM, locality_hint: size):
    assert 0 <= locality_hint
    assert locality_hint < 8
    pass


# --------------------------------------------------------------------------- #
#   AVX2 intrinsics
# --------------------------------------------------------------------------- #


@instr("{dst_data} = _mm256_setzero_ps();")
def mm256_setzero_ps(dst: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        dst[i] = 0.0


@instr("{dst_data} = _mm256_setzero_pd();")
def mm256_setzero_pd(dst: [f64][4] @ AVX2):
    assert stride(dst, 0) == 1

    for i in seq(0, 4):
        dst[i] = 0.0


@instr("{dst_data} = _mm256_loadu_ps(&{src_data});")
def mm256_loadu_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[i]


@instr("{dst_data} = _mm256_loadu_pd(&{src_data});")
def mm256_loadu_pd(dst: [f64][4] @ AVX2, src: [f64][4] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 4):
        dst[i] = src[i]


@instr("_mm256_storeu_ps(&{dst_data}, {src_data});")
def mm256_storeu_ps(dst: [f32][8] @ DRAM, src: [f32][8] @ AVX2):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[i]


@instr("_mm256_storeu_pd(&{dst_data}, {src_data});")
def mm256_storeu_pd(dst: [f64][4] @ DRAM, src: [f64][4] @ AVX2):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 4):
        dst[i] = src[i]


@instr("{dst_data} = _mm256_fmadd_ps({src1_data}, {src2_data}, {dst_data});")
def mm256_fmadd_ps(
    dst: [f32][8] @ AVX2,
    src1: [f32][8] @ AVX2,
    src2: [f32][8] @ AVX2,
):
    assert stride(src1, 0) == 1
    assert stride(src2, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        dst[i] += src1[i] * src2[i]


@instr("{dst_data} = _mm256_fmadd_pd({src1_data}, {src2_data}, {dst_data});")
def mm256_fmadd_pd(
    dst: [f64][4] @ AVX2,
    src1: [f64][4] @ AVX2,
    src2: [f64][4] @ AVX2,
):
    assert stride(src1, 0) == 1
    assert stride(src2, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 4):
        dst[i] += src1[i] * src2[i]


@instr("{out_data} = _mm256_broadcast_ss(&{val_data});")
def mm256_broadcast_ss(
    out: [f32][8] @ AVX2,
    val: [f32][1],
):
    assert stride(out, 0) == 1

    for i in seq(0, 8):
        out[i] = val[0]


@instr("{out_data} = _mm256_broadcast_sd(&{val_data});")
def mm256_broadcast_sd(
    out: [f64][4] @ AVX2,
    val: [f64][1],
):
    assert stride(out, 0) == 1

    for i in seq(0, 4):
        out[i] = val[0]


# A scalar is passed by address; `set1` of its value (not `broadcast_ss` of
# the address) lets the C compiler keep a local scalar in a register instead
# of reloading it after every store that might alias it.
@instr("{out_data} = _mm256_set1_ps(*{val_data});")
def mm256_broadcast_ss_scalar(out: [f32][8] @ AVX2, val: f32):
    assert stride(out, 0) == 1

    for i in seq(0, 8):
        out[i] = val


@instr("{out_data} = _mm256_set1_pd(*{val_data});")
def mm256_broadcast_sd_scalar(out: [f64][4] @ AVX2, val: f64):
    assert stride(out, 0) == 1

    for i in seq(0, 4):
        out[i] = val


# [fix] Exo passed the scalar `rhs[0]` where a vector is needed (C does not
# compile) and computed `dst * lhs + rhs`.
@instr(
    "{dst_data} = _mm256_fmadd_ps({lhs_data}, _mm256_broadcast_ss(&{rhs_data}), "
    "{dst_data});"
)
def mm256_fmadd_ps_broadcast(
    dst: [f32][8] @ AVX2, lhs: [f32][8] @ AVX2, rhs: [f32][1] @ DRAM
):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1

    for i in seq(0, 8):
        dst[i] += lhs[i] * rhs[0]


@instr("{out_data} = _mm256_mul_ps({x_data}, {y_data});")
def mm256_mul_ps(out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] * y[i]


@instr("{out_data} = _mm256_mul_pd({x_data}, {y_data});")
def mm256_mul_pd(out: [f64][4] @ AVX2, x: [f64][4] @ AVX2, y: [f64][4] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 4):
        out[i] = x[i] * y[i]


@instr("{out_data} = _mm256_div_ps({x_data}, {y_data});")
def mm256_div_ps(out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] / y[i]


@instr("{out_data} = _mm256_div_pd({x_data}, {y_data});")
def mm256_div_pd(out: [f64][4] @ AVX2, x: [f64][4] @ AVX2, y: [f64][4] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 4):
        out[i] = x[i] / y[i]


@instr("{out_data} = _mm256_add_ps({x_data}, {y_data});")
def mm256_add_ps(out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] + y[i]


@instr("{out_data} = _mm256_add_pd({x_data}, {y_data});")
def mm256_add_pd(out: [f64][4] @ AVX2, x: [f64][4] @ AVX2, y: [f64][4] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 4):
        out[i] = x[i] + y[i]


@instr("{out_data} = _mm256_sub_ps({x_data}, {y_data});")
def mm256_sub_ps(out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] - y[i]


@instr("{out_data} = _mm256_sub_pd({x_data}, {y_data});")
def mm256_sub_pd(out: [f64][4] @ AVX2, x: [f64][4] @ AVX2, y: [f64][4] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 4):
        out[i] = x[i] - y[i]


@instr("{dst_data} = _mm256_loadu_si256((const __m256i *) &{src_data});")
def mm256_loadu_si256(dst: [ui16][16] @ AVX2, src: [ui16][16] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 16):
        dst[i] = src[i]


@instr("_mm256_storeu_si256((__m256i *) &{dst_data}, {src_data});")
def mm256_storeu_si256(dst: [ui16][16] @ DRAM, src: [ui16][16] @ AVX2):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 16):
        dst[i] = src[i]


@instr("{out_data} = _mm256_adds_epu16({x_data}, {y_data});")
def mm256_add_epi16(out: [ui16][16] @ AVX2, x: [ui16][16] @ AVX2, y: [ui16][16] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 16):
        out[i] = x[i] + y[i]


# --------------------------------------------------------------------------- #
#   AVX512 intrinsics
# --------------------------------------------------------------------------- #


@instr("{dst_data} = _mm512_setzero_ps();")
def mm512_setzero_ps(dst: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1

    for i in seq(0, 16):
        dst[i] = 0.0


@instr("{out_data} = _mm512_add_ps({x_data}, {y_data});")
def mm512_add_ps(out: [f32][16] @ AVX512, x: [f32][16] @ AVX512, y: [f32][16] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 16):
        out[i] = x[i] + y[i]


@instr(
    "{out_data} = _mm512_mask_add_ps({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_add_ps(
    N: size, out: [f32][16] @ AVX512, x: [f32][16] @ AVX512, y: [f32][16] @ AVX512
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 16):
        if i < N:
            out[i] = x[i] + y[i]


@instr("{dst_data} = _mm512_loadu_ps(&{src_data});")
def mm512_loadu_ps(dst: [f32][16] @ AVX512, src: [f32][16] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 16):
        dst[i] = src[i]


@instr("_mm512_storeu_ps(&{dst_data}, {src_data});")
def mm512_storeu_ps(dst: [f32][16] @ DRAM, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 16):
        dst[i] = src[i]


# [fix] Exo's `_mm512_maskz_loadu_ps` zeroed lanes N..15, which the body
# keeps; merge-masking costs nothing more.
@instr("{dst_data} = _mm512_mask_loadu_ps({dst_data}, ((1 << {N}) - 1), &{src_data});")
def mm512_maskz_loadu_ps(
    N: size,
    dst: [f32][16] @ AVX512,
    src: [f32][N] @ DRAM,
):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 16

    for i in seq(0, 16):
        if i < N:
            dst[i] = src[i]


@instr("_mm512_mask_storeu_ps(&{dst_data}, ((1 << {N}) - 1), {src_data});")
def mm512_mask_storeu_ps(N: size, dst: [f32][N] @ DRAM, src: [f32][16] @ AVX512):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 16

    for i in seq(0, 16):
        if i < N:
            dst[i] = src[i]


@instr("{C_data} = _mm512_fmadd_ps({A_data}, {B_data}, {C_data});")
def mm512_fmadd_ps(
    A: [f32][16] @ AVX512,
    B: [f32][16] @ AVX512,
    C: [f32][16] @ AVX512,
):
    assert stride(A, 0) == 1
    assert stride(B, 0) == 1
    assert stride(C, 0) == 1

    for i in seq(0, 16):
        C[i] += A[i] * B[i]


# [fix] Exo's `_mm512_mask_fmadd_ps` copies A into lanes N..15; `mask3`
# keeps C there, as the body says.
@instr(
    "{C_data} = _mm512_mask3_fmadd_ps({A_data}, {B_data}, {C_data}, ((1 << {N}) - 1));"
)
def mm512_mask_fmadd_ps(
    N: size,
    A: [f32][16] @ AVX512,
    B: [f32][16] @ AVX512,
    C: [f32][16] @ AVX512,
):
    assert N >= 1
    assert N < 16
    assert stride(A, 0) == 1
    assert stride(B, 0) == 1
    assert stride(C, 0) == 1

    for i in seq(0, 16):
        if i < N:
            C[i] += A[i] * B[i]


@instr("{dst_data} = _mm512_max_ps({src_data}, (__m512){{0}});")
def mm512_relu_ps(dst: [f32][16] @ AVX512, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 16):
        dst[i] = relu(src[i])


# ---------------------------------------------------------------------------- #


# [fix] Exo set all 16 lanes (an overcompute hack); the body sets N.
@instr(
    "{dst_data} = _mm512_mask_mov_ps({dst_data}, ((1 << {N}) - 1), "
    "_mm512_set1_ps({src_data}));"
)
def mm512_mask_set1_ps(
    N: size,
    dst: [f32][16] @ AVX512,
    src: [f32][1],
):
    assert N >= 1
    assert N < 16
    assert stride(dst, 0) == 1

    for i in seq(0, 16):
        if i < N:
            dst[i] = src[0]


# ---------------------------------------------------------------------------- #


@instr("{dst_data} = _mm512_set1_ps({src_data});")
def mm512_set1_ps(
    dst: [f32][16] @ AVX512,
    src: [f32][1],
):
    assert stride(dst, 0) == 1

    for i in seq(0, 16):
        dst[i] = src[0]


# --------------------------------------------------------------------------- #
#   Complex AVX2 operations
# --------------------------------------------------------------------------- #


@instr("{out_data} = _mm256_xor_ps({out_data}, {out_data});")
def avx2_set0_ps(out: [f32][8] @ AVX2):
    assert stride(out, 0) == 1

    for i in seq(0, 8):
        out[i] = 0.0


@instr(
    """
{{
  __m256 exo2_ones = {{ 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f }};
  __m256 exo2_dst = _mm256_loadu_ps(&{dst_data});
  _mm256_storeu_ps(&{dst_data}, _mm256_fmadd_ps(exo2_ones, exo2_dst, {val_data}));
}}
"""
)
def avx2_fmadd_memu_ps(dst: [f32][8] @ DRAM, val: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(val, 0) == 1

    for i in seq(0, 8):
        dst[i] += val[i]


@instr(
    """
{out_data} = _mm256_blendv_ps ({z_data}, {y_data},
_mm256_cmp_ps ({x_data}, {v_data}, _CMP_LT_OQ));
"""
)
def avx2_select_ps(
    out: [f32][8] @ AVX2,
    x: [f32][8] @ AVX2,
    v: [f32][8] @ AVX2,
    y: [f32][8] @ AVX2,
    z: [f32][8] @ AVX2,
):
    # WARNING: This instruction above use a lower precision
    #    float32 (C float) than the implementation of
    #    the builtin which uses float64 (C double)
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(v, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 8):
        out[i] = select(x[i], v[i], y[i], z[i])


@instr(
    """
{out_data} = _mm256_blendv_pd ({z_data}, {y_data},
_mm256_cmp_pd ({x_data}, {v_data}, _CMP_LT_OQ));
"""
)
def avx2_select_pd(
    out: [f64][4] @ AVX2,
    x: [f64][4] @ AVX2,
    v: [f64][4] @ AVX2,
    y: [f64][4] @ AVX2,
    z: [f64][4] @ AVX2,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(v, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 4):
        out[i] = select(x[i], v[i], y[i], z[i])


# [fix] Exo's hadd-based reductions are slower (hadd is three uops on
# recent x86 cores); these halve the vector with shuffles.
@instr(
    """
    {{
        __m128 exo2_sum = _mm_add_ps(_mm256_castps256_ps128({x_data}),
                                     _mm256_extractf128_ps({x_data}, 1));
        exo2_sum = _mm_add_ps(exo2_sum, _mm_movehl_ps(exo2_sum, exo2_sum));
        exo2_sum = _mm_add_ss(exo2_sum, _mm_movehdup_ps(exo2_sum));
        *{result} += _mm_cvtss_f32(exo2_sum);
    }}
    """
)
def avx2_assoc_reduce_add_ps(x: [f32][8] @ AVX2, result: f32):
    # WARNING: This instruction assumes float addition associativity
    assert stride(x, 0) == 1
    for i in seq(0, 8):
        result += x[i]


@instr(
    """
    {{
        __m128d exo2_sum = _mm_add_pd(_mm256_castpd256_pd128({x_data}),
                                      _mm256_extractf128_pd({x_data}, 1));
        exo2_sum = _mm_add_sd(exo2_sum, _mm_unpackhi_pd(exo2_sum, exo2_sum));
        *{result} += _mm_cvtsd_f64(exo2_sum);
    }}
    """
)
def avx2_assoc_reduce_add_pd(x: [f64][4] @ AVX2, result: f64):
    # WARNING: This instruction assumes float addition associativity
    assert stride(x, 0) == 1
    for i in seq(0, 4):
        result += x[i]


@instr("{dst_data} = _mm256_mul_ps({src_data}, _mm256_set1_ps(-1.0f));")
def avx2_sign_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = -src[i]


@instr("{dst_data} = _mm256_mul_pd({src_data}, _mm256_set1_pd(-1.0f));")
def avx2_sign_pd(dst: [f64][4] @ AVX2, src: [f64][4] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 4):
        dst[i] = -src[i]


@instr("{dst_data} = _mm256_add_ps({src_data}, {dst_data});")
def avx2_reduce_add_wide_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] += src[i]


@instr("{dst_data} = _mm256_add_pd({src_data}, {dst_data});")
def avx2_reduce_add_wide_pd(dst: [f64][4] @ AVX2, src: [f64][4] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 4):
        dst[i] += src[i]


# TODO: Hack for procedure aliasing issue, can be deleted once we have
#      better way of handling aliasing
@instr("{dst_data} = {src_data};")
def avx2_reg_copy_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[i]


@instr("{dst_data} = {src_data};")
def avx2_reg_copy_pd(dst: [f64][4] @ AVX2, src: [f64][4] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 4):
        dst[i] = src[i]


# [fix] Exo's mask `_mm256_set1_epi8((1 << N) - 1)` has every lane's sign bit
# clear for N < 8, so nothing was stored; and it declared a variable outside
# any block, so two calls in one scope did not compile.
@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({N});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
_mm256_maskstore_ps(&{dst_data}, exo2_cmp, {src_data});
}}
"""
)
def avx2_mask_storeu_ps(N: size, dst: [f32][N] @ DRAM, src: [f32][8] @ AVX2):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            dst[i] = src[i]


# TODO: This is hacked specifically for the 2D blur with kernel size 3. We should
# be able to support fast integer division instruction selection in a better way.
@instr(
    """
    {{
        {out_data} = _mm256_mulhi_epu16({x_data}, _mm256_set1_epi16(43691));
        {out_data} = _mm256_srli_epi16({out_data}, 1);
    }}
    """
)
def avx2_ui16_divide_by_3(out: [ui16][16] @ AVX2, x: [ui16][16] @ AVX2):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1

    for xii in seq(0, 16):
        out[xii] = x[xii] / 3.0


# --------------------------------------------------------------------------- #
#  Prefixed AVX2 Operations
# --------------------------------------------------------------------------- #


# [fix] `_mm256_maskload_ps` zeroes lanes bound..7, which the body keeps:
# blend the loaded lanes into dst.
@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
{dst_data} = _mm256_blendv_ps({dst_data}, _mm256_maskload_ps(&{src_data}, exo2_cmp),
_mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def mm256_prefix_load_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ DRAM, bound: size):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert bound <= 8
    for i in seq(0, 8):
        if i < bound:
            dst[i] = src[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
_mm256_maskstore_ps(&{dst_data}, exo2_cmp, {src_data});
}}
"""
)
def mm256_prefix_store_ps(dst: [f32][8] @ DRAM, src: [f32][8] @ AVX2, bound: size):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    assert bound <= 8
    for i in seq(0, 8):
        if i < bound:
            dst[i] = src[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
__m256 exo2_add = _mm256_add_ps({x_data}, {y_data});
{out_data} = _mm256_blendv_ps ({out_data}, exo2_add, _mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def mm256_prefix_add_ps(
    out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2, bound: size
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 8

    for i in seq(0, 8):
        if i < bound:
            out[i] = x[i] + y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
__m256 exo2_mul = _mm256_mul_ps({x_data}, {y_data});
{out_data} = _mm256_blendv_ps ({out_data}, exo2_mul, _mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def mm256_prefix_mul_ps(
    out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2, bound: size
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 8

    for i in seq(0, 8):
        if i < bound:
            out[i] = x[i] * y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
__m256 exo2_sub = _mm256_sub_ps({x_data}, {y_data});
{out_data} = _mm256_blendv_ps ({out_data}, exo2_sub, _mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def mm256_prefix_sub_ps(
    out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2, bound: size
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 8

    for i in seq(0, 8):
        if i < bound:
            out[i] = x[i] - y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
__m256 exo2_div = _mm256_div_ps({x_data}, {y_data});
{out_data} = _mm256_blendv_ps ({out_data}, exo2_div, _mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def mm256_prefix_div_ps(
    out: [f32][8] @ AVX2, x: [f32][8] @ AVX2, y: [f32][8] @ AVX2, bound: size
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 8

    for i in seq(0, 8):
        if i < bound:
            out[i] = x[i] / y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
__m256 exo2_bc = _mm256_broadcast_ss(&{val_data});
{out_data} = _mm256_blendv_ps ({out_data}, exo2_bc, _mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def mm256_prefix_broadcast_ss(out: [f32][8] @ AVX2, val: [f32][1], bound: size):
    assert stride(out, 0) == 1
    assert bound <= 8

    for i in seq(0, 8):
        if i < bound:
            out[i] = val[0]


# --------------------------------------------------------------------------- #
#   f32 to f64 conversion
# --------------------------------------------------------------------------- #


@instr("{dst_data} = _mm256_cvtps_pd(_mm256_extractf128_ps({src_data}, 0));")
def avx2_convert_f32_lower_to_f64(dst: [f64][4] @ AVX2, src: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 4):
        dst[i] = src[i]


@instr("{dst_data} = _mm256_cvtps_pd(_mm256_extractf128_ps({src_data}, 1));")
def avx2_convert_f32_upper_to_f64(dst: [f64][4] @ AVX2, src: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 4):
        dst[i] = src[4 + i]


# --------------------------------------------------------------------------- #
#   exo2: AVX2 f64 counterparts of the f32 instructions
# --------------------------------------------------------------------------- #


@instr(
    "{dst_data} = _mm256_fmadd_pd({lhs_data}, _mm256_broadcast_sd(&{rhs_data}), "
    "{dst_data});"
)
def mm256_fmadd_pd_broadcast(
    dst: [f64][4] @ AVX2,
    lhs: [f64][4] @ AVX2,
    rhs: [f64][1] @ DRAM,
):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1

    for i in seq(0, 4):
        dst[i] += lhs[i] * rhs[0]


@instr("{out_data} = _mm256_xor_pd({out_data}, {out_data});")
def avx2_set0_pd(out: [f64][4] @ AVX2):
    assert stride(out, 0) == 1

    for i in seq(0, 4):
        out[i] = 0.0


@instr(
    """
{{
  __m256d exo2_dst = _mm256_loadu_pd(&{dst_data});
  _mm256_storeu_pd(&{dst_data}, _mm256_add_pd(exo2_dst, {val_data}));
}}
"""
)
def avx2_fmadd_memu_pd(dst: [f64][4] @ DRAM, val: [f64][4] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(val, 0) == 1

    for i in seq(0, 4):
        dst[i] += val[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({N});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
_mm256_maskstore_pd(&{dst_data}, exo2_cmp, {src_data});
}}
"""
)
def avx2_mask_storeu_pd(N: size, dst: [f64][N] @ DRAM, src: [f64][4] @ AVX2):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 4

    for i in seq(0, 4):
        if i < N:
            dst[i] = src[i]


# exo2: masked loads whose source window is N wide, so that a tail can load
# from the end of a buffer (the prefix loads need 8 / 4 elements in bounds).
@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({N});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
{dst_data} = _mm256_blendv_ps({dst_data}, _mm256_maskload_ps(&{src_data}, exo2_cmp),
_mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def avx2_mask_loadu_ps(N: size, dst: [f32][8] @ AVX2, src: [f32][N] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            dst[i] = src[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({N});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
{dst_data} = _mm256_blendv_pd({dst_data}, _mm256_maskload_pd(&{src_data}, exo2_cmp),
_mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def avx2_mask_loadu_pd(N: size, dst: [f64][4] @ AVX2, src: [f64][N] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 4

    for i in seq(0, 4):
        if i < N:
            dst[i] = src[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
{dst_data} = _mm256_blendv_pd({dst_data}, _mm256_maskload_pd(&{src_data}, exo2_cmp),
_mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def mm256_prefix_load_pd(dst: [f64][4] @ AVX2, src: [f64][4] @ DRAM, bound: size):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            dst[i] = src[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
_mm256_maskstore_pd(&{dst_data}, exo2_cmp, {src_data});
}}
"""
)
def mm256_prefix_store_pd(dst: [f64][4] @ DRAM, src: [f64][4] @ AVX2, bound: size):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            dst[i] = src[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
__m256d exo2_add = _mm256_add_pd({x_data}, {y_data});
{out_data} = _mm256_blendv_pd({out_data}, exo2_add, _mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def mm256_prefix_add_pd(
    out: [f64][4] @ AVX2,
    x: [f64][4] @ AVX2,
    y: [f64][4] @ AVX2,
    bound: size,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            out[i] = x[i] + y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
__m256d exo2_sub = _mm256_sub_pd({x_data}, {y_data});
{out_data} = _mm256_blendv_pd({out_data}, exo2_sub, _mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def mm256_prefix_sub_pd(
    out: [f64][4] @ AVX2,
    x: [f64][4] @ AVX2,
    y: [f64][4] @ AVX2,
    bound: size,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            out[i] = x[i] - y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
__m256d exo2_mul = _mm256_mul_pd({x_data}, {y_data});
{out_data} = _mm256_blendv_pd({out_data}, exo2_mul, _mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def mm256_prefix_mul_pd(
    out: [f64][4] @ AVX2,
    x: [f64][4] @ AVX2,
    y: [f64][4] @ AVX2,
    bound: size,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            out[i] = x[i] * y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
__m256d exo2_div = _mm256_div_pd({x_data}, {y_data});
{out_data} = _mm256_blendv_pd({out_data}, exo2_div, _mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def mm256_prefix_div_pd(
    out: [f64][4] @ AVX2,
    x: [f64][4] @ AVX2,
    y: [f64][4] @ AVX2,
    bound: size,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            out[i] = x[i] / y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
__m256d exo2_bc = _mm256_broadcast_sd(&{val_data});
{out_data} = _mm256_blendv_pd({out_data}, exo2_bc, _mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def mm256_prefix_broadcast_sd(out: [f64][4] @ AVX2, val: [f64][1], bound: size):
    assert stride(out, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            out[i] = val[0]


# --------------------------------------------------------------------------- #
#   exo2: AVX2 fused multiply-add forms, prefix fma and absolute value
# --------------------------------------------------------------------------- #


@instr("{out_data} = _mm256_fmadd_ps({x_data}, {y_data}, {z_data});")
def mm256_muladd_ps(
    out: [f32][8] @ AVX2,
    x: [f32][8] @ AVX2,
    y: [f32][8] @ AVX2,
    z: [f32][8] @ AVX2,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] * y[i] + z[i]


@instr("{out_data} = _mm256_fmadd_ps({x_data}, {y_data}, {z_data});")
def mm256_addmul_ps(
    out: [f32][8] @ AVX2,
    x: [f32][8] @ AVX2,
    y: [f32][8] @ AVX2,
    z: [f32][8] @ AVX2,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 8):
        out[i] = z[i] + x[i] * y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi32({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi32(exo2_prefix, exo2_indices);
__m256 exo2_fma = _mm256_fmadd_ps({src1_data}, {src2_data}, {dst_data});
{dst_data} = _mm256_blendv_ps({dst_data}, exo2_fma, _mm256_castsi256_ps(exo2_cmp));
}}
"""
)
def mm256_prefix_fmadd_ps(
    dst: [f32][8] @ AVX2,
    src1: [f32][8] @ AVX2,
    src2: [f32][8] @ AVX2,
    bound: size,
):
    assert stride(dst, 0) == 1
    assert stride(src1, 0) == 1
    assert stride(src2, 0) == 1
    assert bound <= 8

    for i in seq(0, 8):
        if i < bound:
            dst[i] += src1[i] * src2[i]


@instr("{dst_data} = _mm256_andnot_ps(_mm256_set1_ps(-0.0), {src_data});")
def avx2_abs_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = select(0.0, src[i], src[i], -src[i])


@instr("{out_data} = _mm256_fmadd_pd({x_data}, {y_data}, {z_data});")
def mm256_muladd_pd(
    out: [f64][4] @ AVX2,
    x: [f64][4] @ AVX2,
    y: [f64][4] @ AVX2,
    z: [f64][4] @ AVX2,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 4):
        out[i] = x[i] * y[i] + z[i]


@instr("{out_data} = _mm256_fmadd_pd({x_data}, {y_data}, {z_data});")
def mm256_addmul_pd(
    out: [f64][4] @ AVX2,
    x: [f64][4] @ AVX2,
    y: [f64][4] @ AVX2,
    z: [f64][4] @ AVX2,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 4):
        out[i] = z[i] + x[i] * y[i]


@instr(
    """
{{
__m256i exo2_indices = _mm256_set_epi64x(3, 2, 1, 0);
__m256i exo2_prefix = _mm256_set1_epi64x({bound});
__m256i exo2_cmp = _mm256_cmpgt_epi64(exo2_prefix, exo2_indices);
__m256d exo2_fma = _mm256_fmadd_pd({src1_data}, {src2_data}, {dst_data});
{dst_data} = _mm256_blendv_pd({dst_data}, exo2_fma, _mm256_castsi256_pd(exo2_cmp));
}}
"""
)
def mm256_prefix_fmadd_pd(
    dst: [f64][4] @ AVX2,
    src1: [f64][4] @ AVX2,
    src2: [f64][4] @ AVX2,
    bound: size,
):
    assert stride(dst, 0) == 1
    assert stride(src1, 0) == 1
    assert stride(src2, 0) == 1
    assert bound <= 4

    for i in seq(0, 4):
        if i < bound:
            dst[i] += src1[i] * src2[i]


@instr("{dst_data} = _mm256_andnot_pd(_mm256_set1_pd(-0.0), {src_data});")
def avx2_abs_pd(dst: [f64][4] @ AVX2, src: [f64][4] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 4):
        dst[i] = select(0.0, src[i], src[i], -src[i])


# --------------------------------------------------------------------------- #
#   exo2: AVX-512 f32 and f64
# --------------------------------------------------------------------------- #


@instr("{out_data} = _mm512_sub_ps({x_data}, {y_data});")
def mm512_sub_ps(out: [f32][16] @ AVX512, x: [f32][16] @ AVX512, y: [f32][16] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 16):
        out[i] = x[i] - y[i]


@instr(
    "{out_data} = _mm512_mask_sub_ps({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_sub_ps(
    N: size,
    out: [f32][16] @ AVX512,
    x: [f32][16] @ AVX512,
    y: [f32][16] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert N <= 16

    for i in seq(0, 16):
        if i < N:
            out[i] = x[i] - y[i]


@instr("{out_data} = _mm512_mul_ps({x_data}, {y_data});")
def mm512_mul_ps(out: [f32][16] @ AVX512, x: [f32][16] @ AVX512, y: [f32][16] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 16):
        out[i] = x[i] * y[i]


@instr(
    "{out_data} = _mm512_mask_mul_ps({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_mul_ps(
    N: size,
    out: [f32][16] @ AVX512,
    x: [f32][16] @ AVX512,
    y: [f32][16] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert N <= 16

    for i in seq(0, 16):
        if i < N:
            out[i] = x[i] * y[i]


@instr("{out_data} = _mm512_div_ps({x_data}, {y_data});")
def mm512_div_ps(out: [f32][16] @ AVX512, x: [f32][16] @ AVX512, y: [f32][16] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 16):
        out[i] = x[i] / y[i]


@instr(
    "{out_data} = _mm512_mask_div_ps({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_div_ps(
    N: size,
    out: [f32][16] @ AVX512,
    x: [f32][16] @ AVX512,
    y: [f32][16] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert N <= 16

    for i in seq(0, 16):
        if i < N:
            out[i] = x[i] / y[i]


@instr(
    "{dst_data} = _mm512_fmadd_ps({lhs_data}, _mm512_set1_ps({rhs_data}), {dst_data});"
)
def mm512_fmadd_ps_broadcast(
    dst: [f32][16] @ AVX512,
    lhs: [f32][16] @ AVX512,
    rhs: [f32][1] @ DRAM,
):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1

    for i in seq(0, 16):
        dst[i] += lhs[i] * rhs[0]


@instr("{out_data} = _mm512_fmadd_ps({x_data}, {y_data}, {z_data});")
def mm512_muladd_ps(
    out: [f32][16] @ AVX512,
    x: [f32][16] @ AVX512,
    y: [f32][16] @ AVX512,
    z: [f32][16] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 16):
        out[i] = x[i] * y[i] + z[i]


@instr("{out_data} = _mm512_fmadd_ps({x_data}, {y_data}, {z_data});")
def mm512_addmul_ps(
    out: [f32][16] @ AVX512,
    x: [f32][16] @ AVX512,
    y: [f32][16] @ AVX512,
    z: [f32][16] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 16):
        out[i] = z[i] + x[i] * y[i]


@instr("{dst_data} = _mm512_mul_ps({src_data}, _mm512_set1_ps(-1.0));")
def avx512_sign_ps(dst: [f32][16] @ AVX512, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 16):
        dst[i] = -src[i]


@instr("{dst_data} = _mm512_abs_ps({src_data});")
def avx512_abs_ps(dst: [f32][16] @ AVX512, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 16):
        dst[i] = select(0.0, src[i], src[i], -src[i])


@instr(
    """
{out_data} = _mm512_mask_blend_ps(
_mm512_cmp_ps_mask({x_data}, {v_data}, _CMP_LT_OQ), {z_data}, {y_data});
"""
)
def avx512_select_ps(
    out: [f32][16] @ AVX512,
    x: [f32][16] @ AVX512,
    v: [f32][16] @ AVX512,
    y: [f32][16] @ AVX512,
    z: [f32][16] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(v, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 16):
        out[i] = select(x[i], v[i], y[i], z[i])


@instr("*{result} += _mm512_reduce_add_ps({x_data});")
def avx512_assoc_reduce_add_ps(x: [f32][16] @ AVX512, result: f32):
    # WARNING: This instruction assumes float addition associativity
    assert stride(x, 0) == 1

    for i in seq(0, 16):
        result += x[i]


@instr("{dst_data} = _mm512_add_ps({src_data}, {dst_data});")
def avx512_reduce_add_wide_ps(dst: [f32][16] @ AVX512, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 16):
        dst[i] += src[i]


@instr("{dst_data} = {src_data};")
def avx512_reg_copy_ps(dst: [f32][16] @ AVX512, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 16):
        dst[i] = src[i]


@instr("{dst_data} = _mm512_setzero_pd();")
def mm512_setzero_pd(dst: [f64][8] @ AVX512):
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        dst[i] = 0.0


@instr("{dst_data} = _mm512_loadu_pd(&{src_data});")
def mm512_loadu_pd(dst: [f64][8] @ AVX512, src: [f64][8] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[i]


@instr("_mm512_storeu_pd(&{dst_data}, {src_data});")
def mm512_storeu_pd(dst: [f64][8] @ DRAM, src: [f64][8] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[i]


@instr("{dst_data} = _mm512_mask_loadu_pd({dst_data}, ((1 << {N}) - 1), &{src_data});")
def mm512_maskz_loadu_pd(N: size, dst: [f64][8] @ AVX512, src: [f64][N] @ DRAM):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            dst[i] = src[i]


@instr("_mm512_mask_storeu_pd(&{dst_data}, ((1 << {N}) - 1), {src_data});")
def mm512_mask_storeu_pd(N: size, dst: [f64][N] @ DRAM, src: [f64][8] @ AVX512):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            dst[i] = src[i]


@instr("{C_data} = _mm512_fmadd_pd({A_data}, {B_data}, {C_data});")
def mm512_fmadd_pd(A: [f64][8] @ AVX512, B: [f64][8] @ AVX512, C: [f64][8] @ AVX512):
    assert stride(A, 0) == 1
    assert stride(B, 0) == 1
    assert stride(C, 0) == 1

    for i in seq(0, 8):
        C[i] += A[i] * B[i]


@instr(
    "{C_data} = _mm512_mask3_fmadd_pd({A_data}, {B_data}, {C_data}, ((1 << {N}) - 1));"
)
def mm512_mask_fmadd_pd(
    N: size,
    A: [f64][8] @ AVX512,
    B: [f64][8] @ AVX512,
    C: [f64][8] @ AVX512,
):
    assert N >= 1
    assert N < 8
    assert stride(A, 0) == 1
    assert stride(B, 0) == 1
    assert stride(C, 0) == 1

    for i in seq(0, 8):
        if i < N:
            C[i] += A[i] * B[i]


@instr("{dst_data} = _mm512_set1_pd({src_data});")
def mm512_set1_pd(dst: [f64][8] @ AVX512, src: [f64][1]):
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[0]


@instr(
    "{dst_data} = _mm512_mask_mov_pd({dst_data}, ((1 << {N}) - 1), "
    "_mm512_set1_pd({src_data}));"
)
def mm512_mask_set1_pd(N: size, dst: [f64][8] @ AVX512, src: [f64][1]):
    assert N >= 1
    assert N < 8
    assert stride(dst, 0) == 1

    for i in seq(0, 8):
        if i < N:
            dst[i] = src[0]


@instr("{dst_data} = _mm512_max_pd({src_data}, _mm512_setzero_pd());")
def mm512_relu_pd(dst: [f64][8] @ AVX512, src: [f64][8] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = relu(src[i])


@instr("{out_data} = _mm512_add_pd({x_data}, {y_data});")
def mm512_add_pd(out: [f64][8] @ AVX512, x: [f64][8] @ AVX512, y: [f64][8] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] + y[i]


@instr(
    "{out_data} = _mm512_mask_add_pd({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_add_pd(
    N: size,
    out: [f64][8] @ AVX512,
    x: [f64][8] @ AVX512,
    y: [f64][8] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            out[i] = x[i] + y[i]


@instr("{out_data} = _mm512_sub_pd({x_data}, {y_data});")
def mm512_sub_pd(out: [f64][8] @ AVX512, x: [f64][8] @ AVX512, y: [f64][8] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] - y[i]


@instr(
    "{out_data} = _mm512_mask_sub_pd({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_sub_pd(
    N: size,
    out: [f64][8] @ AVX512,
    x: [f64][8] @ AVX512,
    y: [f64][8] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            out[i] = x[i] - y[i]


@instr("{out_data} = _mm512_mul_pd({x_data}, {y_data});")
def mm512_mul_pd(out: [f64][8] @ AVX512, x: [f64][8] @ AVX512, y: [f64][8] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] * y[i]


@instr(
    "{out_data} = _mm512_mask_mul_pd({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_mul_pd(
    N: size,
    out: [f64][8] @ AVX512,
    x: [f64][8] @ AVX512,
    y: [f64][8] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            out[i] = x[i] * y[i]


@instr("{out_data} = _mm512_div_pd({x_data}, {y_data});")
def mm512_div_pd(out: [f64][8] @ AVX512, x: [f64][8] @ AVX512, y: [f64][8] @ AVX512):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] / y[i]


@instr(
    "{out_data} = _mm512_mask_div_pd({out_data}, ((1 << {N}) - 1), {x_data}, {y_data});"
)
def mm512_mask_div_pd(
    N: size,
    out: [f64][8] @ AVX512,
    x: [f64][8] @ AVX512,
    y: [f64][8] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert N <= 8

    for i in seq(0, 8):
        if i < N:
            out[i] = x[i] / y[i]


@instr(
    "{dst_data} = _mm512_fmadd_pd({lhs_data}, _mm512_set1_pd({rhs_data}), {dst_data});"
)
def mm512_fmadd_pd_broadcast(
    dst: [f64][8] @ AVX512,
    lhs: [f64][8] @ AVX512,
    rhs: [f64][1] @ DRAM,
):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1

    for i in seq(0, 8):
        dst[i] += lhs[i] * rhs[0]


@instr("{out_data} = _mm512_fmadd_pd({x_data}, {y_data}, {z_data});")
def mm512_muladd_pd(
    out: [f64][8] @ AVX512,
    x: [f64][8] @ AVX512,
    y: [f64][8] @ AVX512,
    z: [f64][8] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 8):
        out[i] = x[i] * y[i] + z[i]


@instr("{out_data} = _mm512_fmadd_pd({x_data}, {y_data}, {z_data});")
def mm512_addmul_pd(
    out: [f64][8] @ AVX512,
    x: [f64][8] @ AVX512,
    y: [f64][8] @ AVX512,
    z: [f64][8] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 8):
        out[i] = z[i] + x[i] * y[i]


@instr("{dst_data} = _mm512_mul_pd({src_data}, _mm512_set1_pd(-1.0));")
def avx512_sign_pd(dst: [f64][8] @ AVX512, src: [f64][8] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = -src[i]


@instr("{dst_data} = _mm512_abs_pd({src_data});")
def avx512_abs_pd(dst: [f64][8] @ AVX512, src: [f64][8] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = select(0.0, src[i], src[i], -src[i])


@instr(
    """
{out_data} = _mm512_mask_blend_pd(
_mm512_cmp_pd_mask({x_data}, {v_data}, _CMP_LT_OQ), {z_data}, {y_data});
"""
)
def avx512_select_pd(
    out: [f64][8] @ AVX512,
    x: [f64][8] @ AVX512,
    v: [f64][8] @ AVX512,
    y: [f64][8] @ AVX512,
    z: [f64][8] @ AVX512,
):
    assert stride(out, 0) == 1
    assert stride(x, 0) == 1
    assert stride(v, 0) == 1
    assert stride(y, 0) == 1
    assert stride(z, 0) == 1

    for i in seq(0, 8):
        out[i] = select(x[i], v[i], y[i], z[i])


@instr("*{result} += _mm512_reduce_add_pd({x_data});")
def avx512_assoc_reduce_add_pd(x: [f64][8] @ AVX512, result: f64):
    # WARNING: This instruction assumes float addition associativity
    assert stride(x, 0) == 1

    for i in seq(0, 8):
        result += x[i]


@instr("{dst_data} = _mm512_add_pd({src_data}, {dst_data});")
def avx512_reduce_add_wide_pd(dst: [f64][8] @ AVX512, src: [f64][8] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] += src[i]


@instr("{dst_data} = {src_data};")
def avx512_reg_copy_pd(dst: [f64][8] @ AVX512, src: [f64][8] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[i]


@instr("{dst_data} = _mm512_cvtps_pd(_mm512_castps512_ps256({src_data}));")
def avx512_convert_f32_lower_to_f64(dst: [f64][8] @ AVX512, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[i]


@instr(
    """
{dst_data} = _mm512_cvtps_pd(
_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd({src_data}), 1)));
"""
)
def avx512_convert_f32_upper_to_f64(dst: [f64][8] @ AVX512, src: [f32][16] @ AVX512):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1

    for i in seq(0, 8):
        dst[i] = src[8 + i]
