"""The `skinny` schedule (exo2blas.sched.skinny): gemv NoTrans and ger with
short rows (the vector along them loaded once into registers), gemv Trans
with few outputs (all their sums in registers in one pass down A). What
the schedule makes of the kernels, that the skinny procs compute the naive
ones' results at and around every vector count, the errors it gives, and
the C layer's results on both sides of the threshold (which kernel it
calls there: tests/level2_dispatch_test.c)."""

from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest
from cpu import RUNS_AVX2
from exo2 import SchedulingError
from exo2.API_cursors import CallCursor, ForCursor, InvalidCursor
from exo2.stdlib.inspection import nlr_stmts
from exo2blas.kernels import module
from exo2blas.machines import AVX2, AVX512
from exo2blas.sched.skinny import MAX_VECS, skinny, threshold
from exo2blas.variants import assert_unit_strides


def _variant(name, machine):
    kernel = "ger" if "ger" in name else "gemv"
    return {v.name: v for v in module(2, kernel).KERNEL.variants(machine)}[name]


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
    # the whole vectors' sums, one register each (acc_0, acc_1, ...), and
    # the masked last vector's (acc)
    assert f"acc_{MAX_VECS - 2}: {prec}[{lanes}] @ {memory}" in text
    assert f"acc: {prec}[{lanes}] @ {memory}" in text
    assert f"{isa}_broadcast_element_{prec}" in text
    assert "for i in seq" not in text  # no scalar outputs left


ROWS = ("i", "io", "ii")  # the loops over rows: all, in blocks, left over


def _loads_of(proc, vector):
    """The load instructions of `proc` reading `vector`, and whether each
    lies inside a loop over rows (`for i`)."""
    found = []
    for stmt in nlr_stmts(proc):
        if not isinstance(stmt, CallCursor) or "_load" not in stmt.subproc().name():
            continue
        if not any(getattr(a, "name", lambda: None)() == vector for a in stmt.args()):
            continue
        parent, in_rows = stmt.parent(), False
        while not isinstance(parent, InvalidCursor):
            in_rows |= isinstance(parent, ForCursor) and parent.name() in ROWS
            parent = parent.parent()
        found.append(in_rows)
    return found


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
@pytest.mark.parametrize("variant", ["sgemv_n", "dger"])
def test_skinny_loads_the_shared_vector_once_for_all_rows(machine, variant):
    prec = "f32" if variant[0] == "s" else "f64"
    v = _variant(variant, machine)
    assert {"stride_1", "stride_any", "skinny"} <= set(v.procs)
    text = str(v.procs["skinny"])
    isa = machine.name
    assert f"assert n <= {threshold(machine, prec)}" in text
    shared = "x" if "gemv" in variant else "y"
    loads = _loads_of(v.procs["skinny"], shared)
    if "gemv" in variant:
        # rows of fewer than 4 elements one by one, a copy per length with
        # the row unrolled (the loop over j kept for the others); then one
        # copy per vector count (1 to MAX_VECS), each one vectorized pass
        # per block of 4 rows on AVX-512 (`rows`: their products
        # independent, their sums and updates of y ended by one
        # `hsum_rows`), then per row left over, one per row on AVX2; the
        # last vector masked
        short, vectors = text.split("\n    else:\n", 1)
        assert "if n < 4:" in short
        for k in range(1, 4):
            row = short.split(f"if n == {k}:\n", 1)[1].split("else:", 1)[0]
            products = [f"acc += A[i, {j}] * x[{j}]" for j in range(k)]
            assert all(p in row for p in products) and "for j" not in row
        assert short.count("for j in seq(0, n):") == 1
        assert f"{isa}_" not in short.split("if n <", 1)[1]  # no instruction
        rows = 5 if machine.masking else 1  # a block of 4 and the rest
        if machine.masking:
            assert vectors.count("for io in seq(0, m / 4):") == MAX_VECS
            assert vectors.count("for ii in seq(0, m % 4):") == MAX_VECS
            assert vectors.count("acc_3 = 0.0") == MAX_VECS  # a block's 4th row
            assert vectors.count(f"{isa}_hsum_rows_{prec}(") == MAX_VECS
        else:
            assert vectors.count("for i in seq(0, m):") == MAX_VECS
        assert "for j" not in vectors and "for jo" not in vectors
        # in the copy for k vectors, k loads of the shared vector for each
        # row of a block and for the rows left over, none in a loop over
        # rows (the C compiler merges a block's identical loads)
        assert len(loads) == rows * MAX_VECS * (MAX_VECS + 1) // 2
        assert not any(loads)
        masked = text.count(f"{isa}_load_mask_{prec}(")
        assert masked == rows * 2 * MAX_VECS  # A's too
        return
    # an update: one copy per count of whole vectors (0 to MAX_VECS), each
    # row's whole vectors unrolled, then (AVX-512) a narrower vector and
    # scalars, no masked store
    assert text.count("for i in seq(0, m):") == MAX_VECS + 1
    assert "for jo" not in text and "mask" not in text
    # k loads of the whole vectors of y in the copy for k, none per row;
    # the narrower vector's is per row, in each copy
    hoisted = [in_rows for in_rows in loads if not in_rows]
    assert len(hoisted) == MAX_VECS * (MAX_VECS + 1) // 2
    assert len(loads) - len(hoisted) == (MAX_VECS + 1 if machine.narrower else 0)


