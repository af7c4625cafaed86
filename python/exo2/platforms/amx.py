"""Intel AMX instructions (docs/platform-sve-gemmini-amx.md).

Exo 1.0 defines the `AMX_TILE` memory (`exo2.libs.memories`, re-exported
here) but no instruction that uses it; this module is exo2's. The tiles are
configured once, all eight as 16 rows of 64 bytes (`amx_tile_config`), so
every instruction moves or multiplies whole tiles:

- `amx_ld_i8` / `amx_ld_ui8` / `amx_ld_i32` (`_tile_loadd`), `amx_st_i32`
  (`_tile_stored`), `amx_zero_i32` (`_tile_zero`);
- `amx_dpbssd`, `amx_dpbsud`, `amx_dpbusd`, `amx_dpbuud`: the i32 tile
  `C[16, 16]` plus the products of `A[16, 64]` and `B[16, 64]` in groups of
  four bytes, `C[m, n] += sum(A[m, 4k + q] * B[k, 4n + q])` (`B` holds the
  right operand in AMX's layout, four consecutive bytes of a column per
  row), signed (`s`) or unsigned (`u`) per operand;
- `amx_tile_config`, `amx_tile_release`, and `amx_request_permission` (Linux
  gives a process the tile state only after `arch_prctl`; call it once
  before the first tile instruction).

A tile buffer is named by `#define` while allocated (`AMX_TILE`), so at most
eight are live at a time. exo2 generates the C on any machine; compiling it
needs `-mamx-tile -mamx-int8`, running it a processor with AMX.
"""

# ruff: noqa: F401, F821
from __future__ import annotations

from .. import DRAM, config, instr
from ..libs.memories import AMX_TILE
from ._instruction_text import instr_from_text as _instr_from_text

_ROWS, _ROW_BYTES = 16, 64


def _tile_config_bytes():
    """The 64-byte tile configuration: palette 1, tiles 0-7 of 16 rows x 64
    bytes (`colsb` 16-bit little endian from byte 16, `rows` from byte 48)."""
    config_bytes = [0] * 64
    config_bytes[0] = 1
    for tile in range(8):
        config_bytes[16 + 2 * tile] = _ROW_BYTES
        config_bytes[48 + tile] = _ROWS
    return ", ".join(map(str, config_bytes))


@config
class AMXTiles:
    configured: bool


def _define(name, text, c_instr, c_global=""):
    globals()[name] = _instr_from_text(
        f"def {name}{text}", c_instr, c_global, globals(), "exo2.platforms.amx"
    )


_define(
    "amx_request_permission",
    "():\n    pass\n",
    # ARCH_REQ_XCOMP_PERM (0x1023) for XFEATURE_XTILEDATA (18). No C comment
    # here: the generated C quotes templates inside a comment.
    "syscall(SYS_arch_prctl, 0x1023, 18);",
    "#include <unistd.h>\n#include <sys/syscall.h>",
)
_define(
    "amx_tile_config",
    "():\n    AMXTiles.configured = True\n",
    "{{\n"
    "    static const unsigned char exo2_amx_config[64] "
    "__attribute__((aligned(64))) = {{ " + _tile_config_bytes() + " }};\n"
    "    _tile_loadconfig(exo2_amx_config);\n"
    "}}",
)
_define(
    "amx_tile_release",
    "():\n    AMXTiles.configured = False\n",
    "_tile_release();",
)

_TILE_I8 = "[i8][16, 64] @ AMX_TILE"
_TILE_UI8 = "[ui8][16, 64] @ AMX_TILE"
_TILE_I32 = "[i32][16, 16] @ AMX_TILE"


def _loads_and_stores():
    for name, prec, cols, size in (
        ("i8", "i8", 64, 1),
        ("ui8", "ui8", 64, 1),
        ("i32", "i32", 16, 4),
    ):
        copy = (
            "    for i in seq(0, 16):\n"
            f"        for j in seq(0, {cols}):\n"
            "            dst[i, j] = src[i, j]\n"
        )
        _define(
            f"amx_ld_{name}",
            f"(dst: [{prec}][16, {cols}] @ AMX_TILE, src: [{prec}][16, {cols}] @ DRAM):\n"
            "    assert stride(src, 1) == 1\n" + copy,
            "_tile_loadd({dst_int}, &{src_data}, " + f"{size} * {{src}}.strides[0]);",
        )
    _define(
        "amx_st_i32",
        f"(dst: [i32][16, 16] @ DRAM, src: {_TILE_I32}):\n"
        "    assert stride(dst, 1) == 1\n"
        "    for i in seq(0, 16):\n"
        "        for j in seq(0, 16):\n"
        "            dst[i, j] = src[i, j]\n",
        "_tile_stored({src_int}, &{dst_data}, 4 * {dst}.strides[0]);",
    )
    _define(
        "amx_zero_i32",
        f"(dst: {_TILE_I32}):\n"
        "    for i in seq(0, 16):\n"
        "        for j in seq(0, 16):\n"
        "            dst[i, j] = 0\n",
        "_tile_zero({dst_int});",
    )


_loads_and_stores()


def _dot_products():
    tiles = {"s": _TILE_I8, "u": _TILE_UI8}
    for a_sign in "su":
        for b_sign in "su":
            name = f"amx_dpb{a_sign}{b_sign}d"
            _define(
                name,
                f"(C: {_TILE_I32}, A: {tiles[a_sign]}, B: {tiles[b_sign]}):\n"
                "    for m in seq(0, 16):\n"
                "        for n in seq(0, 16):\n"
                "            for k in seq(0, 16):\n"
                "                for q in seq(0, 4):\n"
                "                    a: i32\n"
                "                    b: i32\n"
                "                    a = A[m, 4 * k + q]\n"
                "                    b = B[k, 4 * n + q]\n"
                "                    C[m, n] += a * b\n",
                f"_tile_dpb{a_sign}{b_sign}d" + "({C_int}, {A_int}, {B_int});",
            )


_dot_products()
