"""The `Memory` interface: where a buffer lives and how C code touches it.

A memory is a class; the class object itself is the annotation value
(`x: f32[8] @ AVX2`). The code generator calls its classmethods to obtain
C text (spec/memories-and-instructions.md §1).
"""

from abc import ABC, abstractmethod

from .. import _core


class MemGenError(Exception):
    """A memory refuses an allocation, read, write, reduction or window."""


def generate_offset(indices, strides):
    """C expression of the element offset `sum(index * stride)`.

    Terms with a `"0"` index or stride vanish, unit strides and unit indices
    are not multiplied, and single-character strides need no parentheses.
    """

    def term(index, stride):
        if stride == "0" or index == "0":
            return ""
        if stride == "1":
            return index
        if index == "1":
            return stride
        if len(stride) == 1:
            return f"({index}) * {stride}"
        return f"({index}) * ({stride})"

    terms = [
        t for i, s in zip(indices, strides, strict=False) if (t := term(i, s)) != ""
    ]
    return " + ".join(terms) if terms else "0"


class Memory(ABC):
    """Base of all memories. Every member is a classmethod."""

    @classmethod
    def name(cls):
        """Name used in printing and messages."""
        return cls.__name__

    @classmethod
    def global_(cls):
        """C text emitted once in any library that uses the memory."""
        return ""

    @classmethod
    def c_flags(cls):
        """**[exo2]** The GCC / Clang flags that code using this memory
        needs, such as `("-mavx2", "-mfma")` for AVX2 registers: `exo2c`
        writes them for the build (docs/compiling-and-calling.md)."""
        return ()

    @classmethod
    @abstractmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        """C statement(s) allocating `new_name` (`shape` empty for scalars)."""
        raise NotImplementedError()

    @classmethod
    @abstractmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        """C statement(s) releasing `new_name`, or `""`."""
        raise NotImplementedError()

    @classmethod
    def window(cls, basetyp, baseptr, indices, strides, srcinfo):
        """C l-value of the element at a window's origin."""
        offset = generate_offset(indices, strides)
        if basetyp.is_win():
            baseptr = f"{baseptr}.data"
        return f"{baseptr}[{offset}]"

    @classmethod
    @abstractmethod
    def can_read(cls):
        """Whether generated C may read elements directly."""
        raise NotImplementedError()

    @classmethod
    def write(cls, s, lhs, rhs):
        """C statement for `lhs = rhs`; refused unless a subclass allows it."""
        raise MemGenError(
            f"{s.srcinfo}: cannot write to buffer '{s.name}' in memory '{cls.name()}'"
        )

    @classmethod
    def reduce(cls, s, lhs, rhs):
        """C statement for `lhs += rhs`; refused unless a subclass allows it."""
        raise MemGenError(
            f"{s.srcinfo}: cannot reduce to buffer '{s.name}' in memory '{cls.name()}'"
        )


class DRAM(Memory):
    """Ordinary heap memory: `malloc`/`free` for tensors, locals for scalars."""

    @classmethod
    def global_(cls):
        return "#include <stdio.h>\n#include <stdlib.h>\n"

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if len(shape) == 0:
            return f"{prim_type} {new_name};"
        return (
            f"{prim_type} *{new_name} = "
            f"({prim_type}*) malloc({' * '.join(shape)} * sizeof(*{new_name}));"
        )

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        if len(shape) == 0:
            return ""
        return f"free({new_name});"

    @classmethod
    def can_read(cls):
        return True

    @classmethod
    def write(cls, s, lhs, rhs):
        return f"{lhs} = {rhs};"

    @classmethod
    def reduce(cls, s, lhs, rhs):
        return f"{lhs} += {rhs};"


# Buffers declared without `@ mem`, and those primitives create, live in DRAM.
_core.set_default_memory(DRAM)


class StaticMemory(Memory):
    """Base of register-like memories with a fixed number of slots.

    Slots are taken in emission order by `alloc` and released by `free`.
    """

    is_chunk_allocated = []

    @classmethod
    def init_state(cls, size):
        cls.is_chunk_allocated = [False] * size

    @classmethod
    def find_free_chunk(cls):
        try:
            return cls.is_chunk_allocated.index(False)
        except ValueError as e:
            raise MemGenError(
                f"Cannot allocate more than {len(cls.is_chunk_allocated)} "
                "chunks at a time."
            ) from e

    @classmethod
    def mark(cls, idx):
        cls.is_chunk_allocated[idx] = True

    @classmethod
    def unmark(cls, idx):
        cls.is_chunk_allocated[idx] = False
