"""Units: the groups of threads that `cuda_threads` loops cut a collective
into, that instructions must be executed by, and that distributed buffer
dimensions (`acc: f32[2 @ cuda_warpgroup, 64, 256]`) are split over
(docs/cuda.md, "The constructs").

A unit is `threads` consecutive threads of one CTA whose first thread index
is a multiple of `align`. `n * U` is n consecutive units U.
"""

from ...core.extensions import DimAnnotation


class CudaUnit(DimAnnotation):
    """A group of consecutive threads in one CTA. Units are interned: equal
    units are the same object, so procedures that use them compare equal."""

    _interned = {}

    def __new__(cls, threads, align, name):
        key = (threads, align)
        unit = cls._interned.get(key)
        if unit is None:
            unit = super().__new__(cls)
            unit.threads = threads
            unit.align = align
            unit._name = name
            cls._interned[key] = unit
        return unit

    def __init__(self, threads, align, name):
        pass

    def __str__(self):
        return self._name

    def __repr__(self):
        return self._name

    def __rmul__(self, count):
        """`n * U`: n consecutive units U (aligned like one U)."""
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise TypeError(f"expected a positive int times a unit, got {count!r}")
        if count == 1:
            return self
        return CudaUnit(count * self.threads, self.align, f"{count} * {self._name}")

    def backend_properties(self):
        return {
            "unit": "threads",
            "threads": self.threads,
            "align": self.align,
            "name": self._name,
        }


cuda_thread = CudaUnit(1, 1, "cuda_thread")
cuda_warp = CudaUnit(32, 32, "cuda_warp")
cuda_warpgroup = CudaUnit(128, 128, "cuda_warpgroup")


class ring(DimAnnotation):
    """`e @ ring(D)`: a ring-buffer dimension of logical extent `e` stored in
    D physical slots (logical index g lives in slot g % D)."""

    _interned = {}

    def __new__(cls, depth):
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
            raise ValueError(f"ring depth must be a positive int, got {depth!r}")
        found = cls._interned.get(depth)
        if found is None:
            found = super().__new__(cls)
            found.depth = depth
            cls._interned[depth] = found
        return found

    def __init__(self, depth):
        pass

    def __str__(self):
        return f"ring({self.depth})"

    __repr__ = __str__

    def backend_properties(self):
        return {"annotation": "ring", "depth": self.depth}
