"""The x86 instruction library (docs/platform-x86.md).

Exo's 60 instructions under their names and signatures, with exo2's
corrections to templates whose C did not do what the body says (each marked
`[fix]` below), and exo2's additions: AVX2 f64 counterparts, fused
multiply-add forms for vectorizers, absolute value, and AVX-512 f32/f64.

Most instructions come in families: one shape (parameters, preconditions,
body, C template) over kinds of vector register (`_Vector`: AVX2 / AVX-512
x f32 / f64). Each family below is one function that `_define`s an
`@instr` per vector; docs/platform-x86.md ("How the families are
described") says how to add a family or an ISA.

Every instruction's body is its specification; tests/python/
test_platform_x86.py runs each template against its own body, and
tests/python/test_x86_instructions_golden.py holds every definition to its
record. Templates need AVX2 + FMA (`mm256_*`, `avx2_*`) or AVX-512F
(`mm512_*`, `avx512_*`). Variables declared inside templates are prefixed
`exo2_` ([fix]: Exo's `tmp`, `dst`, `cmp`... captured caller buffers of the
same name).
"""

from __future__ import annotations

from dataclasses import dataclass as _dataclass
from string import Template as _Template

# Re-exported as Exo's module did: `from exo.platforms.x86 import *` gave
# DRAM, instr, relu, select and the memories too.
from .. import DRAM, instr  # noqa: F401
from ..libs.externs import relu, select  # noqa: F401
from ..libs.memories import AVX2, AVX512  # noqa: F401
from ._instruction_text import instr_from_text as _instr_from_text

# --------------------------------------------------------------------------- #
#   The vector registers
# --------------------------------------------------------------------------- #


@_dataclass(frozen=True)
class _Vector:
    """One kind of vector register: an ISA's width in one precision.

    Family texts use its fields as `$`-placeholders (string.Template), which
    leaves the `{arg_data}` holes of C templates alone."""

    memory: str  # the exo2 memory of the registers
    prec: str  # element type
    lanes: int
    mm: str  # instruction-name and intrinsic prefix: mm256 -> _mm256_add_ps
    isa: str  # prefix of exo2's composite instruction names: avx2_sign_ps
    t: str  # packed suffix: ps / pd
    s: str  # scalar suffix: ss / sd
    c_type: str  # C vector type


_AVX2_F32 = _Vector("AVX2", "f32", 8, "mm256", "avx2", "ps", "ss", "__m256")
_AVX2_F64 = _Vector("AVX2", "f64", 4, "mm256", "avx2", "pd", "sd", "__m256d")
_AVX512_F32 = _Vector("AVX512", "f32", 16, "mm512", "avx512", "ps", "ss", "__m512")
_AVX512_F64 = _Vector("AVX512", "f64", 8, "mm512", "avx512", "pd", "sd", "__m512d")
_AVX2_UI16 = _Vector("AVX2", "ui16", 16, "mm256", "avx2", "si256", "", "__m256i")

_AVX2_FLOATS = (_AVX2_F32, _AVX2_F64)
_AVX512_FLOATS = (_AVX512_F32, _AVX512_F64)
_FLOAT_VECTORS = _AVX2_FLOATS + _AVX512_FLOATS


# --------------------------------------------------------------------------- #
#   Building an instruction from its description
# --------------------------------------------------------------------------- #


def _fill(text, v, **more):
    """`text` with the `$`-fields of the vector `v` (and `more`) filled in."""
    fields = {**vars(v), "MM": "_" + v.mm, **more}
    return _Template(text).substitute(fields)


def _reg(v):
    """The parameter type of a register of `v`: `[f32][8] @ AVX2`."""
    return f"[{v.prec}][{v.lanes}] @ {v.memory}"


def _mem(v, extent=None):
    """The parameter type of a DRAM vector of `v`'s precision."""
    return f"[{v.prec}][{v.lanes if extent is None else extent}] @ DRAM"


def _define(name, params, asserts, body, c_instr, c_global=""):
    """Defines the instruction `name` in this module.

    `params`: `(name, type)` pairs; `asserts`: the preconditions' texts, in
    order; `body`: the statements after them, one text indented by 4 spaces
    per level. The text is parsed as `@instr(c_instr, c_global)` parses a
    function written in a file, so the object language's names (and this
    module's memories and externs) mean what they mean there."""
    text = (
        f"def {name}({', '.join(f'{p}: {t}' for p, t in params)}):\n"
        + "".join(f"    assert {a}\n" for a in asserts)
        + "".join(f"    {line}\n" for line in body.strip("\n").split("\n"))
    )
    globals()[name] = _instr_from_text(
        text, c_instr, c_global, globals(), "exo2.platforms.x86"
    )


