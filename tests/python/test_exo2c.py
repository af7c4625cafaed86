"""exo2c (flags, outputs, depfile), the C compilers' view of the generated
code, and the CMake example project."""

import shutil
import subprocess
import sys
from pathlib import Path

import exo2
import pytest
from exo2.main import exo2c, exocc, get_procs_from_module, load_user_code
from kernels import jit_kernels as K

ROOT = Path(__file__).resolve().parents[2]

KERNEL_SOURCE = """
from __future__ import annotations
from exo2 import proc, instr

@instr("{dst_data} = {src_data};")
def copy1(dst: [f32][1], src: [f32][1]):
    dst[0] = src[0]

@proc
def scale(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]

@proc
def _hidden(n: size, x: f32[n]):
    pass
"""


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "mylib.py"
    path.write_text(KERNEL_SOURCE)
    return path


def test_exo2c_writes_c_header_and_depfile(source, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exo2c(str(source))
    out = tmp_path / "mylib"
    c_text = (out / "mylib.c").read_text()
    assert c_text.startswith('#include "mylib.h"\n\n')
    assert (
        "void scale(" in c_text
        and "_hidden" not in c_text
        and "void copy1" not in c_text
    )
    assert "#define MYLIB_H" in (out / "mylib.h").read_text()
    dep = (out / "mylib.d").read_text()
    assert dep.startswith("mylib/mylib.c mylib/mylib.h : ")
    deps = dep.split(" : ", 1)[1].split(" \\\n  ")
    assert deps == sorted(deps) and exo2.__file__ in deps
    assert not dep.endswith("\n")


def test_exo2c_outdir_and_stem(source, tmp_path):
    exo2c("-o", str(tmp_path / "a" / "b"), "-s", "kern", str(source))
    assert (tmp_path / "a" / "b" / "kern.c").exists()
    assert (tmp_path / "a" / "b" / "kern.d").exists()


def test_exo2c_several_sources_need_outdir_and_stem(source, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        exocc(str(source), str(source))
    assert e.value.code == 2
    assert (
        "Must provide -o when processing multiple source files."
        in capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        exo2c("-o", str(tmp_path), str(source), str(source))
    assert (
        "Must provide --stem when processing multiple source files."
        in capsys.readouterr().err
    )


def test_exo2c_version(capsys):
    with pytest.raises(SystemExit):
        exo2c("--version")
    assert capsys.readouterr().out.strip() == f"exo2c version {exo2.__version__}"


def test_exo2c_rejects_missing_file(tmp_path):
    with pytest.raises(ValueError, match="Expected path to a file, got: "):
        exo2c("-o", str(tmp_path), str(tmp_path / "nope.py"))


def test_get_procs_respects_all_and_skips_instructions(source):
    module = load_user_code(source)
    assert [p.name() for p in get_procs_from_module(module)] == ["scale"]
    module.__all__ = ["copy1"]
    assert get_procs_from_module(module) == []


def test_exo2c_console_script(source, tmp_path):
    script = shutil.which("exo2c")
    cmd = [script] if script else [sys.executable, "-m", "exo2.main"]
    subprocess.run([*cmd, "-o", str(tmp_path / "out"), str(source)], check=True)
    assert (tmp_path / "out" / "mylib.h").exists()


ALL_KERNELS = [
    v for v in vars(K).values() if isinstance(v, exo2.Procedure) and not v.is_instr()
]


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_generated_code_compiles_without_warnings(compiler, tmp_path):
    if not shutil.which(compiler):
        pytest.skip(f"{compiler} not installed")
    exo2.compile_procs(ALL_KERNELS, tmp_path, "all.c", "all.h")
    flags = [
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-fopenmp",
    ]
    result = subprocess.run(
        [
            compiler,
            *flags,
            "-c",
            str(tmp_path / "all.c"),
            "-o",
            str(tmp_path / "all.o"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_cmake_example_project_builds_and_runs(tmp_path):
    if not shutil.which("cmake") or not shutil.which("cc"):
        pytest.skip("cmake or cc not installed")
    build = tmp_path / "build"
    configure = [
        "cmake",
        "-S",
        str(ROOT / "examples" / "cmake_project"),
        "-B",
        str(build),
        f"-Dexo2_DIR={exo2.cmake_dir()}",
        f"-DEXO2_PYTHON={sys.executable}",
    ]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    subprocess.run(configure, check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    run = subprocess.run([str(build / "example")], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout == "dot = 20\n"
