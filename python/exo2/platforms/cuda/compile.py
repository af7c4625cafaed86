"""Compiling procedures with kernels (docs/cuda.md, "Running a kernel").

`compile_cuda_to_strings(procs, stem)` returns `{file name: text}` for
`stem.h` (public C header), `stem.c` (host C), `stem.cuh` (device code) and
`stem.cu` (kernels and launch stubs); `compile_cuda(procs, basedir, stem)`
writes them. Every kernel first passes tier A of the parallel check.
"""

from pathlib import Path

from ... import _core
from ...API_types import ProcedureBase


def _core_procs(proc_list):
    if not isinstance(proc_list, list) or not all(
        isinstance(p, ProcedureBase) for p in proc_list
    ):
        raise TypeError("expected a list of Procedures")
    return [p.INTERNAL_proc() for p in proc_list]


def compile_cuda_library(proc_list, stem):
    """`({file name: text}, needs_sm90)` of the library."""
    files, needs_sm90 = _core.compile_cuda_library(_core_procs(proc_list), stem)
    return dict(files), needs_sm90


def compile_cuda_to_strings(proc_list, stem):
    """`{file name: text}` of the CUDA library `stem`."""
    return compile_cuda_library(proc_list, stem)[0]


def compile_cuda(proc_list, basedir, stem):
    """Writes `stem.h`, `stem.c`, `stem.cuh` and `stem.cu` into `basedir`
    (created with its parents); returns their paths."""
    files = compile_cuda_to_strings(proc_list, stem)
    basedir = Path(basedir)
    basedir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in sorted(files.items()):
        path = basedir / name
        path.write_text(text)
        paths.append(path)
    return paths
