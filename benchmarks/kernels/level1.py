"""Level-1 BLAS: axpy, dot, asum and scal in f32 (s) and f64 (d), unit
stride, n = 2^4 .. 2^26 (even powers up to 2^22 with --quick).

Flop and byte counts follow spec/blas-suite.md 7.3 (s = element size):
axpy 2n flops, 3n s bytes; dot 2n, 2n s; asum 2n, n s; scal n, 2n s.
The timed calls repeat on the same arrays, so the constants keep the data
normal: axpy adds 2^-10 x (|y| grows by at most 2^-10 per call) and scal
multiplies by 1 + 2^-20.

The only exo2 variant today is `naive` (the plain loop; GCC vectorizes
axpy and scal but not the f32/f64 reductions of dot and asum, which need
reassociation).
"""

# ruff: noqa: F821  (size, f32, seq: names of the object language)

from __future__ import annotations

import numpy as np
from exo2 import proc
from exo2.libs.externs import select

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
