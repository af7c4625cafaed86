"""The level-1 sweep: every routine and precision through the NumPy entry,
every n of the profile, increment pairs (1, 1), (2, 1), (1, 3), (-1, -1),
(1, -1), (-3, 2) and 0 for read-only vectors, base pointers offset by 0 to
15 elements, every rotm flag, alpha in the tier's values; outputs against
the oracle (exo2blas/reference.py), every poisoned cell intact."""

from __future__ import annotations

import ctypes
import zlib

import numpy as np
import pytest
from arena import vector
from exo2blas import library as lib
from exo2blas import numpy_entry as blas
from exo2blas import reference as ref
from sweep import DTYPES, Case, Failures, scalars, values

PAIRS = ((1, 1), (2, 1), (1, 3), (-1, -1), (1, -1), (-3, 2), (0, 1))
PAIRED = ("dot", "axpy", "copy", "swap", "rot", "rotm", "dsdot", "sdsdot")
SINGLE = ("asum", "nrm2", "iamax", "scal")


def _cases(profile, seed):
    rng = np.random.default_rng(seed)
    for tier in profile.tiers:
        if tier == "special":
            continue  # test_level1_special_values
        for n in profile.level1_sizes:
            for incx, incy in PAIRS:
                yield tier, n, incx, incy, int(rng.integers(0, 16))


def _run(routine, p, profile):
    dtype = DTYPES[p] if routine not in ("dsdot", "sdsdot") else np.dtype(np.float32)
    seed = zlib.crc32(f"{routine}{p}".encode()) % 2**16
    rng = np.random.default_rng(seed)
    failures = Failures()
    for tier, n, incx, incy, offset in _cases(profile, seed):
        exact = tier == "exact"
        xs, ys = values(rng, tier, n, dtype), values(rng, tier, n, dtype)
        if incx == 0 and n:  # one element, read n times
            xs[:] = xs[0]
        if routine in SINGLE and incy != 1:
            continue
        written_x = routine in ("swap", "rot", "rotm", "scal")
        written_y = routine in ("axpy", "copy", "swap", "rot", "rotm")
        if (incx == 0 and written_x) or (incy == 0 and written_y):
            continue
        label = f"{p}{routine} {tier} n={n} incx={incx} incy={incy} offset={offset}"
        if routine in ("axpy", "scal"):
            for alpha in scalars(tier, "alpha"):
                case = Case(f"{label} alpha={alpha}", seed)
                x = (case.output if written_x else case.input)(vector(xs, incx, offset))
                if routine == "scal":
                    blas.scal(alpha, x)
                    case.expect("x", ref.scal(alpha, xs, dtype), x)
                else:
                    y = case.output(vector(ys, incy, offset))
                    blas.axpy(alpha, x, y)
                    case.expect("y", ref.axpy(alpha, xs, ys, dtype, exact), y)
                failures.add(case)
            continue
        flags = (-1.0, 0.0, 1.0, -2.0) if routine == "rotm" else (None,)
        for flag in flags:
            case = Case(label + (f" flag={flag}" if flag is not None else ""), seed)
            x = (case.output if written_x else case.input)(vector(xs, incx, offset))
            y = None
            if routine in PAIRED:
                y = (case.output if written_y else case.input)(vector(ys, incy, offset))
            if routine == "dot":
                case.expect("result", ref.dot(xs, ys, dtype, exact), blas.dot(x, y))
            elif routine == "dsdot":
                case.expect("result", ref.dsdot(xs, ys, exact), blas.dsdot(x, y))
            elif routine == "sdsdot":
                case.expect(
                    "result", ref.dsdot(xs, ys, exact, sb=3.0), blas.sdsdot(3.0, x, y)
                )
            elif routine == "asum":
                case.expect("result", ref.asum(xs, dtype, exact), blas.asum(x))
            elif routine == "nrm2":
                case.expect("result", ref.nrm2(xs, dtype), blas.nrm2(x))
            elif routine == "iamax":
                case.expect("index", ref.iamax(xs, dtype), blas.iamax(x))
            elif routine == "copy":
                blas.copy(x, y)
                case.expect("y", ref.Expected(xs.astype(ref.LD), dtype), y)
            elif routine == "swap":
                blas.swap(x, y)
                case.expect("x", ref.Expected(ys.astype(ref.LD), dtype), x)
                case.expect("y", ref.Expected(xs.astype(ref.LD), dtype), y)
            elif routine == "rot":
                c, s = (3.0, -2.0) if exact else (0.6, 0.8)
                blas.rot(x, y, c, s)
                ex, ey = ref.rot(xs, ys, c, s, dtype, exact)
                case.expect("x", ex, x)
                case.expect("y", ey, y)
            elif routine == "rotm":
                param = np.array(
                    [flag, 2, -3, 1, 4] if exact else [flag, 0.5, -0.25, 1.5, 0.75],
                    dtype,
                )
                blas.rotm(x, y, param)
                ex, ey = ref.rotm(xs, ys, param, dtype, exact)
                case.expect("x", ex, x)
                case.expect("y", ey, y)
            failures.add(case)
    failures.assert_none()


