"""The machine probe: what the roofline of a kernel is made of.

`probe()` measures, on one core, and caches per machine:

- the **sustained clock**: a chain of dependent integer adds of a
  register (one per cycle on every x86 core since the Pentium Pro; a chain
  of adds of an immediate runs faster on newer Intel cores) timed with
  `clock_gettime`;
- the **FMA throughput** per ISA (AVX2, AVX-512 where the CPU has it) and
  precision: 12 (AVX2) or 24 (AVX-512) independent vector FMA chains,
  enough to hide a latency of 4-6 cycles on 2 units; from it the number of
  **FMA units** (rate / (clock x lanes x 2), rounded) and the theoretical
  peak (clock x units x lanes x 2 flops);
- the **bandwidth** of three stream mixes -- `read` (a sum), `copy` (a read
  and a write), `triad` (two reads and a write) -- with the buffers sized
  for each cache level (half of L1d, half of L2, half of L3 where there is
  one) and for DRAM (at least 4x the last-level cache and 64 MiB), best of
  several passes; GB is 10^9 bytes and every byte read or written counts.

The result is cached as JSON in `exo2.jit.cache_dir() / "machine"`, keyed by
the CPU model, its ISA flags and the host name, so the probe runs once per
machine (about 2-5 seconds); `probe(refresh=True)` measures again.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import re
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..jit import cache_dir
from . import native

# 2: the clock from register adds (version 1's immediate adds read it too
# high on newer Intel cores); a cached probe of another version is redone
PROBE_VERSION = 2

# Lanes per vector of each ISA and precision.
LANES = {
    "avx2": {"f32": 8, "f64": 4},
    "avx512": {"f32": 16, "f64": 8},
}

_C_SOURCE = r"""
#include <stddef.h>
#include <stdint.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Seconds for `n` x 64 dependent adds (one cycle each). Each adds a
   register, not an immediate: a Xeon of family 6, model 207 ran a chain of
   immediate adds several a cycle (the probe read 10-15 GHz), as newer Intel
   cores can execute them at rename. */
double add_chain(long n, uint64_t one) {
  uint64_t x = 0;
  double t0 = now();
  for (long i = 0; i < n; i++) {
#if defined(__x86_64__)
#define A8 "add %1, %0\n\t" "add %1, %0\n\t" "add %1, %0\n\t" "add %1, %0\n\t" \
           "add %1, %0\n\t" "add %1, %0\n\t" "add %1, %0\n\t" "add %1, %0\n\t"
    __asm__ volatile(A8 A8 A8 A8 A8 A8 A8 A8 : "+r"(x) : "r"(one));
#else
    for (int j = 0; j < 64; j++) __asm__ volatile("" : "+r"(x) : "r"(one));
#endif
  }
  return now() - t0;
}

#if defined(__x86_64__)
#include <immintrin.h>
#define FMA_KERNEL(NAME, TARGET, VEC, SET1, FMA, ADD, STORE, T, CHAINS)      \
  __attribute__((target(TARGET))) double NAME(long n, T *sink) {             \
    VEC acc[CHAINS];                                                         \
    VEC a = SET1((T)0.999999), b = SET1((T)1e-7);                            \
    for (int c = 0; c < CHAINS; c++) acc[c] = SET1((T)c);                    \
    double t0 = now();                                                       \
    for (long i = 0; i < n; i++)                                             \
      for (int c = 0; c < CHAINS; c++) acc[c] = FMA(acc[c], a, b);          \
    double t = now() - t0;                                                   \
    VEC s = acc[0];                                                          \
    for (int c = 1; c < CHAINS; c++) s = ADD(s, acc[c]);                     \
    STORE(sink, s);                                                          \
    return t;                                                                \
  }
FMA_KERNEL(fma_avx2_f32, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps,
           _mm256_add_ps, _mm256_storeu_ps, float, 12)
FMA_KERNEL(fma_avx2_f64, "avx2,fma", __m256d, _mm256_set1_pd, _mm256_fmadd_pd,
           _mm256_add_pd, _mm256_storeu_pd, double, 12)
FMA_KERNEL(fma_avx512_f32, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps,
           _mm512_add_ps, _mm512_storeu_ps, float, 24)
FMA_KERNEL(fma_avx512_f64, "avx512f", __m512d, _mm512_set1_pd, _mm512_fmadd_pd,
           _mm512_add_pd, _mm512_storeu_pd, double, 24)
