#!/usr/bin/env bash
# The BLAS suite's smoke tier on a sanitizer build (docs/blas-library.md,
# "Checks"): libexo2blas, its ABI tests and the harness built with
# -fsanitize=address,undefined in build/blas-asan, then the ABI tests
# (ctest) and the exact-tier sweep of every variant (pytest, the library
# loaded into Python with the sanitizer runtimes preloaded). A sanitizer
# report fails the run. Needs exo2 installed (scripts/setup.sh); exo2blas is
# imported from benchmarks/blas.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/python_env.sh
cmake -S benchmarks/blas -B build/blas-asan -DEXO2BLAS_SANITIZE=ON \
  -DEXO2BLAS_PYTHON="$(command -v python3)" >/dev/null
cmake --build build/blas-asan -j2
ctest --test-dir build/blas-asan --output-on-failure
# Python is not built with the sanitizers: their runtimes must be loaded
# first, and Python's own allocations at exit are not leaks of the library.
runtimes="$(cc -print-file-name=libasan.so):$(cc -print-file-name=libubsan.so)"
cd benchmarks/blas
EXO2BLAS_LIBRARY="$PWD/../../build/blas-asan/libexo2blas.so" \
  LD_PRELOAD="$runtimes" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  python3 -m pytest tests/test_level1.py tests/test_level2.py tests/test_level3.py -q \
  -p no:cacheprovider