@pytest.mark.parametrize("p", ["s", "d"])
@pytest.mark.parametrize(
    "routine",
    ["dot", "asum", "nrm2", "iamax", "axpy", "copy", "swap", "scal", "rot", "rotm"],
)
def test_level1_routine_matches_the_oracle(routine, p, profile):
    _run(routine, p, profile)


@pytest.mark.parametrize("routine", ["dsdot", "sdsdot"])
def test_level1_mixed_precision_matches_the_oracle(routine, profile):
    _run(routine, "s", profile)


@pytest.mark.parametrize("p", ["s", "d"])
def test_level1_special_values(p, profile):
    """NaN and Inf propagate through dot, axpy and nrm2; nrm2 neither
    overflows nor underflows at the ends of the range; iamax returns the
    first of tied maxima and of +-max pairs."""
    if "special" not in profile.tiers and profile.name != "smoke":
        pytest.skip("not in this profile")
    dtype = DTYPES[p]
    big, small = (1e300, 1e-300) if p == "d" else (1e30, 1e-30)
    for n in (1, 7, 33, 100):
        x = np.full(n, big, dtype)
        norm = blas.nrm2(x)
        assert np.isfinite(norm) and abs(norm / (big * np.sqrt(n)) - 1) < 1e-5
        x = np.full(n, small, dtype)
        assert abs(blas.nrm2(x) / (small * np.sqrt(n)) - 1) < 1e-5
        # squares near the underflow threshold (dnrm2's plain sum gives
        # way to Blue's sums below 2^-900) and tiny ones beside a normal one
        edge = np.sqrt(np.ldexp(1.0, -900)) if p == "d" else np.sqrt(1e-38)
        x = np.full(n, edge, dtype)
        assert abs(blas.nrm2(x) / (float(edge) * np.sqrt(n)) - 1) < 1e-5
        x = np.full(n, small, dtype)
        x[0] = 3.0
        assert abs(blas.nrm2(x) / 3.0 - 1) < 1e-6
        for bad in (np.nan, np.inf):
            x = np.ones(n, dtype)
            x[n // 2] = bad
            assert np.isnan(blas.dot(x, np.ones(n, dtype))) == np.isnan(bad)
            assert np.isnan(blas.nrm2(x)) == np.isnan(bad) and not np.isfinite(
                blas.nrm2(x)
            )
            y = np.ones(n, dtype)
            blas.axpy(2.0, x, y)
            assert (
                not np.isfinite(y[n // 2]) and np.isfinite(np.delete(y, n // 2)).all()
            )
    for n in (5, 4096, 4097, 10000):
        x = np.ones(n, dtype)
        x[n // 3], x[n // 2], x[-1] = -3, 3, -3
        assert blas.iamax(x) == n // 3


@pytest.mark.parametrize("p", ["s", "d"])
def test_iamax_of_one_element_reads_no_x(p):
    """The reference returns the first index for n = 1 without reading x:
    a NULL x is no fault."""
    routine = lib.load()[f"cblas_i{p}amax"]
    routine.restype = ctypes.c_size_t
    assert routine(1, None, 1) == 0
    assert blas.iamax(np.array([np.nan], DTYPES[p])) == 0


@pytest.mark.parametrize("p", ["s", "d"])
def test_iamax_first_of_tied_maxima_in_the_lanes_and_the_last_elements(p):
    """first_max scans whole vectors by lanes, reduces the lanes in the
    kernel and takes its last elements (fewer than a vector) one by one: a
    maximum and a later tie of it, of either sign, anywhere in x up to past
    an AVX-512 lane block, give the first; all zeros give 0."""
    dtype = DTYPES[p]
    for n in range(1, 80):
        assert blas.iamax(np.zeros(n, dtype)) == 0
        for first in range(n):
            for tie in {first, (first + n) // 2, n - 1}:
                x = np.linspace(0.5, 1.5, n).astype(dtype) * (-1.0) ** np.arange(n)
                x[first], x[tie] = 2, -2 if tie % 2 else 2
                assert blas.iamax(x) == first, (n, first, tie)


@pytest.mark.parametrize("p", ["s", "d"])
def test_iamax_finds_the_first_maximum_across_blocks_and_chunks(p):
    """Beyond 8 KiB, blockmax finds the largest maximum per block (of 1024
    elements up to 64 KiB of x, else of 4096), then per chunk of 256 of the
    first block holding it, and first_max runs on that chunk: the maximum
    in the first, a middle or the last (partial) chunk or block, ties in
    later chunks and blocks, and every increment the C layer passes on,
    give numpy's first index."""
    dtype = DTYPES[p]
    size = dtype.itemsize
    rng = np.random.default_rng(5)
    chunk = 256
    for n in (8192 // size + 1, 4096, 4097, 65536 // size, 65536 // size + 1, 8492):
        block = 1024 if n * size <= 65536 else 4096
        spots = {0, chunk - 1, chunk, 5 * chunk + 7, block - 1, block, n - 1}
        for first in sorted(s for s in spots if s < n):
            x = rng.uniform(-1, 1, n).astype(dtype)
            later = [i for i in (first + 1, first + chunk, first + block) if i < n]
            x[first] = -2 if first % 2 else 2
            x[later] = 2
            assert blas.iamax(x) == first, (n, first)
            for inc in (2, 3):
                wide = np.zeros(n * inc, dtype)
                wide[::inc] = x
                assert blas.iamax(wide[::inc]) == first, (n, first, inc)


def updates_at_every_offset(p):
    """scal, axpy, swap and rot run the elements of x (axpy: y) before its
    first 64-byte boundary as a call of their own, then the rest: at every
    offset from a boundary, with x and y at different ones, and lengths
    around one vector, around 192 bytes (below which Intel CPUs and Zen 5
    keep one call, and rot on AVX-512 runs its `short` kernel) and from
    4 KiB (where axpy past the caches runs its `narrow` kernel on Zen 4:
    $EXO2BLAS_NONTEMPORAL_BYTES, below), every element is updated once."""
    dtype = DTYPES[p]
    size = dtype.itemsize
    rng = np.random.default_rng(3)
    base = np.zeros(2 * 4200 + 64, dtype)
    start = (-base.ctypes.data % 64) // size  # a 64-byte boundary
    longer = (4096 // size - 1, 4096 // size, 4096 // size + 7)
    for n in (16 // size * 4 + 1, 33, 192 // size, 192 // size + 1, 100, 257, *longer):
        for shift in range(64 // size):
            x = base[start + shift : start + shift + n]
            y = base[start + 4200 + (shift * 3) % (64 // size) :][:n]
            x[:], y[:] = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
            x0, y0 = x.copy(), y.copy()
            blas.scal(dtype.type(0.5), x)
            assert (x == x0 * dtype.type(0.5)).all(), (n, shift)
            blas.axpy(dtype.type(2), x0, y)
            assert (y == y0 + dtype.type(2) * x0).all(), (n, shift)
            x[:], y[:] = x0, y0
            blas.swap(x, y)
            assert (x == y0).all() and (y == x0).all(), (n, shift)
            c, s = dtype.type(0.6), dtype.type(0.8)
            blas.rot(x, y, c, s)
            bound = 4 * np.finfo(dtype).eps * (abs(c * y0) + abs(s * x0))
            assert (abs(x - (c * y0 + s * x0)) <= bound).all(), (n, shift)
            assert (abs(y - (c * x0 - s * y0)) <= bound).all(), (n, shift)


@pytest.mark.parametrize("p", ["s", "d"])
def test_updates_split_off_the_elements_before_a_64_byte_boundary(p):
    updates_at_every_offset(p)


def test_updates_past_the_caches_update_every_element_once():
    """With $EXO2BLAS_NONTEMPORAL_BYTES=0, on Zen 4 every unit-stride axpy
    of 4 KiB or more runs its `narrow` kernel: the results are the same."""
    calls = "for p in 'sd': test_level1.updates_at_every_offset(p)"
    run = run_with_setting("EXO2BLAS_NONTEMPORAL_BYTES", "0", calls)
    assert run.returncode == 0, run.stderr
    assert not run.stderr, run.stderr


def reductions_at_every_offset(p):
    """dot, asum, dsdot, sdsdot (from 4 KiB) and iamax (beyond 8 KiB) of
    unit-stride x run its elements before its first 64-byte boundary as a
    call of their own, then the rest, unless x lies past the caches
    ($EXO2BLAS_NONTEMPORAL_BYTES, below; except on Zen 5): at every offset
    from a boundary, on small integers (exact sums in any order), they are
    numpy's; iamax's maximum in the head, at the boundary or after it, a
    tie of the head's maximum after it, and NaN in the head (it never
    replaces a maximum), give numpy's first index."""
    dtype = DTYPES[p]
    size = dtype.itemsize
    rng = np.random.default_rng(7)
    base = np.zeros(2 * 20000 + 64, dtype)
    start = (-base.ctypes.data % 64) // size  # a 64-byte boundary
    for n in (4096 // size - 1, 4096 // size, 8192 // size + 1, 20000):
        for shift in range(64 // size):
            head = (-shift) % (64 // size)
            x = base[start + shift : start + shift + n]
            y = base[start + 20000 + shift :][:n]
            x[:], y[:] = rng.integers(-4, 5, n), rng.integers(-4, 5, n)
            exact = np.float64 if p == "s" else np.longdouble
            assert blas.dot(x, y) == np.dot(x.astype(exact), y.astype(exact))
            assert blas.asum(x) == np.abs(x.astype(exact)).sum(), (n, shift)
            if p == "s":  # dsdot and sdsdot sum in f64, their heads apart too
                total = np.dot(x.astype(np.float64), y.astype(np.float64))
                assert blas.dsdot(x, y) == total, (n, shift)
                assert blas.sdsdot(0.25, x, y) == np.float32(total + 0.25), (n, shift)
            for first in {0, max(head - 1, 0), head, head + 1, n - 1}:
                x[:] = rng.uniform(-1, 1, n)
                x[first] = -2 if first % 2 else 2
                x[min(first + 3, n - 1)] = 2
                assert blas.iamax(x) == first, (n, shift, first)
            x[: head + 1] = np.nan
            x[head + 5] = 3
            assert blas.iamax(x) == head + 5, (n, shift)


@pytest.mark.parametrize("p", ["s", "d"])
def test_reductions_split_off_the_elements_before_a_64_byte_boundary(p):
    reductions_at_every_offset(p)


@pytest.mark.parametrize("bytes_", ["0", "8192"])
def test_reductions_past_the_caches_still_sum_as_numpy_does(bytes_):
    """With $EXO2BLAS_NONTEMPORAL_BYTES=0 no reduction splits its head but
    on Zen 5 with the AVX-512 kernels (and on Zen 4 every unit-stride dot
    runs its `narrow` kernel), with 8192 only those of x under 8 KiB do:
    the results are the same."""
    calls = "for p in 'sd': test_level1.reductions_at_every_offset(p)"
    run = run_with_setting("EXO2BLAS_NONTEMPORAL_BYTES", bytes_, calls)
    assert run.returncode == 0, run.stderr
    assert not run.stderr, run.stderr


def copies_at_every_offset():
    """copy of lengths around its thresholds (one vector; 768 bytes, from
    which it aligns y's vectors to 64 bytes), y at every offset from a
    64-byte boundary and x at another, or x such that y starts 4, 8, 16 or
    48 bytes after it modulo 4 KiB (where copy does not call memcpy): y is
    x, and nothing around y is written. Run here and with
    $EXO2BLAS_NONTEMPORAL_BYTES=0 or $EXO2BLAS_BLOCK_COPY_BYTES=0 (below)."""
    rng = np.random.default_rng(5)
    page = 4096
    for dtype in DTYPES.values():
        size = dtype.itemsize
        base = np.full(20000, np.nan, dtype)
        start = (-base.ctypes.data % 64) // size  # a 64-byte boundary
        for n in (1, 7, 16 // size * 4 + 1, 768 // size - 1, 768 // size, 1000, 4097):
            for shift in range(64 // size):
                y_at = start + shift
                # x 9 pages ahead of y less the distance, past y's end
                short = [
                    y_at + (9 * page - d) // size for d in (4, 8, 16, 48) if d >= size
                ]
                for x_at in [start + 4200 + (shift * 5) % (64 // size), *short]:
                    y, x = base[y_at : y_at + n], base[x_at : x_at + n]
                    x[:] = rng.uniform(-1, 1, n)
                    before = base.copy()
                    blas.copy(x, y)
                    assert (y == x).all(), (dtype, n, shift, x_at)
                    outside = np.ones(base.size, bool)
                    outside[y_at : y_at + n] = False
                    assert np.array_equal(
                        base[outside], before[outside], equal_nan=True
                    )


def test_copy_aligns_long_copies_and_writes_y_only():
    copies_at_every_offset()


@pytest.mark.parametrize("bytes_", ["0", "a lot"])
@pytest.mark.parametrize("setting", ["NONTEMPORAL", "BLOCK_COPY"])
def test_copy_past_the_caches_or_in_one_block_writes_y_only(setting, bytes_):
    """$EXO2BLAS_NONTEMPORAL_BYTES=0 makes every unit-stride copy store
    past the caches (its `nontemporal` kernel), $EXO2BLAS_BLOCK_COPY_BYTES=0
    one memcpy (its `block` kernel), aligned or not; a value that is not a
    number is reported on stderr and the cache's size used."""
    name = f"EXO2BLAS_{setting}_BYTES"
    run = run_with_setting(name, bytes_, "test_level1.copies_at_every_offset()")
    assert run.returncode == 0, run.stderr
    warned = f"{name}=a lot is not a number of bytes" in run.stderr
    assert warned == (bytes_ != "0"), run.stderr


def run_with_setting(name, value, statement):
    """`statement` after `import test_level1`, in a Python of its own, the
    library loaded with $NAME=VALUE (read when it loads): the finished
    process."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, **{name: value})
    env["EXO2BLAS_LIBRARY"] = str(lib.load()._name)
    here = str(Path(__file__).parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", f"import test_level1\n{statement}"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