#endif

/* Stream mixes over int64 arrays of n elements, `passes` times; the
   integer sum vectorizes without reassociating floats. */
double stream_read(const int64_t *restrict a, long n, int passes, int64_t *sink) {
  int64_t s = 0;
  double t0 = now();
  for (int p = 0; p < passes; p++) {
    for (long i = 0; i < n; i++) s += a[i];
    __asm__ volatile("" : "+r"(s));
  }
  double t = now() - t0;
  *sink = s;
  return t;
}

double stream_copy(int64_t *restrict a, const int64_t *restrict b, long n, int passes) {
  double t0 = now();
  for (int p = 0; p < passes; p++) {
    for (long i = 0; i < n; i++) a[i] = b[i] + p;
    __asm__ volatile("" : : "r"(a) : "memory");
  }
  return now() - t0;
}

double stream_triad(int64_t *restrict a, const int64_t *restrict b,
                    const int64_t *restrict c, long n, int passes) {
  double t0 = now();
  for (int p = 0; p < passes; p++) {
    for (long i = 0; i < n; i++) a[i] = b[i] + 3 * c[i] + p;
    __asm__ volatile("" : : "r"(a) : "memory");
  }
  return now() - t0;
}
"""

# Bytes moved per element by each mix.
MIX_BYTES = {"read": 8, "copy": 16, "triad": 24}


@dataclass
class Machine:
    """What the probe found; every rate is per core (one thread)."""

    key: str
    model: str
    host: str
    isas: list  # "avx2", "avx512" as the CPU supports them
    caches: dict  # "L1", "L2", "L3" -> bytes (data caches)
    clock_ghz: float | None
    fma_gflops: dict = field(default_factory=dict)  # isa -> prec -> measured
    fma_units: dict = field(default_factory=dict)  # isa -> FMA units
    peak_gflops: dict = field(default_factory=dict)  # isa -> prec -> theoretical
    bandwidth_gbs: dict = field(default_factory=dict)  # level -> mix -> GB/s
    version: int = PROBE_VERSION

    def best_isa(self):
        """The widest ISA with a measured FMA rate, or None."""
        for isa in ("avx512", "avx2"):
            if isa in self.fma_gflops:
                return isa
        return None

    def peak(self, prec="f32", isa=None):
        """Measured FMA GFLOP/s of `isa` (default: the widest) in `prec`."""
        isa = isa or self.best_isa()
        return self.fma_gflops.get(isa, {}).get(prec) if isa else None

    def level_of(self, working_set):
        """The memory level a working set of `working_set` bytes fits in."""
        for level in ("L1", "L2", "L3"):
            size = self.caches.get(level)
            if size and working_set <= size and level in self.bandwidth_gbs:
                return level
        return "DRAM"

    def to_json(self):
        return asdict(self)


def _cpu():
    text = ""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        pass
    model = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    flags = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    flag_set = set(flags.group(1).split()) if flags else set()
    isas = []
    if {"avx2", "fma"} <= flag_set:
        isas.append("avx2")
    if "avx512f" in flag_set:
        isas.append("avx512")
    return (
        model.group(1).strip() if model else platform.processor() or "unknown",
        sorted(flag_set),
        isas,
    )


def _caches():
    caches = {}
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        match = re.fullmatch(r"(\d+)([KMG]?)", size)
        if kind != "Instruction" and match:
            unit = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[match.group(2)]
            caches[f"L{level}"] = int(match.group(1)) * unit
    return caches


def machine_key():
    """`model|host|hash of the flags`: what a cached probe and a tuning
    database are keyed by (one entry per machine)."""
    model, flags, _ = _cpu()
    digest = hashlib.sha256(" ".join(flags).encode()).hexdigest()[:8]
    return f"{model}|{socket.gethostname()}|{digest}"


def _library():
    library = native.compile_shared(_C_SOURCE, "probe", ("-O3", "-march=native"))
    if library is None:
        return None
    library.add_chain.restype = ctypes.c_double
    library.add_chain.argtypes = [ctypes.c_long, ctypes.c_uint64]
    for name in ("stream_read", "stream_copy", "stream_triad"):
        getattr(library, name).restype = ctypes.c_double
    library.stream_read.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_int]
    library.stream_read.argtypes += [ctypes.c_void_p]
    library.stream_copy.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_long, ctypes.c_int]
    library.stream_triad.argtypes = [ctypes.c_void_p] * 3 + [
        ctypes.c_long,
        ctypes.c_int,
    ]
    return library


def _best_rate(run, work, seconds, tries=3):
    """Best `work / time` of `tries` runs of `run(n)`, with `n` grown until
    one run lasts `seconds / tries`."""
    n = 1
    while run(n) < seconds / tries / 4:
        n *= 4
    return max(work(n) / run(n) for _ in range(tries))


def _clock(library, seconds):
    return (
        _best_rate(lambda n: library.add_chain(n, 1), lambda n: n * 64, seconds) / 1e9
    )


def _fma(library, isa, prec, seconds):
    fn = getattr(library, f"fma_{isa}_{prec}")
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_long, ctypes.c_void_p]
    sink = np.zeros(16, dtype=np.float64)
    chains = 24 if isa == "avx512" else 12
    lanes = LANES[isa][prec]
    return (
        _best_rate(
            lambda n: fn(n, sink.ctypes.data), lambda n: n * chains * lanes * 2, seconds
        )
        / 1e9
    )


def _mix_rate(library, mix, array_bytes, seconds):
    """GB/s of one mix with arrays of `array_bytes` together."""
    arrays = {"read": 1, "copy": 2, "triad": 3}[mix]
    n = max(array_bytes // (8 * arrays), 64)
    bufs = [np.ones(n, dtype=np.int64) for _ in range(arrays)]
    ptrs = [b.ctypes.data for b in bufs]
    sink = np.zeros(1, dtype=np.int64)

    def run(passes):
        if mix == "read":
            return library.stream_read(ptrs[0], n, passes, sink.ctypes.data)
        if mix == "copy":
            return library.stream_copy(*ptrs, n, passes)
        return library.stream_triad(*ptrs, n, passes)

    run(1)  # first touch
    return _best_rate(run, lambda passes: passes * n * MIX_BYTES[mix], seconds) / 1e9


def _bandwidth(library, array_bytes, seconds):
    """GB/s of each mix with arrays of `array_bytes` (all arrays of a mix
    together)."""
    return {mix: _mix_rate(library, mix, array_bytes, seconds) for mix in MIX_BYTES}


def measure_machine(quick=False):
    """A fresh `Machine` (not cached); `quick` shortens every measurement
    (for tests)."""
    model, _flags, isas = _cpu()
    machine = Machine(
        key=machine_key(),
        model=model,
        host=socket.gethostname(),
        isas=isas,
        caches=_caches(),
        clock_ghz=None,
    )
    library = _library()
    if library is None:
        return machine
    seconds = 0.03 if quick else 0.15
    machine.clock_ghz = _clock(library, seconds)
    if platform.machine() in ("x86_64", "AMD64"):
        for isa in isas:
            rates = {p: _fma(library, isa, p, seconds) for p in ("f32", "f64")}
            machine.fma_gflops[isa] = rates
            lanes = LANES[isa]["f32"]
            units = max(1, round(rates["f32"] / (machine.clock_ghz * lanes * 2)))
            machine.fma_units[isa] = units
            machine.peak_gflops[isa] = {
                p: machine.clock_ghz * units * LANES[isa][p] * 2 for p in LANES[isa]
            }
    last = max(machine.caches.values(), default=8 * 2**20)
    for level in ("L1", "L2", "L3"):
        if level in machine.caches:
            machine.bandwidth_gbs[level] = _bandwidth(
                library, machine.caches[level] // 2, seconds / 2
            )
    dram = max(4 * last, 64 * 2**20) if not quick else max(2 * last, 32 * 2**20)
    machine.bandwidth_gbs["DRAM"] = _bandwidth(library, dram, seconds * 2)
    return machine


def _cache_path(key):
    digest = hashlib.sha256(f"{key}|{PROBE_VERSION}".encode()).hexdigest()[:16]
    return cache_dir() / "machine" / f"{digest}.json"


def probe(refresh=False):
    """This machine's `Machine`, from the cache unless `refresh`."""
    key = machine_key()
    path = _cache_path(key)
    if not refresh and path.exists():
        try:
            data = json.loads(path.read_text())
            if data.get("version") == PROBE_VERSION and data.get("key") == key:
                return Machine(**data)
        except (OSError, ValueError, TypeError):
            pass  # unreadable: measure again
    machine = measure_machine()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(machine.to_json(), indent=1) + "\n")
    os.replace(tmp, path)
    return machine