def _unit(*names):
    """Unit-stride preconditions on `names`, in that order."""
    return [f"stride({n}, 0) == 1" for n in names]


def _lanes(v, statement, bound=None):
    """`for i in seq(0, lanes): statement`, guarded by `i < bound` if any."""
    if bound is None:
        return f"for i in seq(0, {v.lanes}):\n    {statement}"
    return f"for i in seq(0, {v.lanes}):\n    if i < {bound}:\n        {statement}"


# AVX2 has no mask registers: a prefix form builds a lane mask `exo2_cmp`
# (lanes < bound all ones) by comparing lane indices, then runs `statements`.
_AVX2_LANE_INDICES = {
    "f32": ("_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0)", "epi32", "epi32"),
    "f64": ("_mm256_set_epi64x(3, 2, 1, 0)", "epi64x", "epi64"),
}


def _avx2_prefix_block(v, bound, statements):
    indices, set1, cmpgt = _AVX2_LANE_INDICES[v.prec]
    return _fill(
        "\n{{\n"
        "__m256i exo2_indices = $indices;\n"
        "__m256i exo2_prefix = _mm256_set1_$set1({$bound});\n"
        "__m256i exo2_cmp = _mm256_cmpgt_$cmpgt(exo2_prefix, exo2_indices);\n"
        "$statements\n"
        "}}\n",
        v,
        indices=indices,
        set1=set1,
        cmpgt=cmpgt,
        bound=bound,
        statements=_fill(statements, v),
    )


def _avx2_prefix_blend(v, dst, temp, value, space=None):
    """The prefix form that computes the vector `value` into `exo2_<temp>`
    and blends its lanes < bound into `dst`. Exo's f32 forms wrote
    `_mm256_blendv_ps (`: kept (`space`), so that the C stays the same."""
    if space is None:
        space = " " if v.prec == "f32" else ""
    return _avx2_prefix_block(
        v,
        "bound",
        _fill(
            "$c_type exo2_$temp = $value;\n"
            "{${dst}_data} = _mm256_blendv_$t$space({${dst}_data}, exo2_$temp, "
            "_mm256_castsi256_$t(exo2_cmp));",
            v,
            dst=dst,
            temp=temp,
            value=_fill(value, v),
            space=space,
        ),
    )


# The AVX-512 mask of lanes < N.
_AVX512_PREFIX_MASK = "((1 << {N}) - 1)"


# --------------------------------------------------------------------------- #
#   Prefetching
# --------------------------------------------------------------------------- #

# [fix] Exo relied on some vector memory to include <immintrin.h>.
_define(
    "prefetch",
    [("A", "[R][1] @ DRAM"), ("locality_hint", "size")],
    ["0 <= locality_hint", "locality_hint < 8"],
    "pass",
    "_mm_prefetch(&{A_data}, {locality_hint});",
    "#include <immintrin.h>",
)


# --------------------------------------------------------------------------- #
#   Zero a register
# --------------------------------------------------------------------------- #


def _zero():
    for v in _FLOAT_VECTORS:
        _define(
            f"{v.mm}_setzero_{v.t}",
            [("dst", _reg(v))],
            _unit("dst"),
            _lanes(v, "dst[i] = 0.0"),
            _fill("{dst_data} = ${MM}_setzero_$t();", v),
        )

    for v in _AVX2_FLOATS:
        _define(
            f"avx2_set0_{v.t}",
            [("out", _reg(v))],
            _unit("out"),
            _lanes(v, "out[i] = 0.0"),
            _fill("{out_data} = _mm256_xor_$t({out_data}, {out_data});", v),
        )


_zero()


# --------------------------------------------------------------------------- #
#   Whole-vector moves: load, store, register copy
# --------------------------------------------------------------------------- #

