"""Which libraries compute the level-1 reductions within the oracle's
bounds, checked before the runner times them.

A reduction's speed says little when its result is not the routine's: the
OpenBLAS of Debian 12 (0.3.21), with the kernels it picks on the Intel Xeon
model 167, sums dsdot's and sdsdot's products in f32, which is fast and
misses the f64 accumulation these routines are for by four orders of
magnitude (dsdot of 4096 uniform elements: off by about 1e-6, bound
5e-10); its generic kernels, which it runs on model 207, do not. So the
runner calls every library's dot, asum, nrm2, dsdot and sdsdot on random
operands of the sweep's rounding tier (uniform in [-1, 1], lengths from 33
to 262147) and compares each result with the bound of the routine's
definition (exo2blas/reference.py: accumulation in the routine's
precision, in f64 for dsdot and sdsdot). A (library, variant) that misses
one is reported `inaccurate` with its first miss: its timings are listed
but enter no ratio, exo2blas's as any other's. The other routines are not checked here: their results are
arrays the harness does not read back (the correctness sweep checks
exo2blas's).
"""

from __future__ import annotations

import ctypes

import numpy as np

from . import reference

LENGTHS = (33, 1000, 4099, 65537, 262147)
DRAWS = 4  # operands per length
VARIANTS = ("sdot", "ddot", "sasum", "dasum", "snrm2", "dnrm2", "dsdot", "sdsdot")
SB = 0.5  # sdsdot's scalar added to the sum

_INT, _PTR = ctypes.c_int, ctypes.c_void_p
_SCALAR = {"s": ctypes.c_float, "d": ctypes.c_double}


def _call(library, name, restype, argtypes, *args):
    function = getattr(library, name)
    function.restype, function.argtypes = restype, argtypes
    return function(*args)


def _result(library, variant, x, y):
    """`library`'s result of `variant` on x (and y, for the dots)."""
    n, px, py = len(x), x.ctypes.data, y.ctypes.data
    if variant == "dsdot":
        argtypes = [_INT, _PTR, _INT, _PTR, _INT]
        return _call(library, "cblas_dsdot", ctypes.c_double, argtypes, n, px, 1, py, 1)
    if variant == "sdsdot":
        argtypes = [_INT, ctypes.c_float, _PTR, _INT, _PTR, _INT]
        return _call(
            library, "cblas_sdsdot", ctypes.c_float, argtypes, n, SB, px, 1, py, 1
        )
    scalar = _SCALAR[variant[0]]
    if variant.endswith("dot"):
        argtypes = [_INT, _PTR, _INT, _PTR, _INT]
        return _call(library, f"cblas_{variant}", scalar, argtypes, n, px, 1, py, 1)
    return _call(library, f"cblas_{variant}", scalar, [_INT, _PTR, _INT], n, px, 1)


def _expected(variant, x, y):
    if variant == "dsdot":
        return reference.dsdot(x, y, exact=False)
    if variant == "sdsdot":
        return reference.dsdot(x, y, exact=False, sb=SB)
    if variant.endswith("dot"):
        return reference.dot(x, y, x.dtype, exact=False)
    if variant.endswith("asum"):
        return reference.asum(x, x.dtype, exact=False)
    # nrm2 in its own precision: exo2blas's snrm2 sums in f64 and meets a
    # tighter bound (reference.nrm2), which is its promise, not the
    # routine's (a library's snrm2 within an ulp or two is correct)
    norm = np.sqrt(np.sum(np.asarray(x, reference.LD) ** 2))
    return reference.Expected(
        norm, x.dtype, reference.gamma(len(x) + 4, x.dtype) * norm
    )


def misses(library, variants, seed=0):
    """{variant: its first miss} for those of `variants` that are checked,
    on `library` (a ctypes.CDLL, or anything with the cblas_* functions)."""
    found = {}
    for variant in sorted(set(variants) & set(VARIANTS)):
        dtype = np.float64 if variant in ("ddot", "dasum", "dnrm2") else np.float32
        rng = np.random.default_rng(seed)
        for n in LENGTHS * DRAWS:
            x = rng.uniform(-1, 1, n).astype(dtype)
            y = rng.uniform(-1, 1, n).astype(dtype)
            expected = _expected(variant, x, y)
            result = np.asarray(_result(library, variant, x, y), dtype=expected.dtype)
            message = expected.failures(result)
            if message:
                found[variant] = f"n = {n}: {message}"
                break
    return found


def inaccurate(libraries, variants):
    """{(library name, variant): its first miss} over `libraries` ({name:
    path of the shared library})."""
    return {
        (name, variant): message
        for name, path in libraries.items()
        for variant, message in misses(ctypes.CDLL(path), variants).items()
    }
