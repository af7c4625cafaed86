"""What this CPU runs, for the tests that call scheduled kernels (they
skip where it lacks the instructions)."""

with open("/proc/cpuinfo") as _cpu:
    _FLAGS = set(_cpu.read().split())

RUNS_AVX2 = {"avx2", "fma"} <= _FLAGS
RUNS_AVX512 = RUNS_AVX2 and {"avx512f", "avx512vl", "avx512dq"} <= _FLAGS