# (name, vector, dst type, src type, order of the unit-stride asserts, C)
_MOVES = [
    (f"{v.mm}_loadu_{v.t}", v, _reg(v), _mem(v), ("src", "dst"),
     "{dst_data} = ${MM}_loadu_$t(&{src_data});")
    for v in _FLOAT_VECTORS
] + [
    (f"{v.mm}_storeu_{v.t}", v, _mem(v), _reg(v),
     ("src", "dst") if v.memory == "AVX2" else ("dst", "src"),
     "${MM}_storeu_$t(&{dst_data}, {src_data});")
    for v in _FLOAT_VECTORS
] + [
    # TODO (Exo's): a hack for the procedure aliasing issue, can be deleted
    # once aliasing is handled better.
    (f"{v.isa}_reg_copy_{v.t}", v, _reg(v), _reg(v), ("dst", "src"),
     "{dst_data} = {src_data};")
    for v in _FLOAT_VECTORS
] + [
    ("mm256_loadu_si256", _AVX2_UI16, _reg(_AVX2_UI16), _mem(_AVX2_UI16),
     ("src", "dst"), "{dst_data} = _mm256_loadu_si256((const __m256i *) &{src_data});"),
    ("mm256_storeu_si256", _AVX2_UI16, _mem(_AVX2_UI16), _reg(_AVX2_UI16),
     ("src", "dst"), "_mm256_storeu_si256((__m256i *) &{dst_data}, {src_data});"),
]  # fmt: skip


def _moves():
    for name, v, dst, src, order, c in _MOVES:
        _define(
            name,
            [("dst", dst), ("src", src)],
            _unit(*order),
            _lanes(v, "dst[i] = src[i]"),
            _fill(c, v),
        )


_moves()


# --------------------------------------------------------------------------- #
#   Masked moves: lanes < N (a bound) only
# --------------------------------------------------------------------------- #

# [fix] `_mm256_maskload_ps` and Exo's `_mm512_maskz_loadu_ps` zeroed the
# lanes from the bound on, which the body keeps: AVX2 blends the loaded
# lanes into dst, AVX-512 merge-masks (which costs nothing more).
_AVX2_MASKED_LOAD = (
    "{dst_data} = _mm256_blendv_$t({dst_data}, "
    "_mm256_maskload_$t(&{src_data}, exo2_cmp),\n"
    "_mm256_castsi256_$t(exo2_cmp));"
)
# [fix] Exo's `avx2_mask_storeu_ps` mask `_mm256_set1_epi8((1 << N) - 1)` has
# every lane's sign bit clear for N < 8, so nothing was stored; and it
# declared a variable outside any block, so two calls in one scope did not
# compile.
_AVX2_MASKED_STORE = "_mm256_maskstore_$t(&{dst_data}, exo2_cmp, {src_data});"


# The N-first forms take a DRAM window N wide, so that a tail can move
# to/from the end of a buffer; Exo's AVX2 prefix forms take the bound last
# and need a whole vector of DRAM in bounds.
def _masked_moves():
    for v in _FLOAT_VECTORS:
        if v.memory == "AVX2":
            load, store = (f"avx2_mask_loadu_{v.t}", f"avx2_mask_storeu_{v.t}")
            c_load = _avx2_prefix_block(v, "N", _AVX2_MASKED_LOAD)
            c_store = _avx2_prefix_block(v, "N", _AVX2_MASKED_STORE)
        else:
            load, store = (f"mm512_maskz_loadu_{v.t}", f"mm512_mask_storeu_{v.t}")
            c_load = _fill(
                "{dst_data} = _mm512_mask_loadu_$t({dst_data}, $mask, &{src_data});",
                v,
                mask=_AVX512_PREFIX_MASK,
            )
            c_store = _fill(
                "_mm512_mask_storeu_$t(&{dst_data}, $mask, {src_data});",
                v,
                mask=_AVX512_PREFIX_MASK,
            )
        for name, dst, src, c in [
            (load, _reg(v), _mem(v, "N"), c_load),
            (store, _mem(v, "N"), _reg(v), c_store),
        ]:
            _define(
                name,
                [("N", "size"), ("dst", dst), ("src", src)],
                _unit("src", "dst") + [f"N <= {v.lanes}"],
                _lanes(v, "dst[i] = src[i]", bound="N"),
                c,
            )

    for v in _AVX2_FLOATS:
        for name, dst, src, order, c in [
            (f"mm256_prefix_load_{v.t}", _reg(v), _mem(v), ("src", "dst"),
             _AVX2_MASKED_LOAD),
            (f"mm256_prefix_store_{v.t}", _mem(v), _reg(v), ("dst", "src"),
             _AVX2_MASKED_STORE),
        ]:  # fmt: skip
            _define(
                name,
                [("dst", dst), ("src", src), ("bound", "size")],
                _unit(*order) + [f"bound <= {v.lanes}"],
                _lanes(v, "dst[i] = src[i]", bound="bound"),
                _avx2_prefix_block(v, "bound", c),
            )


