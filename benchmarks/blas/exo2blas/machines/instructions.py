"""The instruction tables: every abstract vector operation is one semantic
proc over the lanes `i < N` of an `L`-lane vector (its masked form) and
the same proc at `N = L` (its full form, whose precondition reads `assert
True` after `partial_eval` and `simplify`, as in Exo), bound per ISA and
precision to an intrinsic template with `make_instr`.

`instructions(isa, prec)` returns the list `exo2.stdlib`'s `vectorize`
selects from. Nothing here is listed per (ISA, precision) by hand: a
template names its intrinsics through `{v}` (the vector prefix, `_mm256`
or `_mm512`), `{t}` (`ps` or `pd`), `{r}` (an op's lane-wise result) and
`{m}` (the mask of the N-lane prefix, `_mask`).
"""

from __future__ import annotations

import functools
import struct
from functools import partial

from exo2 import proc
from exo2.API_cursors import LiteralCursor
from exo2.API_types import ExoType
from exo2.libs.memories import AVX2, AVX512, DRAM
from exo2.stdlib.scheduling import (
    eliminate_dead_code,
    make_instr,
    rename,
    set_precision,
    simplify,
)

from ..externs import fabs, select

# --------------------------------------------------------------------------- #
# Semantics: each operation over the lanes `i < N` of an `L`-lane vector
# (its masked form, N <= L); the full form is the masked one at N = L
# (`_full`). `MEM` is the ISA's vector memory; `_bind` asserts each array
# contiguous. The register operations of
# one arity share one proc, whose statement the op picks (`with python:`,
# docs/writing-kernels.md).


def _unary(op, L, MEM):
    """copy (a register copy: a value read twice, as in x * x), negate, abs
    (in the form of `exo2.stdlib`'s `abs_rule`, `select(0, a, a, -a)`), fabs
    (sign bit cleared: benchmarks/blas/exo2blas/externs.py), and accumulate
    (`dst += a`, a plain sum's lane-wise step)."""

    @proc
    def unary(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM):
        assert N <= L
        for i in seq(0, L):
            if i < N:
                with python:
                    if op == "accumulate":
                        with exo:
                            dst[i] += a[i]
                    else:
                        value = {
                            "copy": ~{a[i]},
                            "negate": ~{-a[i]},
                            "abs": ~{select(0.0, a[i], a[i], -a[i])},
                            "fabs": ~{fabs(a[i])},
                        }[op]
                        with exo:
                            dst[i] = {value}

    return unary


def _binary(op, L, MEM, suffix=False):
    """add, sub, mul, max (in the form of `exo2.stdlib`'s `max_rule`,
    `select(a, b, b, a)`), and fma (`dst += a * b`, a reduction's fused
    multiply-add)."""

    @proc
    def binary(N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM):
        assert N <= L
        for i in seq(0, L):
            with python:
                lane = ~{L - N <= i} if suffix else ~{i < N}
            if {lane}:
                with python:
                    if op == "fma":
                        with exo:
                            dst[i] += a[i] * b[i]
                    else:
                        value = {
                            "add": ~{a[i] + b[i]},
                            "sub": ~{a[i] - b[i]},
                            "mul": ~{a[i] * b[i]},
                            "max": ~{select(a[i], b[i], b[i], a[i])},
                        }[op]
                        with exo:
                            dst[i] = {value}

    return binary


def _ternary(op, L, MEM, suffix=False):
    """A fused multiply-add written as an assignment, in either operand
    order: addmul `dst = c + a * b`, muladd `dst = a * b + c`."""

    @proc
    def ternary(
        N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM, c: [R][L] @ MEM
    ):
        assert N <= L
        for i in seq(0, L):
            with python:
                lane = ~{L - N <= i} if suffix else ~{i < N}
                value = {
                    "addmul": ~{c[i] + a[i] * b[i]},
                    "muladd": ~{a[i] * b[i] + c[i]},
                }[op]
            if {lane}:
                dst[i] = {value}

    return ternary


def _select(L, MEM):
    """`dst = a < b ? c : d`, lane-wise."""

    @proc
    def select_(
        N: size, dst: [R][L] @ MEM, a: [R][L] @ MEM, b: [R][L] @ MEM,
        c: [R][L] @ MEM, d: [R][L] @ MEM,
    ):  # fmt: skip
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = select(a[i], b[i], c[i], d[i])

    return select_


def _load(L, MEM, suffix=False, widen=False):
    """With `widen`, f32 elements into f64 lanes (dsdot, sdsdot, snrm2)."""
    LANE, ELEMENT = ("f64", "f32") if widen else ("R", "R")

    @proc
    def load(N: size, dst: [LANE][L] @ MEM, src: [ELEMENT][N] @ DRAM):
        assert N <= L
        for i in seq(0, L):
            with python:
                lane = ~{L - N <= i} if suffix else ~{i < N}
                element = ~{i + N - L} if suffix else ~{i}
            if {lane}:
                dst[i] = src[{element}]

    return load


