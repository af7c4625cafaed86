"""The BLAS scheduling library: `kernel` expands a naive proc into its
variants (benchmarks/blas/exo2blas/sched/kernel.py, variants.py) and
applies a schedule to each. Built on the public exo2 API and exo2.stdlib
only."""

from .band import band, by_band
from .by_letter import by_letter, by_trans
from .columns import by_columns, columns
from .kernel import (
    ANY,
    STRIDES,
    UNIT,
    Case,
    Kernel,
    Variant,
    VariantInfo,
    beta_cases,
    by_case,
    kernel,
    on_narrower,
)
from .rows import by_rows, rows
from .stream import by_lanes, in_register, lanes, stream, streamed
from .triangle import by_triangle, triangle
from .variants import Choice, Diag, Emit, Flag, Side, Trans, Transposed, Uplo

__all__ = [
    "ANY",
    "by_lanes",
    "in_register",
    "lanes",
    "STRIDES",
    "UNIT",
    "Case",
    "Choice",
    "Diag",
    "Emit",
    "Flag",
    "Kernel",
    "Side",
    "Trans",
    "Transposed",
    "Uplo",
    "Variant",
    "VariantInfo",
    "band",
    "beta_cases",
    "by_band",
    "by_case",
    "by_columns",
    "by_letter",
    "by_rows",
    "by_trans",
    "by_triangle",
    "columns",
    "rows",
    "triangle",
    "kernel",
    "on_narrower",
    "stream",
    "streamed",
]
