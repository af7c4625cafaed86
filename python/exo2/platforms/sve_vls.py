"""Arm SVE, vector-length specific (docs/platform-sve-gemmini-amx.md).

The `SVE_VLS` memory holds SVE registers whose length is fixed when the C is
compiled (`-msve-vector-bits=128`, `256` or `512`): f32 vectors of 4, 8 or
16 lanes, f64 vectors of 2, 4 or 8 and f16 vectors of 8, 16 or 32, typed
with `arm_sve_vector_bits` so that leading extents make arrays of registers
(register blocking, as with Neon). Every buffer states its length by its lane count; the C checks that
the compiler was given that length (`_Static_assert`), so code for 256-bit
registers does not silently run on 512-bit ones. Instructions use all-true
predicates: `sve_vls_vld_8xf32`, `sve_vls_vfmadd_8xf32_8xf32`, ... (the
families are described in `_sve.py`; the same as `sve_vla`'s, per length).

exo2 generates the C on any machine; compiling it needs an SVE target
(`-march=armv8-a+sve -msve-vector-bits=<bits>`).
"""

# ruff: noqa: F401
from __future__ import annotations

# No __all__: as Exo's platform modules, `import *` also gives DRAM, instr
# and Memory.
from .. import DRAM, instr
from ..core.memory import MemGenError, Memory
from ..libs.memories import _register_array, _vector_register_window
from ._sve import SveVector, define_families

_BITS = (128, 256, 512)


class SVE_VLS(Memory):
    """SVE registers of a length fixed at compile time: the last extent is
    the lane count (bits / 32 for f32, bits / 64 for f64, bits / 16 for
    f16); leading extents make an array of registers."""

    _ELEMENT_BITS = {
        "float": (32, "f32"),
        "double": (64, "f64"),
        "_Float16": (16, "f16"),
    }

    @classmethod
    def global_(cls):
        return (
            "#include <arm_sve.h>\n"
            "#if defined(__ARM_FEATURE_SVE_BITS) && __ARM_FEATURE_SVE_BITS > 0\n"
            "typedef svfloat32_t exo2_sve_vls_f32 "
            "__attribute__((arm_sve_vector_bits(__ARM_FEATURE_SVE_BITS)));\n"
            "typedef svfloat64_t exo2_sve_vls_f64 "
            "__attribute__((arm_sve_vector_bits(__ARM_FEATURE_SVE_BITS)));\n"
            "typedef svfloat16_t exo2_sve_vls_f16 "
            "__attribute__((arm_sve_vector_bits(__ARM_FEATURE_SVE_BITS)));\n"
            "#else\n"
            '#error "SVE_VLS registers need -msve-vector-bits=<bits>"\n'
            "#endif"
        )

    @classmethod
    def c_flags(cls):
        return ("-march=armv8-a+sve",)

    @classmethod
    def can_read(cls):
        return False

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if not shape:
            raise MemGenError(f"{srcinfo}: SVE_VLS vectors are not scalar values")
        if prim_type not in cls._ELEMENT_BITS:
            raise MemGenError(f"{srcinfo}: SVE_VLS vectors must be f32, f64 or f16")
        element_bits, prec = cls._ELEMENT_BITS[prim_type]
        widths = [bits // element_bits for bits in _BITS]
        lanes = shape[-1]
        if not (lanes.isdecimal() and int(lanes) in widths):
            raise MemGenError(
                f"{srcinfo}: SVE_VLS vectors of type {prim_type} must be "
                f"{', '.join(map(str, widths))} lanes wide (for "
                f"{', '.join(map(str, _BITS))}-bit registers), got {shape}"
            )
        bits = int(lanes) * element_bits
        check = (
            f"_Static_assert(__ARM_FEATURE_SVE_BITS == {bits}, "
            f'"{new_name}: {lanes} x {prec} needs -msve-vector-bits={bits}"); '
        )
        return check + _register_array(f"exo2_sve_vls_{prec}", new_name, shape[:-1])

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""

    @classmethod
    def window(cls, basetyp, baseptr, indices, strides, srcinfo):
        return _vector_register_window(baseptr, indices, strides)


define_families(
    globals(),
    [
        SveVector("SVE_VLS", prec, bits // width, "sve_vls", width, all_lanes)
        for bits in _BITS
        for prec, width, all_lanes in (
            ("f32", 32, "svptrue_b32()"),
            ("f64", 64, "svptrue_b64()"),
            ("f16", 16, "svptrue_b16()"),
        )
    ],
    "exo2.platforms.sve_vls",
)