def _store(L, MEM, suffix=False):
    @proc
    def store(N: size, dst: [R][N] @ DRAM, src: [R][L] @ MEM):
        assert N <= L
        for i in seq(0, L):
            with python:
                lane = ~{L - N <= i} if suffix else ~{i < N}
                element = ~{i + N - L} if suffix else ~{i}
            if {lane}:
                dst[{element}] = src[i]

    return store


def _broadcast(L, MEM, suffix=False):
    @proc
    def broadcast(N: size, dst: [R][L] @ MEM, val: R):
        assert N <= L
        for i in seq(0, L):
            with python:
                lane = ~{L - N <= i} if suffix else ~{i < N}
            if {lane}:
                dst[i] = val

    return broadcast


def _broadcast_element(L, MEM):
    """A broadcast of one element of an array (`param[1]`)."""

    @proc
    def broadcast_element(N: size, dst: [R][L] @ MEM, val: [R][1] @ DRAM):
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = val[0]

    return broadcast_element


def _constant(L, MEM, VALUE):
    """Every lane set to the literal `VALUE` (a kernel's constant)."""

    @proc
    def constant(N: size, dst: [R][L] @ MEM):
        assert N <= L
        for i in seq(0, L):
            if i < N:
                dst[i] = VALUE

    return constant


def _zero(L, MEM):
    """`constant` 0.0 over all lanes (no masked form)."""
    return _full(_constant(L, MEM, 0.0), L)


def _hsum(L, MEM):
    """`result += the sum of the lanes` (reassociates: a reduction's end;
    no masked form)."""

    @proc
    def hsum(src: [R][L] @ MEM, result: R):
        for i in seq(0, L):
            result += src[i]

    return hsum


def _hsum_element(L, MEM):
    """`hsum` into an array element (`sums[1]`)."""

    @proc
    def hsum_element(src: [R][L] @ MEM, result: [R][1] @ DRAM):
        for i in seq(0, L):
            result[0] += src[i]

    return hsum_element


def _full(masked, L):
    """The masked semantics `masked` over all `L` lanes: `N = L`, whose
    guard `i < L` always holds."""
    full = simplify(masked.partial_eval(N=L))
    return eliminate_dead_code(full, full.find("if _:_"))


# --------------------------------------------------------------------------- #
# Intrinsic templates. `{m}` is the mask of the N-lane prefix; AVX2 has no
# mask registers, so its masked forms blend (registers) or use maskload and
# maskstore (memory) with an integer lane mask.

# The semantics of each operation (a factory of `L` and `MEM`; the
# register operations of one arity take the op's name first), in the order
# `vectorize` tries them.
_OPS = {
    "load": _load,
    "store": _store,
    "zero": _zero,
    "broadcast": _broadcast,
    "broadcast_element": _broadcast_element,
    "load_widen": partial(_load, widen=True),
    **{op: partial(_binary, op) for op in ("add", "sub", "mul", "fma")},
    **{op: partial(_ternary, op) for op in ("addmul", "muladd")},
    "accumulate": partial(_unary, "accumulate"),
    **{op: partial(_unary, op) for op in ("copy", "negate", "abs", "fabs")},
    "max": partial(_binary, "max"),
    "select": _select,
    "hsum": _hsum,
    "hsum_element": _hsum_element,
}
_UNMASKED = ("zero", "hsum", "hsum_element")

# The templates, by key: `{op}_result`, an op's lane-wise result, which its
# full form assigns to dst and its masked form blends into dst (`blend`);
# `{op}` and `{op}_mask`, a full or masked form of its own (memory
# operations, hsum). The ISA-independent ones here; each ISA's table adds
# its own (fabs's and select's results, the masked memory operations).
_COMMON = {
    "load": "{dst_data} = {v}_loadu_{t}(&{src_data});",
    "store": "{v}_storeu_{t}(&{dst_data}, {src_data});",
    # {r}: statements that leave the sum of the lanes in h (`horizontal`)
    "hsum": "{{ {r} *{result} += h; }}",
    "hsum_element": "{{ {r} {result_data} += h; }}",
    "zero_result": "{v}_setzero_{t}()",
    "add_result": "{v}_add_{t}({a_data}, {b_data})",
    "sub_result": "{v}_sub_{t}({a_data}, {b_data})",
    "mul_result": "{v}_mul_{t}({a_data}, {b_data})",
    "fma_result": "{v}_fmadd_{t}({a_data}, {b_data}, {dst_data})",
    "addmul_result": "{v}_fmadd_{t}({a_data}, {b_data}, {c_data})",
    "muladd_result": "{v}_fmadd_{t}({a_data}, {b_data}, {c_data})",
    "accumulate_result": "{v}_add_{t}({dst_data}, {a_data})",
    "copy_result": "{a_data}",
    "negate_result": "{v}_sub_{t}({v}_set1_{t}(-0.0), {a_data})",
    "abs_result": "{v}_max_{t}({a_data}, {v}_sub_{t}({v}_set1_{t}(-0.0), {a_data}))",
    "max_result": "{v}_max_{t}({b_data}, {a_data})",
    "broadcast_result": "{v}_set1_{t}(*{val_data})",
    "broadcast_element_result": "{v}_set1_{t}({val_data})",
}

