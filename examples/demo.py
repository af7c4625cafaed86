"""exo2's main job, end to end: define kernels, check them, compile them to
C, run them from NumPy, check the results against NumPy, and time them.

Run with `bash scripts/demo.sh`. The SGEMM is run twice: as the naive triple
loop, and scheduled for AVX2 with the scheduling library
(examples/gemm_x86.py: packed A and B panels, register-blocked 6 x 16
micro-kernel, K and N blocking), next to NumPy's BLAS.
"""

from __future__ import annotations

import statistics
import textwrap
import time

import exo2
import numpy as np
from exo2 import proc
from gemm_x86 import AVX2_F32, schedule_gemm


@proc
def sgemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


@proc
def blur1d(n: size, src: f32[n + 2], dst: f32[n]):
    for i in seq(0, n):
        dst[i] = (src[i] + src[i + 1] + src[i + 2]) / 3.0


def median_seconds(run, repeats=15):
    run()  # warm up caches and the page tables
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def show_typed_ir(p):
    print(p)
    print(f"\n  typed IR of {p.name()}:")
    print(f"    {'variable':<10} {'kind':<14} {'type':<14} {'memory':<7} line")
    for name, kind, typ, mem, srcinfo in p.symbol_table():
        print(f"    {name:<10} {kind:<14} {typ:<14} {mem or '-':<7} {srcinfo.lineno}")
    print()


def run_sgemm(n=256):
    rng = np.random.default_rng(0)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), np.float32)
    kernel = exo2.jit(sgemm)
    kernel(n, n, n, A, B, C)
    assert np.allclose(C, A @ B, rtol=1e-4), "sgemm disagrees with NumPy"
    flops = 2 * n**3
    exo2_s = median_seconds(lambda: kernel(n, n, n, A, B, C))
    numpy_s = median_seconds(lambda: np.matmul(A, B, out=C))
    return [
        ("sgemm (naive loops)", f"{n}x{n}x{n}", exo2_s, numpy_s, flops / exo2_s / 1e9),
    ]


def cpu_has_avx2_fma():
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((line for line in cpuinfo if line.startswith("flags")), "")
    return {"avx2", "fma"} <= set(flags.split())


def run_sgemm_scheduled(n=512):
    """The SGEMM scheduled with exo2.stdlib for AVX2 + FMA."""
    if not cpu_has_avx2_fma():
        print("(this CPU lacks AVX2/FMA: the scheduled SGEMM is skipped)")
        return []
    start = time.perf_counter()
    scheduled = schedule_gemm(sgemm, AVX2_F32)
    print(
        f"Scheduled sgemm for AVX2 in {time.perf_counter() - start:.2f} s (every step checked)."
    )
    rng = np.random.default_rng(2)
    A = rng.random((n, n), dtype=np.float32)
    B = rng.random((n, n), dtype=np.float32)
    C = np.zeros((n, n), np.float32)
    kernel = exo2.jit(scheduled)
    kernel(n, n, n, A, B, C)
    assert np.allclose(C, A @ B, rtol=1e-4), "scheduled sgemm disagrees with NumPy"
    exo2_s = median_seconds(lambda: kernel(n, n, n, A, B, C))
    numpy_s = median_seconds(lambda: np.matmul(A, B, out=C))
    return [
        (
            "sgemm (stdlib AVX2)",
            f"{n}x{n}x{n}",
            exo2_s,
            numpy_s,
            2 * n**3 / exo2_s / 1e9,
        ),
    ]


def run_blur(n=1 << 22):
    rng = np.random.default_rng(1)
    src = rng.random(n + 2, dtype=np.float32)
    dst = np.empty(n, np.float32)
    kernel = exo2.jit(blur1d)
    kernel(n, src, dst)
    expected = (src[:-2] + src[1:-1] + src[2:]) / np.float32(3)
    assert np.allclose(dst, expected, rtol=1e-5), "blur1d disagrees with NumPy"
    exo2_s = median_seconds(lambda: kernel(n, src, dst))
    numpy_s = median_seconds(lambda: (src[:-2] + src[1:-1] + src[2:]) / np.float32(3))
    return [("blur1d", f"n={n}", exo2_s, numpy_s, 3 * n / exo2_s / 1e9)]


def show_refused_kernel():
    """A kernel that reads past the end of its input is refused when it is
    defined, with a counterexample found by Z3."""
    try:

        @proc
        def shifted_copy(n: size, src: f32[n], dst: f32[n]):
            for i in seq(0, n):
                dst[i] = src[i + 1]

    except TypeError as e:
        print("A wrong kernel is refused when it is defined:")
        print(textwrap.indent(str(e), "    "))
        print(textwrap.indent("\n".join(e.__notes__), "    "))
        print()


if __name__ == "__main__":
    show_typed_ir(sgemm)
    show_refused_kernel()
    print("Compiled with the system C compiler, run from NumPy, checked against NumPy:")
    rows = run_sgemm() + run_sgemm_scheduled() + run_blur()
    print(
        f"    {'kernel':<20} {'size':<14} {'exo2 ms':>9} {'NumPy ms':>9} "
        f"{'exo2/NumPy':>10} {'GFLOP/s':>8}"
    )
    for name, size, exo2_s, numpy_s, gflops in rows:
        print(
            f"    {name:<20} {size:<14} {exo2_s * 1e3:>9.3f} {numpy_s * 1e3:>9.3f} "
            f"{numpy_s / exo2_s:>9.2f}x {gflops:>8.2f}"
        )
    print("\n(exo2/NumPy > 1 means exo2 is faster; NumPy's matmul is its BLAS,")
    print(" single- or multi-threaded as installed.)")
