"""The Gemmini accelerator library (docs/platform-sve-gemmini-amx.md).

Exo's `gemmini` platform under its names and signatures: the configuration
state of the accelerator (`ConfigLoad`, `ConfigLoad_id1`, `ConfigLoad_id2`,
`ConfigLoadAcc`, `ConfigStore`, `ConfigMatmul`), and the instructions that
move 16-wide rows between DRAM and the scratchpad (`GEMM_SCRATCH`, i8) or the
accumulator (`GEMM_ACCUM`, i32), zero them, multiply 16 x 16 tiles and write
configurations. Instructions come in three forms, as in Exo:

- `ld_i8(...)`: configures and moves (one template, two calls);
- `do_ld_i8(...)` with `config_ld_i8(...)`: the two halves, for schedules
  that hoist the configuration out of a loop (the `do_` form asserts the
  configuration it needs);
- `ld_i8_v2(...)`: the first form whose body is the two halves, which
  `call_eqv` + `inline` expose to such schedules.

A few scheduling helpers Exo's Gemmini programs use (`lift_config`,
`set_prec_mem`, `old_split`, `old_reorder`, `old_unroll`, `old_fission_after`,
`old_lift_alloc`) are here too, and `import *` gives `exo2.stdlib.scheduling`
as Exo's module did.

The C calls the functions of Gemmini's `include/gemmini.h` (the memories
include it); exo2 generates it on any machine, compiling it needs Gemmini's
software tree (or any header declaring those functions).
"""

# ruff: noqa: F401, F403, F405, F821, F841
# (re-exports as Exo's module; bodies use the object language's names)
from __future__ import annotations

from string import Template as _Template

# No __all__: as Exo's module, `import *` also gives what it imports.
from .. import DRAM, config, instr, proc
from ..libs.externs import relu, select
from ..libs.memories import GEMM_ACCUM, GEMM_SCRATCH
from ..stdlib.scheduling import *
from ._instruction_text import instr_from_text as _instr_from_text

# --------------------------------------------------------------------------- #
#   Scheduling helpers of Exo's Gemmini programs
# --------------------------------------------------------------------------- #


def lift_config(p, config_str):
    """Moves the statement `config_str` (a configuration write) as far out
    as it goes: up to the top of each enclosing block, then out of the loop
    by fission and removing the loop around it alone."""
    cursor = p.find(config_str)
    while True:
        try:
            while True:
                try:
                    p = reorder_stmts(p, p.forward(cursor).expand(1, 0))
                except Exception:
                    break
            p = fission(p, p.forward(cursor).after(), unsafe_disable_checks=True)
            p = remove_loop(p, p.forward(cursor).parent())
        except Exception:
            return p


def set_prec_mem(p, bufname, precision, memory):
    """`set_memory` then `set_precision` of the buffer `bufname`."""
    return set_precision(set_memory(p, bufname, memory), bufname, precision)


old_split = repeat(divide_loop)
old_reorder = repeat(reorder_loops)
old_unroll = repeat(unroll_loop)


def old_fission_after(proc, stmt_pattern, n_lifts=1):
    """`autofission` after every statement matching `stmt_pattern`."""
    return loop_hack(
        autofission, lambda q: [c.after() for c in q.find_all(stmt_pattern)]
    )(proc, n_lifts)


def old_lift_alloc(proc, stmt_pat, n_lifts=1, mode="row", size=None, keep_dims=True):
    """`autolift_alloc` of every allocation matching `stmt_pat`."""
    return loop_hack(autolift_alloc, lambda q: q.find_all(stmt_pat))(
        proc, n_lifts, mode, size, keep_dims
    )


# --------------------------------------------------------------------------- #
#   Configuration state
# --------------------------------------------------------------------------- #


@config
class ConfigLoad:
    src_stride: stride


@config
class ConfigLoad_id1:
    src_stride: stride


@config
class ConfigLoad_id2:
    src_stride: stride


@config
class ConfigLoadAcc:
    stride_set: bool


@config
class ConfigStore:
    scale: f32
    dst_stride: stride
    act: bool