# -a is -0.0 - a (0.0 - a would turn +0 into +0, not -0). abs is
# max(a, -a), which returns its second operand when they compare equal or
# one is NaN: select(0, a, a, -a) exactly, signed zeros included. For the
# same reason max(b, a) is select(a, b, b, a) (a < b ? b : a) exactly; it
# comes before select, which matches that form too (a blend and a compare).

_AVX2 = _COMMON | {
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
_AVX512 = _COMMON | {
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

# The lanes of one vector `v` reduced into the scalar `h` by `{op}` (add,
# max, min): halves, then quarters, then pairs on AVX2; the reduce
# intrinsics on AVX-512 (`horizontal`).
_HORIZONTAL = {
    ("avx2", "f32"): (
        "__m128 s = _mm_{op}_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)); "
        "s = _mm_{op}_ps(s, _mm_movehl_ps(s, s)); "
        "float h = _mm_cvtss_f32(_mm_{op}_ss(s, _mm_movehdup_ps(s)));"
    ),
    ("avx2", "f64"): (
        "__m128d s = _mm_{op}_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1)); "
        "double h = _mm_cvtsd_f64(_mm_{op}_sd(s, _mm_unpackhi_pd(s, s)));"
    ),
    ("avx512", "f32"): "float h = _mm512_reduce_{op}_ps(v);",
    ("avx512", "f64"): "double h = _mm512_reduce_{op}_pd(v);",
}


def vector_type(isa, prec):
    """The C type of one vector register: `__m256`, `__m512d`."""
    return ("__m256" if isa == "avx2" else "__m512") + ("" if prec == "f32" else "d")


def horizontal(isa, prec, op, vector):
    """C statements that set the vector `v` to the C expression `vector`
    and reduce its lanes by `op` into the scalar `h`."""
    reduce = _HORIZONTAL[(isa, prec)].replace("{op}", op)
    return f"{vector_type(isa, prec)} v = {vector}; {reduce}"


OPERATIONS = tuple(_OPS)


def _mask(isa, prec, lanes, suffix=False):
    """The C expression of the mask of the first N lanes (of the last N
    with `suffix`): a mask register on AVX-512, a vector of all-ones lanes
    on AVX2."""
    if isa == "avx512":
        kind = "__mmask16" if lanes == 16 else "__mmask8"
        if suffix:
            return f"(({kind})({2**lanes - 1}u << ({lanes} - ({{N}}))))"
        return f"(({kind})((1u << {{N}}) - 1u))"
    bits, x, t = ("32", "", "ps") if prec == "f32" else ("64", "x", "pd")
    order = ", ".join(str(i) for i in reversed(range(lanes)))
    order = f"_mm256_set_epi{bits}{x}({order})"
    if suffix:  # lane > L - N - 1
        cmp = f"{order}, _mm256_set1_epi{bits}{x}({lanes} - ({{N}}) - 1)"
    else:  # N > lane
        cmp = f"_mm256_set1_epi{bits}{x}({{N}}), {order}"
    return f"_mm256_castsi256_{t}(_mm256_cmpgt_epi{bits}({cmp}))"


def _fill(template, table, prec, mask=None, result=None):
    """`template` spelt out: `{r}`, the op's result, and `{m}`, the mask,
    where given, then `{v}`, the ISA's vector prefix (`table`'s), and `{t}`."""
    t = "ps" if prec == "f32" else "pd"
    for key, value in (("{r}", result), ("{m}", mask), ("{v}", table["v"]), ("{t}", t)):
        if value is not None:
            template = template.replace(key, value)
    return template


def _bind(semantics, name, prec, template):
    """The instruction `name`: `semantics` with its `R` arguments in `prec`
    (arguments of an explicit type keep it) and each array of more than one
    element asserted contiguous (every template loads and stores whole
    vectors), bound to `template`."""
    p = semantics
    for a in p.args():
        if a.type() == ExoType.R:
            p = set_precision(p, a.name(), prec)
        if a.is_tensor():
            size = a.shape()[0]
            if not (isinstance(size, LiteralCursor) and size.value() == 1):
                p = p.add_assertion(f"stride({a.name()}, 0) == 1")
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
    memory, _, lanes, _ = _geometry(isa, prec)
    bits = struct.pack(">d", float(value)).hex()
    masked = _constant(lanes, memory, float(value))
    result = f"{{v}}_set1_{{t}}({float(value)!r})"
    return _forms(isa, prec, f"constant_{bits}", masked, result)


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
    full = _full(_store(lanes, memory), lanes)
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
def block_copy(prec):
    """`dst[i] = src[i]` over all `N` elements as one call of the C
    library's `memcpy`, whichever ISA: beyond the L1 cache, glibc's
    `rep movsb` copies about 1.4 times as fast as a loop of vector loads
    and stores (32 KiB of f64: 318 ns, the 512-bit loop 454 ns; within the
    L1, 16 KiB: 162 and 105 ns; AVX-512 on the AMD EPYC Zen 5 machine): it
    writes y's lines without reading them first. Named `block_copy_{prec}`."""

    @proc
    def block_copy(N: size, dst: [R][N] @ DRAM, src: [R][N] @ DRAM):
        for i in seq(0, N):
            dst[i] = src[i]

    size = 4 if prec == "f32" else 8
    template = (
        f"__builtin_memcpy(&{{dst_data}}, &{{src_data}}, (size_t)({{N}}) * {size});"
    )
    return _bind(block_copy, f"block_copy_{prec}", prec, template)


@functools.cache
def instructions(isa, prec):
    """Every operation of `OPERATIONS`, full and masked, for one ISA
    ("avx2" or "avx512") and precision ("f32" or "f64"): the list
    `vectorize` selects from."""
    memory, _, lanes, _ = _geometry(isa, prec)
    found = []
    for op, semantics in _OPS.items():
        if op != "load_widen" or prec == "f64":  # f32 widens to f64 only
            found += _forms(isa, prec, op, semantics(lanes, memory))
    return found


def _forms(isa, prec, op, masked, result=None):
    """`op`'s instructions: `{isa}_{op}_{prec}`, its semantics `masked`
    (over the first N lanes) at N = L, and `{isa}_{op}_mask_{prec}`,
    `masked` itself; only the first for `_UNMASKED`, whose `masked` covers
    every lane. `result`: the op's lane-wise result where the table has
    none (`constant`'s)."""
    _, table, lanes, mask = _geometry(isa, prec)
    result = result or table.get(f"{op}_result")
    if op in ("hsum", "hsum_element"):  # {r}: the lanes summed into h
        result = horizontal(isa, prec, "add", "{src_data}")
    template = _fill(table.get(op, "{dst_data} = {r};"), table, prec, result=result)
    if op in _UNMASKED:
        return [_bind(masked, f"{isa}_{op}_{prec}", prec, template)]
    masked_template = _masked_template(op, table, prec, mask, result)
    return [
        _bind(_full(masked, lanes), f"{isa}_{op}_{prec}", prec, template),
        _bind(masked, f"{isa}_{op}_mask_{prec}", prec, masked_template),
    ]


def _masked_template(op, table, prec, mask, result, lane0=None):
    """The intrinsics of `op`'s masked form: its own (`{op}_mask`, a masked
    load or store), else `result` blended into dst; `lane0` (a C offset),
    the elements a load or store addresses before its window."""
    template = table.get(f"{op}_mask", table["blend"])
    if lane0 is not None and op in ("load", "store"):
        data = "{src_data}" if op == "load" else "{dst_data}"
        template = template.replace(f"&{data}", f"(&{data} - ({lane0}))")
    return _fill(template, table, prec, mask, result)


# The operations with a masked form over the last lanes (an update's).
_SUFFIX_OPS = ("load", "store", "broadcast", "add", "mul", "fma", "addmul", "muladd")


@functools.cache
def suffix_instructions(isa, prec):
    """The masked forms of `_SUFFIX_OPS` over the last N lanes of a
    vector (`L - N <= i`) instead of the first: a loop's first `N`
    iterations run as the last lanes of a vector that ends where the
    loop's whole vectors begin (`exo2.stdlib`'s
    `vectorize_predicate_head`). A load or store addresses the vector's
    lane 0, `L - N` elements before the window it is given (which may lie
    before the array: the masked lanes are not accessed, so they cannot
    fault). Named `{isa}_{op}_suffix_{prec}`."""
    memory, table, lanes, _ = _geometry(isa, prec)
    mask = _mask(isa, prec, lanes, suffix=True)
    return [
        _bind(
            _OPS[op](lanes, memory, suffix=True),
            f"{isa}_{op}_suffix_{prec}",
            prec,
            _masked_template(
                op, table, prec, mask, table.get(f"{op}_result"), f"{lanes} - ({{N}})"
            ),
        )
        for op in _SUFFIX_OPS
    ]
