"""exo2.platforms.gemmini (docs/platform-sve-gemmini-amx.md): Exo's Gemmini
library under its names. Every instruction is held to its recorded printed
text and template (golden/platform_gemmini.json; regenerate a deliberate
change with EXO2_REGEN_GOLDEN=1 and review the diff); code written as an
instruction's body is what `replace` selects it for; a scheduled tile kernel
generates the Gemmini calls and compiles against a stub of Gemmini's header
(syntax only: no Gemmini here); the bodies of the arithmetic instructions
run through the JIT as plain procedures and match NumPy; scheduled kernels
run on exo2's software model of the Gemmini functions (gemmini_emulator/)
and match NumPy."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import exo2
import exo2.platforms.gemmini as gemmini
import numpy as np
import pytest
from exo2 import Procedure, compile_procs_to_strings, proc
from exo2.platforms.gemmini import (
    GEMM_ACCUM,
    GEMM_SCRATCH,
    ConfigLoad,
    ConfigMatmul,
    ConfigStore,
    acc_scale,
    clamp,
    ld_acc_i32,
    ld_i8,
    ld_i8_id1,
    ld_i8_id2,
    matmul_acc_i8,
    relu,
    st_acc_i8,
    st_acc_i32,
    zero_acc_i32,
)
from exo2.stdlib.scheduling import call_eqv, inline, replace, simplify

GOLDEN = Path(__file__).parent / "golden" / "platform_gemmini.json"

# The names Exo 1.0's module defines that programs import (instructions,
# configurations, memories, scheduling helpers).
EXO_NAMES = """
acc_scale clamp config_ld_i8 config_ld_i8_id1 config_ld_i8_id2
config_ld_i8_s2_id1 config_ld_acc_i32_vector config_matmul config_st_acc_i8
config_zero do_ld_acc_i32 do_ld_acc_i32_vector do_ld_i8 do_ld_i8_block_id1
do_ld_i8_block_id2 do_ld_i8_id1 do_ld_i8_id2 do_ld_i8_s2_id1 do_ld_i8_vector
do_matmul_acc_i8 do_matmul_i8 do_st_acc_i8 do_zero_acc_i32 do_zero_i8
do_zero_i8_vector ld_acc_i32 ld_acc_i32_vector ld_acc_i32_vector_v2 ld_acc_i8
ld_i8 ld_i8_block ld_i8_block_id1 ld_i8_block_id1_s2_v2 ld_i8_block_id1_v2
ld_i8_block_id2 ld_i8_block_id2_s2_v2 ld_i8_block_id2_v2 ld_i8_id1
ld_i8_id1_s2_v2 ld_i8_id1_v2 ld_i8_id2 ld_i8_id2_s2_v2 ld_i8_id2_v2 ld_i8_s2
ld_i8_v2 ld_i8_vector matmul_acc_i8 matmul_acc_i8_v2 matmul_i8 matmul_i8_v2
st_acc_i32 st_acc_i8 st_acc_i8_s2_v2 st_acc_i8_v2 st_i8 zero_acc_i32
zero_acc_i32_v2 zero_block_id2 zero_i8 zero_i8_v2 zero_i8_vector
zero_i8_vector_v2
ConfigLoad ConfigLoad_id1 ConfigLoad_id2 ConfigLoadAcc ConfigStore ConfigMatmul
GEMM_SCRATCH GEMM_ACCUM DRAM proc instr config select relu
lift_config set_prec_mem old_split old_reorder old_unroll old_fission_after
old_lift_alloc
""".split()


def procedures():
    return {
        name: value
        for name, value in sorted(vars(gemmini).items())
        if isinstance(value, Procedure)
        and value.__module__ != "exo2.stdlib"
        and name in EXO_NAMES
    }


def record(p):
    return {
        "proc": str(p),
        "c_instr": p._proc.c_instr() if p.is_instr() else None,
    }


LIVE = {name: record(p) for name, p in procedures().items()}
if os.environ.get("EXO2_REGEN_GOLDEN"):
    GOLDEN.write_text(json.dumps(LIVE, indent=1, sort_keys=True) + "\n")
RECORDED = json.loads(GOLDEN.read_text())


def test_module_exports_exo_names():
    missing = [n for n in EXO_NAMES if not hasattr(gemmini, n)]
    assert missing == []
    namespace = {}
    exec("from exo2.platforms.gemmini import *", namespace)
    assert namespace["matmul_acc_i8"] is matmul_acc_i8
    assert namespace["GEMM_SCRATCH"] is GEMM_SCRATCH
    assert callable(namespace["divide_loop"])  # Exo's star-imported scheduling


def test_every_procedure_is_recorded():
    assert sorted(LIVE) == sorted(RECORDED)
    assert len(LIVE) == 62


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_procedure_prints_as_recorded(name):
    assert LIVE[name] == RECORDED[name]


# --------------------------------------------------------------------------
# replace: code written as the body selects the instruction


def body_procs(tmp_path, names):
    """For each instruction, a procedure whose body is the instruction's
    (its printed text without the template comment), read from a file."""
    texts = []
    for name in names:
        lines = [
            x
            for x in str(getattr(gemmini, name)).splitlines()
            if not x.lstrip().startswith("#")
        ]
        # exo2 prints `act: bool @ DRAM`, which its parser refuses.
        text = "\n".join(lines).replace("bool @ DRAM", "bool")
        texts.append("@proc\n" + text.replace("def ", "def body_", 1))
    path = tmp_path / "gemmini_bodies.py"
    path.write_text(
        "from __future__ import annotations\n"
        "from exo2 import proc\n"
        "from exo2.platforms.gemmini import *\n\n" + "\n\n".join(texts) + "\n"
    )
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return {name: getattr(loaded, "body_" + name) for name in names}


LOOP_INSTRUCTIONS = [
    name
    for name, p in procedures().items()
    if p.is_instr()
    and "\n    for " in str(p)
    # exo2's unification does not match a configuration field passed to a
    # call (`acc_scale(..., ConfigStore.scale)`) with itself; Exo's programs
    # reach do_st_acc_i8 by call_eqv + inline, never by replace.
    and name != "do_st_acc_i8"
]


def test_each_loop_instruction_replaces_code_written_as_its_body(tmp_path):
    assert len(LOOP_INSTRUCTIONS) >= 30
    bodies = body_procs(tmp_path, LOOP_INSTRUCTIONS)
    for name in LOOP_INSTRUCTIONS:
        instruction = getattr(gemmini, name)
        body = bodies[name]
        p = replace(body, body.body(), instruction)
        text = str(p)
        assert f"    {name}(" in text and "for " not in text, text


@proc
def tile_matmul(A: i8[16, 16], B: i8[16, 16], C: i8[16, 16], scale: f32):
    a: i8[16, 16] @ GEMM_SCRATCH
    b: i8[16, 16] @ GEMM_SCRATCH
    acc: i32[16, 16] @ GEMM_ACCUM
    for i in seq(0, 16):
        for j in seq(0, 16):
            a[i, j] = A[i, j]
    for i in seq(0, 16):
        for j in seq(0, 16):
            b[i, j] = B[i, j]
    for i in seq(0, 16):
        for j in seq(0, 16):
            acc[i, j] = 0.0
    for i in seq(0, 16):
        for j in seq(0, 16):
            for k in seq(0, 16):
                x: i32
                y: i32
                x = a[i, k]
                y = b[k, j]
                acc[i, j] += x * y
    for i in seq(0, 16):
        for j in seq(0, 16):
            src_tmp: i32
            src_tmp = acc[i, j]
            tmp: f32
            acc_scale(src_tmp, tmp, scale)
            tmp2: i8
            clamp(tmp, tmp2)
            if False == True:  # noqa: E712 (the body of st_acc_i8, act = False)
                tmp2 = relu(tmp2)
            C[i, j] = tmp2


def scheduled_tile_matmul():
    p = tile_matmul
    p = replace(p, "for i in _:_ #0", ld_i8)
    p = replace(p, "for i in _:_ #0", ld_i8)
    p = replace(p, "for i in _:_ #0", zero_acc_i32)
    p = replace(p, "for i in _:_ #0", matmul_acc_i8)
    p = replace(p, "for i in _:_ #0", st_acc_i8)
    return p


def test_replace_schedules_a_tile_onto_gemmini():
    p = scheduled_tile_matmul()
    assert str(p).splitlines()[-5:] == [
        "    ld_i8(16, 16, A[0:16, 0:16], a[0:16, 0:16])",
        "    ld_i8(16, 16, B[0:16, 0:16], b[0:16, 0:16])",
        "    zero_acc_i32(16, 16, acc[0:16, 0:16])",
        "    matmul_acc_i8(16, 16, 16, a[0:16, 0:16], b[0:16, 0:16], acc[0:16, 0:16])",
        "    st_acc_i8(16, 16, scale, False, acc[0:16, 0:16], C[0:16, 0:16])",
    ]
    c = p.c_code_str()
    for call in (
        "gemmini_extended3_config_ld(",
        "gemmini_extended_mvin(",
        "gemmini_extended_preload(",
        "gemmini_extended_compute_preloaded(",
        "gemmini_extended_config_st(",
        "gemmini_extended_mvout(",
    ):
        assert call in c


def test_v2_forms_split_configuration_from_the_move():
    """Exo's Gemmini schedules swap an instruction for its `_v2` form, inline
    it and hoist the configuration call (`lift_config`)."""
    p = scheduled_tile_matmul()
    p = call_eqv(p, "zero_acc_i32(_)", gemmini.zero_acc_i32_v2)
    p = inline(p, "zero_acc_i32_v2(_)")
    p = call_eqv(p, "matmul_acc_i8(_)", gemmini.matmul_acc_i8_v2)
    p = inline(p, "matmul_acc_i8_v2(_)")
    p = call_eqv(p, "st_acc_i8(_)", gemmini.st_acc_i8_v2)
    p = inline(p, "st_acc_i8_v2(_)")
    p = simplify(p)
    text = str(p)
    for call in (
        "config_zero()\n    do_zero_acc_i32(16, 16, ",
        "config_matmul()\n    do_matmul_acc_i8(16, 16, 16, ",
        "config_st_acc_i8(scale, stride(",
        "do_st_acc_i8(16, 16, ",
    ):
        assert call in text, text
    c = p.c_code_str()
    assert "gemmini_extended_config_ex(WS, 0, 0, 1, 0, 0);" in c
    assert "gemmini_extended_config_st(" in c and "(false), (scale)[0]);" in c
    assert ConfigLoad.name() == "ConfigLoad"
    assert ConfigMatmul.name() == "ConfigMatmul"
    assert ConfigStore.name() == "ConfigStore"


# --------------------------------------------------------------------------
# the C compiles against a stub of Gemmini's header

GEMMINI_STUB = """\
#include <stdint.h>
#include <stdbool.h>
#define WS 1
#define ACC_SCALE(x, s) ((float)(x) * (s))
void exo2_stub_config_ld(uint64_t, float, int, int, int);
void exo2_stub_move(uint64_t, uint64_t, int, int);
void exo2_stub_config_st(uint64_t, int, float);
void exo2_stub_config_ex(int, int, int, int, int, int);
#define gemmini_extended3_config_ld(s, f, k, i) exo2_stub_config_ld((s), (f), (k), 0, (i))
#define gemmini_extended4_config_ld(s, f, k, r, i) exo2_stub_config_ld((s), (f), (k), (r), (i))
#define gemmini_extended_mvin(s, d, c, r) exo2_stub_move((uint64_t)(s), (uint64_t)(d), (c), (r))
#define gemmini_extended_mvin2 gemmini_extended_mvin
#define gemmini_extended_mvin3 gemmini_extended_mvin
#define gemmini_extended_mvout(d, s, c, r) exo2_stub_move((uint64_t)(d), (uint64_t)(s), (c), (r))
#define gemmini_extended_config_st(s, a, f) exo2_stub_config_st((s), (a), (f))
#define gemmini_extended_config_ex(a, b, c, d, e, f) exo2_stub_config_ex(a, b, c, d, e, f)
#define gemmini_extended_preload(b, c, m1, k, m2, n) exo2_stub_move((b), (c), (k), (n))
#define gemmini_extended_compute_preloaded(a, z, k, n, r, c) exo2_stub_move((a), (z), (k), (n))
"""


def test_generated_c_compiles_against_a_gemmini_header_stub(tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "gemmini.h").write_text(GEMMINI_STUB)
    (tmp_path / "gemm_malloc.h").write_text(
        "#include <stdint.h>\nuint64_t gemm_malloc(unsigned long);\n"
        "void gemm_free(uint64_t);\n"
    )
    (tmp_path / "gemm_acc_malloc.h").write_text(
        "#include <stdint.h>\nuint32_t gemm_acc_malloc(unsigned long);\n"
        "void gemm_acc_free(uint32_t);\n"
    )
    c_text, h_text = compile_procs_to_strings([scheduled_tile_matmul()], "tile.h")
    (tmp_path / "tile.h").write_text(h_text)
    (tmp_path / "tile.c").write_text(c_text)
    result = subprocess.run(
        ["gcc", "-fsyntax-only", "-Wall", "-Werror=implicit-function-declaration"]
        + ["-Wno-unused-variable", "-Wno-int-to-pointer-cast", f"-I{tmp_path}"]
        + [str(tmp_path / "tile.c")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------
# the bodies' semantics, run as plain procedures


def dram_body(name, tmp_path):
    """The instruction's body as a procedure on DRAM buffers (without the
    stride preconditions, which describe the scratchpad's row addressing)."""
    text = "\n".join(
        x
        for x in str(getattr(gemmini, name)).splitlines()
        if not x.lstrip().startswith(("#", "assert stride("))
    )
    text = text.replace("@ GEMM_SCRATCH", "@ DRAM").replace("@ GEMM_ACCUM", "@ DRAM")
    text = text.replace("bool @ DRAM", "bool")
    path = tmp_path / f"dram_{name}.py"
    path.write_text(
        "from __future__ import annotations\n"
        "from exo2 import proc\n"
        "from exo2.platforms.gemmini import *\n\n@proc\n"
        + text.replace("def ", "def dram_", 1)
        + "\n"
    )
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return getattr(loaded, "dram_" + name)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def ints(rng, shape, dtype=np.int8, lo=-128, hi=127):
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("accumulate", [False, True])
def test_matmul_bodies_compute_a_tile_product(accumulate, rng, tmp_path):
    name = "matmul_acc_i8" if accumulate else "matmul_i8"
    kernel = exo2.jit(dram_body(name, tmp_path))
    N, M, K = 13, 11, 16
    A = ints(rng, (N, 16))
    B = ints(rng, (K, 16))
    C = ints(rng, (N, 16), np.int32, -1000, 1000)
    expected = C.copy()
    product = A[:, :K].astype(np.int32) @ B[:, :M].astype(np.int32)
    expected[:, :M] = product + (C[:, :M] if accumulate else 0)
    kernel(N, M, K, A, B, C)
    assert np.array_equal(C, expected)