_masked_moves()


# --------------------------------------------------------------------------- #
#   Broadcast a scalar
# --------------------------------------------------------------------------- #


def _broadcasts():
    for v in _AVX2_FLOATS:
        _define(
            f"mm256_broadcast_{v.s}",
            [("out", _reg(v)), ("val", f"[{v.prec}][1]")],
            _unit("out"),
            _lanes(v, "out[i] = val[0]"),
            _fill("{out_data} = _mm256_broadcast_$s(&{val_data});", v),
        )
        # A scalar is passed by address; `set1` of its value (not `broadcast_ss`
        # of the address) lets the C compiler keep a local scalar in a register
        # instead of reloading it after every store that might alias it.
        _define(
            f"mm256_broadcast_{v.s}_scalar",
            [("out", _reg(v)), ("val", v.prec)],
            _unit("out"),
            _lanes(v, "out[i] = val"),
            _fill("{out_data} = _mm256_set1_$t(*{val_data});", v),
        )
        _define(
            f"mm256_prefix_broadcast_{v.s}",
            [("out", _reg(v)), ("val", f"[{v.prec}][1]"), ("bound", "size")],
            _unit("out") + [f"bound <= {v.lanes}"],
            _lanes(v, "out[i] = val[0]", bound="bound"),
            _avx2_prefix_blend(v, "out", "bc", "_mm256_broadcast_$s(&{val_data})"),
        )

    for v in _AVX512_FLOATS:
        _define(
            f"mm512_set1_{v.t}",
            [("dst", _reg(v)), ("src", f"[{v.prec}][1]")],
            _unit("dst"),
            _lanes(v, "dst[i] = src[0]"),
            _fill("{dst_data} = _mm512_set1_$t({src_data});", v),
        )
        # [fix] Exo set all 16 lanes (an overcompute hack); the body sets N.
        _define(
            f"mm512_mask_set1_{v.t}",
            [("N", "size"), ("dst", _reg(v)), ("src", f"[{v.prec}][1]")],
            ["N >= 1", f"N < {v.lanes}"] + _unit("dst"),
            _lanes(v, "dst[i] = src[0]", bound="N"),
            _fill(
                "{dst_data} = _mm512_mask_mov_$t({dst_data}, $mask, "
                "_mm512_set1_$t({src_data}));",
                v,
                mask=_AVX512_PREFIX_MASK,
            ),
        )


_broadcasts()


# --------------------------------------------------------------------------- #
#   Element-wise arithmetic: out = x op y
# --------------------------------------------------------------------------- #

_BINARY_OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def _binary(name, v, op, lead=(), trail=(), asserts=(), bound=None, c=""):
    """`out = x op y` on the lanes of `v` (below `bound` if any), with extra
    size parameters `lead` before the vectors and `trail` after them."""
    _define(
        name,
        [(p, "size") for p in lead]
        + [(p, _reg(v)) for p in ("out", "x", "y")]
        + [(p, "size") for p in trail],
        _unit("out", "x", "y") + list(asserts),
        _lanes(v, f"out[i] = x[i] {_BINARY_OPS[op]} y[i]", bound=bound),
        c,
    )


def _arithmetic():
    for v in _FLOAT_VECTORS:
        for op in _BINARY_OPS:
            _binary(
                f"{v.mm}_{op}_{v.t}",
                v,
                op,
                c=_fill("{out_data} = ${MM}_${op}_$t({x_data}, {y_data});", v, op=op),
            )
            if v.memory == "AVX2":
                _binary(
                    f"mm256_prefix_{op}_{v.t}",
                    v,
                    op,
                    trail=["bound"],
                    asserts=[f"bound <= {v.lanes}"],
                    bound="bound",
                    c=_avx2_prefix_blend(
                        v, "out", op, "_mm256_" + op + "_$t({x_data}, {y_data})"
                    ),
                )
            else:
                _binary(
                    f"mm512_mask_{op}_{v.t}",
                    v,
                    op,
                    lead=["N"],
                    # Exo's mm512_mask_add_ps had no bound on N; kept as it was.
                    asserts=[]
                    if (op, v.prec) == ("add", "f32")
                    else [f"N <= {v.lanes}"],
                    bound="N",
                    c=_fill(
                        "{out_data} = _mm512_mask_${op}_$t({out_data}, $mask, "
                        "{x_data}, {y_data});",
                        v,
                        op=op,
                        mask=_AVX512_PREFIX_MASK,
                    ),
                )