@config
class ConfigMatmul:
    done: bool


# --------------------------------------------------------------------------- #
#   Building instructions from text
# --------------------------------------------------------------------------- #


def _define(name, signature, body, c_instr, **fields):
    """Defines the instruction `name` of parameters `signature` and body
    `body` (both with `$`-fields filled from `fields`) with template
    `c_instr`, as a module global."""
    text = _Template(f"def {name}({signature}):\n{body}").substitute(fields)
    globals()[name] = _instr_from_text(
        text, c_instr, "", globals(), "exo2.platforms.gemmini"
    )


def _lines(*statements):
    return "".join(f"    {s}\n" for s in statements)


_TILE_ASSERTS = (
    "assert n <= 16",
    "assert m <= 16",
)
_ROWS_OF_16 = ("assert stride(dst, 0) == 16", "assert stride(dst, 1) == 1")

# The load units: id 0, 1, 2 move with mvin, mvin2, mvin3 and keep their
# own configuration.
_LOAD_UNITS = {0: ("", "mvin"), 1: ("_id1", "mvin2"), 2: ("_id2", "mvin3")}


def _config_ld(stride_text, unit, rows=None):
    """The C configuring load unit `unit` for a source stride (bytes)."""
    if rows is not None:
        return f"gemmini_extended4_config_ld({stride_text}, 1.0f, 0, {rows}, {unit});\n"
    return f"gemmini_extended3_config_ld({stride_text}, 1.0f, 0, {unit});\n"


def _mvin(unit, cols, rows, src="&{src_data}", cast="uint64_t"):
    fn = _LOAD_UNITS[unit][1]
    return f"gemmini_extended_{fn}( {src}, (({cast}) &{{dst_data}}), {cols}, {rows} );"


def _halves(base, name, cfg, field, rhs, do_instr, config_instr, c_instr=None):
    """`base` split in two halves as Exo derives its `_v2` forms: the
    configuration write `cfg.field = rhs` (inserted, then replaced by the
    call `config_instr`) and the move (the loop, replaced by `do_instr`).
    Derived by scheduling, so `call_eqv` may swap it for `base`."""
    p = rename(base, name)
    p = write_config(p, p.body().before(), cfg, field, rhs)
    p = replace(p, "for i in _:_", do_instr)
    p = replace(p, f"{cfg.name()}.{field} = _", config_instr)
    globals()[name] = make_instr(p, c_instr or base.get_instr())


acc_scale = _instr_from_text(
    "def acc_scale(src: i32, dst: f32, scale: f32):\n    dst = scale * src\n",
    "{dst}[0] = ACC_SCALE({src}[0], {scale}[0]);",
    "",
    globals(),
    "exo2.platforms.gemmini",
)


# --------------------------------------------------------------------------- #
#   Loads of i8 rows into the scratchpad
# --------------------------------------------------------------------------- #

_LD_I8_SIG = "n: size, m: size, src: [i8][n, m] @ DRAM, dst: [i8][n, 16] @ GEMM_SCRATCH"
_LD_I8_ASSERTS = _TILE_ASSERTS + ("assert stride(src, 1) == 1",) + _ROWS_OF_16
_LD_I8_COPY = (
    "for i in seq(0, n):",
    "    for j in seq(0, m):",
    "        dst[i, j] = src[i, j]",
)


def _loads_i8():
    for unit, (sfx, _) in _LOAD_UNITS.items():
        cfg = f"ConfigLoad{sfx}"
        _define(
            f"config_ld_i8{sfx}",
            "src_stride: stride",
            _lines(f"{cfg}.src_stride = src_stride"),
            _config_ld("{src_stride}", unit),
        )
        move = _mvin(unit, "{m}", "{n}")
        _define(
            f"do_ld_i8{sfx}",
            _LD_I8_SIG,
            _lines(
                *_LD_I8_ASSERTS,
                f"assert stride(src, 0) == {cfg}.src_stride",
                *_LD_I8_COPY,
            ),
            move,
        )
        both = _config_ld("{src}.strides[0]*1", unit) + move
        _define(f"ld_i8{sfx}", _LD_I8_SIG, _lines(*_LD_I8_ASSERTS, *_LD_I8_COPY), both)
        for name in [f"ld_i8{sfx}_v2"] + ([f"ld_i8{sfx}_s2_v2"] if unit else []):
            _halves(
                globals()[f"ld_i8{sfx}"],
                name,
                globals()[cfg],
                "src_stride",
                "stride(src, 0)",
                globals()[f"do_ld_i8{sfx}"],
                globals()[f"config_ld_i8{sfx}"],
            )


