"""Machine description and roofs for the benchmark plots.

`machine_info()` measures, on one core:

- the **peak FLOP/s** per precision, both *theoretical* (clock x FMA units
  x vector lanes x 2 flops per FMA, with the clock from /proc/cpuinfo and
  the assumption stated in the result: 2 FMA units of 256 bits with AVX2,
  of 512 bits with AVX-512) and *measured* with a small C kernel of 12
  independent vector FMA chains (FMA-bound: latency 4-5 cycles x 2 units);
- the **memory bandwidth** of STREAM's copy (`a[i] = b[i]`, 16 bytes per
  element of f64) and triad (`a[i] = b[i] + s * c[i]`, 24 bytes) on arrays
  of 4x the last-level cache, best of several passes, written in C and
  timed with `clock_gettime` (NumPy's spelling allocates temporaries, so it
  is only the fallback when no C compiler works).

A kernel's roof at a size is `min(peak, flops / bytes x bandwidth)` with its
compulsory traffic in bytes (see `roof`). GB and GFLOP are 10^9.
"""

from __future__ import annotations

import ctypes
import os
import platform
import re
import time
from pathlib import Path

import numpy as np

from .baselines import compile_shared

_C_SOURCE = r"""
#include <immintrin.h>
#include <stddef.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* 12 independent FMA chains: enough to keep 2 FMA units busy at a latency
   of up to 6 cycles. Returns seconds for `iterations` rounds. */
#define CHAINS 12
double fma_f32(long iterations, float *sink) {
  __m256 acc[CHAINS];
  __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_set1_ps((float)c);
  double t0 = now();
  for (long i = 0; i < iterations; i++)
    for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  double t = now() - t0;
  __m256 s = acc[0];
  for (int c = 1; c < CHAINS; c++) s = _mm256_add_ps(s, acc[c]);
  _mm256_storeu_ps(sink, s);
  return t;
}

double fma_f64(long iterations, double *sink) {
  __m256d acc[CHAINS];
  __m256d a = _mm256_set1_pd(0.999999), b = _mm256_set1_pd(1e-7);
  for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_set1_pd((double)c);
  double t0 = now();
  for (long i = 0; i < iterations; i++)
    for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_fmadd_pd(acc[c], a, b);
  double t = now() - t0;
  __m256d s = acc[0];
  for (int c = 1; c < CHAINS; c++) s = _mm256_add_pd(s, acc[c]);
  _mm256_storeu_pd(sink, s);
  return t;
}

double stream_copy(double *restrict a, const double *restrict b, long n) {
  double t0 = now();
  for (long i = 0; i < n; i++) a[i] = b[i];
  return now() - t0;
}

double stream_triad(double *restrict a, const double *restrict b,
                    const double *restrict c, double s, long n) {
  double t0 = now();
  for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
  return now() - t0;
}
"""

FLOAT_BYTES = {"f32": 4, "f64": 8}


def _compile_probe():
    """The probe library compiled with `cc -O3 -march=native`, or None."""
    library = compile_shared(
        _C_SOURCE, "probe", ("-O3", "-march=native", "-mavx2", "-mfma")
    )
    if library is None:
        return None
    for name in ("fma_f32", "fma_f64"):
        getattr(library, name).restype = ctypes.c_double
        getattr(library, name).argtypes = [ctypes.c_long, ctypes.c_void_p]
    library.stream_copy.restype = ctypes.c_double
    library.stream_copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    library.stream_triad.restype = ctypes.c_double
    library.stream_triad.argtypes = [ctypes.c_void_p] * 3 + [
        ctypes.c_double,
        ctypes.c_long,
    ]
    return library


def _cpu_info():
    info = {"machine": platform.machine(), "processor": platform.processor()}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    model = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    mhz = re.findall(r"^cpu MHz\s*:\s*([\d.]+)$", text, re.M)
    flags = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    flag_set = set(flags.group(1).split()) if flags else set()
    info["model"] = model.group(1).strip() if model else None
    info["mhz"] = max(float(m) for m in mhz) if mhz else None
    info["logical_cpus"] = os.cpu_count()
    info["avx2"] = "avx2" in flag_set
    info["fma"] = "fma" in flag_set
    info["avx512f"] = "avx512f" in flag_set
    caches = {}
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        if kind != "Instruction":
            caches[f"L{level}"] = size
    info["caches"] = caches
    return info


