"""Correctness and speed of the CUDA examples on a GPU (docs/cuda.md,
"Running a kernel").

With exo2 installed, the libraries come from the JIT; with `--bundle DIR`
(made by make_bundle.py) they are compiled here with nvcc from generated
files, and called through `runtime.py` alone. Checks:

- saxpy: exact against NumPy (the fused multiply-add, as float64 then
  float32), through NumPy copies and through PyTorch tensors (zero-copy);
- every GEMM (`C = A @ B^T`, bf16 in, f32 out) within 1e-3 relative of
  the float64 product of the same bf16 values, at 4096^3 and at ragged
  sizes;
- timing: CUDA events around each launch, 10 warm-ups then 50 timed runs,
  median, L2 flushed between runs, against cuBLAS (torch.matmul, bf16 in,
  f32 accumulation) in the same process.

Prints a table; writes results.json (and logs) to --out.
"""

import argparse
import functools
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch


def load_runtime(bundle):
    spec = importlib.util.spec_from_file_location(
        "exo2_runtime", Path(bundle) / "runtime.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(bundle, entry, log):
    runtime = load_runtime(bundle)
    directory = Path(bundle) / entry["lib"]
    lib = entry["lib"]
    so = (directory / f"lib{lib}.so").resolve()
    arch = entry["arch"]
    cmd = [
        os.environ.get("EXO2_NVCC", "nvcc"),
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
        "-o",
        str(so),
        f"{lib}.cu",
        f"{lib}.c",
        "exo2_support.cu",
    ]
    t = time.time()
    out = subprocess.run(cmd, cwd=directory, capture_output=True, text=True)
    log.write(f"$ {' '.join(cmd)}\n{out.stdout}{out.stderr}\n")
    if out.returncode != 0:
        raise RuntimeError(f"nvcc failed for {lib}:\n{out.stderr[-3000:]}")
    description = json.loads((directory / "description.json").read_text())
    spills = "spill" in out.stderr and "0 bytes spill stores" not in out.stderr
    return runtime.load_library(so, description), time.time() - t, out.stderr, spills


def libraries(args, log):
    if args.bundle:
        manifest = json.loads((Path(args.bundle) / "manifest.json").read_text())
        if args.only:
            manifest = [e for e in manifest if e["proc"] in args.only]
        out = {}
        for entry in manifest:
            lib, seconds, report, _ = build(args.bundle, entry, log)
            out[entry["proc"]] = lib
            print(f"built {entry['lib']} in {seconds:.1f} s", flush=True)
        return out
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "cuda"))
    import gemm_naive
    import gemm_sm80
    import gemm_sm90
    import saxpy
    from exo2.platforms.cuda import jit

    return {
        "saxpy_gpu": jit([saxpy.saxpy_gpu]),
        "gemm_naive": jit([gemm_naive.gemm_naive]),
        "gemm_sm80": jit([gemm_sm80.gemm_sm80]),
        "gemm_sm90": jit([gemm_sm90.gemm_sm90]),
    }


def bf16_bits(t):
    """uint16 NumPy bits of a bf16 torch tensor."""
    return t.view(torch.int16).cpu().numpy().view(np.uint16)


def check_saxpy(lib, rows):
    rng = np.random.default_rng(0)
    for n in [1, 255, 256, 1_000_003]:
        x = rng.standard_normal(n).astype(np.float32)
        y0 = rng.standard_normal(n).astype(np.float32)
        # nvcc fuses y + a * x into one fma: exact product, one rounding.
        expected = (y0.astype(np.float64) + 3.0 * x.astype(np.float64)).astype(
            np.float32
        )
        y = y0.copy()
        lib.saxpy_gpu(n, 3.0, x, y)  # NumPy: copied in and out
        xt, yt = torch.from_numpy(x).cuda(), torch.from_numpy(y0).cuda()
        lib.saxpy_gpu(n, 3.0, xt, yt)  # PyTorch: zero-copy
        rows.append(
            {
                "kernel": "saxpy",
                "size": n,
                "exact_numpy": bool(np.array_equal(y, expected)),
                "exact_torch": bool(np.array_equal(yt.cpu().numpy(), expected)),
            }
        )


