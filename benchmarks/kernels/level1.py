"""Level-1 BLAS: axpy, dot, asum and scal in f32 (s) and f64 (d), unit
stride, n = 2^4 .. 2^26 (even powers up to 2^22 with --quick).

Flop and byte counts (s = element size):
axpy 2n flops, 3n s bytes; dot 2n, 2n s; asum 2n, n s; scal n, 2n s.
The timed calls repeat on the same arrays, so the constants keep the data
normal: axpy adds 2^-10 x (|y| grows by at most 2^-10 per call) and scal
multiplies by 1 + 2^-20.

exo2 variants: `naive` (the plain loop; GCC vectorizes axpy and scal but
not the f32/f64 reductions of dot and asum, which need reassociation) and
`stdlib_avx2` (`schedule_avx2`: exo2.stdlib's `vectorize` on blocks of
UNROLL AVX2 vectors, one vector accumulator per vector of the block for dot
and asum, `parallelize_reduction`, then a vectorized `cut` tail for any n;
scalars kept in locals).
"""

# ruff: noqa: F821  (size, f32, seq: names of the object language)

from __future__ import annotations

import numpy as np
from exo2 import instr, proc
from exo2.API_scheduling import (
    divide_dim,
    divide_loop,
    set_memory,
    simplify,
    stage_mem,
    unroll_loop,
)
from exo2.libs.externs import select
from exo2.libs.memories import AVX2, DRAM
from exo2.platforms import x86
from exo2.stdlib.inspection import (
    are_exprs_equal,
    is_literal,
    is_select,
    is_unary_minus,
)
from exo2.stdlib.stdlib import (
    fma_rule,
    parallelize_reduction,
    replace_all_stmts,
    vectorize,
)

from . import Case, Check, Kernel, gamma

QUICK_EXPONENTS = range(4, 23, 2)
EXPONENTS = range(4, 27)
AXPY_ALPHA = 2.0**-10
SCAL_ALPHA = 1.0 + 2.0**-20