def _size_bytes(text):
    match = re.fullmatch(r"(\d+)([KMG]?)", text or "")
    if not match:
        return None
    return (
        int(match.group(1))
        * {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[match.group(2)]
    )


def theoretical_peak(info):
    """GFLOP/s per precision from the clock and the vector width, with the
    assumption as text; None where the clock is unknown."""
    if not info.get("mhz"):
        return None, "clock unknown"
    width = 16 if info.get("avx512f") else 8 if info.get("avx2") else 4  # f32 lanes
    units = 2
    peaks = {
        prec: info["mhz"] / 1e3 * units * (width * 4 // FLOAT_BYTES[prec]) * 2
        for prec in ("f32", "f64")
    }
    assumption = (
        f"{units} FMA units x {width} f32 lanes ({width // 2} f64) x 2 flops per cycle "
        f"at {info['mhz']:.0f} MHz (/proc/cpuinfo, no turbo)"
    )
    return peaks, assumption


def measure_peak(library, seconds=0.2):
    """Measured single-core GFLOP/s of FMA-bound code per precision."""
    sink = np.zeros(8, dtype=np.float64)
    results = {}
    for prec, fn, lanes in (("f32", library.fma_f32, 8), ("f64", library.fma_f64, 4)):
        iterations = 1 << 16
        while fn(iterations, sink.ctypes.data) < seconds / 4:
            iterations *= 2
        best = min(fn(iterations, sink.ctypes.data) for _ in range(3))
        results[prec] = iterations * 12 * lanes * 2 / best / 1e9
    return results


def measure_bandwidth(library, array_bytes, repeats=5):
    """Best-of-`repeats` GB/s of STREAM copy and triad (f64 arrays of
    `array_bytes` each)."""
    n = max(array_bytes // 8, 1 << 20)
    a, b, c = (np.full(n, v, dtype=np.float64) for v in (0.0, 1.0, 2.0))
    if library is None:
        copy = min(_time(lambda: np.copyto(a, b)) for _ in range(repeats))
        triad = min(_time(lambda: np.add(b, 3.0 * c, out=a)) for _ in range(repeats))
        source = "numpy"
    else:
        args = (a.ctypes.data, b.ctypes.data)
        copy = min(library.stream_copy(*args, n) for _ in range(repeats))
        triad = min(
            library.stream_triad(*args, c.ctypes.data, 3.0, n) for _ in range(repeats)
        )
        source = "c"
    return {
        "copy_gbs": 16 * n / copy / 1e9,
        "triad_gbs": 24 * n / triad / 1e9,
        "array_bytes": 8 * n,
        "source": source,
    }


def _time(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def machine_info(quick=False):
    """Everything the results record about the machine, roofs included."""
    info = _cpu_info()
    if hasattr(os, "getloadavg"):
        info["load_average_1min"] = os.getloadavg()[0]  # other jobs skew timings
    peaks, assumption = theoretical_peak(info)
    library = _compile_probe() if info.get("avx2") and info.get("fma") else None
    llc = max((_size_bytes(v) or 0 for v in info.get("caches", {}).values()), default=0)
    array_bytes = max(4 * llc, 64 * 2**20)
    if quick:
        array_bytes = max(2 * llc, 32 * 2**20)
    info["peak_gflops_theoretical"] = peaks
    info["peak_assumption"] = assumption
    info["peak_gflops_measured"] = (
        measure_peak(library, 0.05 if quick else 0.2) if library else None
    )
    info["bandwidth"] = measure_bandwidth(library, array_bytes, 3 if quick else 5)
    return info


def peak_gflops(info, prec):
    """The peak used for roofs: measured if available, else theoretical."""
    for key in ("peak_gflops_measured", "peak_gflops_theoretical"):
        if info.get(key):
            return info[key][prec]
    return None


def roof(info, prec, flops, bytes_moved):
    """GFLOP/s a kernel can reach: min(peak, intensity x triad bandwidth)."""
    peak = peak_gflops(info, prec)
    bandwidth = info["bandwidth"]["triad_gbs"]
    memory = flops / bytes_moved * bandwidth if bytes_moved else float("inf")
    return min(peak, memory) if peak else memory
