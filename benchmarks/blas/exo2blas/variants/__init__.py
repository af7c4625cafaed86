"""From one naive proc to its variants (docs/blas-library.md, "Variants"):
`kernel(...)` expands a naive proc along its axes (axes.py) into the
variants and their cases (kernel.py), and applies a schedule of the BLAS
scheduling library (benchmarks/blas/exo2blas/sched) to each scheduled case.
Built on the public exo2 API only."""

from .axes import (
    Choice,
    Diag,
    Emit,
    Flag,
    Side,
    Trans,
    Transposed,
    Uplo,
    assert_unit_strides,
    set_precisions,
)
from .kernel import (
    ANY,
    STRIDES,
    UNIT,
    Case,
    Kernel,
    Variant,
    VariantInfo,
    beta_cases,
    kernel,
)
