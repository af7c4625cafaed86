"""Buffer dimension primitives (primitives.md §5): resize, expand, rearrange,
divide, multiply and unroll a buffer's dimensions.

The C++ primitive checks the shape of its arguments again; the checks here
give Exo's exception classes and texts (AssertionError / ValueError) first.
"""

from .. import _core
from .arguments import AllocCursorA, BoolA, IntA, ListA, NewExprA, PosIntA, sched_op
from .results import derived_procedure

__all__ = [
    "resize_dim",
    "expand_dim",
    "rearrange_dim",
    "divide_dim",
    "mult_dim",
    "unroll_buffer",
]


def _rank(alloc_cursor):
    return len(alloc_cursor.shape()) if alloc_cursor.is_tensor() else 0


def _is_positive_literal(expr):
    text = str(expr)
    return text.isdigit() and int(text) > 0


@sched_op(
    [
        AllocCursorA,
        IntA,
        NewExprA("buf_cursor", "control"),
        NewExprA("buf_cursor", "control"),
        BoolA,
    ]
)
def resize_dim(proc, buf_cursor, dim_idx, size, offset, fold=False):
    """`x : T[n, ...]` → `x : T[size, ...]`, every index `i` of that
    dimension → `i - offset`; with `fold=True`, `i % size` (a circular
    buffer of literal size)."""
    # Exo's AssertionErrors (docs/errors.md), raised also under `python -O`.
    if dim_idx < 0:
        raise AssertionError("Dimension index must be non-negative")
    if dim_idx >= _rank(buf_cursor):
        raise ValueError(f"Cannot resize out-of-bounds dimension index {dim_idx}")
    if fold and not _is_positive_literal(size):
        raise AssertionError(
            "fold=True needs a positive integer literal size, got " + str(size)
        )
    return derived_procedure(
        _core.resize_dim(
            proc._provenance, buf_cursor._impl, dim_idx, size, offset, fold
        )
    )


@sched_op(
    [AllocCursorA, NewExprA("buf_cursor", "control"), NewExprA("buf_cursor", "control")]
)
def expand_dim(proc, buf_cursor, alloc_dim, indexing_expr):
    """`x : T[...]` → `x : T[alloc_dim, ...]`, every access `x[...]` →
    `x[indexing_expr, ...]`."""
    return derived_procedure(
        _core.expand_dim(proc._provenance, buf_cursor._impl, alloc_dim, indexing_expr)
    )


@sched_op([AllocCursorA, ListA(IntA)])
def rearrange_dim(proc, buf_cursor, permute_vector):
    """Permutes the dimensions: `x : T[N, M, K]` with `[2, 0, 1]` →
    `x : T[K, N, M]`, and every index list the same way."""
    n = _rank(buf_cursor)
    if sorted(permute_vector) != list(range(n)):
        raise ValueError(
            f"permute_vector argument ({permute_vector}) "
            f"was not a permutation of {set(range(n))}"
        )
    return derived_procedure(
        _core.rearrange_dim(proc._provenance, buf_cursor._impl, permute_vector)
    )


@sched_op([AllocCursorA, IntA, PosIntA])
def divide_dim(proc, alloc_cursor, dim_idx, quotient):
    """Dimension `n` → `n / quotient, quotient`; index `i` →
    `i / quotient, i % quotient`."""
    if not 0 <= dim_idx < _rank(alloc_cursor):
        raise ValueError(f"Cannot divide out-of-bounds dimension index {dim_idx}")
    return derived_procedure(
        _core.divide_dim(proc._provenance, alloc_cursor._impl, dim_idx, quotient)
    )


@sched_op([AllocCursorA, IntA, IntA])
def mult_dim(proc, alloc_cursor, hi_dim_idx, lo_dim_idx):
    """Merges dimensions `hi` and `lo` (literal extent `c`) into one of
    extent `c * n_hi` at `hi`; indices → `c * i_hi + i_lo`."""
    for dim_idx in (hi_dim_idx, lo_dim_idx):
        if not 0 <= dim_idx < _rank(alloc_cursor):
            raise ValueError(f"Cannot multiply out-of-bounds dimension index {dim_idx}")
    if hi_dim_idx == lo_dim_idx:
        raise ValueError(f"Cannot multiply dimension {hi_dim_idx} by itself")
    return derived_procedure(
        _core.mult_dim(proc._provenance, alloc_cursor._impl, hi_dim_idx, lo_dim_idx)
    )


@sched_op([AllocCursorA, IntA])
def unroll_buffer(proc, alloc_cursor, dimension):
    """`x : T[2, ...]` → `x_0 : T[...]`, `x_1 : T[...]`; `x[k, ...]` →
    `x_k[...]` (every index of that dimension must be a literal)."""
    if _rank(alloc_cursor) and not 0 <= dimension < _rank(alloc_cursor):
        raise ValueError(f"Cannot unroll out-of-bounds dimension index {dimension}")
    return derived_procedure(
        _core.unroll_buffer(proc._provenance, alloc_cursor._impl, dimension)
    )