def cublas(A, B):
    """cuBLAS through PyTorch: bf16 inputs, f32 accumulation and output
    where this PyTorch has `out_dtype`, bf16 output otherwise."""
    try:
        return torch.mm(A, B.t(), out_dtype=torch.float32)
    except TypeError:
        return torch.mm(A, B.t())


def flush_l2(buffer):
    buffer.zero_()


def time_ms(fn, flush, warmup=10, runs=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        flush()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def check_gemm(name, lib, sizes, rows, flush, timed):
    fn = getattr(lib, name)
    stream = torch.cuda.current_stream().cuda_stream
    for M, N, K in sizes:
        g = torch.Generator(device="cuda").manual_seed(M * 7 + N * 3 + K)
        A = torch.randn(M, K, device="cuda", generator=g).to(torch.bfloat16)
        B = torch.randn(N, K, device="cuda", generator=g).to(torch.bfloat16)
        C = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
        fn(M, N, K, A, B, C, stream=stream)
        ref = A.double() @ B.double().T
        err = ((C.double() - ref).abs().max() / ref.abs().max()).item()
        row = {
            "kernel": name,
            "size": f"{M}x{N}x{K}",
            "max_rel_err": err,
            "ok": bool(err <= 1e-3 and torch.isfinite(C).all().item()),
        }
        if timed and (M, N, K) == (4096, 4096, 4096):
            ours = time_ms(
                functools.partial(fn, M, N, K, A, B, C, stream=stream, sync=False),
                flush,
            )
            base = time_ms(functools.partial(cublas, A, B), flush)
            flops = 2 * M * N * K
            row.update(
                ms=ours,
                tflops=flops / ours / 1e9,
                cublas_ms=base,
                cublas_tflops=flops / base / 1e9,
                ratio=base / ours,
                cublas_out=str(cublas(A[:64, :64], B[:64, :64]).dtype),
            )
        rows.append(row)
        print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle")
    parser.add_argument("--out", default=".")
    parser.add_argument(
        "--only", nargs="*", help="the kernels to check (saxpy_gpu, gemm_naive, ...)"
    )
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    device = torch.cuda.get_device_name()
    info = {
        "device": device,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "capability": torch.cuda.get_device_capability(),
    }
    print(json.dumps(info), flush=True)
    rows = []
    with open(out / "build.log", "w") as log:
        libs = libraries(args, log)
    flush_buffer = torch.empty(
        256 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda"
    )
    flush = lambda: flush_l2(flush_buffer)  # noqa: E731
    if "saxpy_gpu" in libs:
        check_saxpy(libs["saxpy_gpu"], rows)
        for row in rows:
            print(json.dumps(row), flush=True)
    ragged = {
        "gemm_naive": [(1, 1, 1), (100, 37, 129), (1000, 333, 517)],
        "gemm_sm80": [(64, 64, 16), (192, 320, 448), (1024, 576, 272)],
        "gemm_sm90": [(64, 256, 64), (192, 768, 448), (1088, 1280, 576)],
    }
    for name in ["gemm_naive", "gemm_sm80", "gemm_sm90"]:
        if name not in libs:
            continue
        sizes = ragged[name] + [(4096, 4096, 4096)]
        check_gemm(name, libs[name], sizes, rows, flush, timed=True)
    (out / "results.json").write_text(
        json.dumps({"info": info, "rows": rows}, indent=1)
    )
    print(f"\n{device}")
    print(
        f"{'kernel':12} {'size':18} {'check':>24} {'ms':>8} {'TFLOP/s':>8} {'cuBLAS ms':>10} {'cuBLAS TF':>9}"
    )
    for r in rows:
        check = (
            f"exact={r['exact_numpy']}/{r['exact_torch']}"
            if r["kernel"] == "saxpy"
            else f"err={r['max_rel_err']:.2e} {'ok' if r['ok'] else 'FAIL'}"
        )
        timing = (
            f"{r['ms']:8.3f} {r['tflops']:8.1f} {r['cublas_ms']:10.3f} {r['cublas_tflops']:9.1f}"
            if "ms" in r
            else ""
        )
        print(f"{r['kernel']:12} {str(r['size']):18} {check:>24} {timing}")


if __name__ == "__main__":
    main()
