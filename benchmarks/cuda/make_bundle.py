"""Writes a self-contained bundle of the CUDA examples for a GPU machine that
has nvcc and PyTorch but not the exo2 compiler: per library its generated
files, the JIT's runtime helpers and the runtime's description, plus
`exo2/platforms/cuda/runtime.py` (which needs only NumPy and ctypes).

    python3 benchmarks/cuda/make_bundle.py OUTDIR
    # on the GPU machine:
    python3 OUTDIR/gpu_checks.py --bundle OUTDIR

gpu_checks.py (beside this file) is copied into the bundle too.
"""

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "cuda"))

from exo2.platforms.cuda import compile_cuda  # noqa: E402
from exo2.platforms.cuda.jit import describe  # noqa: E402
from exo2.platforms.cuda.runtime import SUPPORT_SOURCE  # noqa: E402

# (library, module, procedure, arch)
LIBRARIES = [
    ("saxpy", "saxpy", "saxpy_gpu", "sm_90a"),
    ("gemm_naive", "gemm_naive", "gemm_naive", "sm_90a"),
    ("gemm_sm80", "gemm_sm80", "gemm_sm80", "sm_90a"),
    ("gemm_sm90", "gemm_sm90", "gemm_sm90", "sm_90a"),
]


def main(outdir):
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    manifest = []
    for lib, module, name, arch in LIBRARIES:
        proc = getattr(__import__(module), name)
        directory = outdir / lib
        compile_cuda([proc], directory, lib)
        (directory / "exo2_support.cu").write_text(SUPPORT_SOURCE)
        (directory / "description.json").write_text(json.dumps(describe([proc], lib)))
        manifest.append({"lib": lib, "proc": name, "arch": arch})
    (outdir / "manifest.json").write_text(json.dumps(manifest, indent=1))
    shutil.copy(ROOT / "python" / "exo2" / "platforms" / "cuda" / "runtime.py", outdir)
    shutil.copy(Path(__file__).with_name("gpu_checks.py"), outdir)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cuda_bundle")
