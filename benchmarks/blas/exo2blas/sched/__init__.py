"""The BLAS scheduling library: the automations that schedule a variant
of a kernel (`kernel(...)` of benchmarks/blas/exo2blas/variants names one
per kernel), and the schedules that choose among them by the variant.
Built on the public exo2 API and exo2.stdlib only."""

from .band import band, by_band, by_diagonals, diagonals
from .by_variant import by_case, by_letter, by_trans, on_narrower, per_letter
from .columns import by_columns, columns
from .rows import by_rows, rows
from .skinny import by_skinny, skinny
from .stream import lanes, scanned, stream, streamed
from .triangle import by_triangle, triangle
