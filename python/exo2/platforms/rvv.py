"""The RISC-V vector (RVV) instruction library (docs/platform-neon.md).

Exo's `rvv` platform under its names and signatures: the `RVV` memory (one
`vfloat32m1_t` register per vector of up to 4 f32 lanes) and loads, stores,
broadcasts and multiply-accumulates on the first `vl` lanes. Each body is
the instruction's specification, written from the RVV 1.0 intrinsic it
stands for (`__riscv_` names); a template that would not compute its body is
corrected (marked `[fix]`).

exo2 generates the C on any machine; compiling it needs a compiler with the
RVV 1.0 intrinsics (`-march=rv64gcv`).
"""

# ruff: noqa: F821  (instruction bodies use the object language's names)
from __future__ import annotations

# No __all__: as Exo's module, `import *` also gives what it imports (DRAM,
# Memory, instr), which programs written for Exo use.
from .. import DRAM, instr
from ..core.memory import MemGenError, Memory
from ..libs.memories import _register_array, _vector_register_window


class RVV(Memory):
    """RVV registers of f32 (`vfloat32m1_t`): the last extent, the lane
    count, is at most 4; leading extents make an array of registers."""

    _MAX_LANES = 4

    @classmethod
    def global_(cls):
        return "#include <riscv_vector.h>"

    @classmethod
    def can_read(cls):
        return False

    @classmethod
    def alloc(cls, new_name, prim_type, shape, srcinfo):
        if not shape:
            raise MemGenError(f"{srcinfo}: RVV vectors are not scalar values")
        if prim_type != "float":
            raise MemGenError(f"{srcinfo}: RVV vectors must be f32 (for now)")
        lanes = shape[-1]
        if not (lanes.isdecimal() and 0 < int(lanes) <= cls._MAX_LANES):
            raise MemGenError(
                f"{srcinfo}: RVV vectors of type {prim_type} must be at most "
                f"{cls._MAX_LANES}-wide, got {shape}"
            )
        return _register_array("vfloat32m1_t", new_name, shape[:-1])

    @classmethod
    def free(cls, new_name, prim_type, shape, srcinfo):
        return ""

    @classmethod
    def window(cls, basetyp, baseptr, indices, strides, srcinfo):
        return _vector_register_window(baseptr, indices, strides)


# --------------------------------------------------------------------------- #
#   f32, the first vl of 4 lanes
# --------------------------------------------------------------------------- #


@instr("{dst_data} = __riscv_vle32_v_f32m1(&{src_data}, {vl});")
def rvv_vld_4xf32(dst: [f32][4] @ RVV, src: [f32][4] @ DRAM, vl: size):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] = src[i]


@instr("__riscv_vse32_v_f32m1(&{dst_data}, {src_data}, {vl});")
def rvv_vst_4xf32(dst: [f32][4] @ DRAM, src: [f32][4] @ RVV, vl: size):
    assert stride(src, 0) == 1
    assert stride(dst, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] = src[i]


@instr("{dst_data} = __riscv_vfmv_v_f_f32m1({src_data}, {vl});")
def rvv_broadcast_4xf32(dst: [f32][4] @ RVV, src: [f32][1] @ DRAM, vl: size):
    assert stride(dst, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] = src[0]


# [fix] Exo passed the scalar's pointer where its value is needed.
@instr("{dst_data} = __riscv_vfmv_v_f_f32m1(*{src_data}, {vl});")
def rvv_broadcast_4xf32_scalar(dst: [f32][4] @ RVV, src: f32 @ DRAM, vl: size):
    assert stride(dst, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] = src


@instr("{dst_data} = __riscv_vfmv_v_f_f32m1(0.0f, {vl});")
def rvv_broadcast_4xf32_0(dst: [f32][4] @ RVV, vl: size):
    assert stride(dst, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] = 0.0


@instr(
    "{dst_data} = __riscv_vfmacc_vv_f32m1({dst_data}, {lhs_data}, {rhs_data}, {vl});"
)
def rvv_vfmacc_4xf32_4xf32(
    dst: [f32][4] @ RVV, lhs: [f32][4] @ RVV, rhs: [f32][4] @ RVV, vl: size
):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1
    assert stride(rhs, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] += lhs[i] * rhs[i]


# [fix] Exo's template lacked the call's opening parenthesis.
@instr(
    "{dst_data} = __riscv_vfmacc_vf_f32m1({dst_data}, {rhs_data}, {lhs_data}, {vl});"
)
def rvv_vfmacc_4xf32_1xf32(
    dst: [f32][4] @ RVV, lhs: [f32][4] @ RVV, rhs: [f32][1] @ DRAM, vl: size
):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1
    assert stride(rhs, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] += lhs[i] * rhs[0]


# [fix] Exo's template lacked the call's opening parenthesis.
@instr(
    "{dst_data} = __riscv_vfmacc_vf_f32m1({dst_data}, {lhs_data}, {rhs_data}, {vl});"
)
def rvv_vfmacc_1xf32_4xf32(
    dst: [f32][4] @ RVV, lhs: [f32][1] @ DRAM, rhs: [f32][4] @ RVV, vl: size
):
    assert stride(dst, 0) == 1
    assert stride(lhs, 0) == 1
    assert stride(rhs, 0) == 1
    assert vl >= 0
    assert vl <= 4

    for i in seq(0, vl):
        dst[i] += lhs[0] * rhs[i]