@proc
def saxpy(n: size, alpha: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


@proc
def daxpy(n: size, alpha: f64, x: f64[n], y: f64[n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


@proc
def sdot(n: size, x: f32[n], y: f32[n], result: f32):
    result = 0.0
    for i in seq(0, n):
        result += x[i] * y[i]


@proc
def ddot(n: size, x: f64[n], y: f64[n], result: f64):
    result = 0.0
    for i in seq(0, n):
        result += x[i] * y[i]


@proc
def sasum(n: size, x: f32[n], result: f32):
    result = 0.0
    for i in seq(0, n):
        result += select(x[i], 0.0, -x[i], x[i])


@proc
def dasum(n: size, x: f64[n], result: f64):
    result = 0.0
    for i in seq(0, n):
        result += select(x[i], 0.0, -x[i], x[i])


@proc
def sscal(n: size, alpha: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]


@proc
def dscal(n: size, alpha: f64, x: f64[n]):
    for i in seq(0, n):
        x[i] = alpha * x[i]


# ---- the stdlib_avx2 schedule -------------------------------------------------

UNROLL = 4  # vectors per block: independent accumulators (FMA latency 4-5)


@instr("{dst_data} = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), {src_data});")
def avx2_abs_select_ps(dst: [f32][8] @ AVX2, src: [f32][8] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    for i in seq(0, 8):
        dst[i] = select(src[i], 0.0, -src[i], src[i])


@instr("{dst_data} = _mm256_andnot_pd(_mm256_set1_pd(-0.0), {src_data});")
def avx2_abs_select_pd(dst: [f64][4] @ AVX2, src: [f64][4] @ AVX2):
    assert stride(dst, 0) == 1
    assert stride(src, 0) == 1
    for i in seq(0, 4):
        dst[i] = select(src[i], 0.0, -src[i], src[i])


def abs_select_rule(proc, expr):
    """Staging rule for the abs of these kernels, `select(x, 0.0, -x, x)`
    (stdlib's `abs_rule` matches `select(0.0, x, x, -x)`): the three `x`
    go to one register."""
    expr = proc.forward(expr)
    if is_select(proc, expr):
        a, zero, neg, b = expr.args()
        if (
            is_literal(proc, zero, 0.0)
            and is_unary_minus(proc, neg)
            and are_exprs_equal(proc, a, b)
            and are_exprs_equal(proc, a, neg.arg())
        ):
            return [[a, neg.arg(), b]]
    return None


_AVX2_NAMES = (
    "mm256_loadu_{s}",
    "mm256_storeu_{s}",
    "mm256_setzero_{s}",
    "mm256_broadcast_{b}_scalar",
    "mm256_fmadd_{s}",
    "mm256_addmul_{s}",
    "mm256_mul_{s}",
    "mm256_add_{s}",
    "avx2_reduce_add_wide_{s}",
    "avx2_assoc_reduce_add_{s}",
)


def avx2_instructions(prec):
    s, b = ("ps", "ss") if prec == "f32" else ("pd", "sd")
    abs_ = avx2_abs_select_ps if prec == "f32" else avx2_abs_select_pd
    return [getattr(x86, n.format(s=s, b=b)) for n in _AVX2_NAMES] + [abs_]


def schedule_avx2(proc_, prec, unroll=UNROLL):
    """AVX2 schedule of one of the kernels above (any n):

    0. copy the scalar `alpha` (and the sum of a reduction) into a local
       (`stage_mem`): the C compiler must otherwise reload it after every
       store that might alias it, a third load per vector that cost a
       third of axpy's speed in L1;
    1. divide the loop by `unroll` vectors (`cut` tail);
    2. a reduction gets `unroll` x width partial sums over the block loop
       (`parallelize_reduction`), laid out as `unroll` AVX2 registers,
       which are added into one register (`parallelize_reduction` of the
       combining loop) and reduced across once;
    3. `vectorize` the block (perfect), unroll its vectors;
    4. `vectorize` the tail loop (`cut`: up to unroll - 1 vectors, then
       fewer than width scalar iterations).
    """
    width = 8 if prec == "f32" else 4
    instructions = avx2_instructions(prec)
    rules = [fma_rule, abs_select_rule]
    p = proc_
    if any(a.name() == "alpha" for a in proc_.args()):
        p = stage_mem(p, p.body(), "alpha", "alpha_")
    reduces = any(a.name() == "result" for a in proc_.args())
    if reduces:  # the sum in a local, for the same reason
        p = stage_mem(p, p.body()[1:], "result", "sum_", accum=True)
    p = divide_loop(p, p.find_loop("i"), width * unroll, ["io", "ii"], tail="cut")
    tail = p.find_loop("ii #1")
    if reduces:
        p = parallelize_reduction(p, p.find("sum_ += _"), memory=DRAM, nth_loop=2)
        # the unroll x width partial sums are added as vectors into one
        # vector, then reduced across once
        combine = p.find("sum_ += var0[_]")
        p = divide_loop(p, combine.parent(), width, ["cj", "cl"], perfect=True)
        p = parallelize_reduction(p, combine, memory=DRAM, nth_loop=2)
        acc = p.find("var0 : _")
        p = divide_dim(p, acc, 0, width)
        p = set_memory(p, acc, AVX2)
        p = set_memory(p, p.find("var1 : _"), AVX2)
        for loop in p.find_loop("ii", many=True)[:2]:
            p = divide_loop(p, loop, width, ["iu", "iv"], perfect=True)
        block = p.find_loop("iv #1")
    else:
        block = p.find_loop("ii")
    p = vectorize(p, block, width, prec, AVX2, instructions, rules, tail="perfect")
    if reduces:  # the zeroing and combining of the accumulators
        p = replace_all_stmts(p, instructions)
    p = vectorize(
        p, p.forward(tail), width, prec, AVX2, instructions, rules, tail="cut"
    )
    # unroll the vectors of a block: for a reduction its "iu" loops, then
    # their copies of the one-vector "ivo" loop; else the first "iio" loop
    # (the second is the tail's)
    if reduces:
        for name in ("iu", "ivo", "cj"):
            for loop in p.find_loop(name, many=True):
                p = unroll_loop(p, loop)
    else:
        p = unroll_loop(p, p.find_loop("iio"))
    return simplify(p)


def _cases(flops_per_element, bytes_per_element):
    def cases(quick, sizes=None):
        if sizes is None:
            sizes = [2**e for e in (QUICK_EXPONENTS if quick else EXPONENTS)]
        return [
            Case(
                label=str(n),
                sizes={"n": n},
                flops=float(flops_per_element * n),
                bytes=float(bytes_per_element * n),
                x=n,
            )
            for n in sizes
        ]

    return cases


def _vectors(dtype, names, scalars):
    def inputs(sizes, rng):
        n = sizes["n"]
        result = {name: rng.uniform(-1, 1, n).astype(dtype) for name in names}
        for name, value in scalars.items():
            result[name] = np.array(value, dtype=dtype)
        return result

    return inputs


def _axpy_reference(inputs):
    alpha, x, y = (inputs[n].astype(np.float64) for n in ("alpha", "x", "y"))
    terms = np.abs(alpha * x) + np.abs(y)
    return {"y": Check(y + alpha * x, gamma(4, inputs["y"].dtype) * terms)}


def _dot_reference(inputs):
    x, y = (inputs[n].astype(np.float64) for n in ("x", "y"))
    bound = gamma(x.size + 2, inputs["x"].dtype) * np.sum(np.abs(x * y))
    return {"result": Check(np.array(np.dot(x, y)), bound)}


def _asum_reference(inputs):
    x = inputs["x"].astype(np.float64)
    total = np.sum(np.abs(x))
    return {
        "result": Check(np.array(total), gamma(x.size + 2, inputs["x"].dtype) * total)
    }


def _scal_reference(inputs):
    alpha, x = (inputs[n].astype(np.float64) for n in ("alpha", "x"))
    return {"x": Check(alpha * x, gamma(1, inputs["x"].dtype) * np.abs(alpha * x))}


def _store_result(call, inputs):
    """A library's dot / asum returns its value; the exo2 kernels write it
    to `result`. The checked call stores the value there."""

    def checked():
        inputs["result"][()] = call()

    checked.timed = call
    return checked


def _level1(name, prec, proc_, operation):
    dtype = np.float32 if prec == "f32" else np.float64
    s = np.dtype(dtype).itemsize
    # (flops per element, bytes per element, vectors, scalars, reference, baseline)
    table = {
        "axpy": (2, 3 * s, ("x", "y"), {"alpha": AXPY_ALPHA}, _axpy_reference,
                 lambda lib, d: lib.axpy(float(d["alpha"]), d["x"], d["y"])),
        "dot": (2, 2 * s, ("x", "y"), {"result": 0.0}, _dot_reference,
                lambda lib, d: _store_result(lib.dot(d["x"], d["y"]), d)),
        "asum": (2, s, ("x",), {"result": 0.0}, _asum_reference,
                 lambda lib, d: _store_result(lib.asum(d["x"]), d)),
        "scal": (1, 2 * s, ("x",), {"alpha": SCAL_ALPHA}, _scal_reference,
                 lambda lib, d: lib.scal(float(d["alpha"]), d["x"])),
    }  # fmt: skip
    flops, bytes_, vectors, scalars, reference, baseline = table[operation]
    kernel = Kernel(
        name=name,
        suite="level1",
        prec=prec,
        cases=_cases(flops, bytes_),
        inputs=_vectors(dtype, vectors, scalars),
        reference=reference,
        baseline=baseline,
        metric="gbs",
        description=f"{operation} ({prec}, unit stride)",
    )
    kernel.variant("naive")(lambda: proc_)

    @kernel.variant("stdlib_avx2")
    def _():
        return schedule_avx2(proc_, prec)

    return kernel


KERNELS = [
    _level1("saxpy", "f32", saxpy, "axpy"),
    _level1("daxpy", "f64", daxpy, "axpy"),
    _level1("sdot", "f32", sdot, "dot"),
    _level1("ddot", "f64", ddot, "dot"),
    _level1("sasum", "f32", sasum, "asum"),
    _level1("dasum", "f64", dasum, "asum"),
    _level1("sscal", "f32", sscal, "scal"),
    _level1("dscal", "f64", dscal, "scal"),
]
BY_NAME = {k.name: k for k in KERNELS}
