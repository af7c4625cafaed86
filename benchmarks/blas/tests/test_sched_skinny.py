"""The `skinny` schedule (exo2blas.sched.skinny): gemv's Trans form with
few outputs, all their sums in registers in one pass down A. What the
schedule makes of the kernel, that the skinny procs compute the naive
ones' results exactly at and around every vector count, the errors it
gives, and that the C layer calls the skinny kernels for the short shapes
only, with the right results on both sides of the threshold."""

from __future__ import annotations

import ctypes
import json

import numpy as np
import pytest
from exo2 import SchedulingError
from exo2blas.kernels import module
from exo2blas.machines import AVX2, AVX512
from exo2blas.sched.skinny import MAX_VECS, skinny, threshold
from exo2blas.sched.variants import assert_unit_strides

with open("/proc/cpuinfo") as _cpu:
    _FLAGS = set(_cpu.read().split())
RUNS_AVX2 = {"avx2", "fma"} <= _FLAGS


def _variant(name, machine):
    return {v.name: v for v in module(2, "gemv").KERNEL.variants(machine)}[name]


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
@pytest.mark.parametrize("prec", ["f32", "f64"])
def test_skinny_keeps_every_output_in_registers_in_one_pass(machine, prec):
    p = "s" if prec == "f32" else "d"
    v = _variant(f"{p}gemv_t", machine)
    assert set(v.procs) == {"stride_1", "stride_any", "skinny"}
    text = str(v.procs["skinny"])
    lanes, memory, isa = machine.lanes[prec], machine.memory.__name__, machine.name
    assert f"assert m <= {threshold(machine, prec)}" in text
    assert threshold(machine, prec) == MAX_VECS * lanes
    # one copy per vector count, each one pass down the rows, k vectors of
    # sums (the last masked) and x[j] broadcast
    assert text.count("for j in seq(0, n):") == MAX_VECS
    for k in range(1, MAX_VECS):
        assert f"== {k}:" in text
    assert text.count(f"{isa}_fma_mask_{prec}(") == MAX_VECS
    assert text.count(f"{isa}_fma_{prec}(") == MAX_VECS * (MAX_VECS - 1) // 2
    assert f"acc_{MAX_VECS - 1}: {prec}[{lanes}] @ {memory}" in text
    assert f"{isa}_broadcast_element_{prec}" in text
    assert "for i in seq" not in text  # no scalar outputs left
    # the NoTrans variants have no skinny case
    assert set(_variant(f"{p}gemv_n", machine).procs) == {"stride_1", "stride_any"}


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize("prec", ["f32", "f64"])
def test_skinny_gemv_t_matches_the_naive_one_at_every_vector_count(prec):
    """Small integers of both signs (the exact tier: every sum is exact in
    any order, fused or not) agree exactly; random values agree to
    rounding (the products are fused multiply-adds)."""
    p, dtype = ("s", np.float32) if prec == "f32" else ("d", np.float64)
    v = _variant(f"{p}gemv_t", AVX2)
    naive, scheduled = assert_unit_strides(v.naive).jit(), v.procs["skinny"].jit()
    rng = np.random.default_rng(30)
    lanes, top = AVX2.lanes[prec], threshold(AVX2, prec)
    ms = sorted({1, 2, lanes - 1, lanes, lanes + 1, 2 * lanes + 3, top - 1, top})
    for m in ms:
        for n in (1, 2, 7, 33):
            for exact in (True, False):
                if exact:
                    A = rng.integers(-4, 5, (n, m)).astype(dtype)  # op(A) = A^T
                    x, y = rng.integers(-4, 5, n), rng.integers(-4, 5, m)
                else:
                    A = rng.standard_normal((n, m)).astype(dtype)
                    x, y = rng.standard_normal(n), rng.standard_normal(m)
                x, y = x.astype(dtype), y.astype(dtype)
                expected, result = y.copy(), y.copy()
                naive(m, n, dtype(-1.5), A, x, expected)
                scheduled(m, n, dtype(-1.5), A, x, result)
                if exact:
                    assert (result == expected).all(), (m, n)
                else:
                    eps = np.finfo(dtype).eps
                    bound = 4 * n * eps * (1.5 * np.abs(A.T) @ np.abs(x) + np.abs(y))
                    assert (np.abs(result - expected) <= bound).all(), (m, n)


def test_skinny_refuses_a_loop_along_a_row():
    v = _variant("sgemv_n", AVX2)
    with pytest.raises(SchedulingError, match="skinny: the loop over j runs along"):
        skinny(assert_unit_strides(v.naive), "i", AVX2, "f32")


# --------------------------------------------------------------------------- #
# The C layer: the table's thresholds, and results through cblas_?gemv on
# both sides of them


def _library():
    from exo2blas import library

    try:
        return library.load()
    except FileNotFoundError as e:
        pytest.skip(str(e))


class _Table(ctypes.Structure):
    """The head of `struct exo2blas_kernels` (kernel_table.h)."""

    _fields_ = [
        ("isa", ctypes.c_char_p),
        ("isamax_lanes", ctypes.c_int),
        ("idamax_lanes", ctypes.c_int),
        ("sskinny", ctypes.c_int),
        ("dskinny", ctypes.c_int),
    ]


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_the_kernel_table_holds_the_skinny_thresholds(machine):
    lib = _library()
    table = _Table.in_dll(lib, f"exo2blas_kernels_{machine.name}")
    assert table.isa.decode() == machine.name
    assert table.sskinny == threshold(machine, "f32")
    assert table.dskinny == threshold(machine, "f64")
    for p in "sd":
        assert hasattr(lib, f"exo2_{machine.name}_{p}gemv_t_skinny")