_loads_i8()

# Every other row of the source (stride 2 rows), through load unit 1.
_LD_S2_SIG = (
    "n: size, m: size, src: [i8][n * 2 - 1, m] @ DRAM, dst: [i8][n, 16] @ GEMM_SCRATCH"
)
_LD_S2_COPY = (
    "for i in seq(0, n):",
    "    for j in seq(0, m):",
    "        dst[i, j] = src[i * 2, j]",
)
_define(
    "ld_i8_s2",
    _LD_S2_SIG,
    _lines(
        "assert 0 < n and n <= 16",
        "assert 0 < m and m <= 16",
        "assert stride(src, 1) == 1",
        *_ROWS_OF_16,
        *_LD_S2_COPY,
    ),
    _config_ld("{src}.strides[0]*2", 1) + _mvin(1, "{m}", "{n}"),
)
_define(
    "config_ld_i8_s2_id1",
    "src_stride: stride",
    _lines("ConfigLoad_id1.src_stride = src_stride"),
    _config_ld("{src_stride}*2", 1),
)
_define(
    "do_ld_i8_s2_id1",
    _LD_S2_SIG,
    _lines(*_LD_I8_ASSERTS, *_LD_S2_COPY),
    _mvin(1, "{m}", "{n}"),
)

# m blocks of 16 columns into m scratchpad tiles of n rows.
_BLOCK_SIG = (
    "n: size, m: size, src: [i8][n, 16 * m] @ DRAM, dst: [i8][m, n, 16] @ GEMM_SCRATCH"
)
_BLOCK_ASSERTS = (
    "assert n <= 16",
    "assert m <= 4",
    "assert stride(src, 1) == 1",
) + _ROWS_OF_16
_BLOCK_COPY = (
    "for i in seq(0, n):",
    "    for j in seq(0, m):",
    "        for k in seq(0, 16):",
    "            dst[j, i, k] = src[i, 16 * j + k]",
)


def _block_loads():
    body = _lines(*_BLOCK_ASSERTS, *_BLOCK_COPY)
    move = {u: _mvin(u, "16*{m}", "{n}") for u in _LOAD_UNITS}
    _define(
        "ld_i8_block", _BLOCK_SIG, body, _config_ld("{src}.strides[0]*1", 0) + move[0]
    )
    for unit in (1, 2):
        sfx = _LOAD_UNITS[unit][0]
        _define(f"do_ld_i8_block{sfx}", _BLOCK_SIG, body, move[unit])
        rows = "{n}" if unit == 2 else None
        both = _config_ld("{src}.strides[0]*1", unit, rows) + move[unit]
        _define(f"ld_i8_block{sfx}", _BLOCK_SIG, body, both)
        for name in (f"ld_i8_block{sfx}_v2", f"ld_i8_block{sfx}_s2_v2"):
            _halves(
                globals()[f"ld_i8_block{sfx}"],
                name,
                globals()[f"ConfigLoad{sfx}"],
                "src_stride",
                "stride(src, 0)",
                globals()[f"do_ld_i8_block{sfx}"],
                globals()[f"config_ld_i8{sfx}"],
            )


_block_loads()

_define(
    "zero_block_id2",
    "n: size, m: size, dst: [i8][m, n, 16] @ GEMM_SCRATCH",
    _lines(
        "assert n <= 16",
        "assert m <= 4",
        *_ROWS_OF_16,
        "for i in seq(0, n):",
        "    for j in seq(0, m):",
        "        for k in seq(0, 16):",
        "            dst[j, i, k] = 0.0",
    ),
    _config_ld("0", 2, "{n}") + _mvin(2, "16*{m}", "{n}", src="0"),
)

