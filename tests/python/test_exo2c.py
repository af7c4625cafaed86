"""exo2c (flags, outputs, depfile), the C compilers' view of the generated
code, and the CMake example project."""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import exo2
import pytest
from exo2.backend.target_flags import target_flags
from exo2.libs.memories import AVX512
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


def test_exo2c_usage_in_the_docs_is_the_real_one(capsys):
    with pytest.raises(SystemExit):
        exo2c("--help")
    usage = capsys.readouterr().out.split("\n\n")[0]
    usage = " ".join(usage.removeprefix("usage: ").split())
    docs = (ROOT / "docs" / "compiling-and-calling.md").read_text()
    assert f"\n{usage}\n" in docs  # options and --target choices included


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


def _configure_and_build(build, *defines):
    configure = [
        "cmake",
        "-S",
        str(ROOT / "examples" / "cmake_project"),
        "-B",
        str(build),
        f"-Dexo2_DIR={exo2.cmake_dir()}",
        f"-DEXO2_PYTHON={sys.executable}",
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        *defines,
    ]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    subprocess.run(configure, check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    commands = json.loads((build / "compile_commands.json").read_text())
    return next(c["command"] for c in commands if c["file"].endswith("kernels.c"))


def test_cmake_example_project_builds_and_runs(tmp_path):
    if not shutil.which("cmake") or not shutil.which("cc"):
        pytest.skip("cmake or cc not installed")
    build = tmp_path / "build"
    command = _configure_and_build(build)
    run = subprocess.run([str(build / "example")], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout == "dot = 20\n"
    # no build type: -O3; the ISA of the instructions used (scale_avx2)
    assert " -O3 " in command
    flags = build / "kernels" / "kernels.cflags"
    assert f"@{flags}" in command
    assert flags.read_text() == "-mavx2\n-mfma\n-fopenmp\n"


def test_cmake_helper_takes_arch_and_the_build_type(tmp_path):
    if not shutil.which("cmake") or not shutil.which("cc"):
        pytest.skip("cmake or cc not installed")
    command = _configure_and_build(tmp_path / "native", "-DEXO2_ARCH=native")
    assert "-march=native" in command and "kernels.cflags" not in command
    command = _configure_and_build(tmp_path / "debug", "-DCMAKE_BUILD_TYPE=Debug")
    assert "-O3" not in command and " -g " in command


def test_exo2c_writes_the_flags_of_the_instructions_used(source, tmp_path):
    exo2c("-o", str(tmp_path / "plain"), str(source))
    assert (tmp_path / "plain" / "mylib.cflags").read_text() == ""
    exo2c("-o", str(tmp_path / "avx2"), str(ROOT / "examples/cmake_project/kernels.py"))
    assert (
        tmp_path / "avx2" / "kernels.cflags"
    ).read_text() == "-mavx2\n-mfma\n-fopenmp\n"


@exo2.proc
def uses_avx512(x: f32[16]):
    v: f32[16] @ AVX512
    for i in seq(0, 16):
        v[i] = x[i]


@exo2.proc
def calls_avx512(x: f32[16], y: f32[8]):
    uses_avx512(x)
    for i in seq(0, 8):
        y[i] = 0.0


def test_target_flags_follow_calls_into_instructions():
    assert target_flags([calls_avx512]) == ["-mavx512f"]
    assert target_flags([K.axpy]) == []


def test_cmake_files_cite_docs_that_exist():
    for path in Path(exo2.cmake_dir()).glob("*.cmake"):
        for doc in re.findall(r"docs/[\w/.-]+\.md", path.read_text()):
            assert (ROOT / doc).exists(), f"{path.name} cites {doc}"
        assert "§" not in path.read_text(), path.name


def test_one_version_number_everywhere(tmp_path):
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["dynamic"] == ["version"]
    version_source = pyproject["tool"]["scikit-build"]["metadata"]["version"]
    assert version_source["input"] == "python/exo2/__init__.py"
    assert importlib.metadata.version("exo2") == exo2.__version__
    if not shutil.which("cmake"):
        return
    # the CMake package reads __version__ too
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(v LANGUAGES NONE)\n"
        f'find_package(exo2 {exo2.__version__} CONFIG REQUIRED PATHS "{exo2.cmake_dir()}")\n'
        'message(STATUS "exo2 version ${exo2_VERSION}")\n'
        "find_package(exo2 99.0 CONFIG QUIET)\n"
        'message(STATUS "exo2 99.0 found: ${exo2_FOUND}")\n'
    )
    out = subprocess.run(
        ["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"exo2 version {exo2.__version__}" in out
    assert "exo2 99.0 found: 0" in out
