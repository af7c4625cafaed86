"""SGEMM and DGEMM: C += A B, row-major, A: M x K, B: K x N, C: M x N.

Variants: `naive` (the triple loop, any size) and `primitives` (the
schedule of examples/sgemm_primitives.py: a 6 x 16 register tile over
32-deep K slices, built from primitives only; it asserts M % 6 == 0,
N % 16 == 0 and K % 32 == 0, so it runs only at sizes that are multiples
of 96 and is `n/a` elsewhere). Both also have `stdlib_avx2` (the
schedule of examples/gemm_x86.py for AVX2 + FMA: packed A and B panels, a
6 x 16 (f32) or 6 x 8 (f64) register tile in twelve `__m256(d)`, 16 KB K
slices; any size) and, on CPUs with AVX-512F, `stdlib_avx512` (the same
schedule, 6 x 32 / 6 x 16 tiles in `__m512(d)`). The square sizes
therefore mix powers of two with multiples of 96; the skinny shapes have one dimension in
{32, 96, 192} and the two others 1536 (768 with --quick), all multiples
the scheduled kernel accepts except M = 32.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

from . import Case, Check, Kernel, gamma

_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_EXAMPLE = _EXAMPLES / "sgemm_primitives.py"

SQUARE = (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)
QUICK_MAX = 1024
SKINNY_SMALL = (32, 96, 192)
SKINNY_LARGE, SKINNY_LARGE_QUICK = 1536, 768
# Above this many rows, the result is checked on a sample of rows.
CHECKED_ROWS = 96


def _example(path=_EXAMPLE):
    if path.stem in sys.modules:
        return sys.modules[path.stem]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def gemm_case(M, N, K, itemsize, group, x):
    label = str(M) if group == "square" else f"{M}x{N}x{K}"
    return Case(
        label=label,
        sizes={"M": M, "N": N, "K": K},
        flops=2.0 * M * N * K,
        bytes=float(itemsize * (M * K + K * N + 2 * M * N)),
        x=x,
        group=group,
    )


def _cases(itemsize):
    def cases(quick, sizes=None):
        if sizes is not None:
            return [gemm_case(n, n, n, itemsize, "square", n) for n in sizes]
        square = [n for n in SQUARE if not quick or n <= QUICK_MAX]
        result = [gemm_case(n, n, n, itemsize, "square", n) for n in square]
        large = SKINNY_LARGE_QUICK if quick else SKINNY_LARGE
        for small in SKINNY_SMALL:
            for M, N, K in (
                (small, large, large),
                (large, small, large),
                (large, large, small),
            ):
                group = "skinny-" + "MNK"[(M, N, K).index(small)]
                result.append(gemm_case(M, N, K, itemsize, group, small))
        return result

    return cases


def _inputs(dtype):
    def inputs(sizes, rng):
        M, N, K = sizes["M"], sizes["N"], sizes["K"]
        return {
            "A": rng.uniform(-1, 1, (M, K)).astype(dtype),
            "B": rng.uniform(-1, 1, (K, N)).astype(dtype),
            "C": rng.uniform(-1, 1, (M, N)).astype(dtype),
        }

    return inputs


def gemm_reference(inputs):
    """C0 + A B in f64, bounded by gamma_{K+2} (|A| |B| + |C0|); on large
    matrices only for a sample of rows (the rest of `expected` is NaN,
    which the runner skips)."""
    A, B, C = (inputs[n].astype(np.float64) for n in "ABC")
    M, K = A.shape
    rows = np.arange(M)
    if M > CHECKED_ROWS:
        rows = np.unique(np.linspace(0, M - 1, CHECKED_ROWS).astype(int))
    expected = np.full(C.shape, np.nan)
    bound = np.zeros(C.shape)
    expected[rows] = C[rows] + A[rows] @ B
    bound[rows] = gamma(K + 2, inputs["C"].dtype) * (
        np.abs(A[rows]) @ np.abs(B) + np.abs(C[rows])
    )
    return {"C": Check(expected, bound)}


def gemm_baseline(library, inputs):
    return library.gemm(inputs["A"], inputs["B"], inputs["C"])


SGEMM = Kernel(
    name="sgemm",
    suite="sgemm",
    prec="f32",
    cases=_cases(4),
    inputs=_inputs(np.float32),
    reference=gemm_reference,
    baseline=gemm_baseline,
    description="C += A B (f32, row-major)",
)

DGEMM = Kernel(
    name="dgemm",
    suite="dgemm",
    prec="f64",
    cases=_cases(8),
    inputs=_inputs(np.float64),
    reference=gemm_reference,
    baseline=gemm_baseline,
    description="C += A B (f64, row-major)",
)


def _gemm_x86_kernel(name):
    """The naive `sgemm` / `dgemm` of examples/gemm_x86.py."""
    return getattr(_example(_EXAMPLES / "gemm_x86.py"), name)


@SGEMM.variant("naive")
def _sgemm_naive():
    return _gemm_x86_kernel("sgemm")


@SGEMM.variant("primitives")
def _sgemm_primitives():
    example = _example()
    return example.schedule_sgemm(example.sgemm)


def _gemm_x86(name, target):
    example = _example(_EXAMPLES / "gemm_x86.py")
    return example.schedule_gemm(_gemm_x86_kernel(name), getattr(example, target))


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as cpu:
            return set(cpu.read().split())
    except OSError:
        return set()


HAS_AVX512 = "avx512f" in _cpu_flags()


@SGEMM.variant("stdlib_avx2")
def _sgemm_stdlib_avx2():
    return _gemm_x86("sgemm", "AVX2_F32")


@DGEMM.variant("stdlib_avx2")
def _dgemm_stdlib_avx2():
    return _gemm_x86("dgemm", "AVX2_F64")


if HAS_AVX512:

    @SGEMM.variant("stdlib_avx512")
    def _sgemm_stdlib_avx512():
        return _gemm_x86("sgemm", "AVX512_F32")

    @DGEMM.variant("stdlib_avx512")
    def _dgemm_stdlib_avx512():
        return _gemm_x86("dgemm", "AVX512_F64")


@DGEMM.variant("naive")
def _dgemm_naive():
    return _gemm_x86_kernel("dgemm")


@DGEMM.variant("primitives")
def _dgemm_primitives():
    """The primitives-only schedule, on a DGEMM with its size assertions."""
    dgemm = _gemm_x86_kernel("dgemm")
    for assertion in ["M % 6 == 0", "N % 16 == 0", "K % 32 == 0"]:
        dgemm = dgemm.add_assertion(assertion)
    return _example().schedule_sgemm(dgemm)


KERNELS = [SGEMM, DGEMM]
