"""Library baselines for the kernel benchmarks, called on NumPy arrays.

MKL (pip `mkl`), OpenBLAS and BLIS (Debian `libopenblas0-serial`,
`libblis4-serial`) are loaded with ctypes through their CBLAS interface;
NumPy is the fourth baseline. Every library runs on one thread: the runner
(benchmarks/run.py) sets OMP_NUM_THREADS, MKL_NUM_THREADS,
OPENBLAS_NUM_THREADS and BLIS_NUM_THREADS to 1 and MKL_THREADING_LAYER to
SEQUENTIAL before NumPy is loaded, and `libraries()`
sets each library's thread count through its API after loading it (which
also covers a process that imported NumPy first).

`libraries()` returns the libraries that could be loaded and, for the
others, why not; a missing library is skipped by the runner, never an
error. `$EXO2_BENCH_MKL`, `$EXO2_BENCH_OPENBLAS` and `$EXO2_BENCH_BLIS`
name a library file to use instead of the default search.

Each library method takes the NumPy arrays once and returns a
zero-argument callable that performs the operation with the ctypes
arguments already converted. Its `repeat(number)` makes `number` calls in
a C loop (see `repeat_loops`), so that small sizes are not timed as
Python's call overhead; NumPy has no such loop (its Python-level cost is
part of using it). `direct_call` does the same for an exo2 JIT kernel,
through exo2.bench.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
from pathlib import Path

import numpy as np
from exo2.bench import as_call
from exo2.bench.native import compile_shared

# CBLAS enum values.
_ROW_MAJOR = 101
_NO_TRANS = 111

# Libraries sharing a process must not resolve each other's symbols
# (OpenBLAS and BLIS both define `sgemm_`): each one binds to itself first.
_DEEPBIND = getattr(os, "RTLD_DEEPBIND", 0)

_MULTIARCH = "x86_64-linux-gnu"


def _float_types(dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return "s", ctypes.c_float
    if dtype == np.float64:
        return "d", ctypes.c_double
    raise TypeError(f"baselines support float32 and float64, not {dtype}")


# C loops that call one CBLAS routine `reps` times, so that timing a batch of
# calls costs one foreign call from Python (about 1-2 us each on a loaded
# machine, more than a level-1 kernel at small n). exo2 kernels get theirs
# from exo2.bench (`as_call`).


def _repeat_source():
    lines = []
    for p, t in (("s", "float"), ("d", "double")):
        lines.append(f"""
typedef void (*{p}gemm_t)(int, int, int, int, int, int, {t}, const {t} *, int,
                         const {t} *, int, {t}, {t} *, int);
