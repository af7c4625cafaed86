"""Backend annotations (docs/primitives-backend.md): set_precision, set_window,
set_memory (`parallelize_loop` lives with the statement primitives), and
their argument processors Memory and TypeAbbrev (docs/reference/primitives.md).

None of them is checked at schedule time: code generation checks
precisions and what memories allow when the procedure is compiled.
"""

import inspect

from .. import _core
from ..API_types import ExoType
from ..core.memory import Memory
from .arguments import ArgCursorA, ArgOrAllocCursorA, ArgumentProcessor, BoolA, sched_op
from .results import derived_procedure

__all__ = ["set_precision", "set_window", "set_memory"]


class MemoryA(ArgumentProcessor):
    """A `Memory` subclass (the class itself, as in `@ DRAM`)."""

    def __call__(self, mem, all_args):
        if not (inspect.isclass(mem) and issubclass(mem, Memory)):
            self.err("expected a Memory subclass")
        return mem


class TypeAbbrevA(ArgumentProcessor):
    """A precision: one of `PRECISIONS` or a data member of `ExoType`;
    converted to the precision's name (`"f32"`)."""

    PRECISIONS = ("R", "f16", "f32", "f64", "i8", "ui8", "ui16", "i32")
    _EXO_TYPES = {
        ExoType.R: "R",
        ExoType.F16: "f16",
        ExoType.BF16: "bf16",
        ExoType.F32: "f32",
        ExoType.F64: "f64",
        ExoType.I8: "i8",
        ExoType.UI8: "ui8",
        ExoType.UI16: "ui16",
        ExoType.I32: "i32",
    }

    def __call__(self, typ, all_args):
        if not isinstance(typ, (str, ExoType)):
            self.err(
                f"expected an instance of {ExoType} or {str} specifying the precision"
            )
        if typ in self.PRECISIONS:
            return typ
        if typ in self._EXO_TYPES:
            return self._EXO_TYPES[typ]
        self.err(
            f"expected an instance of {ExoType} or one of the following strings "
            f"specifying precision: {', '.join(self.PRECISIONS)}",
            ValueError,
        )


@sched_op([ArgOrAllocCursorA, TypeAbbrevA])
def set_precision(proc, cursor, typ):
    """`x : f32[n]` → `x : typ[n]`, with every read, write and window of
    `x` retyped; precisions are checked when the procedure is compiled."""
    return derived_procedure(_core.set_precision(proc._provenance, cursor._impl, typ))


@sched_op([ArgCursorA, BoolA])
def set_window(proc, cursor, is_window=True):
    """`x : f32[n]` → `x : [f32][n]` (a window parameter), or back to a
    dense tensor with `is_window=False`."""
    return derived_procedure(
        _core.set_window(proc._provenance, cursor._impl, is_window)
    )


@sched_op([ArgOrAllocCursorA, MemoryA])
def set_memory(proc, cursor, memory_type):
    """`x : f32[n] @ DRAM` → `x : f32[n] @ memory_type`; what the memory
    allows is checked when the procedure is compiled."""
    return derived_procedure(
        _core.set_memory(proc._provenance, cursor._impl, memory_type)
    )