@pytest.mark.parametrize("act", [False, True])
def test_st_acc_i8_body_scales_clamps_and_activates(act, rng, tmp_path):
    kernel = exo2.jit(
        dram_body("st_acc_i8", tmp_path),
        extra_cflags=["-DACC_SCALE(x,s)=((float)(x)*(s))"],
    )
    n, m = 9, 16
    src = ints(rng, (n, 16), np.int32, -3000, 3000)
    dst = np.zeros((n, m), np.int8)
    scale = np.array(0.125, np.float32)
    kernel(n, m, scale, act, src, dst)
    expected = np.trunc(np.clip(src[:, :m] * np.float32(0.125), -128, 127))
    if act:
        expected = np.maximum(expected, 0)
    assert np.array_equal(dst, expected.astype(np.int8))


def test_block_and_strided_load_bodies(rng, tmp_path):
    block = exo2.jit(dram_body("ld_i8_block", tmp_path))
    n, m = 7, 3
    src = ints(rng, (n, 16 * m))
    dst = np.zeros((m, n, 16), np.int8)
    block(n, m, src, dst)
    assert np.array_equal(dst, src.reshape(n, m, 16).transpose(1, 0, 2))

    strided = exo2.jit(dram_body("ld_i8_s2", tmp_path))
    n, m = 5, 12
    src = ints(rng, (2 * n - 1, m))
    dst = np.zeros((n, 16), np.int8)
    strided(n, m, src, dst)
    assert np.array_equal(dst[:, :m], src[::2])
    assert not dst[:, m:].any()