_arithmetic()

# `x / 3` by a multiply-high and a shift (43691 = ceil(2^17 / 3)).
_DIVIDE_BY_3 = """
    {{
        {out_data} = _mm256_mulhi_epu16({x_data}, _mm256_set1_epi16(43691));
        {out_data} = _mm256_srli_epi16({out_data}, 1);
    }}
    """

# ui16 addition: the body wraps around where the C saturates.
_binary(
    "mm256_add_epi16",
    _AVX2_UI16,
    "add",
    c="{out_data} = _mm256_adds_epu16({x_data}, {y_data});",
)

# TODO (Exo's): hacked specifically for the 2D blur with kernel size 3; fast
# integer division needs a better instruction selection.
_define(
    "avx2_ui16_divide_by_3",
    [("out", _reg(_AVX2_UI16)), ("x", _reg(_AVX2_UI16))],
    _unit("out", "x"),
    "for xii in seq(0, 16):\n    out[xii] = x[xii] / 3.0",
    _DIVIDE_BY_3,
)


# --------------------------------------------------------------------------- #
#   Fused multiply-add
# --------------------------------------------------------------------------- #

# `acc += lhs * rhs`. Exo named the parameters (dst, src1, src2) for AVX2 and
# (A, B, C) for AVX-512 (the accumulator last); both check lhs, rhs, acc.
_FMADD_PARAMS = {"AVX2": ("dst", "src1", "src2"), "AVX512": ("C", "A", "B")}


def _fused_multiply_adds():
    for v in _FLOAT_VECTORS:
        acc, lhs, rhs = _FMADD_PARAMS[v.memory]
        params = [acc, lhs, rhs] if v.memory == "AVX2" else [lhs, rhs, acc]
        fma = f"{acc}[i] += {lhs}[i] * {rhs}[i]"
        _define(
            f"{v.mm}_fmadd_{v.t}",
            [(p, _reg(v)) for p in params],
            _unit(lhs, rhs, acc),
            _lanes(v, fma),
            _fill(
                "{${acc}_data} = ${MM}_fmadd_$t({${lhs}_data}, {${rhs}_data}, "
                "{${acc}_data});",
                v,
                acc=acc,
                lhs=lhs,
                rhs=rhs,
            ),
        )
        if v.memory == "AVX2":
            _define(
                f"mm256_prefix_fmadd_{v.t}",
                [(p, _reg(v)) for p in params] + [("bound", "size")],
                _unit(acc, lhs, rhs) + [f"bound <= {v.lanes}"],
                _lanes(v, fma, bound="bound"),
                _avx2_prefix_blend(
                    v,
                    "dst",
                    "fma",
                    "_mm256_fmadd_$t({src1_data}, {src2_data}, {dst_data})",
                    space="",
                ),
            )
        else:
            # [fix] Exo's `_mm512_mask_fmadd_ps` copies A into lanes N..; `mask3`
            # keeps C there, as the body says.
            _define(
                f"mm512_mask_fmadd_{v.t}",
                [("N", "size")] + [(p, _reg(v)) for p in params],
                ["N >= 1", f"N < {v.lanes}"] + _unit(lhs, rhs, acc),
                _lanes(v, fma, bound="N"),
                _fill(
                    "{C_data} = _mm512_mask3_fmadd_$t({A_data}, {B_data}, {C_data}, "
                    "$mask);",
                    v,
                    mask=_AVX512_PREFIX_MASK,
                ),
            )

        # dst += lhs * broadcast(rhs[0]).
        # [fix] Exo's mm256_fmadd_ps_broadcast passed the scalar `rhs[0]` where a
        # vector is needed (C did not compile) and computed `dst * lhs + rhs`.
        broadcast = {
            "AVX2": "_mm256_broadcast_$s(&{rhs_data})",
            "AVX512": "_mm512_set1_$t({rhs_data})",
        }[v.memory]
        _define(
            f"{v.mm}_fmadd_{v.t}_broadcast",
            [("dst", _reg(v)), ("lhs", _reg(v)), ("rhs", _mem(v, 1))],
            _unit("dst", "lhs"),
            _lanes(v, "dst[i] += lhs[i] * rhs[0]"),
            _fill(
                "{dst_data} = ${MM}_fmadd_$t({lhs_data}, $broadcast, {dst_data});",
                v,
                broadcast=_fill(broadcast, v),
            ),
        )

        # out = x * y + z and out = z + x * y: the two shapes a vectorizer meets.
        for form, expression in [
            ("muladd", "x[i] * y[i] + z[i]"),
            ("addmul", "z[i] + x[i] * y[i]"),
        ]:
            _define(
                f"{v.mm}_{form}_{v.t}",
                [(p, _reg(v)) for p in ("out", "x", "y", "z")],
                _unit("out", "x", "y", "z"),
                _lanes(v, f"out[i] = {expression}"),
                _fill("{out_data} = ${MM}_fmadd_$t({x_data}, {y_data}, {z_data});", v),
            )


