"""Code generation of CUDA libraries (docs/cuda.md, "Running a kernel"):
golden texts of the four files, nvcc compiles every example for sm_80 and
sm_90a without spills or local memory, and `exo2c --target cuda` writes the
same files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cuda_examples import load
from exo2.main import exo2c
from exo2.platforms.cuda import compile_cuda, compile_cuda_to_strings
from kernels import cuda_kernels as K

GOLDEN = Path(__file__).parent / "golden" / "cuda"

LIBRARIES = {
    "saxpy": lambda: [load("saxpy").saxpy_gpu],
    "gemm_naive": lambda: [load("gemm_naive").gemm_naive],
    "reverse_blocks": lambda: [
        K.reverse_blocks,
        K.reverse_within_warps,
        K.producer_warps,
    ],
    "gemm_sm80": lambda: [load("gemm_sm80").gemm_sm80],
    "gemm_sm90": lambda: [load("gemm_sm90").gemm_sm90],
}
# Libraries with Hopper instructions (wgmma, TMA) compile for sm_90a only.
SM90_ONLY = {"gemm_sm90"}


@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_generated_files_match_golden(name):
    files = compile_cuda_to_strings(LIBRARIES[name](), name)
    assert sorted(files) == sorted(f"{name}.{ext}" for ext in ("c", "cu", "cuh", "h"))
    for filename, text in files.items():
        path = GOLDEN / filename
        if os.environ.get("EXO2_REGEN_GOLDEN"):
            path.write_text(text)
        assert text == path.read_text(), filename


def test_host_code_launches_the_kernel_through_its_stub():
    files = compile_cuda_to_strings([load("saxpy").saxpy_gpu], "lib")
    assert "lib_saxpy_gpu_k0_launch((n), (a), (x), (y));" in files["lib.c"]
    assert "void lib_set_cuda_stream(void *stream);" in files["lib.h"]
    assert "int lib_cuda_last_error(void);" in files["lib.h"]
    cu = files["lib.cu"]
    assert (
        "__launch_bounds__(lib_saxpy_gpu_k0::kThreads, lib_saxpy_gpu_k0::kBlocksPerSm)"
        in cu
    )
    assert "const __grid_constant__ lib_saxpy_gpu_k0::Args args" in cu


def test_fences_lower_by_the_scope_of_their_collective():
    cuh = compile_cuda_to_strings(
        [K.reverse_blocks, K.reverse_within_warps, K.producer_warps], "lib"
    )["lib.cuh"]
    assert 'asm volatile("bar.sync 0;" ::: "memory");' in cuh  # whole CTA
    assert "__syncwarp();" in cuh  # one warp
    assert (
        "if (threadIdx.x >= 32 && threadIdx.x < 64) {  // CudaWarps(lo=1, hi=2)" in cuh
    )


def test_exo2c_target_cuda_writes_the_library_and_depfile(tmp_path):
    source = Path(__file__).resolve().parents[2] / "examples" / "cuda" / "saxpy.py"
    exo2c("--target", "cuda", "-o", str(tmp_path), "-s", "lib", str(source))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["lib.c", "lib.cu", "lib.cuh", "lib.d", "lib.h"]
    assert "lib_saxpy_gpu_k0_launch" in (tmp_path / "lib.cu").read_text()
    assert (
        (tmp_path / "lib.d")
        .read_text()
        .startswith(
            f"{tmp_path}/lib.c {tmp_path}/lib.h {tmp_path}/lib.cuh {tmp_path}/lib.cu :"
        )
    )


def _nvcc():
    return os.environ.get("EXO2_NVCC") or "nvcc"


def _compile(directory, stem, arch):
    cmd = [
        _nvcc(),
        "-O3",
        "-std=c++17",
        "-lineinfo",
        "--shared",
        "-Xcompiler",
        "-fPIC",
        "-gencode",
        f"arch=compute_{arch[3:]},code={arch}",
        "-Xptxas",
        "-v",
        "-Werror",
        "all-warnings",
        "-o",
        str(directory / f"lib{stem}_{arch}.so"),
        f"{stem}.cu",
        f"{stem}.c",
    ]
    out = subprocess.run(cmd, cwd=directory, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stderr


@pytest.mark.cuda_compile
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(LIBRARIES))
def test_nvcc_compiles_without_spills_or_local_memory(tmp_path, name, arch):
    if arch == "sm_80" and name in SM90_ONLY:
        pytest.skip("Hopper instructions")
    compile_cuda(LIBRARIES[name](), tmp_path, name)
    report = _compile(tmp_path, name, arch)
    kernels = report.count("Compiling entry function")
    assert kernels >= 1
    assert (
        report.count("0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
        == kernels
    )
    assert "lmem" not in report
    # ptxas serialises wgmma it cannot pipeline, or inserts fences around
    # them (C7519), and says so.
    assert "serialized" not in report
    assert "C7519" not in report
