"""exo2.platforms.sve_vla and sve_vls (docs/platform-sve-gemmini-amx.md):
Arm SVE instruction libraries, vector-length agnostic and specific. Every
instruction is held to its recorded printed text and template
(golden/platform_sve.json; regenerate a deliberate change with
EXO2_REGEN_GOLDEN=1 and review the diff); each is called from a kernel whose
C is compiled for SVE (clang --target=aarch64-linux-gnu, syntax only, or
aarch64-linux-gnu-gcc; skipped without either: this machine cannot run
SVE); code written as an instruction's body is what `replace` selects it
for; the memories refuse what they cannot hold."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import exo2.platforms.sve_vla as sve_vla
import exo2.platforms.sve_vls as sve_vls
import pytest
from exo2 import Procedure, compile_procs_to_strings, proc
from exo2.core.memory import MemGenError
from exo2.platforms.sve_vla import SVE_VLA
from exo2.platforms.sve_vls import SVE_VLS
from exo2.stdlib.scheduling import replace, simplify

GOLDEN = Path(__file__).parent / "golden" / "platform_sve.json"
MODULES = {"sve_vla": sve_vla, "sve_vls": sve_vls}


def instructions(module):
    prefix = module.__name__.rsplit(".", 1)[1] + "_"
    return {
        name: value
        for name, value in sorted(vars(module).items())
        if name.startswith(prefix) and isinstance(value, Procedure)
    }


def record(p):
    return {"proc": str(p), "c_instr": p._proc.c_instr()}


LIVE = {
    key: {name: record(p) for name, p in instructions(module).items()}
    for key, module in MODULES.items()
}
if os.environ.get("EXO2_REGEN_GOLDEN"):
    GOLDEN.write_text(json.dumps(LIVE, indent=1, sort_keys=True) + "\n")
RECORDED = json.loads(GOLDEN.read_text())


def test_every_instruction_is_recorded():
    for key in MODULES:
        assert sorted(LIVE[key]) == sorted(RECORDED[key])
    assert len(LIVE["sve_vla"]) == 3 * 19
    assert len(LIVE["sve_vls"]) == 9 * 19


@pytest.mark.parametrize(
    "key, name", [(k, n) for k in sorted(RECORDED) for n in sorted(RECORDED[k])]
)
def test_instruction_prints_as_recorded(key, name):
    assert LIVE[key][name] == RECORDED[key][name]


def test_star_import_gives_instructions_and_memory():
    namespace = {}
    exec("from exo2.platforms.sve_vls import *", namespace)
    assert namespace["SVE_VLS"] is SVE_VLS
    assert namespace["sve_vls_vfmadd_8xf32_8xf32"] is sve_vls.sve_vls_vfmadd_8xf32_8xf32
    exec("from exo2.platforms.sve_vla import *", namespace)
    assert namespace["SVE_VLA"] is SVE_VLA
    assert "DRAM" in namespace and "instr" in namespace


# --------------------------------------------------------------------------
# the C compiles for SVE

SVE_PROBE = "#include <arm_sve.h>\nsvfloat32_t f(float *p) { return svld1_f32(svptrue_b32(), p); }\n"


def sve_compiler(tmp_path):
    """The command compiling C for SVE (syntax only), or a skip."""
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    (stubs / "stdio.h").write_text("")
    (stubs / "stdlib.h").write_text(
        "void *malloc(unsigned long);\nvoid free(void *);\n"
    )
    candidates = []
    if shutil.which("clang"):
        candidates.append(
            ["clang", "--target=aarch64-linux-gnu", "-ffreestanding", "-nostdlibinc"]
            + [f"-I{stubs}"]
        )
    if shutil.which("aarch64-linux-gnu-gcc"):
        candidates.append(["aarch64-linux-gnu-gcc"])
    if not candidates:
        pytest.skip("neither clang nor aarch64-linux-gnu-gcc is installed")
    problems = []
    for cc in candidates:
        ok, err = compiles(cc, 128, SVE_PROBE)
        if ok:
            return cc
        problems.append(err[-200:])
    pytest.skip(f"no compiler here compiles SVE intrinsics: {problems}")


def compiles(cc, bits, source):
    result = subprocess.run(
        cc
        + ["-march=armv8-a+sve", f"-msve-vector-bits={bits}", "-fsyntax-only"]
        + ["-Werror=implicit-function-declaration", "-x", "c", "-"],
        input=source,
        capture_output=True,
        text=True,
    )
    return result.returncode == 0, result.stderr


def caller_source(instruction, memory):
    """A kernel calling `instruction` once: its register arguments are local
    registers, its DRAM buffers and scalars parameters, lanes 0, n 1."""
    params, locals_, args = [], [], []
    for arg in instruction.args():
        name = arg.name()
        typ = arg.type().name.lower()
        if arg.is_tensor():
            shape = ", ".join(str(d.value()) for d in arg.shape())
            if arg.mem() is memory:
                locals_.append(f"{name}: {typ}[{shape}] @ {memory.__name__}")
            else:
                params.append(f"{name}: {typ}[{shape}]")
            args.append(name)
        elif typ == "index":
            args.append("0")
        elif typ == "size":
            args.append("1")
        else:
            params.append(f"{name}: {typ}")
            args.append(name)
    body = "\n".join(locals_ + [f"{instruction.name()}({', '.join(args)})"])
    return (
        f"@proc\ndef call_{instruction.name()}({', '.join(params)}):\n"
        + textwrap.indent(body, "    ")
        + "\n"
    )


def load_procs(module_name, source, tmp_path, stem, prefix):
    path = tmp_path / f"{stem}.py"
    path.write_text(
        "from __future__ import annotations\nfrom exo2 import proc\n"
        f"from exo2.platforms.{module_name} import *\n\n" + source
    )
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return {k: v for k, v in vars(loaded).items() if k.startswith(prefix)}


def lanes_bits(instruction):
    """The register bits of an instruction's registers (sve_vls)."""
    for arg in instruction.args():
        if arg.is_tensor() and arg.mem() is SVE_VLS:
            width = {"f16": 16, "f32": 32, "f64": 64}[arg.type().name.lower()]
            return arg.shape()[-1].value() * width
    raise AssertionError(instruction.name())


