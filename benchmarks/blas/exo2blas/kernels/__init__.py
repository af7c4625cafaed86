"""Every kernel of the suite, one file per kernel and level: its naive
source and its `kernel(...)` line (benchmarks/blas/exo2blas/sched)."""

from __future__ import annotations

import importlib

from ..variants import Kernel

LEVELS = {
    1: (
        "asum", "axpy", "copy", "dot", "scal", "swap", "rot", "rotm",
        "dsdot", "sdsdot", "nrm2", "iamax",
    ),
    2: (
        "gemv", "ger", "symv", "syr", "syr2", "trmv", "trsv",
        "gbmv", "sbmv", "tbmv", "tbsv",
    ),
    3: ("gemm", "symm", "syrk", "syr2k", "trmm", "trsm"),
}  # fmt: skip


def module(level, name):
    return importlib.import_module(f"{__name__}.level{level}.{name}")


def kernels_of(level, name):
    """The `Kernel`s of the kernel file `name` of `level`, in file order,
    each followed by its helpers."""
    found = [v for v in vars(module(level, name)).values() if isinstance(v, Kernel)]
    return [k for kernel in found for k in (kernel, *kernel.helpers)]


def kernels(levels=(1, 2, 3)):
    """`(level, Kernel)` of every kernel of `levels`, in file order."""
    return [
        (level, k)
        for level in levels
        for name in LEVELS[level]
        for k in kernels_of(level, name)
    ]
