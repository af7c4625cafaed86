"""The instruction tables: every abstract vector operation is one semantic
proc over `L` lanes (and, masked, over the lanes `i < N` of a prefix),
bound per ISA and precision to an intrinsic template with `make_instr`.

`instructions(isa, prec)` returns the list `exo2.stdlib`'s `vectorize`
selects from. Nothing here is listed per (ISA, precision) by hand: a
template names its intrinsics through `{v}` (the vector prefix, `_mm256`
or `_mm512`), `{t}` (`ps` or `pd`), `{V}` (the C vector type) and the
mask helpers of the ISA (`MASK`).
"""

from __future__ import annotations

import functools
import struct

from exo2 import proc
from exo2.API_types import ExoType
from exo2.libs.memories import AVX2, AVX512, DRAM
from exo2.stdlib.scheduling import make_instr, rename, set_precision

from ..externs import fabs, select

# --------------------------------------------------------------------------- #
# Semantics: one proc per operation, full (`L` lanes) and masked (lanes
# `i < N`, N <= L). `MEM` is the ISA's vector memory.


def _load(L, MEM):
    @proc
    def load(dst: [R][L] @ MEM, src: [R][L] @ DRAM):
        assert stride(src, 0) == 1
        assert stride(dst, 0) == 1
        for i in seq(0, L):
            dst[i] = src[i]

    @proc
    def load_mask(N: size, dst: [R][L] @ MEM, src: [R][N] @ DRAM):
        assert stride(src, 0) == 1
        assert stride(dst, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = src[i]

    return load, load_mask


def _store(L, MEM):
    @proc
    def store(dst: [R][L] @ DRAM, src: [R][L] @ MEM):
        assert stride(src, 0) == 1
        assert stride(dst, 0) == 1
        for i in seq(0, L):
            dst[i] = src[i]

    @proc
    def store_mask(N: size, dst: [R][N] @ DRAM, src: [R][L] @ MEM):
        assert stride(src, 0) == 1
        assert stride(dst, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = src[i]

    return store, store_mask


def _zero(L, MEM):
    @proc
    def zero(dst: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        for i in seq(0, L):
            dst[i] = 0.0

    return zero, None


def _broadcast(L, MEM):
    @proc
    def broadcast(dst: [R][L] @ MEM, val: R):
        assert stride(dst, 0) == 1
        for i in seq(0, L):
            dst[i] = val

    @proc
    def broadcast_mask(N: size, dst: [R][L] @ MEM, val: R):
        assert stride(dst, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = val

    return broadcast, broadcast_mask


def _broadcast_element(L, MEM):
    """A broadcast of one element of an array (`param[1]`)."""

    @proc
    def broadcast_element(dst: [R][L] @ MEM, val: [R][1] @ DRAM):
        assert stride(dst, 0) == 1
        for i in seq(0, L):
            dst[i] = val[0]

    @proc
    def broadcast_element_mask(N: size, dst: [R][L] @ MEM, val: [R][1] @ DRAM):
        assert stride(dst, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = val[0]

    return broadcast_element, broadcast_element_mask


def _load_widen(L, MEM):
    """A load of f32 elements into f64 lanes (dsdot, sdsdot, snrm2)."""

    @proc
    def load_widen(dst: [f64][L] @ MEM, src: [f32][L] @ DRAM):
        assert stride(src, 0) == 1
        assert stride(dst, 0) == 1
        for i in seq(0, L):
            dst[i] = src[i]

    @proc
    def load_widen_mask(N: size, dst: [f64][L] @ MEM, src: [f32][N] @ DRAM):
        assert stride(src, 0) == 1
        assert stride(dst, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = src[i]

    return load_widen, load_widen_mask


def _binary(op):
    """add, sub, mul: `dst = a op b`."""

    def build(L, MEM):
        if op == "add":

            @proc
            def add(dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
                assert stride(dst, 0) == 1
                assert stride(a, 0) == 1
                assert stride(b, 0) == 1
                for i in seq(0, L):
                    dst[i] = a[i] + b[i]

            @proc
            def add_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
                assert stride(dst, 0) == 1
                assert stride(a, 0) == 1
                assert stride(b, 0) == 1
                assert N <= L
                for i in seq(0, L):
                    if i < N:
                        dst[i] = a[i] + b[i]

            return add, add_mask
        if op == "sub":

            @proc
            def sub(dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
                assert stride(dst, 0) == 1
                assert stride(a, 0) == 1
                assert stride(b, 0) == 1
                for i in seq(0, L):
                    dst[i] = a[i] - b[i]

            @proc
            def sub_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
                assert stride(dst, 0) == 1
                assert stride(a, 0) == 1
                assert stride(b, 0) == 1
                assert N <= L
                for i in seq(0, L):
                    if i < N:
                        dst[i] = a[i] - b[i]

            return sub, sub_mask

        @proc
        def mul(dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
            assert stride(dst, 0) == 1
            assert stride(a, 0) == 1
            assert stride(b, 0) == 1
            for i in seq(0, L):
                dst[i] = a[i] * b[i]

        @proc
        def mul_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
            assert stride(dst, 0) == 1
            assert stride(a, 0) == 1
            assert stride(b, 0) == 1
            assert N <= L
            for i in seq(0, L):
                if i < N:
                    dst[i] = a[i] * b[i]

        return mul, mul_mask

    return build


def _fma(L, MEM):
    """`dst += a * b`: a reduction's fused multiply-add."""

    @proc
    def fma(dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        for i in seq(0, L):
            dst[i] += a[i] * b[i]

    @proc
    def fma_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] += a[i] * b[i]

    return fma, fma_mask


def _addmul(L, MEM):
    """`dst = c + a * b`: a fused multiply-add written as an assignment."""

    @proc
    def addmul(dst: [R][L] @ MEM, c: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert stride(c, 0) == 1
        for i in seq(0, L):
            dst[i] = c[i] + a[i] * b[i]

    @proc
    def addmul_mask(
        N: size, dst: [R][L] @ MEM, c: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM
    ):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert stride(c, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = c[i] + a[i] * b[i]

    return addmul, addmul_mask


def _muladd(L, MEM):
    """`dst = a * b + c`, the other operand order."""

    @proc
    def muladd(dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM, c: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert stride(c, 0) == 1
        for i in seq(0, L):
            dst[i] = a[i] * b[i] + c[i]

    @proc
    def muladd_mask(
        N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM, c: [R][L] @ MEM
    ):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert stride(c, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = a[i] * b[i] + c[i]

    return muladd, muladd_mask


def _accumulate(L, MEM):
    """`dst += a`: a plain sum's lane-wise step."""

    @proc
    def accumulate(dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        for i in seq(0, L):
            dst[i] += a[i]

    @proc
    def accumulate_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] += a[i]

    return accumulate, accumulate_mask


def _copy(L, MEM):
    """A register copy (a value read twice, as in x * x)."""

    @proc
    def copy(dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        for i in seq(0, L):
            dst[i] = a[i]

    @proc
    def copy_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = a[i]

    return copy, copy_mask


def _negate(L, MEM):
    @proc
    def negate(dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        for i in seq(0, L):
            dst[i] = -a[i]

    @proc
    def negate_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = -a[i]

    return negate, negate_mask


def _abs(L, MEM):
    """|a| in the form of `exo2.stdlib`'s `abs_rule`: `select(0, a, a, -a)`."""

    @proc
    def abs(dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        for i in seq(0, L):
            dst[i] = select(0.0, a[i], a[i], -a[i])

    @proc
    def abs_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = select(0.0, a[i], a[i], -a[i])

    return abs, abs_mask


def _fabs(L, MEM):
    """|a| as `fabs` (sign bit cleared; benchmarks/blas/exo2blas/externs.py)."""

    @proc
    def fabs_(dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        for i in seq(0, L):
            dst[i] = fabs(a[i])

    @proc
    def fabs_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = fabs(a[i])

    return fabs_, fabs_mask


def _max(L, MEM):
    """The larger of `a` and `b` in the form of `exo2.stdlib`'s `max_rule`:
    `select(a, b, b, a)`."""

    @proc
    def max_(dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        for i in seq(0, L):
            dst[i] = select(a[i], b[i], b[i], a[i])

    @proc
    def max_mask(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = select(a[i], b[i], b[i], a[i])

    return max_, max_mask


def _select(L, MEM):
    """`dst = a < b ? c : d`, lane-wise."""

    @proc
    def select_(
        dst: [R][L] @ MEM,
        a: [R][L] @ MEM,
        b: [R][L] @ MEM,
        c: [R][L] @ MEM,
        d: [R][L] @ MEM,
    ):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert stride(c, 0) == 1
        assert stride(d, 0) == 1
        for i in seq(0, L):
            dst[i] = select(a[i], b[i], c[i], d[i])

    @proc
    def select_mask(
        N: size,
        dst: [R][L] @ MEM,
        a: [R][L] @ MEM,
        b: [R][L] @ MEM,
        c: [R][L] @ MEM,
        d: [R][L] @ MEM,
    ):
        assert stride(dst, 0) == 1
        assert stride(a, 0) == 1
        assert stride(b, 0) == 1
        assert stride(c, 0) == 1
        assert stride(d, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = select(a[i], b[i], c[i], d[i])

    return select_, select_mask


def _hsum(L, MEM):
    """`result += the sum of the lanes` (reassociates: a reduction's end)."""

    @proc
    def hsum(src: [R][L] @ MEM, result: R):
        assert stride(src, 0) == 1
        for i in seq(0, L):
            result += src[i]

    return hsum, None


def _hsum_element(L, MEM):
    """`hsum` into an array element (`sums[1]`)."""

    @proc
    def hsum_element(src: [R][L] @ MEM, result: [R][1] @ DRAM):
        assert stride(src, 0) == 1
        for i in seq(0, L):
            result[0] += src[i]

    return hsum_element, None


def _constant(L, MEM, VALUE):
    """Every lane set to the literal `VALUE` (a kernel's constant)."""

    @proc
    def constant(dst: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        for i in seq(0, L):
            dst[i] = VALUE

    @proc
    def constant_mask(N: size, dst: [R][L] @ MEM):
        assert stride(dst, 0) == 1
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = VALUE

    return constant, constant_mask


# --------------------------------------------------------------------------- #
# Intrinsic templates. `{m}` is the mask of the N-lane prefix; AVX2 has no
# mask registers, so its masked forms blend (registers) or use maskload and
# maskstore (memory) with an integer lane mask.

# (semantics, full template, masked template); the masked AVX2 and AVX-512
# templates differ, so each ISA has its own table of masked forms.
_OPS = {
    "load": (_load, "{dst_data} = {v}_loadu_{t}(&{src_data});"),
    "store": (_store, "{v}_storeu_{t}(&{dst_data}, {src_data});"),
    "zero": (_zero, "{dst_data} = {v}_setzero_{t}();"),
    "broadcast": (_broadcast, "{dst_data} = {v}_set1_{t}(*{val_data});"),
    "broadcast_element": (_broadcast_element, "{dst_data} = {v}_set1_{t}({val_data});"),
    "load_widen": (_load_widen, None),  # per ISA below
    "add": (_binary("add"), "{dst_data} = {v}_add_{t}({a_data}, {b_data});"),
    "sub": (_binary("sub"), "{dst_data} = {v}_sub_{t}({a_data}, {b_data});"),
    "mul": (_binary("mul"), "{dst_data} = {v}_mul_{t}({a_data}, {b_data});"),
    "fma": (_fma, "{dst_data} = {v}_fmadd_{t}({a_data}, {b_data}, {dst_data});"),
    "addmul": (_addmul, "{dst_data} = {v}_fmadd_{t}({a_data}, {b_data}, {c_data});"),
    "muladd": (_muladd, "{dst_data} = {v}_fmadd_{t}({a_data}, {b_data}, {c_data});"),
    "accumulate": (_accumulate, "{dst_data} = {v}_add_{t}({dst_data}, {a_data});"),
    "copy": (_copy, "{dst_data} = {a_data};"),
    "negate": (_negate, "{dst_data} = {v}_sub_{t}({v}_set1_{t}(-0.0), {a_data});"),
    "abs": (
        _abs,
        "{dst_data} = {v}_max_{t}({a_data}, {v}_sub_{t}({v}_set1_{t}(-0.0), {a_data}));",
    ),
    "fabs": (_fabs, None),  # `fabs_result` of each ISA's table below
    "max": (_max, "{dst_data} = {v}_max_{t}({b_data}, {a_data});"),
    "select": (_select, None),  # `select_result` of each ISA's table below
    "hsum": (_hsum, None),
    "hsum_element": (_hsum_element, None),
}

# Lane-wise results of the ops whose masked form blends a full result into
# dst: `{r}` is the full computation of each.
_RESULT = {
    "add": "{v}_add_{t}({a_data}, {b_data})",
    "sub": "{v}_sub_{t}({a_data}, {b_data})",
    "mul": "{v}_mul_{t}({a_data}, {b_data})",
    "fma": "{v}_fmadd_{t}({a_data}, {b_data}, {dst_data})",
    "addmul": "{v}_fmadd_{t}({a_data}, {b_data}, {c_data})",
    "muladd": "{v}_fmadd_{t}({a_data}, {b_data}, {c_data})",
    "accumulate": "{v}_add_{t}({dst_data}, {a_data})",
    "copy": "{a_data}",
    "negate": "{v}_sub_{t}({v}_set1_{t}(-0.0), {a_data})",
    "abs": "{v}_max_{t}({a_data}, {v}_sub_{t}({v}_set1_{t}(-0.0), {a_data}))",
    "max": "{v}_max_{t}({b_data}, {a_data})",
    "broadcast": "{v}_set1_{t}(*{val_data})",
    "broadcast_element": "{v}_set1_{t}({val_data})",
}

# -a is -0.0 - a (0.0 - a would turn +0 into +0, not -0). abs is
# max(a, -a), which returns its second operand when they compare equal or
# one is NaN: select(0, a, a, -a) exactly, signed zeros included. For the
# same reason max(b, a) is select(a, b, b, a) (a < b ? b : a) exactly; it
# comes before select, which matches that form too (a blend and a compare).

_AVX2 = {
    "v": "_mm256",
    "fabs_result": "{v}_andnot_{t}({v}_set1_{t}(-0.0), {a_data})",
    "select_result": (
        "{v}_blendv_{t}({d_data}, {c_data}, {v}_cmp_{t}({a_data}, {b_data}, _CMP_LT_OQ))"
    ),
    "load_mask": (
        "{dst_data} = {v}_blendv_{t}({dst_data}, "
        "{v}_maskload_{t}(&{src_data}, {v}_cast{t}_si256({m})), {m});"
    ),
    "store_mask": "{v}_maskstore_{t}(&{dst_data}, {v}_cast{t}_si256({m}), {src_data});",
    "blend": "{dst_data} = {v}_blendv_{t}({dst_data}, {r}, {m});",
    "load_widen": "{dst_data} = _mm256_cvtps_pd(_mm_loadu_ps(&{src_data}));",
    "load_widen_mask": (
        "{dst_data} = _mm256_blendv_pd({dst_data}, _mm256_cvtps_pd(_mm_maskload_ps("
        "&{src_data}, _mm_cmpgt_epi32(_mm_set1_epi32({N}), _mm_set_epi32(3, 2, 1, 0)))"
        "), {m});"
    ),
}
_AVX512 = {
    "v": "_mm512",
    "fabs_result": "{v}_abs_{t}({a_data})",
    "select_result": (
        "{v}_mask_blend_{t}({v}_cmp_{t}_mask({a_data}, {b_data}, _CMP_LT_OQ), "
        "{d_data}, {c_data})"
    ),
    "load_mask": "{dst_data} = {v}_mask_loadu_{t}({dst_data}, {m}, &{src_data});",
    "store_mask": "{v}_mask_storeu_{t}(&{dst_data}, {m}, {src_data});",
    "blend": "{dst_data} = {v}_mask_blend_{t}({m}, {dst_data}, {r});",
    "load_widen": "{dst_data} = _mm512_cvtps_pd(_mm256_loadu_ps(&{src_data}));",
    "load_widen_mask": (
        "{dst_data} = _mm512_mask_cvtps_pd({dst_data}, {m}, "
        "_mm256_maskz_loadu_ps({m}, &{src_data}));"
    ),
}

_HSUM = {
    ("avx2", "f32"): (
        "{{ __m128 s = _mm_add_ps(_mm256_castps256_ps128({src_data}), "
        "_mm256_extractf128_ps({src_data}, 1)); "
        "s = _mm_add_ps(s, _mm_movehl_ps(s, s)); "
        "s = _mm_add_ss(s, _mm_movehdup_ps(s)); *{result} += _mm_cvtss_f32(s); }}"
    ),
    ("avx2", "f64"): (
        "{{ __m128d s = _mm_add_pd(_mm256_castpd256_pd128({src_data}), "
        "_mm256_extractf128_pd({src_data}, 1)); "
        "s = _mm_add_sd(s, _mm_unpackhi_pd(s, s)); *{result} += _mm_cvtsd_f64(s); }}"
    ),
    ("avx512", "f32"): "*{result} += _mm512_reduce_add_ps({src_data});",
    ("avx512", "f64"): "*{result} += _mm512_reduce_add_pd({src_data});",
}

OPERATIONS = tuple(_OPS)


def _mask(isa, prec, lanes):
    """The C expression of the N-lane prefix mask: a mask register on
    AVX-512, a vector of all-ones lanes on AVX2."""
    if isa == "avx512":
        kind = "__mmask16" if lanes == 16 else "__mmask8"
        return f"(({kind})((1u << {{N}}) - 1u))"
    order = ", ".join(str(i) for i in reversed(range(lanes)))
    if prec == "f32":
        cmp = f"_mm256_cmpgt_epi32(_mm256_set1_epi32({{N}}), _mm256_set_epi32({order}))"
        return f"_mm256_castsi256_ps({cmp})"
    cmp = f"_mm256_cmpgt_epi64(_mm256_set1_epi64x({{N}}), _mm256_set_epi64x({order}))"
    return f"_mm256_castsi256_pd({cmp})"


def _fill(template, isa_table, prec, mask=None, result=None):
    text = template
    if result is not None:
        text = text.replace("{r}", result)
    if mask is not None:
        text = text.replace("{m}", mask)
    return text.replace("{v}", isa_table["v"]).replace(
        "{t}", "ps" if prec == "f32" else "pd"
    )


def _bind(semantics, name, prec, template):
    """The instruction `name`: `semantics` with its `R` arguments in `prec`
    (arguments of an explicit type keep it), bound to `template`."""
    p = semantics
    for a in p.args():
        if a.type() == ExoType.R:
            p = set_precision(p, a.name(), prec)
    return make_instr(rename(p, name), template)


def _geometry(isa, prec):
    memory = {"avx2": AVX2, "avx512": AVX512}[isa]
    table = {"avx2": _AVX2, "avx512": _AVX512}[isa]
    lanes = (32 if isa == "avx2" else 64) // (4 if prec == "f32" else 8)
    return memory, table, lanes, _mask(isa, prec, lanes)


@functools.cache
def constant(isa, prec, value):
    """The instructions, full and masked, that set every lane to the
    literal `value` (a float), named after its bits; the C literal is its
    exact repr."""
    memory, table, lanes, mask = _geometry(isa, prec)
    full, masked = _constant(lanes, memory, float(value))
    bits = struct.pack(">d", float(value)).hex()
    result = _fill(f"{{v}}_set1_{{t}}({float(value)!r})", table, prec)
    return [
        _bind(full, f"{isa}_constant_{bits}_{prec}", prec, f"{{dst_data}} = {result};"),
        _bind(
            masked,
            f"{isa}_constant_{bits}_mask_{prec}",
            prec,
            _fill(table["blend"], table, prec, mask, result),
        ),
    ]


@functools.cache
def nontemporal_store(isa, prec):
    """`store` with a non-temporal hint (`_mm512_stream_ps`): the line is
    written to memory without being read into the caches first, which
    saves a third of a copy's traffic to DRAM. The intrinsic needs an
    address aligned to a whole vector; the template tests it and stores as
    `store` does where it is not, so the instruction is `store` wherever it
    is called. Its stores are weakly ordered: a routine that makes them
    fences (`_mm_sfence`) before another thread may read what they wrote."""
    memory, table, lanes, _ = _geometry(isa, prec)
    full, _ = _store(lanes, memory)
    alignment = lanes * (4 if prec == "f32" else 8) - 1
    template = _fill(
        f"if (((uintptr_t)&{{dst_data}} & {alignment}) == 0) "
        "{v}_stream_{t}(&{dst_data}, {src_data}); "
        "else {v}_storeu_{t}(&{dst_data}, {src_data});",
        table,
        prec,
    )
    return _bind(full, f"{isa}_store_nontemporal_{prec}", prec, template)


@functools.cache
def instructions(isa, prec):
    """Every operation of `OPERATIONS`, full and masked, for one ISA
    ("avx2" or "avx512") and precision ("f32" or "f64"): the list
    `vectorize` selects from."""
    memory, table, lanes, mask = _geometry(isa, prec)
    found = []
    for op, (semantics, template) in _OPS.items():
        if op == "load_widen" and prec != "f64":
            continue
        full, masked = semantics(lanes, memory)
        # an op whose result the ISA's table spells (`{op}_result`) sets dst
        # to it, and its masked form blends it, as _RESULT's do
        result = table.get(f"{op}_result", _RESULT.get(op))
        if template is None and f"{op}_result" in table:
            template = "{dst_data} = " + result + ";"
        if op == "hsum":
            template = _HSUM[(isa, prec)]
        if op == "hsum_element":
            template = _HSUM[(isa, prec)].replace("*{result}", "{result_data}")
        if op == "load_widen":
            template = table["load_widen"]
        found.append(
            _bind(full, f"{isa}_{op}_{prec}", prec, _fill(template, table, prec))
        )
        if masked is None:
            continue
        if op in ("load", "store", "load_widen"):
            masked_template = _fill(table[f"{op}_mask"], table, prec, mask)
        else:
            result = _fill(result, table, prec)
            masked_template = _fill(table["blend"], table, prec, mask, result)
        found.append(_bind(masked, f"{isa}_{op}_mask_{prec}", prec, masked_template))
    return found