@pytest.mark.parametrize("p", ["s", "d"])
def test_cblas_gemv_is_right_on_both_sides_of_the_threshold(p):
    from exo2blas import numpy_entry as blas

    lib = _library()
    isa = lib.exo2blas_isa
    isa.restype = ctypes.c_char_p
    machine = {"avx2": AVX2, "avx512": AVX512}[isa().decode()]
    dtype = np.float32 if p == "s" else np.float64
    top = threshold(machine, "f32" if p == "s" else "f64")
    rng = np.random.default_rng(31)
    for short in (1, 5, top - 1, top, top + 1, top + 7):
        for long_ in (1, 3, 100):
            # Trans of a row-major long x short A (the skinny kernel when
            # short <= top), and NoTrans of its transpose, column-major
            for A, trans in (
                (rng.integers(-4, 5, (long_, short)).astype(dtype), True),
                (np.asfortranarray(rng.integers(-4, 5, (short, long_))), False),
            ):
                A = A.astype(dtype)
                x = rng.integers(-4, 5, long_).astype(dtype)
                for step in (1, 2, -1):
                    y = np.zeros(short * abs(step), dtype)[::step]
                    y[:] = rng.integers(-4, 5, short)
                    op = A.T if trans else A
                    expected = 3 * (op @ x) - 2 * y  # integers: exact
                    got = blas.gemv(3.0, A, x, -2.0, y, trans=trans)
                    assert (got == expected).all(), (short, long_, trans, step)


_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
/* exo2's windows (kernels_<isa>.h): a data pointer and the strides */
#define WINDOWS(T, t) \
  struct w2##t { const T *data; int_fast32_t strides[2]; }; \
  struct w1##t##c { const T *data; int_fast32_t strides[1]; }; \
  struct w1##t { T *data; int_fast32_t strides[1]; };
WINDOWS(float, s)
WINDOWS(double, d)
int calls[4]; /* s skinny, s stride_1, d skinny, d stride_1 */
#define WRAP(slot, name, T, t) \
  void name(void *c, int_fast32_t m, int_fast32_t n, const T *alpha, \
            struct w2##t A, struct w1##t##c x, struct w1##t y) { \
    static void (*real)(void *, int_fast32_t, int_fast32_t, const T *, \
                        struct w2##t, struct w1##t##c, struct w1##t); \
    if (!real) /* the library's own definition */ \
      *(void **)&real = dlsym(dlopen(getenv("EXO2BLAS_LIBRARY"), RTLD_NOW), #name); \
    calls[slot]++; \
    real(c, m, n, alpha, A, x, y); \
  }
WRAP(0, exo2_avx2_sgemv_t_skinny, float, s)
WRAP(1, exo2_avx2_sgemv_t_stride_1, float, s)
WRAP(2, exo2_avx2_dgemv_t_skinny, double, d)
WRAP(3, exo2_avx2_dgemv_t_stride_1, double, d)
"""

_PROBE = r"""
import ctypes, json, sys
import numpy as np
from exo2blas import numpy_entry as blas
shim = ctypes.CDLL(sys.argv[1])
calls = (ctypes.c_int * 4).in_dll(shim, "calls")
out = []
for p, dtype in (("s", np.float32), ("d", np.float64)):
    for short, trans, layout in json.loads(sys.argv[2]):
        before = list(calls)
        shape = (7, short) if trans else (short, 7)
        A = np.ones(shape, dtype, order="C" if layout == "R" else "F")
        y = blas.gemv(1.0, A, np.ones(7, dtype), trans=trans)
        assert (y == 7).all()
        out.append([a - b for a, b in zip(calls, before)])
print(json.dumps(out))
"""


def test_cblas_gemv_calls_the_skinny_kernel_for_short_outputs_only(tmp_path):
    """The generated kernels are interposed (LD_PRELOAD of a shim that
    counts the calls and forwards them): through cblas_?gemv, Trans of a
    row-major A, or NoTrans of a column-major one, with at most the
    threshold's outputs calls `_skinny`; one more output, `_stride_1`."""
    import os
    import shutil
    import subprocess
    import sys

    from exo2blas import library

    lib = _library()
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("needs a C compiler for the interposing shim")
    del lib
    shim = tmp_path / "shim.c"
    shim.write_text(_SHIM)
    so = tmp_path / "shim.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", so, shim, "-ldl"], check=True)
    tops = {p: threshold(AVX2, prec) for p, prec in (("s", "f32"), ("d", "f64"))}
    shapes = []
    for short in sorted({1, tops["d"], tops["d"] + 1, tops["s"], tops["s"] + 1}):
        shapes += [(short, True, "R"), (short, False, "C"), (short, False, "R")]
    env = dict(os.environ, LD_PRELOAD=str(so), EXO2BLAS_ISA="avx2")
    env["EXO2BLAS_LIBRARY"] = str(library.load()._name)
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, str(so), json.dumps(shapes)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    counts = json.loads(run.stdout)
    for i, (p, slot) in enumerate((("s", 0), ("d", 2))):
        for (short, trans, layout), got in zip(
            shapes, counts[i * len(shapes) : (i + 1) * len(shapes)], strict=True
        ):
            outputs_short = trans == (layout == "R")  # y along the short side
            skinny_call = outputs_short and short <= tops[p]
            expected = [0, 0, 0, 0]
            if outputs_short:  # the Trans kernel of the row-major problem
                expected[slot + (0 if skinny_call else 1)] = 1
            assert got == expected, (p, short, trans, layout)