# One row of 16.
_VEC_SIG = "src: [i8][16] @ DRAM, dst: [i8][16] @ GEMM_SCRATCH"
_VEC_BODY = _lines(
    "assert stride(dst, 0) == 16", "for i in seq(0, 16):", "    dst[i] = src[i]"
)
_define(
    "ld_i8_vector",
    _VEC_SIG,
    _VEC_BODY,
    _config_ld("1", 0) + _mvin(0, "16", "1"),
)
_define("do_ld_i8_vector", _VEC_SIG, _VEC_BODY, _mvin(0, "16", "1"))


# --------------------------------------------------------------------------- #
#   Loads into the accumulator
# --------------------------------------------------------------------------- #

# i8 rows widened to i32 (the accumulator loads "shrunk" rows).
_define(
    "ld_acc_i8",
    "n: size, m: size, src: [i8][n, m] @ DRAM, dst: [i32][n, 16] @ GEMM_ACCUM",
    _lines(*_LD_I8_ASSERTS, *_LD_I8_COPY),
    "gemmini_extended3_config_ld({src}.strides[0]*1, 1.0f, 1, 0);\n"
    + _mvin(0, "{m}", "{n}", cast="uint32_t"),
)

_ACC_SIG = "n: size, m: size, src: [i32][n, m] @ DRAM, dst: [i32][n, 16] @ GEMM_ACCUM"
_ACC_MOVE = _mvin(0, "{m}", "{n}", src="((uint64_t) &{src_data})", cast="uint32_t")
_define(
    "ld_acc_i32",
    _ACC_SIG,
    _lines(*_LD_I8_ASSERTS, *_LD_I8_COPY),
    _config_ld("{src}.strides[0]*4", 0) + _ACC_MOVE,
)
_define("do_ld_acc_i32", _ACC_SIG, _lines(*_LD_I8_ASSERTS, *_LD_I8_COPY), _ACC_MOVE)

# One row repeated over n rows (a bias), the source stride configured to 0.
_define(
    "config_ld_acc_i32_vector",
    "stride_set: bool",
    _lines("ConfigLoadAcc.stride_set = stride_set"),
    _config_ld("0", 0),
)
_ACC_VEC_SIG = "n: size, src: [i32][1, 16] @ DRAM, dst: [i32][n, 16] @ GEMM_ACCUM"
_ACC_VEC_ASSERTS = (
    "assert n <= 16",
    "assert stride(dst, 0) == 1",
    "assert stride(src, 0) == 1",
)
_ACC_VEC_BODY = _lines(
    *_ACC_VEC_ASSERTS,
    "for i in seq(0, n):",
    "    for j in seq(0, 16):",
    "        dst[i, j] = src[0, j]",
)
_ACC_VEC_MOVE = _mvin(0, "16", "{n}", src="((uint64_t) &{src_data})", cast="uint32_t")
_define(
    "ld_acc_i32_vector", _ACC_VEC_SIG, _ACC_VEC_BODY, _config_ld("0", 0) + _ACC_VEC_MOVE
)
_define("do_ld_acc_i32_vector", _ACC_VEC_SIG, _ACC_VEC_BODY, _ACC_VEC_MOVE)
_halves(
    ld_acc_i32_vector,
    "ld_acc_i32_vector_v2",
    ConfigLoadAcc,
    "stride_set",
    "True",
    do_ld_acc_i32_vector,
    config_ld_acc_i32_vector,
)


# --------------------------------------------------------------------------- #
#   Stores
# --------------------------------------------------------------------------- #


@proc
def clamp(src: f32, dst: i8):
    lo: f32
    hi: f32
    lo = -128.0
    hi = 127.0
    tmp: f32
    tmp = select(hi, src, hi, src)
    tmp = select(src, lo, lo, tmp)
    dst = tmp


def _mvout(src_addr):
    return (
        "gemmini_extended_mvout( ((uint64_t) &{dst_data}), "
        + src_addr
        + ", {m}, {n} );"
    )


