"""exo2.platforms.amx (docs/platform-sve-gemmini-amx.md): Intel AMX tile
instructions on Exo's AMX_TILE memory. Every instruction is held to its
recorded printed text and template (golden/platform_amx.json; regenerate a
deliberate change with EXO2_REGEN_GOLDEN=1 and review the diff); code written
as an instruction's body is what `replace` selects it for; a scheduled tile
product compiles with `gcc -mamx-tile -mamx-int8` and, on a processor with
AMX, runs and matches NumPy (skipped elsewhere, saying so); the dot-product
bodies run through the JIT as plain procedures and match NumPy."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import exo2
import exo2.platforms.amx as amx
import numpy as np
import pytest
from exo2 import Procedure, compile_procs_to_strings, proc
from exo2.platforms.amx import (
    AMX_TILE,
    amx_dpbssd,
    amx_ld_i8,
    amx_request_permission,
    amx_st_i32,
    amx_tile_config,
    amx_tile_release,
    amx_zero_i32,
)
from exo2.stdlib.scheduling import replace

GOLDEN = Path(__file__).parent / "golden" / "platform_amx.json"


def instructions():
    return {
        name: value
        for name, value in sorted(vars(amx).items())
        if name.startswith("amx_") and isinstance(value, Procedure)
    }


LIVE = {
    name: {"proc": str(p), "c_instr": p._proc.c_instr(), "c_global": p._proc.c_global()}
    for name, p in instructions().items()
}
if os.environ.get("EXO2_REGEN_GOLDEN"):
    GOLDEN.write_text(json.dumps(LIVE, indent=1, sort_keys=True) + "\n")
RECORDED = json.loads(GOLDEN.read_text())


def test_every_instruction_is_recorded():
    assert sorted(LIVE) == sorted(RECORDED)
    assert len(LIVE) == 12


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_instruction_prints_as_recorded(name):
    assert LIVE[name] == RECORDED[name]


def load(source, tmp_path, stem, prefix):
    path = tmp_path / f"{stem}.py"
    path.write_text(
        "from __future__ import annotations\nfrom exo2 import proc\n"
        "from exo2.platforms.amx import *\n\n" + source
    )
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return {k: v for k, v in vars(loaded).items() if k.startswith(prefix)}


def bodies(tmp_path, names, dram=False):
    """Procedures whose bodies are the instructions' (on DRAM if `dram`)."""
    texts = []
    for name in names:
        text = "\n".join(
            x
            for x in str(getattr(amx, name)).splitlines()
            if not x.lstrip().startswith("#")
        )
        if dram:
            text = text.replace("@ AMX_TILE", "@ DRAM")
        texts.append("@proc\n" + text.replace("def ", "def body_", 1))
    return load("\n\n".join(texts) + "\n", tmp_path, "bodies", "body_")


def test_each_tile_instruction_replaces_code_written_as_its_body(tmp_path):
    names = [n for n, p in instructions().items() if "\n    for " in str(p)]
    assert len(names) == 9
    procs = bodies(tmp_path, names)
    for name in names:
        body = procs["body_" + name]
        p = replace(body, body.body(), getattr(amx, name))
        text = str(p)
        assert f"    {name}(" in text and "for " not in text, text


@proc
def tile_product(A: i8[16, 64], B: i8[16, 64], C: i32[16, 16]):
    amx_request_permission()
    amx_tile_config()
    a: i8[16, 64] @ AMX_TILE
    b: i8[16, 64] @ AMX_TILE
    c: i32[16, 16] @ AMX_TILE
    for i in seq(0, 16):
        for j in seq(0, 64):
            a[i, j] = A[i, j]
    for i in seq(0, 16):
        for j in seq(0, 64):
            b[i, j] = B[i, j]
    for i in seq(0, 16):
        for j in seq(0, 16):
            c[i, j] = 0
    for m in seq(0, 16):
        for n in seq(0, 16):
            for k in seq(0, 16):
                for q in seq(0, 4):
                    x: i32
                    y: i32
                    x = a[m, 4 * k + q]
                    y = b[k, 4 * n + q]
                    c[m, n] += x * y
    for i in seq(0, 16):
        for j in seq(0, 16):
            C[i, j] = c[i, j]
    amx_tile_release()


def scheduled_tile_product():
    p = tile_product
    for instruction in (amx_ld_i8, amx_ld_i8, amx_zero_i32, amx_dpbssd, amx_st_i32):
        p = replace(p, "for _ in _:_ #0", instruction)
    return p


