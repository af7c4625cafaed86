"""The CUDA JIT (docs/cuda.md, "Running a kernel").

    from exo2.platforms.cuda import jit
    lib = jit([gemm], arch="sm_90a")   # generates, compiles with nvcc, caches
    lib.gemm(M, N, K, A, B, C)

The shared object is cached under `cache_dir` (default `$EXO2_CACHE_DIR` or
`~/.cache/exo2`) by a hash of the generated text, the nvcc version, the
flags and the arch. `arch=None` means the current device's (`sm_90a` when
there is none, or when the library needs Hopper instructions). With
`check_sizes` (a list of size dicts) tier B of the parallel check runs
first. Loading needs no GPU; calling without one raises
`CudaUnavailableError`; without nvcc, `jit` raises
`CudaToolkitNotFoundError`.
"""

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from ... import _core
from ...API_types import ProcedureBase
from ...jit import cache_dir as _default_cache_dir
from .checks import check_parallel
from .compile import compile_cuda_library
from .memories import CUDA_GMEM
from .runtime import SUPPORT_SOURCE, load_library

_BASE_FLAGS = ("-O3", "-std=c++17", "-lineinfo", "--shared", "-Xcompiler", "-fPIC")


class CudaToolkitNotFoundError(RuntimeError):
    """nvcc was not found (neither `$EXO2_NVCC` nor `nvcc` on `PATH`)."""


class NvccError(RuntimeError):
    """nvcc rejected the generated code."""


def find_nvcc(nvcc=None):
    """The nvcc to use: `nvcc`, `$EXO2_NVCC`, `nvcc` on PATH, or
    /usr/local/cuda/bin/nvcc."""
    for candidate in (
        nvcc,
        os.environ.get("EXO2_NVCC"),
        shutil.which("nvcc"),
        "/usr/local/cuda/bin/nvcc",
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise CudaToolkitNotFoundError(
        "nvcc not found: set EXO2_NVCC to its path or put it on PATH"
    )


def gencode(arch):
    """nvcc flags for `sm_80`, `sm_90a`, ..."""
    if not arch.startswith("sm_"):
        raise ValueError(f"expected an arch such as sm_90a, got {arch!r}")
    number = arch[3:]
    return ["-gencode", f"arch=compute_{number},code={arch}"]


def device_arch():
    """The arch of GPU 0 (`nvidia-smi`), or None without a GPU."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    first = out.stdout.strip().splitlines()[:1]
    if out.returncode != 0 or not first:
        return None
    major, _, minor = first[0].strip().partition(".")
    if not major.isdigit():
        return None
    return f"sm_{major}{minor}{'a' if major == '9' else ''}"


def nvcc_version(nvcc):
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1] if out.stdout else "?"


def describe(proc_list, stem):
    """The runtime's description of the library's public procedures."""
    procs = []
    for proc in proc_list:
        core = proc.INTERNAL_proc()
        written = set(_core.written_params(core))
        memories = {a.name(): a for a in proc.args()}
        params = []
        for name, typ in zip(core.arg_names(), core.arg_types(), strict=True):
            kind = typ.kind_name()
            entry = {"name": name}
            if kind in ("size", "index", "bool"):
                entry["kind"] = kind
            elif kind == "stride":
                raise TypeError(
                    f"{proc.name()}: stride parameters are not supported by the CUDA JIT"
                )
            else:
                dtype = typ.basetype().kind_name()
                entry.update(
                    kind="window"
                    if typ.is_window()
                    else ("tensor" if typ.is_tensor() else "scalar"),
                    dtype="f32" if dtype == "R" else dtype,
                    shape=[str(e) for e in typ.shape()] if typ.is_tensor() else [],
                    memory="gmem" if memories[name].mem() is CUDA_GMEM else "host",
                    written=name in written,
                )
            params.append(entry)
        procs.append(
            {
                "name": proc.name(),
                "params": params,
                "preconditions": list(_core.proc_preconditions(core)),
            }
        )
    return {"lib": stem, "procs": procs}


def jit(procs, arch=None, check_sizes=None, nvcc=None, flags=(), cache_dir=None):
    """A loaded library with one callable per procedure (see the module)."""
    if isinstance(procs, ProcedureBase):
        procs = [procs]
    procs = list(procs)
    if not procs or not all(isinstance(p, ProcedureBase) for p in procs):
        raise TypeError("jit expects a Procedure or a list of Procedures")
    for sizes in check_sizes or ():
        for p in procs:
            check_parallel(p, **sizes)
    probe, needs_sm90 = compile_cuda_library(procs, "exo2_probe")
    digest = hashlib.sha256("\0".join(sorted(probe.values())).encode()).hexdigest()
    stem = f"exo2_{digest[:12]}"
    files, _ = compile_cuda_library(procs, stem)
    nvcc = find_nvcc(nvcc)
    if arch is None:
        arch = device_arch() or "sm_90a"
        if needs_sm90:
            arch = "sm_90a"
    cmd_flags = [*_BASE_FLAGS, *gencode(arch), *flags]
    key = hashlib.sha256(
        "\0".join(
            [*sorted(files.values()), SUPPORT_SOURCE, nvcc_version(nvcc), *cmd_flags]
        ).encode()
    ).hexdigest()[:32]
    directory = Path(cache_dir) if cache_dir else _default_cache_dir()
    build = directory / f"exo2_cuda_{key}"
    so_path = build / f"lib{stem}.so"
    if not so_path.exists():
        build.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (build / name).write_text(text)
        (build / "exo2_support.cu").write_text(SUPPORT_SOURCE)
        tmp = build / f"lib{stem}.so.tmp"
        cmd = [
            nvcc,
            *cmd_flags,
            "-o",
            str(tmp),
            f"{stem}.cu",
            f"{stem}.c",
            "exo2_support.cu",
        ]
        result = subprocess.run(cmd, cwd=build, capture_output=True, text=True)
        if result.returncode != 0:
            raise NvccError(f"{' '.join(cmd)} failed in {build}:\n{result.stderr}")
        os.replace(tmp, so_path)
    return load_library(so_path, describe(procs, stem))
