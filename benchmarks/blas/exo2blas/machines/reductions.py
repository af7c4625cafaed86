"""The reductions of lane-blocked state into a scalar (iamax's lanes: see
benchmarks/blas/exo2blas/kernels/level1/iamax.py): `vectors` vectors of
lanes, read from memory, reduced into one scalar by one instruction, the
vectors combined lane-wise first and their lanes then in halves.

Each semantics is the specification's loop over the lanes in order (its
arrays asserted contiguous by `_bind`); the
templates reassociate it, which leaves the result exact for what iamax
reduces: maxima of |x| (never NaN, never -0) and indices (integers in R).
"""

from __future__ import annotations

import functools

from exo2 import proc
from exo2.libs.memories import DRAM

from ..externs import select
from .instructions import (
    _bind,
    _fill,
    _geometry,
    horizontal,
    vector_type,
)


def _extreme(op, W):
    """`result = the largest ("max") or smallest ("min") of result and the
    lanes`, as `select` keeps a maximum or a minimum."""

    @proc
    def extreme(src: [R][W] @ DRAM, result: R):
        for i in seq(0, W):
            with python:
                value = {
                    "max": ~{select(result, src[i], src[i], result)},
                    "min": ~{select(src[i], result, src[i], result)},
                }[op]
            result = {value}

    return extreme


def _hfirst(W):
    """`first = the smallest of first and the indices of the lanes whose m
    is not below best`: iamax's first index of its largest maximum."""

    @proc
    def hfirst(m: [R][W] @ DRAM, index: [R][W] @ DRAM, best: R, first: R):
        for i in seq(0, W):
            first = select(m[i], best, first, select(index[i], first, index[i], first))

    return hfirst


def _tree(terms, op):
    """The lane-wise `op` of `terms` (C expressions of vectors), pairwise."""
    while len(terms) > 1:
        odd = [terms[-1]] if len(terms) % 2 else []
        terms = [
            f"{{v}}_{op}_{{t}}({terms[k]}, {terms[k + 1]})"
            for k in range(0, len(terms) - 1, 2)
        ] + odd
    return terms[0]


def _templates(isa, prec, table, lanes, vectors):
    """The C templates of hmax, hmin and hfirst over `vectors` vectors,
    spelt out for the ISA of `table`."""
    vector = vector_type(isa, prec)

    def load(arg, k):
        return f"{{v}}_loadu_{{t}}(&{{{arg}_data}} + {lanes * k})"

    def reduce(op, terms):  # lane-wise, then the lanes of one vector
        return horizontal(isa, prec, op, _tree(terms, op))

    loads = [load("src", k) for k in range(vectors)]
    found = {
        f"h{op}": "{{ " + reduce(op, loads) + f" *{{result}} = {kept}; }}}}"
        for op, kept in (
            ("max", "*{result} < h ? h : *{result}"),
            ("min", "h < *{result} ? h : *{result}"),
        )
    }
    # a lane: first where m < best, else the smaller of its index and first
    kept = [
        _fill(table["select_result"], table, prec).format(
            a_data=load("m", k),
            b_data="b",
            c_data="f",
            d_data=f"{{v}}_min_{{t}}({load('index', k)}, f)",
        )
        for k in range(vectors)
    ]
    found["hfirst"] = (
        f"{{{{ {vector} b = {{v}}_set1_{{t}}(*{{best}}); "
        f"{vector} f = {{v}}_set1_{{t}}(*{{first}}); "
        + reduce("min", kept)
        + " *{first} = h; }}"
    )
    return {op: _fill(template, table, prec) for op, template in found.items()}


@functools.cache
def lane_reductions(isa, prec, vectors):
    """hmax, hmin and hfirst over `vectors` vectors of lanes, for one ISA
    ("avx2" or "avx512") and precision ("f32" or "f64"), named
    `{isa}_{op}_{vectors}x_{prec}`."""
    _, table, lanes, _ = _geometry(isa, prec)
    width = lanes * vectors
    semantics = {f"h{op}": _extreme(op, width) for op in ("max", "min")}
    semantics["hfirst"] = _hfirst(width)
    return [
        _bind(semantics[op], f"{isa}_{op}_{vectors}x_{prec}", prec, template)
        for op, template in _templates(isa, prec, table, lanes, vectors).items()
    ]


def _hsum_rows(L, MEM):
    """Four rows' dot products ended together (`rows`' blocks): `rk +=
    the sum of the lanes of sk` (in the order `hsum` leaves them), then
    `y[k] += alpha * rk`."""

    @proc
    def hsum_rows(
        s0: [R][L] @ MEM, s1: [R][L] @ MEM, s2: [R][L] @ MEM, s3: [R][L] @ MEM,
        r0: R, r1: R, r2: R, r3: R, alpha: R, y: [R][4] @ DRAM,
    ):  # fmt: skip
        for i in seq(0, L):
            r3 += s3[i]
        for i in seq(0, L):
            r2 += s2[i]
        for i in seq(0, L):
            r1 += s1[i]
        for i in seq(0, L):
            r0 += s0[i]
        y[0] += alpha * r0
        y[1] += alpha * r1
        y[2] += alpha * r2
        y[3] += alpha * r3

    return hsum_rows


@functools.cache
def row_sums(isa, prec):
    """`hsum_rows` for one ISA and precision, named `{isa}_hsum_rows_{prec}`:
    the four vectors halved to 256 bits (AVX-512), added pairwise across
    them (`hadd`) into one vector of the four sums, and y updated as one
    vector: four `hsum`s and four scalar updates take twice the
    instructions (sgemv NoTrans of 4096 x 40, AVX-512 on the AMD EPYC Zen 4
    machine: 9.40 -> 7.57 us; docs/blas-library.md)."""
    memory, _, lanes, _ = _geometry(isa, prec)
    t, half = ("ps", "32x8") if prec == "f32" else ("pd", "64x4")
    h = [f"{{s{k}_data}}" for k in range(4)]
    if isa == "avx512":
        h = [f"_mm256_add_{t}(_mm512_cast{t}512_{t}256({v}), "
             f"_mm512_extractf{half}_{t}({v}, 1))" for v in h]  # fmt: skip
    if prec == "f32":
        v = "_mm"
        sums = (
            f"__m256 p = _mm256_hadd_ps(_mm256_hadd_ps({h[0]}, {h[1]}), "
            f"_mm256_hadd_ps({h[2]}, {h[3]})); __m128 s = "
            "_mm_add_ps(_mm256_castps256_ps128(p), _mm256_extractf128_ps(p, 1));"
        )
    else:  # hadd_pd: [a0+a1, b0+b1, a2+a3, b2+b3]
        v = "_mm256"
        sums = (
            f"__m256d a = _mm256_hadd_pd({h[0]}, {h[1]}), "
            f"b = _mm256_hadd_pd({h[2]}, {h[3]}); __m256d s = "
            "_mm256_add_pd(_mm256_permute2f128_pd(a, b, 0x20), "
            "_mm256_permute2f128_pd(a, b, 0x31));"
        )
    r = [f"*{{r{k}}}" for k in range(4)]
    template = (
        f"{{{{ {sums} s = {v}_add_{t}({v}_setr_{t}({', '.join(r)}), s); "
        + " ".join(f"{r[k]} = s[{k}];" for k in range(4))
        + f" {v}_storeu_{t}(&{{y_data}}, {v}_fmadd_{t}({v}_set1_{t}(*{{alpha}}), s, "
        f"{v}_loadu_{t}(&{{y_data}}))); }}}}"
    )
    return _bind(_hsum_rows(lanes, memory), f"{isa}_hsum_rows_{prec}", prec, template)