def test_replace_schedules_a_tile_product_onto_amx():
    p = scheduled_tile_product()
    assert str(p).splitlines()[-9:] == [
        "    a: i8[16, 64] @ AMX_TILE",
        "    b: i8[16, 64] @ AMX_TILE",
        "    c: i32[16, 16] @ AMX_TILE",
        "    amx_ld_i8(a[0:16, 0:64], A[0:16, 0:64])",
        "    amx_ld_i8(b[0:16, 0:64], B[0:16, 0:64])",
        "    amx_zero_i32(c[0:16, 0:16])",
        "    amx_dpbssd(c[0:16, 0:16], a[0:16, 0:64], b[0:16, 0:64])",
        "    amx_st_i32(C[0:16, 0:16], c[0:16, 0:16])",
        "    amx_tile_release()",
    ]
    c = p.c_code_str()
    assert "#define a 0" in c and "#define c 2" in c
    assert "_tile_dpbssd(c, a, b);" in c
    assert "_tile_stored(c, &C[0], 4 * " in c
    assert "_tile_loadconfig(exo2_amx_config);" in c


def test_tile_memory_names_its_compiler_flags():
    from exo2.backend.target_flags import target_flags

    assert target_flags([scheduled_tile_product()]) == ["-mamx-tile", "-mamx-int8"]


def test_scheduled_tile_product_compiles_with_amx_flags(tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    probe = subprocess.run(
        ["gcc", "-mamx-tile", "-mamx-int8", "-fsyntax-only", "-x", "c", "-"],
        input="#include <immintrin.h>\nvoid f(void) { _tile_zero(0); }\n",
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"this gcc cannot compile AMX intrinsics: {probe.stderr[-300:]}")
    c_text, h_text = compile_procs_to_strings([scheduled_tile_product()], "tile.h")
    (tmp_path / "tile.h").write_text(h_text)
    (tmp_path / "tile.c").write_text(c_text)
    result = subprocess.run(
        ["gcc", "-mamx-tile", "-mamx-int8", "-O2", "-Wall", "-Werror", "-c"]
        + [str(tmp_path / "tile.c"), "-o", str(tmp_path / "tile.o")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def cpu_has_amx():
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " amx_tile" in flags and " amx_int8" in flags


def test_scheduled_tile_product_runs_on_amx():
    if not cpu_has_amx():
        pytest.skip("this processor has no AMX (amx_tile, amx_int8 in /proc/cpuinfo)")
    kernel = exo2.jit(scheduled_tile_product())
    rng = np.random.default_rng(3)
    A = rng.integers(-128, 128, (16, 64)).astype(np.int8)
    B = rng.integers(-128, 128, (16, 64)).astype(np.int8)
    C = np.zeros((16, 16), np.int32)
    kernel(A, B, C)
    assert np.array_equal(C, reference_dot(A, B, np.zeros((16, 16), np.int32)))


def reference_dot(A, B, C):
    """C[m, n] + sum over k, q of A[m, 4k + q] * B[k, 4n + q]."""
    a = A.astype(np.int64).reshape(16, 16, 4)  # m, k, q
    b = B.astype(np.int64).reshape(16, 16, 4)  # k, n, q
    return (C + np.einsum("mkq,knq->mn", a, b)).astype(np.int32)


@pytest.mark.parametrize(
    "name", ["amx_dpbssd", "amx_dpbsud", "amx_dpbusd", "amx_dpbuud"]
)
def test_dot_product_bodies_match_numpy(name, tmp_path):
    kernel = exo2.jit(bodies(tmp_path, [name], dram=True)["body_" + name])
    rng = np.random.default_rng(11)
    signed = {"s": (np.int8, -128, 128), "u": (np.uint8, 0, 256)}
    a_type, a_lo, a_hi = signed[name[7]]
    b_type, b_lo, b_hi = signed[name[8]]
    A = rng.integers(a_lo, a_hi, (16, 64)).astype(a_type)
    B = rng.integers(b_lo, b_hi, (16, 64)).astype(b_type)
    C = rng.integers(-(10**6), 10**6, (16, 16)).astype(np.int32)
    expected = reference_dot(A, B, C)
    kernel(C, A, B)
    assert np.array_equal(C, expected)


def test_tiles_are_checked_and_limited_to_eight():
    @proc
    def too_many(A: i8[16, 64]):
        t0: i8[16, 64] @ AMX_TILE
        t1: i8[16, 64] @ AMX_TILE
        t2: i8[16, 64] @ AMX_TILE
        t3: i8[16, 64] @ AMX_TILE
        t4: i8[16, 64] @ AMX_TILE
        t5: i8[16, 64] @ AMX_TILE
        t6: i8[16, 64] @ AMX_TILE
        t7: i8[16, 64] @ AMX_TILE
        t8: i8[16, 64] @ AMX_TILE
        amx_ld_i8(t0, A)
        amx_ld_i8(t1, A)
        amx_ld_i8(t2, A)
        amx_ld_i8(t3, A)
        amx_ld_i8(t4, A)
        amx_ld_i8(t5, A)
        amx_ld_i8(t6, A)
        amx_ld_i8(t7, A)
        amx_ld_i8(t8, A)

    with pytest.raises(Exception, match="(?i)tile|chunk|free|memory"):
        too_many.c_code_str()
    AMX_TILE.reset_allocations()

    assert amx_tile_config.is_instr() and amx_request_permission.is_instr()
    assert amx_tile_release.is_instr()
