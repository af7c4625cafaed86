"""Arm SVE, vector-length agnostic (docs/platform-sve-gemmini-amx.md).

The `SVE_VLA` memory holds one sizeless SVE register per buffer
(`svfloat32_t` / `svfloat64_t` / `svfloat16_t`) of the 128 bits every SVE
implementation has: 4 x f32, 2 x f64 or 8 x f16. Every instruction is
predicated on the lanes it means (`svwhilelt`), never on the machine's
vector length, so the C is right on any SVE machine and needs no
`-msve-vector-bits`. The instructions
(`sve_vla_vld_4xf32`, `sve_vla_vfmadd_4xf32_4xf32`, ...; the families are
described in `_sve.py`) are the ones `sve_vls` has for its fixed lengths.

Sizeless types cannot form arrays: a buffer in `SVE_VLA` is one register
(give each register its own buffer, e.g. with `unroll_buffer`). exo2
generates the C on any machine; compiling it needs an SVE target
(`-march=armv8-a+sve`).
"""

# ruff: noqa: F401
from __future__ import annotations

# No __all__: as Exo's platform modules, `import *` also gives DRAM, instr
# and Memory.
from .. import DRAM, instr
from ..core.memory import MemGenError, Memory
from ..libs.memories import _vector_register_window
from ._sve import SveVector, define_families


class SVE_VLA(Memory):
    """One SVE register of 128 bits' worth of lanes: the only extent is the
    lane count (4 for f32, 2 for f64, 8 for f16)."""

    _VECTOR_TYPES = {
        "float": (4, "svfloat32_t"),
        "double": (2, "svfloat64_t"),
        "_Float16": (8, "svfloat16_t"),
    }

    @classmethod
    def global_(cls):
        return "#include <arm_sve.h>"

    @classmethod
    def c_flags(cls):
        return ("-march=armv8-a+sve",)

    @classmethod
    def can_read(cls):
        return False

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if not shape:
            raise MemGenError(f"{srcinfo}: SVE_VLA vectors are not scalar values")
        if prim_type not in cls._VECTOR_TYPES:
            raise MemGenError(f"{srcinfo}: SVE_VLA vectors must be f32, f64 or f16")
        lanes, c_type = cls._VECTOR_TYPES[prim_type]
        if len(shape) > 1:
            raise MemGenError(
                f"{srcinfo}: SVE_VLA registers are sizeless and cannot form "
                f"arrays: give each register its own buffer (unroll_buffer), "
                f"got {shape}"
            )
        if not (shape[-1].isdecimal() and int(shape[-1]) == lanes):
            raise MemGenError(
                f"{srcinfo}: SVE_VLA vectors of type {prim_type} must be "
                f"{lanes}-wide, got {shape}"
            )
        return f"{c_type} {new_name};"

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""

    @classmethod
    def window(cls, basetyp, baseptr, indices, strides, srcinfo):
        return _vector_register_window(baseptr, indices, strides)


define_families(
    globals(),
    [
        SveVector("SVE_VLA", "f32", 4, "sve_vla", 32, "svwhilelt_b32_s64(0, 4)"),
        SveVector("SVE_VLA", "f64", 2, "sve_vla", 64, "svwhilelt_b64_s64(0, 2)"),
        SveVector("SVE_VLA", "f16", 8, "sve_vla", 16, "svwhilelt_b16_s64(0, 8)"),
    ],
    "exo2.platforms.sve_vla",
)