_ST_ASSERTS = _TILE_ASSERTS + (
    "assert stride(dst, 1) == 1",
    "assert stride(src, 0) == 16",
    "assert stride(src, 1) == 1",
)
_ST_COPY = (
    "for i in seq(0, n):",
    "    for j in seq(0, m):",
    "        dst[i, j] = src[i, j]",
)
_define(
    "st_i8",
    "n: size, m: size, src: [i8][n, 16] @ GEMM_SCRATCH, dst: [i8][n, m] @ DRAM",
    _lines(*_ST_ASSERTS, *_ST_COPY),
    "gemmini_extended_config_st({dst}.strides[0]*1, 0, 1.0f);\n"
    + _mvout("(uint32_t) &{src_data}"),
)
_define(
    "st_acc_i32",
    "n: size, m: size, src: [i32][n, 16] @ GEMM_ACCUM, dst: [i32][n, m] @ DRAM",
    _lines(*_ST_ASSERTS, *_ST_COPY),
    "gemmini_extended_config_st({dst}.strides[0]*4, 0, 1.0f);\n"
    + _mvout("((uint32_t) &{src_data} | 0x20000000)"),
)


def _scaled_store(scale, act):
    """An accumulator row scaled by `scale`, clamped to i8 and passed
    through ReLU when `act`."""
    return (
        "for i in seq(0, n):",
        "    for j in seq(0, m):",
        "        src_tmp: i32",
        "        src_tmp = src[i, j]",
        "        tmp: f32",
        f"        acc_scale(src_tmp, tmp, {scale})",
        "        tmp2: i8",
        "        clamp(tmp, tmp2)",
        f"        if {act} == True:",
        "            tmp2 = relu(tmp2)",
        "        dst[i, j] = tmp2",
    )


_ST_ACC_SIG = (
    "n: size, m: size, scale: f32, act: bool, "
    "src: [i32][n, 16] @ GEMM_ACCUM, dst: [i8][n, m] @ DRAM"
)
_ST_ACC_MOVE = _mvout("(uint32_t) &{src_data}")
_ST_ACC_BOTH = (
    "gemmini_extended_config_st({dst}.strides[0]*1, {act}, {scale}[0]);\n"
    + _ST_ACC_MOVE
)
_define(
    "st_acc_i8",
    _ST_ACC_SIG,
    _lines(*_ST_ASSERTS, *_scaled_store("scale", "act")),
    _ST_ACC_BOTH,
)
_define(
    "config_st_acc_i8",
    "scale: f32, dst_stride: stride, act: bool",
    _lines(
        "ConfigStore.scale = scale",
        "ConfigStore.dst_stride = dst_stride",
        "ConfigStore.act = act",
    ),
    "gemmini_extended_config_st({dst_stride}, {act}, {scale}[0]);\n",
)
_define(
    "do_st_acc_i8",
    "n: size, m: size, src: [i32][n, 16] @ GEMM_ACCUM, dst: [i8][n, m] @ DRAM",
    _lines(*_ST_ASSERTS, *_scaled_store("ConfigStore.scale", "ConfigStore.act")),
    _ST_ACC_MOVE,
)
# Written as the two halves: deriving them from `st_acc_i8` needs
# `bind_config` of the scale passed to `acc_scale`, which exo2 refuses (it
# binds expressions, not call arguments). Recorded as equivalent to
# `st_acc_i8` (tests/python/test_platform_gemmini.py runs both bodies).
for _name in ("st_acc_i8_v2", "st_acc_i8_s2_v2"):
    _define(
        _name,
        _ST_ACC_SIG,
        _lines(
            *_ST_ASSERTS,
            "config_st_acc_i8(scale, stride(dst, 0), act)",
            "do_st_acc_i8(n, m, src, dst)",
        ),
        _ST_ACC_BOTH,
    )
    globals()[_name].unsafe_assert_eq(st_acc_i8)


# --------------------------------------------------------------------------- #
#   Zeroing (a load from address 0)
# --------------------------------------------------------------------------- #

_define(
    "config_zero",
    "",
    _lines("ConfigLoad.src_stride = 0"),
    _config_ld("0", 0),
)


