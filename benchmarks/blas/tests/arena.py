"""Operands in poisoned memory: every vector and matrix the sweep passes to
libexo2blas is a NumPy view into its own `Arena`, an allocation whose
every element starts as a NaN with a recognizable payload. Only the
logical elements are then written: guard zones of 64 bytes on both sides,
gaps between strided entries, lda padding, the unreferenced triangle and
the cells outside a band stay poisoned. A read of a poisoned cell turns an
output into NaN (and fails the oracle's check); `Arena.intact()` reports
any poisoned cell, or any element of an input, that the call changed.

Base pointers are offset by `offset` elements past the guard, so no
alignment can be assumed by the kernels."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

GUARD_BYTES = 64
# Quiet NaNs with a payload no arithmetic produces.
POISON = {
    np.dtype(np.float32): np.uint32(0x7FC0DEAD),
    np.dtype(np.float64): np.uint64(0x7FF8DEADBEEF0001),
}
UINT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


class Arena:
    """One operand: `view` (the NumPy view the routine gets), `logical`
    (a boolean mask over the arena's elements: the cells holding operand
    values), written in the constructor."""

    def __init__(self, dtype, elements, offset=0):
        self.dtype = np.dtype(dtype)
        guard = GUARD_BYTES // self.dtype.itemsize
        self.start = guard + offset
        self.bits = np.full(
            self.start + max(elements, 1) + guard, POISON[self.dtype], UINT[self.dtype]
        )
        self.data = self.bits.view(self.dtype)
        self.logical = np.zeros(len(self.data), bool)

    def snapshot(self):
        self.before = self.bits.copy()

    def intact(self, output):
        """None, or what the call changed that it must not have: any cell
        outside the logical ones, and for an input (`output` False) any
        cell at all."""
        changed = self.bits != self.before
        if output:
            changed &= ~self.logical
        if not changed.any():
            return None
        where = np.flatnonzero(changed)
        kind = "logical input element" if self.logical[where[0]] else "poisoned cell"
        return f"{len(where)} cell(s) changed, first a {kind} at element {where[0] - self.start} of the arena"


def vector(values, inc, offset=0):
    """`(arena, view)`: `values` with increment `inc` (negative: stored
    backwards from the lowest address; 0: one element, read-only)."""
    values = np.asarray(values)
    n = len(values)
    span = 1 + (n - 1) * abs(inc) if n else 1
    arena = Arena(values.dtype, span, offset)
    item = arena.dtype.itemsize
    first = arena.start + ((n - 1) * abs(inc) if inc < 0 and n else 0)
    view = as_strided(
        arena.data[first:], shape=(n,), strides=(inc * item,), writeable=inc != 0
    )
    if inc == 0:
        if n:
            arena.data[arena.start] = values[0]
            arena.logical[arena.start] = True
            view = as_strided(
                arena.data[arena.start :], shape=(n,), strides=(0,), writeable=False
            )
    else:
        view[...] = values
        positions = first + inc * np.arange(n)
        arena.logical[positions] = True
    arena.snapshot()
    return arena, view


def matrix(values, layout, ld_pad=0, mask=None, offset=0):
    """`(arena, view)`: an r x c matrix stored row-major ("R") or
    column-major ("C") with leading dimension max(1, c or r) + ld_pad;
    only the cells where `mask` holds are written (the others stay
    poisoned)."""
    values = np.asarray(values)
    r, c = values.shape
    inner = c if layout == "R" else r
    outer = r if layout == "R" else c
    ld = max(1, inner) + ld_pad
    arena = Arena(values.dtype, max(outer, 1) * ld, offset)
    item = arena.dtype.itemsize
    strides = (ld * item, item) if layout == "R" else (item, ld * item)
    view = as_strided(arena.data[arena.start :], shape=(r, c), strides=strides)
    mask = np.ones((r, c), bool) if mask is None else mask
    view[mask] = values[mask]
    index = as_strided(
        np.arange(len(arena.data))[arena.start :], shape=(r, c),
        strides=tuple(s // item * 8 for s in strides),
    )  # fmt: skip
    arena.logical[index[mask]] = True
    arena.snapshot()
    return arena, view