_fused_multiply_adds()


# --------------------------------------------------------------------------- #
#   Accumulate: dst += src
# --------------------------------------------------------------------------- #


# Accumulate a register into memory. Exo's f32 form multiplies by ones.
_FMADD_MEMU = {
    "f32": """
{{
  __m256 exo2_ones = {{ 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f }};
  __m256 exo2_dst = _mm256_loadu_ps(&{dst_data});
  _mm256_storeu_ps(&{dst_data}, _mm256_fmadd_ps(exo2_ones, exo2_dst, {val_data}));
}}
""",
    "f64": """
{{
  __m256d exo2_dst = _mm256_loadu_pd(&{dst_data});
  _mm256_storeu_pd(&{dst_data}, _mm256_add_pd(exo2_dst, {val_data}));
}}
""",
}


def _accumulates():
    for v in _FLOAT_VECTORS:
        _define(
            f"{v.isa}_reduce_add_wide_{v.t}",
            [("dst", _reg(v)), ("src", _reg(v))],
            _unit("dst", "src"),
            _lanes(v, "dst[i] += src[i]"),
            _fill("{dst_data} = ${MM}_add_$t({src_data}, {dst_data});", v),
        )

    for v in _AVX2_FLOATS:
        _define(
            f"avx2_fmadd_memu_{v.t}",
            [("dst", _mem(v)), ("val", _reg(v))],
            _unit("dst", "val"),
            _lanes(v, "dst[i] += val[i]"),
            _FMADD_MEMU[v.prec],
        )


_accumulates()


# --------------------------------------------------------------------------- #
#   Unary operations: negate, absolute value, relu
# --------------------------------------------------------------------------- #

# (operation, the body's value of lane i, C template per ISA); `abs` is the
# pattern of the stdlib's `abs_rule`.
_UNARY = [
    ("sign", "-src[i]", {
        "AVX2": "{dst_data} = _mm256_mul_$t({src_data}, _mm256_set1_$t(-1.0f));",
        "AVX512": "{dst_data} = _mm512_mul_$t({src_data}, _mm512_set1_$t(-1.0));",
    }),
    ("abs", "select(0.0, src[i], src[i], -src[i])", {
        "AVX2": "{dst_data} = _mm256_andnot_$t(_mm256_set1_$t(-0.0), {src_data});",
        "AVX512": "{dst_data} = _mm512_abs_$t({src_data});",
    }),
]  # fmt: skip


_RELU = {
    "f32": "{dst_data} = _mm512_max_ps({src_data}, (__m512){{0}});",
    "f64": "{dst_data} = _mm512_max_pd({src_data}, _mm512_setzero_pd());",
}


def _unary():
    for v in _FLOAT_VECTORS:
        for op, value, c in _UNARY:
            _define(
                f"{v.isa}_{op}_{v.t}",
                [("dst", _reg(v)), ("src", _reg(v))],
                _unit("dst", "src"),
                _lanes(v, f"dst[i] = {value}"),
                _fill(c[v.memory], v),
            )

    for v in _AVX512_FLOATS:
        _define(
            f"mm512_relu_{v.t}",
            [("dst", _reg(v)), ("src", _reg(v))],
            _unit("dst", "src"),
            _lanes(v, "dst[i] = relu(src[i])"),
            _RELU[v.prec],
        )


