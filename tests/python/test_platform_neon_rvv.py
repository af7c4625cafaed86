"""exo2.platforms.neon and exo2.platforms.rvv (docs/platform-neon.md): Exo's
Arm Neon and RISC-V vector libraries. Each instruction is called from a
kernel whose C is compiled for its target with clang (syntax only: this
machine cannot run it); each instruction's body unifies with a loop written
as its body (what `replace` does with user code); the memories refuse what
they cannot hold."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import textwrap

import pytest
from exo2 import compile_procs_to_strings, proc
from exo2.core.memory import MemGenError
from exo2.platforms import neon, rvv
from exo2.platforms.neon import (
    Neon,
    neon_vfmla_4xf32_4xf32,
    neon_vld_4xf32,
    neon_vld_8xf16,
    neon_vst_8xf16,
)
from exo2.platforms.rvv import RVV, rvv_vfmacc_4xf32_4xf32, rvv_vld_4xf32
from exo2.stdlib.scheduling import replace

TARGETS = {
    "neon": ["--target=aarch64-linux-gnu", "-march=armv8.2-a+fp16"],
    "rvv": ["--target=riscv64-linux-gnu", "-march=rv64gcv"],
}


def instructions(module):
    return [
        value
        for name, value in vars(module).items()
        if name.startswith(module.__name__.rsplit(".", 1)[1] + "_")
    ]


def caller_source(instruction, memory):
    """A kernel calling `instruction` once: its vector arguments are local
    registers, its DRAM buffers and scalars are parameters, lanes are 0 and
    lengths their maximum."""
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
            args.append("4")
        else:
            params.append(f"{name}: {typ}")
            args.append(name)
    body = "\n".join(locals_ + [f"{instruction.name()}({', '.join(args)})"])
    return (
        f"@proc\ndef call_{instruction.name()}({', '.join(params)}):\n"
        + textwrap.indent(body, "    ")
        + "\n"
    )


def load_callers(module, memory, tmp_path):
    """The callers of every instruction of `module`, as kernels read from a
    file (the frontend parses source files)."""
    header = (
        "from __future__ import annotations\n"
        "from exo2 import proc\n"
        f"from {module.__name__} import *\n\n"
    )
    source = header + "\n".join(caller_source(i, memory) for i in instructions(module))
    path = tmp_path / f"callers_{memory.__name__}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return [v for k, v in vars(loaded).items() if k.startswith("call_")]


def compiles_for(target, c_source, tmp_path):
    """Whether clang compiles `c_source` for `target` (syntax only, without
    the target's C library: stdio.h and stdlib.h are stubs)."""
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    (stubs / "stdio.h").write_text("")
    (stubs / "stdlib.h").write_text(
        "void *malloc(unsigned long);\nvoid free(void *);\n"
    )
    result = subprocess.run(
        ["clang", *TARGETS[target], "-ffreestanding", "-nostdlibinc", f"-I{stubs}"]
        + ["-fsyntax-only", "-Werror=implicit-function-declaration", "-x", "c", "-"],
        input=c_source,
        capture_output=True,
        text=True,
    )
    return result.returncode == 0, result.stderr


def require_target(target, probe, tmp_path):
    if shutil.which("clang") is None:
        pytest.skip("clang is not installed")
    ok, err = compiles_for(target, probe, tmp_path)
    if not ok:
        pytest.skip(f"this clang cannot compile {target} intrinsics: {err[-300:]}")


@pytest.mark.parametrize(
    "module, memory, probe",
    [
        (
            neon,
            Neon,
            "#include <arm_neon.h>\nfloat32x4_t f(float *p) { return vld1q_f32(p); }\n",
        ),
        (
            rvv,
            RVV,
            "#include <stddef.h>\n#include <riscv_vector.h>\n"
            "vfloat32m1_t f(float *p) { return __riscv_vle32_v_f32m1(p, 4); }\n",
        ),
    ],
    ids=["neon", "rvv"],
)
def test_every_instruction_compiles_for_its_target(module, memory, probe, tmp_path):
    target = module.__name__.rsplit(".", 1)[1]
    callers = load_callers(module, memory, tmp_path)
    assert len(callers) == len(instructions(module)) >= 8
    c_text, h_text = compile_procs_to_strings(callers, "callers.h")
    require_target(target, probe, tmp_path)
    source = h_text + "\n" + c_text.replace('#include "callers.h"', "")
    ok, err = compiles_for(target, source, tmp_path)
    assert ok, err


def body_procs(module, tmp_path):
    """For each instruction, a procedure whose body is the instruction's
    (its printed text without the template), read from a file."""
    header = (
        "from __future__ import annotations\n"
        "from exo2 import proc, DRAM\n"
        f"from {module.__name__} import *\n\n"
    )
    texts = []
    for instruction in instructions(module):
        lines = [x for x in str(instruction).splitlines() if "# @instr" not in x]
        texts.append("@proc\n" + "\n".join(lines).replace("def ", "def body_", 1))
    path = tmp_path / f"bodies_{module.__name__.rsplit('.', 1)[1]}.py"
    path.write_text(header + "\n\n".join(texts) + "\n")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return {i.name(): getattr(loaded, "body_" + i.name()) for i in instructions(module)}


@pytest.mark.parametrize("module", [neon, rvv], ids=["neon", "rvv"])
def test_each_instruction_replaces_code_written_as_its_body(module, tmp_path):
    """The body is the specification: code written as the body is what
    `replace` selects the instruction for, with the arguments in place."""
    bodies = body_procs(module, tmp_path)
    for instruction in instructions(module):
        body = bodies[instruction.name()]
        p = replace(body, body.body(), instruction)
        call = str(p).splitlines()[-1].strip()
        assert call.startswith(instruction.name() + "("), call
        for arg in instruction.args():
            assert arg.name() in call, (arg.name(), call)


def test_neon_memory_holds_only_whole_registers():
    @proc
    def read_neon(n: size, dst: f32[n], src: f32[n] @ Neon):
        for i in seq(0, n):
            dst[i] = src[i]

    with pytest.raises(MemGenError, match="cannot read"):
        read_neon.c_code_str()

    @proc
    def narrow(x: f32[3]):
        v: f32[3] @ Neon
        for i in seq(0, 3):
            v[i] = x[i]

    with pytest.raises(MemGenError, match="must be 4-wide"):
        narrow.c_code_str()

    @proc
    def halves(x: f16[8]):
        v: f16[8] @ Neon
        neon_vld_8xf16(v, x)
        neon_vst_8xf16(x, v)

    assert "float16x8_t v;" in halves.c_code_str()


def test_rvv_memory_holds_up_to_four_lanes():
    @proc
    def wide(x: f32[8]):
        v: f32[8] @ RVV
        for i in seq(0, 8):
            v[i] = x[i]

    with pytest.raises(MemGenError, match="at most 4-wide"):
        wide.c_code_str()


def test_replace_selects_neon_and_rvv_instructions():
    """A vector loop scheduled with the Neon fused multiply-add by lane and
    the RVV multiply-accumulate prints the calls Exo prints (checked against
    exo-lang 1.0 on the same kernels)."""

    @proc
    def fma_lane(C: f32[4] @ Neon, A: f32[4] @ Neon, B: f32[4] @ Neon):
        for i in seq(0, 4):
            C[i] += A[i] * B[2]

    p = replace(fma_lane, fma_lane.find_loop("i"), neon_vfmla_4xf32_4xf32)
    assert str(p).endswith("    neon_vfmla_4xf32_4xf32(C[0:4], A[0:4], B[0:4], 2)")

    @proc
    def fma_prefix(n: size, C: f32[4] @ RVV, A: f32[4] @ RVV, B: f32[4] @ RVV):
        assert n <= 4
        for i in seq(0, n):
            C[i] += A[i] * B[i]

    q = replace(fma_prefix, fma_prefix.find_loop("i"), rvv_vfmacc_4xf32_4xf32)
    assert str(q).endswith("    rvv_vfmacc_4xf32_4xf32(C[0:4], A[0:4], B[0:4], n + 0)")

    @proc
    def load(x: f32[8]):
        v: f32[4] @ RVV
        for i in seq(0, 3):
            v[i] = x[4 + i]

    r = replace(load, load.find_loop("i"), rvv_vld_4xf32)
    assert str(r).endswith("    rvv_vld_4xf32(v[0:4], x[4:8], 3)")


def test_exo_programs_star_import_the_neon_names():
    """Exo's stdlib modules star-import exo.platforms.neon: so do exo2's."""
    import exo2.stdlib.inspection as inspection
    import exo2.stdlib.stdlib as stdlib

    for module in (inspection, stdlib):
        assert module.neon_vld_4xf32 is neon_vld_4xf32
        assert module.Neon is Neon
