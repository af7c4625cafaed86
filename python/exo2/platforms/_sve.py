"""The instruction families shared by `sve_vla` and `sve_vls`
(docs/platform-sve-gemmini-amx.md).

Both platforms hold vectors of f16, f32 or f64 in SVE registers and differ in
what a register is: `sve_vla` keeps the vector length unknown (sizeless
`svfloat32_t`, every instruction predicated on its lane count, so the C runs
on any SVE machine), `sve_vls` fixes it at compile time
(`-msve-vector-bits=N`: register types of a known size that can form arrays,
all-true predicates). A family here is one instruction shape over the kinds
of register a platform lists (`SveVector`); `define_families` defines every
family for those kinds in the platform's module.

Each body is the instruction's specification, written from the ACLE
intrinsic it stands for; lanes a body does not write keep their value (the
predicated loads merge with `svsel`, the predicated arithmetic uses the `_m`
merging forms).
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

from ._instruction_text import instr_from_text


@dataclass(frozen=True)
class SveVector:
    """One kind of register: a lane count of f16, f32 or f64 in a memory.

    Its fields fill the `$`-placeholders of family texts."""

    memory: str  # the exo2 memory's name
    prec: str  # f16 / f32 / f64
    lanes: int
    prefix: str  # instruction-name prefix: sve_vla / sve_vls
    bits: int  # element width: 16 / 32 / 64
    all: str  # C predicate of every lane the register holds

    @property
    def shape(self):
        return f"{self.lanes}x{self.prec}"


def _fields(v, **more):
    return {
        "prefix": v.prefix,
        "shape": v.shape,
        "prec": v.prec,
        "lanes": v.lanes,
        "mem": v.memory,
        "b": v.bits,
        "ALL": v.all,
        "FIRST_N": f"svwhilelt_b{v.bits}_s64(0, {{n}})",
        # exo2's f16 is C's _Float16; the ACLE loads and stores take
        # float16_t (__fp16) pointers.
        "AT": "(float16_t *)&" if v.prec == "f16" else "&",
        **more,
    }


def define_families(module_globals, vectors, origin):
    """Defines every family's instruction for each register kind in
    `vectors`, as globals of the platform module `module_globals`."""

    def define(name, params, asserts, body, c_instr, v):
        f = _fields(v)
        text = Template(
            f"def {name}({', '.join(f'{p}: {t}' for p, t in params)}):\n"
            + "".join(f"    assert {a}\n" for a in asserts)
            + "".join(f"    {line}\n" for line in body.strip("\n").split("\n"))
        ).substitute(f)
        name = Template(name).substitute(f)
        module_globals[name] = instr_from_text(
            text, Template(c_instr).substitute(f), "", module_globals, origin
        )

    reg = "[$prec][$lanes] @ $mem"
    vec = "[$prec][$lanes] @ DRAM"
    unit = ["stride(dst, 0) == 1"]
    every = "for i in seq(0, $lanes):\n    "
    first_n = "for i in seq(0, n):\n    "
    bounded = ["n >= 0", "n <= $lanes"]

    for v in vectors:
        # Loads and stores: all lanes, or the first n.
        define(
            "${prefix}_vld_${shape}",
            [("dst", reg), ("src", vec)],
            ["stride(src, 0) == 1", *unit],
            every + "dst[i] = src[i]",
            "{dst_data} = svld1_$prec($ALL, $AT{src_data});",
            v,
        )
        define(
            "${prefix}_vst_${shape}",
            [("dst", vec), ("src", reg)],
            ["stride(src, 0) == 1", *unit],
            every + "dst[i] = src[i]",
            "svst1_$prec($ALL, $AT{dst_data}, {src_data});",
            v,
        )
        define(
            "${prefix}_vld_${shape}_pred",
            [("dst", reg), ("src", vec), ("n", "size")],
            ["stride(src, 0) == 1", *unit, *bounded],
            first_n + "dst[i] = src[i]",
            "{dst_data} = svsel_$prec($FIRST_N, "
            "svld1_$prec($FIRST_N, $AT{src_data}), {dst_data});",
            v,
        )
        define(
            "${prefix}_vst_${shape}_pred",
            [("dst", vec), ("src", reg), ("n", "size")],
            ["stride(src, 0) == 1", *unit, *bounded],
            first_n + "dst[i] = src[i]",
            "svst1_$prec($FIRST_N, $AT{dst_data}, {src_data});",
            v,
        )

        # Broadcasts.
        define(
            "${prefix}_broadcast_${shape}",
            [("dst", reg), ("src", f"[{v.prec}][1] @ DRAM")],
            unit,
            every + "dst[i] = src[0]",
            "{dst_data} = svdup_n_$prec({src_data});",
            v,
        )
        define(
            "${prefix}_broadcast_${shape}_scalar",
            [("dst", reg), ("src", f"{v.prec} @ DRAM")],
            unit,
            every + "dst[i] = src",
            "{dst_data} = svdup_n_$prec(*{src_data});",
            v,
        )
        define(
            "${prefix}_zero_${shape}",
            [("dst", reg)],
            unit,
            every + "dst[i] = 0.0",
            "{dst_data} = svdup_n_$prec(0);",
            v,
        )

        # Element-wise arithmetic.
        for op, sym in (("add", "+"), ("sub", "-"), ("mul", "*")):
            define(
                f"${{prefix}}_v{op}_${{shape}}",
                [("dst", reg), ("lhs", reg), ("rhs", reg)],
                [*unit, "stride(lhs, 0) == 1", "stride(rhs, 0) == 1"],
                every + f"dst[i] = lhs[i] {sym} rhs[i]",
                f"{{dst_data}} = sv{op}_${{prec}}"
                + "_x($ALL, {lhs_data}, {rhs_data});",
                v,
            )
        define(
            "${prefix}_reduce_vadd_${shape}",
            [("dst", reg), ("src", reg)],
            [*unit, "stride(src, 0) == 1"],
            every + "dst[i] += src[i]",
            "{dst_data} = svadd_${prec}_x($ALL, {dst_data}, {src_data});",
            v,
        )
        define(
            "${prefix}_vneg_${shape}",
            [("dst", reg), ("src", reg)],
            [*unit, "stride(src, 0) == 1"],
            every + "dst[i] = -src[i]",
            "{dst_data} = svneg_${prec}_x($ALL, {src_data});",
            v,
        )
        define(
            "${prefix}_reg_copy_${shape}",
            [("dst", reg), ("src", reg)],
            [*unit, "stride(src, 0) == 1"],
            every + "dst[i] = src[i]",
            "{dst_data} = {src_data};",
            v,
        )

        # Fused multiply-adds: by vector, by a scalar in memory, by lane,
        # and on the first n lanes.
        fma_asserts = [*unit, "stride(lhs, 0) == 1", "stride(rhs, 0) == 1"]
        define(
            "${prefix}_vfmadd_${shape}_${shape}",
            [("dst", reg), ("lhs", reg), ("rhs", reg)],
            fma_asserts,
            every + "dst[i] += lhs[i] * rhs[i]",
            "{dst_data} = svmla_${prec}_x($ALL, {dst_data}, {lhs_data}, {rhs_data});",
            v,
        )
        define(
            "${prefix}_vfmadd_${shape}_1x${prec}",
            [("dst", reg), ("lhs", reg), ("rhs", f"[{v.prec}][1] @ DRAM")],
            [*unit, "stride(lhs, 0) == 1"],
            every + "dst[i] += lhs[i] * rhs[0]",
            "{dst_data} = svmla_n_${prec}_x($ALL, {dst_data}, {lhs_data}, {rhs_data});",
            v,
        )
        define(
            "${prefix}_vfmadd_1x${prec}_${shape}",
            [("dst", reg), ("lhs", f"[{v.prec}][1] @ DRAM"), ("rhs", reg)],
            [*unit, "stride(rhs, 0) == 1"],
            every + "dst[i] += lhs[0] * rhs[i]",
            "{dst_data} = svmla_n_${prec}_x($ALL, {dst_data}, {rhs_data}, {lhs_data});",
            v,
        )
        # svmla_lane indexes within each 128-bit segment; broadcasting the
        # lane first (svdup_lane) is right for any vector length.
        define(
            "${prefix}_vfmla_${shape}_${shape}",
            [("dst", reg), ("lhs", reg), ("rhs", reg), ("lane", "index")],
            [*fma_asserts, "lane >= 0", "lane < $lanes"],
            every + "dst[i] += lhs[i] * rhs[lane]",
            "{dst_data} = svmla_${prec}_x($ALL, {dst_data}, {lhs_data}, "
            "svdup_lane_$prec({rhs_data}, {lane}));",
            v,
        )
        define(
            "${prefix}_vfmadd_${shape}_${shape}_pred",
            [("dst", reg), ("lhs", reg), ("rhs", reg), ("n", "size")],
            [*fma_asserts, *bounded],
            first_n + "dst[i] += lhs[i] * rhs[i]",
            "{dst_data} = svmla_${prec}_m($FIRST_N, {dst_data}, {lhs_data}, "
            "{rhs_data});",
            v,
        )

        # Sum of the lanes into a scalar (in SVE's order: associativity
        # assumed, as Neon's vaddvq).
        define(
            "${prefix}_assoc_reduce_add_instr_${shape}",
            [("result", f"{v.prec} @ DRAM"), ("x", reg)],
            ["stride(x, 0) == 1"],
            every + "result += x[i]",
            "*{result} += svaddv_$prec($ALL, {x_data});",
            v,
        )