_unary()


# --------------------------------------------------------------------------- #
#   select(x, v, y, z): x < v ? y : z
# --------------------------------------------------------------------------- #

_SELECT = {
    "AVX2": """
{out_data} = _mm256_blendv_$t ({z_data}, {y_data},
_mm256_cmp_$t ({x_data}, {v_data}, _CMP_LT_OQ));
""",
    "AVX512": """
{out_data} = _mm512_mask_blend_$t(
_mm512_cmp_${t}_mask({x_data}, {v_data}, _CMP_LT_OQ), {z_data}, {y_data});
""",
}


def _selects():
    for v in _FLOAT_VECTORS:
        _define(
            f"{v.isa}_select_{v.t}",
            [(p, _reg(v)) for p in ("out", "x", "v", "y", "z")],
            _unit("out", "x", "v", "y", "z"),
            _lanes(v, "out[i] = select(x[i], v[i], y[i], z[i])"),
            _fill(_SELECT[v.memory], v),
        )


_selects()


# --------------------------------------------------------------------------- #
#   Horizontal sum: result += x[0] + ... (assumes addition is associative)
# --------------------------------------------------------------------------- #

# [fix] Exo's hadd-based AVX2 reductions are slower (hadd is three uops on
# recent x86 cores); these halve the vector with shuffles.
_ASSOC_REDUCE_ADD = {
    _AVX2_F32: """
    {{
        __m128 exo2_sum = _mm_add_ps(_mm256_castps256_ps128({x_data}),
                                     _mm256_extractf128_ps({x_data}, 1));
        exo2_sum = _mm_add_ps(exo2_sum, _mm_movehl_ps(exo2_sum, exo2_sum));
        exo2_sum = _mm_add_ss(exo2_sum, _mm_movehdup_ps(exo2_sum));
        *{result} += _mm_cvtss_f32(exo2_sum);
    }}
    """,
    _AVX2_F64: """
    {{
        __m128d exo2_sum = _mm_add_pd(_mm256_castpd256_pd128({x_data}),
                                      _mm256_extractf128_pd({x_data}, 1));
        exo2_sum = _mm_add_sd(exo2_sum, _mm_unpackhi_pd(exo2_sum, exo2_sum));
        *{result} += _mm_cvtsd_f64(exo2_sum);
    }}
    """,
    _AVX512_F32: "*{result} += _mm512_reduce_add_ps({x_data});",
    _AVX512_F64: "*{result} += _mm512_reduce_add_pd({x_data});",
}


def _horizontal_sums():
    for v, c in _ASSOC_REDUCE_ADD.items():
        _define(
            f"{v.isa}_assoc_reduce_add_{v.t}",
            [("x", _reg(v)), ("result", v.prec)],
            _unit("x"),
            _lanes(v, "result += x[i]"),
            c,
        )


_horizontal_sums()


# --------------------------------------------------------------------------- #
#   f32 -> f64, half a vector
# --------------------------------------------------------------------------- #

# (f32 source, f64 destination, C of the lower half, C of the upper half)
_CONVERT_F32_TO_F64 = [
    (_AVX2_F32, _AVX2_F64,
     "{dst_data} = _mm256_cvtps_pd(_mm256_extractf128_ps({src_data}, 0));",
     "{dst_data} = _mm256_cvtps_pd(_mm256_extractf128_ps({src_data}, 1));"),
    (_AVX512_F32, _AVX512_F64,
     "{dst_data} = _mm512_cvtps_pd(_mm512_castps512_ps256({src_data}));",
     """
{dst_data} = _mm512_cvtps_pd(
_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd({src_data}), 1)));
"""),
]  # fmt: skip


def _conversions():
    for src, dst, c_lower, c_upper in _CONVERT_F32_TO_F64:
        for half, first, c in [
            ("lower", "", c_lower),
            ("upper", f"{dst.lanes} + ", c_upper),
        ]:
            _define(
                f"{src.isa}_convert_f32_{half}_to_f64",
                [("dst", _reg(dst)), ("src", _reg(src))],
                _unit("dst", "src"),
                _lanes(dst, f"dst[i] = src[{first}i]"),
                c,
            )


_conversions()
