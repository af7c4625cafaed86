"""Types that cursors and user code inspect: `ExoType` and `ProcedureBase`."""

from enum import Enum, auto


class ProcedureBase:
    """Base class of `exo2.Procedure`; lets low-level modules recognise
    procedures without importing the API module."""


class ExoType(Enum):
    """The types of exo2 values as seen from Python (cursor `.type()`)."""

    F16 = auto()
    F32 = auto()
    F64 = auto()
    UI8 = auto()
    I8 = auto()
    UI16 = auto()
    I32 = auto()
    R = auto()
    Index = auto()
    Bool = auto()
    Size = auto()
    Int = auto()
    Stride = auto()
    # Used by the CUDA backend (docs/cuda.md, "The constructs").
    BF16 = auto()
    Barrier = auto()

    def is_indexable(self):
        return self in _INDEXABLE

    def is_numeric(self):
        return self in _NUMERIC

    def is_bool(self):
        return self == ExoType.Bool


# Looking members up in sets: `ExoType.F16` is a slow class attribute lookup,
# and these run for every argument a scheduling library inspects.
_INDEXABLE = frozenset({ExoType.Index, ExoType.Size, ExoType.Int, ExoType.Stride})
_NUMERIC = frozenset(
    {
        ExoType.F16,
        ExoType.BF16,
        ExoType.F32,
        ExoType.F64,
        ExoType.I8,
        ExoType.UI8,
        ExoType.UI16,
        ExoType.I32,
        ExoType.R,
    }
)