# --------------------------------------------------------------------------
# scheduled kernels run on a software model of Gemmini (gemmini_emulator/,
# exo2's own model of the functions the templates call)

EMULATOR = Path(__file__).parent / "gemmini_emulator"


def on_emulator(p):
    return exo2.jit(p, extra_cflags=[f"-I{EMULATOR}", "-Wno-int-to-pointer-cast"])


def scaled_i8(acc, scale, act):
    out = np.trunc(np.clip(acc * np.float32(scale), -128, 127))
    return (np.maximum(out, 0) if act else out).astype(np.int8)


def test_scheduled_tile_runs_on_the_gemmini_model(rng):
    kernel = on_emulator(scheduled_tile_matmul())
    A = ints(rng, (16, 16))
    B = ints(rng, (16, 16))
    C = np.zeros((16, 16), np.int8)
    kernel(A, B, C, np.array(0.01, np.float32))
    product = A.astype(np.int32) @ B.astype(np.int32)
    assert np.array_equal(C, scaled_i8(product, 0.01, False))


@proc
def accumulate_tiles(
    n: size, A: i8[n, 16, 16], B: i8[n, 16, 16], bias: i32[16, 16], C: i32[16, 16]
):
    assert n >= 1
    a: i8[16, 16] @ GEMM_SCRATCH
    b: i8[16, 16] @ GEMM_SCRATCH
    acc: i32[16, 16] @ GEMM_ACCUM
    ld_acc_i32(16, 16, bias, acc)
    for t in seq(0, n):
        ld_i8_id1(16, 16, A[t, :, :], a)
        ld_i8_id2(16, 16, B[t, :, :], b)
        matmul_acc_i8(16, 16, 16, a, b, acc)
    st_acc_i32(16, 16, acc, C)