@pytest.mark.parametrize("key, bits", [("sve_vla", 128), ("sve_vla", 512)])
def test_every_vla_instruction_compiles_for_any_vector_length(key, bits, tmp_path):
    cc = sve_compiler(tmp_path)
    source = "\n".join(
        caller_source(i, SVE_VLA) for i in instructions(sve_vla).values()
    )
    callers = load_procs(key, source, tmp_path, f"callers_{bits}", "call_")
    assert len(callers) == 57
    c_text, h_text = compile_procs_to_strings(list(callers.values()), "callers.h")
    ok, err = compiles(cc, bits, h_text + c_text.replace('#include "callers.h"', ""))
    assert ok, err


@pytest.mark.parametrize("bits", [128, 256, 512])
def test_every_vls_instruction_compiles_for_its_vector_length(bits, tmp_path):
    cc = sve_compiler(tmp_path)
    chosen = [i for i in instructions(sve_vls).values() if lanes_bits(i) == bits]
    assert len(chosen) == 57
    source = "\n".join(caller_source(i, SVE_VLS) for i in chosen)
    callers = load_procs("sve_vls", source, tmp_path, f"callers_{bits}", "call_")
    c_text, h_text = compile_procs_to_strings(list(callers.values()), "callers.h")
    source = h_text + c_text.replace('#include "callers.h"', "")
    ok, err = compiles(cc, bits, source)
    assert ok, err
    # Registers of another length stop the compilation with a message.
    other = 256 if bits != 256 else 512
    ok, err = compiles(cc, other, source)
    assert not ok and f"needs -msve-vector-bits={bits}" in err


# --------------------------------------------------------------------------
# replace


@pytest.mark.parametrize("key", sorted(MODULES))
def test_each_instruction_replaces_code_written_as_its_body(key, tmp_path):
    module = MODULES[key]
    texts = []
    for name, instruction in instructions(module).items():
        lines = [x for x in str(instruction).splitlines() if "# @instr" not in x]
        texts.append("@proc\n" + "\n".join(lines).replace("def ", "def body_", 1))
    bodies = load_procs(key, "\n\n".join(texts) + "\n", tmp_path, "bodies", "body_")
    for name, instruction in instructions(module).items():
        body = bodies["body_" + name]
        p = replace(body, body.body(), instruction)
        text = str(p)
        assert f"    {name}(" in text and "for " not in text, text


@proc
def axpy_rows(n: size, a: f32[1], x: f32[n, 8], y: f32[n, 8]):
    for i in seq(0, n):
        xv: f32[8] @ SVE_VLS
        yv: f32[8] @ SVE_VLS
        for j in seq(0, 8):
            xv[j] = x[i, j]
        for j in seq(0, 8):
            yv[j] = y[i, j]
        for j in seq(0, 8):
            yv[j] += xv[j] * a[0]
        for j in seq(0, 8):
            y[i, j] = yv[j]


@proc
def axpy_tail(m: size, a: f32[1], x: f32[4], y: f32[4]):
    assert m <= 4
    xv: f32[4] @ SVE_VLA
    yv: f32[4] @ SVE_VLA
    av: f32[4] @ SVE_VLA
    for j in seq(0, m):
        xv[j] = x[j]
    for j in seq(0, m):
        yv[j] = y[j]
    for j in seq(0, 4):
        av[j] = a[0]
    for j in seq(0, m):
        yv[j] += xv[j] * av[j]
    for j in seq(0, m):
        y[j] = yv[j]