def _arguments(kernel, short, long_, rng, dtype, exact):
    """Arguments of the naive gemv (Trans: A stored long x short) or ger,
    small integers of both signs (`exact`) or random values."""

    def draw(*shape):
        if exact:
            return rng.integers(-4, 5, shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)

    if kernel == "gemv_t":  # m = short outputs, n = long rows of A
        return [short, long_, dtype(-1.5), draw(long_, short), draw(long_), draw(short)]
    if kernel == "gemv_n":  # m = long rows, n = short
        return [long_, short, dtype(-1.5), draw(long_, short), draw(short), draw(long_)]
    return [long_, short, dtype(-1.5), draw(long_), draw(short), draw(long_, short)]


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize("prec", ["f32", "f64"])
@pytest.mark.parametrize("kernel", ["gemv_t", "gemv_n", "ger"])
def test_skinny_matches_the_naive_proc_at_every_vector_count(kernel, prec):
    """Small integers of both signs (the exact tier: every sum is exact in
    any order, fused or not) agree exactly; random values agree to
    rounding (products are fused multiply-adds, a dot product is summed by
    lanes)."""
    p, dtype = ("s", np.float32) if prec == "f32" else ("d", np.float64)
    v = _variant(p + kernel if kernel != "ger" else p + "ger", AVX2)
    naive, scheduled = assert_unit_strides(v.naive).jit(), v.procs["skinny"].jit()
    rng = np.random.default_rng(30)
    lanes, top = AVX2.lanes[prec], threshold(AVX2, prec)
    half = lanes // 2  # gemv NoTrans's rows of fewer elements run scalar
    shorts = sorted(
        {1, 2, half - 1, half, lanes - 1, lanes, lanes + 1, 2 * lanes + 3, top - 1, top}
    )
    for short in shorts:
        for long_ in (1, 2, 7, 33):
            for exact in (True, False):
                args = _arguments(kernel, short, long_, rng, dtype, exact)
                expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
                naive(*expected)
                scheduled(*args)
                got, want = args[-1], expected[-1]  # y, or A for ger
                if exact:
                    assert (got == want).all(), (short, long_)
                else:
                    scale = 4 * (top + 33) * np.finfo(dtype).eps
                    bound = scale * (np.abs(want) + 1.5 * 16)
                    assert (np.abs(got - want) <= bound).all(), (short, long_)


def test_skinny_names_a_body_without_one_inner_loop():
    from test_sched_level2 import two_loops

    with pytest.raises(SchedulingError, match="skinny: expected one loop"):
        skinny(two_loops, "i", AVX2, "f32")


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
def test_cblas_is_right_on_both_sides_of_the_threshold(p):
    """gemv (both Trans, both layouts) and ger with one dimension short:
    the row lengths that run one by one (1 to 7), at and past the
    threshold; increments 1 (skinny where short enough), 2 and -1; small
    integers, so the results are exact."""
    from exo2blas import numpy_entry as blas

    lib = _library()
    isa = lib.exo2blas_isa
    isa.restype = ctypes.c_char_p
    machine = {"avx2": AVX2, "avx512": AVX512}[isa().decode()]
    dtype = np.float32 if p == "s" else np.float64
    top = threshold(machine, "f32" if p == "s" else "f64")
    rng = np.random.default_rng(31)

    def ints(*shape):
        return rng.integers(-4, 5, shape).astype(dtype)

    def strided(values, step):
        v = np.zeros(len(values) * abs(step), dtype)[::step]
        v[:] = values
        return v

    for short in (1, 2, 3, 5, 7, top - 1, top, top + 1, top + 7):
        for long_ in (1, 3, 100):
            for shape in ((long_, short), (short, long_)):
                for order, trans, step in itertools.product(
                    "CF", (False, True), (1, 2, -1)
                ):
                    A = np.array(ints(*shape), order=order)
                    x = strided(ints(shape[0] if trans else shape[1]), step)
                    y = strided(ints(shape[1] if trans else shape[0]), step)
                    op = A.T if trans else A
                    expected = 3 * (op @ x) - 2 * y  # integers: exact
                    got = blas.gemv(3.0, A, x, -2.0, y, trans=trans)
                    assert (got == expected).all(), ("gemv", shape, order, trans, step)
                    if trans:
                        continue
                    u, w = strided(ints(shape[0]), step), strided(ints(shape[1]), -step)
                    expected = A + 3 * np.outer(u, w)
                    blas.ger(3.0, u, w, A)
                    assert (A == expected).all(), ("ger", shape, order, step)