def test_accumulating_kernel_and_its_v2_schedule_run_on_the_gemmini_model(rng):
    """The accumulator path (i32 loads, += products, full i32 store), as
    written and after swapping in the `_v2` forms and hoisting their
    configuration out of the loop (`lift_config`)."""
    p = call_eqv(accumulate_tiles, "matmul_acc_i8(_)", gemmini.matmul_acc_i8_v2)
    p = inline(p, "matmul_acc_i8_v2(_)")
    p = gemmini.lift_config(p, "config_matmul()")
    assert str(p).index("config_matmul()") < str(p).index("for t in seq")
    n = 3
    A = ints(rng, (n, 16, 16))
    B = ints(rng, (n, 16, 16))
    bias = ints(rng, (16, 16), np.int32, -5000, 5000)
    expected = bias + np.einsum(
        "tik,tkj->ij", A.astype(np.int32), B.astype(np.int32)
    ).astype(np.int32)
    for kernel in (accumulate_tiles, p):
        C = np.zeros((16, 16), np.int32)
        on_emulator(kernel)(n, A, B, bias, C)
        assert np.array_equal(C, expected)


@proc
def partial_tile(A: i8[12, 10], B: i8[10, 7], C: i8[12, 7], scale: f32, act: bool):
    a: i8[12, 16] @ GEMM_SCRATCH
    b: i8[10, 16] @ GEMM_SCRATCH
    acc: i32[12, 16] @ GEMM_ACCUM
    zero_acc_i32(12, 7, acc)
    ld_i8(12, 10, A, a)
    ld_i8(10, 7, B, b)
    matmul_acc_i8(12, 7, 10, a, b, acc)
    st_acc_i8(12, 7, scale, act, acc, C)


def test_partial_tiles_and_relu_run_on_the_gemmini_model(rng):
    A = ints(rng, (12, 10), lo=-20, hi=20)
    B = ints(rng, (10, 7), lo=-20, hi=20)
    C = np.zeros((12, 7), np.int8)
    on_emulator(partial_tile)(A, B, C, np.array(0.5, np.float32), True)
    product = A.astype(np.int32) @ B.astype(np.int32)
    assert np.array_equal(C, scaled_i8(product, 0.5, True))