void repeat_{p}gemm(void *f, long reps, int M, int N, int K, {t} alpha,
                   const {t} *A, const {t} *B, {t} beta, {t} *C) {{
  for (long r = 0; r < reps; r++)
    (({p}gemm_t)f)(101, 111, 111, M, N, K, alpha, A, K, B, N, beta, C, N);
}}
void repeat_{p}axpy(void *f, long reps, int n, {t} alpha, const {t} *x, {t} *y) {{
  for (long r = 0; r < reps; r++)
    ((void (*)(int, {t}, const {t} *, int, {t} *, int))f)(n, alpha, x, 1, y, 1);
}}
void repeat_{p}scal(void *f, long reps, int n, {t} alpha, {t} *x) {{
  for (long r = 0; r < reps; r++) ((void (*)(int, {t}, {t} *, int))f)(n, alpha, x, 1);
}}
{t} repeat_{p}dot(void *f, long reps, int n, const {t} *x, const {t} *y) {{
  volatile {t} sink = 0;
  for (long r = 0; r < reps; r++)
    sink = (({t} (*)(int, const {t} *, int, const {t} *, int))f)(n, x, 1, y, 1);
  return sink;
}}
{t} repeat_{p}asum(void *f, long reps, int n, const {t} *x) {{
  volatile {t} sink = 0;
  for (long r = 0; r < reps; r++) sink = (({t} (*)(int, const {t} *, int))f)(n, x, 1);
  return sink;
}}""")
    return "\n".join(lines) + "\n"


_REPEAT_LOOPS = []


def repeat_loops():
    """The compiled loops library (None without a working C compiler)."""
    if not _REPEAT_LOOPS:
        _REPEAT_LOOPS.append(compile_shared(_repeat_source(), "repeat_loops"))
    return _REPEAT_LOOPS[0]


def direct_call(jit_kernel, args):
    """The JIT kernel's C function with its arguments checked and converted
    once (`exo2.bench.as_call`), so that timing excludes the per-call checks
    in Python; a violated precondition raises ValueError here."""
    return as_call(jit_kernel, args)


def _pointer(array):
    if not array.flags.c_contiguous:
        raise ValueError("baselines take C-contiguous arrays")
    return ctypes.c_void_p(array.ctypes.data)


def _bind(fn, args, arrays, loop=None, loop_args=()):
    """`fn(*args)` as a closure that keeps `arrays` (whose addresses are in
    `args`) alive; with `call.repeat(number)` running `number` calls in the
    C loop named `loop` when the loops are available."""

    def call():
        return fn(*args)

    call.arrays = arrays
    loops = repeat_loops() if loop else None
    if loops is not None:
        c_loop = getattr(loops, loop)
        address = ctypes.cast(fn, ctypes.c_void_p).value
        c_loop.argtypes = [ctypes.c_void_p, ctypes.c_long] + [
            type(a) for a in loop_args
        ]
        call.repeat = lambda number: c_loop(address, number, *loop_args)
    return call


class CblasLibrary:
    """One CBLAS implementation loaded with ctypes."""

    def __init__(self, name, path, handle, version):
        self.name = name
        self.path = str(path)
        self.version = version
        self._handle = handle
        self._functions = {}

    def _function(self, symbol, restype, argtypes):
        if symbol not in self._functions:
            fn = getattr(self._handle, symbol)
            fn.restype = restype
            fn.argtypes = argtypes
            self._functions[symbol] = fn
        return self._functions[symbol]

    def gemm(self, A, B, C, alpha=1.0, beta=1.0):
        """C = alpha A B + beta C (row-major, no transposes)."""
        prefix, scalar = _float_types(C.dtype)
        M, K = A.shape
        N = B.shape[1]
        if B.shape[0] != K or C.shape != (M, N) or not A.dtype == B.dtype == C.dtype:
            raise ValueError("gemm: incompatible shapes or dtypes")
        i, p = ctypes.c_int, ctypes.c_void_p
        fn = self._function(
            f"cblas_{prefix}gemm",
            None,
            [i, i, i, i, i, i, scalar, p, i, p, i, scalar, p, i],
        )
        args = (_ROW_MAJOR, _NO_TRANS, _NO_TRANS, M, N, K, alpha, _pointer(A), K,
                _pointer(B), N, beta, _pointer(C), N)  # fmt: skip
        loop_args = (
            i(M),
            i(N),
            i(K),
            scalar(alpha),
            _pointer(A),
            _pointer(B),
            scalar(beta),
            _pointer(C),
        )
        return _bind(fn, args, (A, B, C), f"repeat_{prefix}gemm", loop_args)

    def axpy(self, alpha, x, y):
        """y = alpha x + y."""
        prefix, scalar = _float_types(x.dtype)
        i, p = ctypes.c_int, ctypes.c_void_p
        fn = self._function(f"cblas_{prefix}axpy", None, [i, scalar, p, i, p, i])
        args = (x.size, alpha, _pointer(x), 1, _pointer(y), 1)
        loop_args = (i(x.size), scalar(alpha), _pointer(x), _pointer(y))
        return _bind(fn, args, (x, y), f"repeat_{prefix}axpy", loop_args)

    def dot(self, x, y):
        """Returns x . y."""
        prefix, scalar = _float_types(x.dtype)
        i, p = ctypes.c_int, ctypes.c_void_p
        fn = self._function(f"cblas_{prefix}dot", scalar, [i, p, i, p, i])
        args = (x.size, _pointer(x), 1, _pointer(y), 1)
        loop_args = (i(x.size), _pointer(x), _pointer(y))
        return _bind(fn, args, (x, y), f"repeat_{prefix}dot", loop_args)

    def asum(self, x):
        """Returns the sum of |x[i]|."""
        prefix, scalar = _float_types(x.dtype)
        i, p = ctypes.c_int, ctypes.c_void_p
        fn = self._function(f"cblas_{prefix}asum", scalar, [i, p, i])
        args = (x.size, _pointer(x), 1)
        return _bind(fn, args, (x,), f"repeat_{prefix}asum", (i(x.size), _pointer(x)))

    def scal(self, alpha, x):
        """x = alpha x."""
        prefix, scalar = _float_types(x.dtype)
        i, p = ctypes.c_int, ctypes.c_void_p
        fn = self._function(f"cblas_{prefix}scal", None, [i, scalar, p, i])
        args = (x.size, alpha, _pointer(x), 1)
        loop_args = (i(x.size), scalar(alpha), _pointer(x))
        return _bind(fn, args, (x,), f"repeat_{prefix}scal", loop_args)


class NumpyLibrary:
    """The straightforward NumPy spelling of each operation (its BLAS is
    NumPy's bundled OpenBLAS, limited to one thread)."""

    name = "numpy"
    path = np.__file__
    version = np.__version__

    def gemm(self, A, B, C, alpha=1.0, beta=1.0):
        if alpha == 1.0 and beta == 1.0:
            return lambda: np.add(C, A @ B, out=C)
        return lambda: np.add(beta * C, alpha * (A @ B), out=C)

    def axpy(self, alpha, x, y):
        alpha = x.dtype.type(alpha)
        return lambda: np.add(y, alpha * x, out=y)

    def dot(self, x, y):
        return lambda: np.dot(x, y)

    def asum(self, x):
        return lambda: np.sum(np.abs(x))

    def scal(self, alpha, x):
        alpha = x.dtype.type(alpha)
        return lambda: np.multiply(x, alpha, out=x)


def _first_existing(candidates):
    for candidate in candidates:
        for path in sorted(glob.glob(str(candidate))):
            if Path(path).is_file():
                return path
    return None


def _load(path, mode):
    return ctypes.CDLL(path, mode=mode)


def _string_result(handle, symbol):
    fn = getattr(handle, symbol, None)
    if fn is None:
        return None
    fn.restype = ctypes.c_char_p
    fn.argtypes = []
    value = fn()
    return value.decode().strip() if value else None


def _load_mkl():
    prefixes = {sys.prefix, sys.base_prefix, os.environ.get("MKLROOT", sys.prefix)}
    path = os.environ.get("EXO2_BENCH_MKL") or _first_existing(
        [Path(p) / "lib" / f"libmkl_rt.so.{v}" for p in prefixes for v in (3, 2)]
        + [Path(p) / "lib" / "libmkl_rt.so" for p in prefixes]
    )
    if path is None:
        return None, "libmkl_rt not found (pip install mkl)"
    handle = _load(path, os.RTLD_LOCAL)
    # MKL_Set_Threading_Layer(MKL_THREADING_SEQUENTIAL = 1), then one thread.
    handle.MKL_Set_Threading_Layer.argtypes = [ctypes.c_int]
    handle.MKL_Set_Threading_Layer(1)
    handle.MKL_Set_Num_Threads.argtypes = [ctypes.c_int]
    handle.MKL_Set_Num_Threads(1)
    buffer = ctypes.create_string_buffer(256)
    handle.MKL_Get_Version_String(buffer, len(buffer))
    return CblasLibrary("mkl", path, handle, buffer.value.decode().strip()), None


def _load_openblas():
    path = os.environ.get("EXO2_BENCH_OPENBLAS") or _first_existing(
        [
            f"/usr/lib/{_MULTIARCH}/openblas-serial/libopenblas.so.0",
            f"/usr/lib/{_MULTIARCH}/openblas-pthread/libopenblas.so.0",
            f"/usr/lib/{_MULTIARCH}/libopenblas.so.0",
        ]
    )
    if path is None:
        return None, "libopenblas not found (apt-get install libopenblas0-serial)"
    handle = _load(path, os.RTLD_LOCAL | _DEEPBIND)
    handle.openblas_set_num_threads.argtypes = [ctypes.c_int]
    handle.openblas_set_num_threads(1)
    version = " ".join(
        filter(
            None,
            [
                _string_result(handle, s)
                for s in ("openblas_get_config", "openblas_get_corename")
            ],
        )
    )
    return CblasLibrary("openblas", path, handle, version), None


def _load_blis():
    path = os.environ.get("EXO2_BENCH_BLIS") or _first_existing(
        [
            f"/usr/lib/{_MULTIARCH}/blis-serial/libblis.so.4",
            f"/usr/lib/{_MULTIARCH}/blis-pthread/libblis.so.4",
            f"/usr/lib/{_MULTIARCH}/libblis.so.4",
        ]
    )
    if path is None:
        return None, "libblis not found (apt-get install libblis4-serial)"
    handle = _load(path, os.RTLD_LOCAL | _DEEPBIND)
    handle.bli_thread_set_num_threads.argtypes = [ctypes.c_long]
    handle.bli_thread_set_num_threads(1)
    version = _string_result(handle, "bli_info_get_version_str") or ""
    return CblasLibrary("blis", path, handle, f"BLIS {version}".strip()), None


def _limit_numpy_blas():
    """NumPy's bundled OpenBLAS reads OPENBLAS_NUM_THREADS when NumPy is
    first imported; if NumPy was imported earlier, set it directly."""
    directory = Path(np.__file__).parent
    for path in glob.glob(
        str(directory.parent / "numpy.libs" / "*openblas*.so*")
    ) + glob.glob(str(directory / ".libs" / "*openblas*.so*")):
        handle = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
        for symbol in (
            "scipy_openblas_set_num_threads64_",
            "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_",
            "openblas_set_num_threads",
        ):
            fn = getattr(handle, symbol, None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int]
                fn(1)
                break


_LIBRARIES = None


def libraries():
    """`({name: library}, {name: reason it is missing})`, loaded once per
    process. Order: mkl, openblas, blis, numpy."""
    global _LIBRARIES
    if _LIBRARIES is None:
        found, missing = {}, {}
        for name, loader in (
            ("mkl", _load_mkl),
            ("openblas", _load_openblas),
            ("blis", _load_blis),
        ):
            try:
                library, reason = loader()
            except (OSError, AttributeError) as error:  # unloadable, or not a CBLAS
                library, reason = None, f"cannot load: {error}"
            if library is None:
                missing[name] = reason
            else:
                found[name] = library
        _limit_numpy_blas()
        found["numpy"] = NumpyLibrary()
        _LIBRARIES = found, missing
    return _LIBRARIES