def _zeros():
    zero_move = _mvin(0, "{m}", "{n}", src="0")
    for name, typ, mem in (
        ("i8", "i8", "GEMM_SCRATCH"),
        ("acc_i32", "i32", "GEMM_ACCUM"),
    ):
        sig = f"n: size, m: size, dst: [{typ}][n, 16] @ {mem}"
        asserts = _TILE_ASSERTS + _ROWS_OF_16
        fill = (
            "for i in seq(0, n):",
            "    for j in seq(0, m):",
            "        dst[i, j] = 0.0",
        )
        _define(f"do_zero_{name}", sig, _lines(*asserts, *fill), zero_move)
        both = _config_ld("0", 0) + zero_move
        _define(f"zero_{name}", sig, _lines(*asserts, *fill), both)
        _halves(
            globals()[f"zero_{name}"],
            f"zero_{name}_v2",
            ConfigLoad,
            "src_stride",
            "0",
            globals()[f"do_zero_{name}"],
            config_zero,
        )


_zeros()

_ZERO_VEC_SIG = "dst: [i8][16] @ GEMM_SCRATCH"
_ZERO_VEC_MOVE = _mvin(0, "16", "1", src="0")
_ZERO_VEC_BODY = _lines(
    "assert stride(dst, 0) == 16", "for i in seq(0, 16):", "    dst[i] = 0.0"
)
_define(
    "zero_i8_vector", _ZERO_VEC_SIG, _ZERO_VEC_BODY, _config_ld("0", 0) + _ZERO_VEC_MOVE
)
_define("do_zero_i8_vector", _ZERO_VEC_SIG, _ZERO_VEC_BODY, _ZERO_VEC_MOVE)
_halves(
    zero_i8_vector,
    "zero_i8_vector_v2",
    ConfigLoad,
    "src_stride",
    "0",
    do_zero_i8_vector,
    config_zero,
)


# --------------------------------------------------------------------------- #
#   Matrix multiplication of scratchpad tiles into the accumulator
# --------------------------------------------------------------------------- #

_define(
    "config_matmul",
    "",
    _lines("ConfigMatmul.done = True"),
    "gemmini_extended_config_ex(WS, 0, 0, 1, 0, 0);\n",
)

_MATMUL_SIG = (
    "N: size, M: size, K: size, A: [i8][N, 16] @ GEMM_SCRATCH, "
    "B: [i8][K, 16] @ GEMM_SCRATCH, C: [i32][N, 16] @ GEMM_ACCUM"
)
_MATMUL_ASSERTS = ("assert N <= 16", "assert M <= 16", "assert K <= 16")


def _matmuls():
    config_c = "gemmini_extended_config_ex(WS, 0, 0, 1, 0, 0);\n"
    for name, accumulate in (("matmul_i8", False), ("matmul_acc_i8", True)):
        c_address = "(uint32_t)(&{C_data})" + (" | 0x40000000" if accumulate else "")
        compute = (
            f"gemmini_extended_preload((uint32_t)(&{{B_data}}), {c_address}, "
            "{M}, {K}, {M}, {N});\n"
            "gemmini_extended_compute_preloaded((uint32_t)(&{A_data}), "
            "~((uint32_t)0), {K}, {N}, 16, 16);"
        )
        products = (
            "for i in seq(0, N):",
            "    for j in seq(0, M):",
            *(() if accumulate else ("        C[i, j] = 0.0",)),
            "        for k in seq(0, K):",
            "            a: i32",
            "            b: i32",
            "            a = A[i, k]",
            "            b = B[k, j]",
            "            C[i, j] += a * b",
        )
        _define(f"do_{name}", _MATMUL_SIG, _lines(*_MATMUL_ASSERTS, *products), compute)
        _define(
            name, _MATMUL_SIG, _lines(*_MATMUL_ASSERTS, *products), config_c + compute
        )
        _halves(
            globals()[name],
            f"{name}_v2",
            ConfigMatmul,
            "done",
            "True",
            globals()[f"do_{name}"],
            config_matmul,
            compute,
        )


_matmuls()