def scheduled_axpys():
    p = axpy_rows
    p = replace(p, "for j in _:_ #0", sve_vls.sve_vls_vld_8xf32)
    p = replace(p, "for j in _:_ #0", sve_vls.sve_vls_vld_8xf32)
    p = replace(p, "for j in _:_ #0", sve_vls.sve_vls_vfmadd_8xf32_1xf32)
    p = replace(p, "for j in _:_ #0", sve_vls.sve_vls_vst_8xf32)
    q = axpy_tail
    q = replace(q, "for j in _:_ #0", sve_vla.sve_vla_vld_4xf32_pred)
    q = replace(q, "for j in _:_ #0", sve_vla.sve_vla_vld_4xf32_pred)
    q = replace(q, "for j in _:_ #0", sve_vla.sve_vla_broadcast_4xf32)
    q = replace(q, "for j in _:_ #0", sve_vla.sve_vla_vfmadd_4xf32_4xf32_pred)
    q = replace(q, "for j in _:_ #0", sve_vla.sve_vla_vst_4xf32_pred)
    return simplify(p), simplify(q)


def test_replace_schedules_kernels_onto_sve():
    p, q = scheduled_axpys()
    assert str(p).splitlines()[-4:] == [
        "        sve_vls_vld_8xf32(xv[0:8], x[i, 0:8])",
        "        sve_vls_vld_8xf32(yv[0:8], y[i, 0:8])",
        "        sve_vls_vfmadd_8xf32_1xf32(yv[0:8], xv[0:8], a[0:1])",
        "        sve_vls_vst_8xf32(y[i, 0:8], yv[0:8])",
    ]
    assert str(q).splitlines()[-5:] == [
        "    sve_vla_vld_4xf32_pred(xv[0:4], x[0:4], m)",
        "    sve_vla_vld_4xf32_pred(yv[0:4], y[0:4], m)",
        "    sve_vla_broadcast_4xf32(av[0:4], a[0:1])",
        "    sve_vla_vfmadd_4xf32_4xf32_pred(yv[0:4], xv[0:4], av[0:4], m)",
        "    sve_vla_vst_4xf32_pred(y[0:4], yv[0:4], m)",
    ]
    c = p.c_code_str()
    assert "exo2_sve_vls_f32 xv;" in c
    assert "xv = svld1_f32(svptrue_b32(), &x[(i) * 8]);" in c
    assert "yv = svmla_n_f32_x(svptrue_b32(), yv, xv, a[0]);" in c
    assert "svst1_f32(svptrue_b32(), &y[(i) * 8], yv);" in c
    d = q.c_code_str()
    assert "svfloat32_t xv;" in d
    assert "svst1_f32(svwhilelt_b32_s64(0, (m)), &y[0], yv);" in d


def test_scheduled_kernels_compile_for_sve(tmp_path):
    cc = sve_compiler(tmp_path)
    p, q = scheduled_axpys()
    for kernel, bits in ((p, 256), (q, 512)):
        c_text, h_text = compile_procs_to_strings([kernel], "k.h")
        ok, err = compiles(cc, bits, h_text + c_text.replace('#include "k.h"', ""))
        assert ok, err


# --------------------------------------------------------------------------
# memories


def test_vla_memory_holds_one_sizeless_register():
    @proc
    def block(x: f32[2, 4]):
        v: f32[2, 4] @ SVE_VLA
        for i in seq(0, 2):
            sve_vla.sve_vla_vld_4xf32(v[i, 0:4], x[i, 0:4])

    with pytest.raises(MemGenError, match="cannot form arrays"):
        block.c_code_str()

    @proc
    def wide(x: f32[8]):
        v: f32[8] @ SVE_VLA
        for i in seq(0, 8):
            v[i] = x[i]

    with pytest.raises(MemGenError, match="must be 4-wide"):
        wide.c_code_str()


def test_vls_memory_holds_arrays_of_registers_of_a_supported_length():
    @proc
    def block(x: f32[2, 16]):
        v: f32[2, 16] @ SVE_VLS
        for i in seq(0, 2):
            sve_vls.sve_vls_vld_16xf32(v[i, 0:16], x[i, 0:16])

    c = block.c_code_str()
    assert "exo2_sve_vls_f32 v[2];" in c
    assert "__ARM_FEATURE_SVE_BITS == 512" in c

    @proc
    def odd(x: f32[6]):
        v: f32[6] @ SVE_VLS
        for i in seq(0, 6):
            v[i] = x[i]

    with pytest.raises(MemGenError, match="4, 8, 16 lanes wide"):
        odd.c_code_str()
