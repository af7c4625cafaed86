"""The level-2 sweep: every routine, precision and enum value through the
NumPy entry; (m, n) pairs of the profile (equal ones and random ones);
both layouts, lda padded by 0 or 3, increments from {1, 2, -1, -3}, alpha
and beta of the tier, band widths of the profile; the unreferenced
triangle, the cells outside a band and the unit diagonal poisoned."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest
from arena import matrix, vector
from exo2blas import numpy_entry as blas
from exo2blas import reference as ref
from sweep import DTYPES, Case, Failures, scalars, values
from test_level1 import run_with_setting

INCS = ((1, 1), (2, -1), (-3, 2), (-1, -3))


def _shapes(profile, rng):
    sizes = profile.level2_sizes
    pairs = [(n, n) for n in sizes]
    pairs += [
        tuple(int(v) for v in rng.choice(sizes, 2)) for _ in range(profile.level2_pairs)
    ]
    return pairs


def _seed(*key):
    return zlib.crc32(" ".join(map(str, key)).encode()) % 2**16


def _settings(profile, rng, square):
    """(tier, m, n, layout, pad, incx, incy, offset) of a sweep."""
    for tier in profile.tiers:
        if tier == "special":
            continue
        for m, n in _shapes(profile, rng):
            if square and m != n:
                continue
            for layout, pad in (("R", 0), ("C", 3), ("R", 3), ("C", 0)):
                incx, incy = INCS[int(rng.integers(len(INCS)))]
                yield tier, m, n, layout, pad, incx, incy, int(rng.integers(0, 16))


def _solvable(rng, n, dtype):
    """A well-conditioned triangle: diagonal in +-[1, 2], the rest uniform
    in [-1, 1] divided by n."""
    a = rng.uniform(-1, 1, (n, n)) / max(n, 1)
    d = rng.uniform(1, 2, n) * rng.choice([-1, 1], n)
    a[np.diag_indices(n)] = d
    return a.astype(dtype)


@pytest.mark.parametrize("p", ["s", "d"])
@pytest.mark.parametrize("trans", [False, True])
def test_gemv_and_gbmv(p, trans, profile):
    dtype, seed = DTYPES[p], _seed("gemv", p, trans)
    rng, failures = np.random.default_rng(seed), Failures()
    for tier, m, n, layout, pad, incx, incy, off in _settings(profile, rng, False):
        lx, ly = (m, n) if trans else (n, m)
        for alpha, beta in itertools.product(
            scalars(tier, "alpha"), scalars(tier, "beta")
        ):
            exact = tier == "exact"
            a, xs, ys = (
                values(rng, tier, (m, n), dtype),
                values(rng, tier, lx, dtype),
                values(rng, tier, ly, dtype),
            )
            what = f"{p}gemv trans={trans} {tier} m={m} n={n} {layout} pad={pad} incx={incx} incy={incy} alpha={alpha} beta={beta}"
            case = Case(what, seed)
            A = case.input(matrix(a, layout, pad, offset=off))
            x, y = case.input(vector(xs, incx, off)), case.output(vector(ys, incy, off))
            blas.gemv(alpha, A, x, beta, y, trans=trans)
            op = a.T if trans else a
            case.expect("y", _gemv(alpha, op, xs, beta, ys, dtype, exact), y)
            failures.add(case)
            for kl, ku in ((0, 0), (1, 2), (min(m, 3), 1)):
                band = values(rng, tier, (m, kl + ku + 1), dtype)
                mask = ref.band_mask(m, n, kl, ku)
                case = Case(f"{what.replace('gemv', 'gbmv')} kl={kl} ku={ku}", seed)
                A = case.input(matrix(band, "R", pad, mask=mask, offset=off))
                x, y = (
                    case.input(vector(xs, incx, off)),
                    case.output(vector(ys, incy, off)),
                )
                blas.gbmv(alpha, A, x, kl, ku, beta, y, trans=trans, n=n)
                dense = ref.band_to_dense(np.where(mask, band, 0), m, n, kl, ku)
                op = dense.T if trans else dense
                case.expect("y", _gemv(alpha, op, xs, beta, ys, dtype, exact), y)
                failures.add(case)
    failures.assert_none()


@pytest.mark.parametrize("p", ["s", "d"])
def test_ger(p, profile):
    dtype, seed = DTYPES[p], _seed("ger", p)
    rng, failures = np.random.default_rng(seed), Failures()
    for tier, m, n, layout, pad, incx, incy, off in _settings(profile, rng, False):
        for alpha in scalars(tier, "alpha"):
            a, xs, ys = (
                values(rng, tier, (m, n), dtype),
                values(rng, tier, m, dtype),
                values(rng, tier, n, dtype),
            )
            case = Case(
                f"{p}ger {tier} m={m} n={n} {layout} pad={pad} incx={incx} incy={incy} alpha={alpha}",
                seed,
            )
            A = case.output(matrix(a, layout, pad, offset=off))
            x, y = case.input(vector(xs, incx, off)), case.input(vector(ys, incy, off))
            blas.ger(alpha, x, y, A)
            terms = [alpha * np.outer(xs.astype(ref.LD), ys)]
            case.expect("A", ref.rank_update(a, terms, dtype, tier == "exact"), A)
            failures.add(case)
    failures.assert_none()


@pytest.mark.parametrize("layout", ["R", "C"])
@pytest.mark.parametrize("trans", [False, True])
def test_gemv_of_one_contiguous_column(layout, trans):
    """gemv of m x 1 (row-major) or 1 x m (column-major) with lda 1, which
    the C layer runs as the other transposition of one row: m of 1 to 161,
    increments 1, 2 and -1, beta 0.5: exact results (small integers)."""
    rng = np.random.default_rng(13)
    for dtype, m, inc in itertools.product(
        DTYPES.values(), (1, 2, 7, 40, 161), (1, 2, -1)
    ):
        shape = (m, 1) if layout == "R" else (1, m)
        a = rng.integers(-4, 5, shape).astype(dtype)
        _, A = matrix(a, layout)
        xs = rng.integers(-4, 5, shape[0] if trans else shape[1]).astype(dtype)
        ys = rng.integers(-4, 5, shape[1] if trans else shape[0]).astype(dtype)
        x, y = vector(xs, inc)[1], vector(ys, inc)[1]
        blas.gemv(3.0, A, x, 0.5, y, trans=trans)
        expected = 3 * ((a.T if trans else a) @ xs) + 0.5 * ys
        assert (y == expected).all(), (dtype, m, inc)


def ger_one_row_at_a_time():
    """ger of rows of odd lengths on both sides of 8 and 16 KiB (the most
    apart that the C layer's `_large` kernel takes them, one row at a time,
    for a matrix past the caches), both layouts, lda padded or not: exact
    results (small integers). Run here and with
    $EXO2BLAS_NONTEMPORAL_BYTES=0 (below), where every matrix lies past the
    caches."""
    rng = np.random.default_rng(11)
    for dtype, layout, pad in itertools.product(DTYPES.values(), "RC", (0, 5)):
        size = dtype.itemsize
        for long in (8192 // size - pad, 8192 // size + 1, 16384 // size + 1):
            shape = (7, long) if layout == "R" else (long, 7)
            _, A = matrix(rng.integers(-4, 5, shape).astype(dtype), layout, pad)
            x = rng.integers(-4, 5, shape[0]).astype(dtype)
            y = rng.integers(-4, 5, shape[1]).astype(dtype)
            expected = A + 3 * np.outer(x, y)
            blas.ger(3.0, x, y, A)
            assert (A == expected).all(), (dtype, layout, pad, long)


def syr_one_row_at_a_time():
    """syr of 1 to 67 rows, both triangles and layouts, lda padded or not:
    exact results (small integers), the other triangle untouched. Run here
    and with $EXO2BLAS_NONTEMPORAL_BYTES=0 (below), where every triangle
    lies past the caches and the C layer calls the `_large` kernel, one row
    at a time in the narrower vectors (its rows lie at most 8 KiB apart)."""
    rng = np.random.default_rng(12)
    cases = itertools.product(DTYPES.values(), "RC", (0, 5), (False, True))
    for dtype, layout, pad, lower in cases:
        for n in (1, 2, 5, 8, 17, 33, 67):
            _, A = matrix(rng.integers(-4, 5, (n, n)).astype(dtype), layout, pad)
            x = rng.integers(-4, 5, n).astype(dtype)
            updated = A + 3 * np.outer(x, x)
            keep = np.tril if lower else np.triu
            expected = np.where(keep(np.ones((n, n), bool)), updated, A)
            blas.syr(3.0, x, A, lower=lower)
            assert (A == expected).all(), (dtype, layout, pad, lower, n)


@pytest.mark.parametrize("bytes_", [None, "0"])
def test_syr_of_a_triangle_past_the_caches_one_row_at_a_time(bytes_):
    _within_or_past_the_caches(bytes_, syr_one_row_at_a_time)


def _within_or_past_the_caches(bytes_, check):
    """Runs `check` (a function of this module) here, where its matrices
    lie within the caches, or with $EXO2BLAS_NONTEMPORAL_BYTES=`bytes_` in a
    process of its own ("0": every matrix lies past them)."""
    if bytes_ is None:
        check()
        return
    statement = f"import test_level2\ntest_level2.{check.__name__}()"
    run = run_with_setting("EXO2BLAS_NONTEMPORAL_BYTES", bytes_, statement)
    assert run.returncode == 0, run.stderr
    assert not run.stderr, run.stderr


@pytest.mark.parametrize("bytes_", [None, "0"])
def test_ger_of_a_matrix_past_the_caches_one_row_at_a_time(bytes_):
    _within_or_past_the_caches(bytes_, ger_one_row_at_a_time)


SHORT = 5  # the short dimension of the matrices past a boundary


def _matrix_past_a_boundary(rng, dtype, long, order, extra, shift):
    """A SHORT x `long` matrix (its transpose, stored column-major, for
    `order` "F") of small integers whose rows start `shift` elements past a
    64-byte boundary, lda `extra` elements past a whole number of 64 bytes,
    inside a NaN-filled `base`: (A, base, start of its storage in base,
    lda)."""
    size, lanes = dtype.itemsize, 64 // dtype.itemsize
    lda = -(-long // lanes) * lanes + lanes + extra
    base = np.full(SHORT * lda + 2 * lanes, np.nan, dtype)
    start = (-base.ctypes.data % 64) // size + shift  # past a boundary
    rows = base[start : start + SHORT * lda].reshape(SHORT, lda)
    A = rows[:, :long] if order == "C" else rows[:, :long].T
    A[...] = rng.integers(-4, 5, A.shape)
    return A, base, start, lda


def test_ger_at_every_offset_from_a_boundary():
    """ger of rows around 1024 bytes (from which it updates the columns
    before the first 64-byte boundary as a call of their own, where the
    leading dimension is a whole number of 64 bytes), A at every offset
    from a boundary, both layouts, lda of whole and not whole 64 bytes:
    exact results (small integers), and the padding between rows
    untouched."""
    rng = np.random.default_rng(7)
    for dtype in DTYPES.values():
        size, lanes = dtype.itemsize, 64 // dtype.itemsize
        for long, order, extra, shift in itertools.product(
            (1024 // size - 1, 1024 // size, 1024 // size + 3),
            "CF",
            (0, 1),
            range(lanes),
        ):
            A, base, start, lda = _matrix_past_a_boundary(
                rng, dtype, long, order, extra, shift
            )
            x = rng.integers(-4, 5, A.shape[0]).astype(dtype)
            y = rng.integers(-4, 5, A.shape[1]).astype(dtype)
            expected = A + 3 * np.outer(x, y)
            before = base.copy()
            blas.ger(3.0, x, y, A)
            what = (dtype, long, order, lda, shift)
            assert (A == expected).all(), what
            outside = np.ones(base.size, bool)
            outside[start : start + SHORT * lda] = np.tile(
                np.arange(lda) >= long, SHORT
            )
            assert np.array_equal(base[outside], before[outside], equal_nan=True), what


def _assert_exact_gemv(rng, A, trans, what):
    """y <- 3 op(A) x + 2 y through gemv, x and y small integers drawn from
    `rng`, A of small integers: numpy's result exactly."""
    op = A.T if trans else A
    x = rng.integers(-4, 5, op.shape[1]).astype(A.dtype)
    y = rng.integers(-4, 5, op.shape[0]).astype(A.dtype)
    expected = 3 * op @ x + 2 * y
    blas.gemv(3.0, A, x, 2.0, y, trans=trans)
    assert (y == expected).all(), what


def test_gemv_at_every_offset_from_a_boundary():
    """gemv, NoTrans and Trans, of rows around 1024 bytes (from which it
    runs the columns before the first 64-byte boundary as a call of their
    own, where the leading dimension is a whole number of 64 bytes), A at
    every offset from a boundary, both layouts, lda of whole and not whole
    64 bytes, beta applied once: exact results (small integers)."""
    rng = np.random.default_rng(8)
    for dtype in DTYPES.values():
        size, lanes = dtype.itemsize, 64 // dtype.itemsize
        for long, order, trans, extra, shift in itertools.product(
            (1024 // size - 1, 1024 // size, 1024 // size + 3),
            "CF",
            (False, True),
            (0, 1),
            range(lanes),
        ):
            A, _, _, lda = _matrix_past_a_boundary(
                rng, dtype, long, order, extra, shift
            )
            _assert_exact_gemv(rng, A, trans, (dtype, long, order, trans, lda, shift))


def gemv_past_the_caches():
    """gemv, NoTrans and Trans, of 1 to 17 rows longer than any skinny
    threshold (160 elements), both layouts, lda padded or not, beta applied
    once: exact results (small integers). Run here and with
    $EXO2BLAS_NONTEMPORAL_BYTES=0 (below), where the row-major NoTrans
    ones (rows of 163 to 515 elements) run the `_large` kernel, eight rows
    jammed: 1 to 17 rows cover every remainder of its blocks."""
    rng = np.random.default_rng(12)
    for dtype, rows, long, layout, pad, trans in itertools.product(
        DTYPES.values(), (1, 7, 8, 9, 17), (163, 257, 515), "RC", (0, 3), (False, True)
    ):
        _, A = matrix(rng.integers(-4, 5, (rows, long)).astype(dtype), layout, pad)
        _assert_exact_gemv(rng, A, trans, (dtype, rows, long, layout, pad, trans))


@pytest.mark.parametrize("bytes_", [None, "0"])
def test_gemv_past_the_caches(bytes_):
    _within_or_past_the_caches(bytes_, gemv_past_the_caches)


def test_sbmv_of_long_bands_matches_the_dense_product_exactly():
    """sbmv's rows taken 128 apart (a band of 18 to 128 elements, the
    rows' bands within 1 MiB) or in order (a band of 129; f64's bands of
    64 past 1 MiB), both triangles, through CBLAS on this CPU's ISA: exact
    results (small integers)."""
    rng = np.random.default_rng(13)
    shapes = ((300, 17), (300, 127), (300, 128), (2200, 63))
    for dtype, lower, (n, k) in itertools.product(
        DTYPES.values(), (False, True), shapes
    ):
        kl, ku = (k, 0) if lower else (0, k)
        mask = ref.band_mask(n, n, kl, ku)
        band = np.where(mask, rng.integers(-4, 5, (n, k + 1)), 0).astype(dtype)
        x, y = (rng.integers(-4, 5, n).astype(dtype) for _ in range(2))
        _, A = matrix(band, "R", mask=mask)
        full = ref.symmetric(ref.band_to_dense(band, n, n, kl, ku), lower)
        expected = 2 * full.astype(np.float64) @ x + y
        result = blas.sbmv(2.0, A, x, k, 1.0, y.copy(), lower=lower)
        assert (result == expected).all(), (dtype, lower, n, k)


@pytest.mark.parametrize("p", ["s", "d"])
@pytest.mark.parametrize("lower", [False, True])
def test_symmetric(p, lower, profile):
    """symv, syr, syr2 and sbmv, on the stored triangle only."""
    dtype, seed = DTYPES[p], _seed("sym", p, lower)
    rng, failures = np.random.default_rng(seed), Failures()
    for tier, n, _, layout, pad, incx, incy, off in _settings(profile, rng, True):
        exact = tier == "exact"
        tri = (
            np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
        )
        for alpha, beta in zip(
            scalars(tier, "alpha"), scalars(tier, "beta") * 2, strict=False
        ):
            a, xs, ys = (
                values(rng, tier, (n, n), dtype),
                values(rng, tier, n, dtype),
                values(rng, tier, n, dtype),
            )
            full = ref.symmetric(np.where(tri, a, 0), lower)
            what = f"{p}%s lower={lower} {tier} n={n} {layout} pad={pad} incx={incx} incy={incy} alpha={alpha}"
            case = Case(what % "symv" + f" beta={beta}", seed)
            A = case.input(matrix(a, layout, pad, mask=tri, offset=off))
            x, y = case.input(vector(xs, incx, off)), case.output(vector(ys, incy, off))
            blas.symv(alpha, A, x, beta, y, lower=lower)
            case.expect(
                "y", ref.matmul_update(alpha, full, xs, beta, ys, dtype, exact), y
            )
            failures.add(case)
            for kind in ("syr", "syr2"):
                case = Case(what % kind, seed)
                A = case.output(matrix(a, layout, pad, mask=tri, offset=off))
                x, y = (
                    case.input(vector(xs, incx, off)),
                    case.input(vector(ys, incy, off)),
                )
                xl, yl = xs.astype(ref.LD), ys.astype(ref.LD)
                if kind == "syr":
                    blas.syr(alpha, x, A, lower=lower)
                    terms = [alpha * np.outer(xl, xl)]
                else:
                    blas.syr2(alpha, x, y, A, lower=lower)
                    terms = [alpha * np.outer(xl, yl), alpha * np.outer(yl, xl)]
                expected = ref.rank_update(
                    a[tri], [t[tri] for t in terms], dtype, exact
                )
                case.expect("A", expected, np.asarray(A)[tri])
                failures.add(case)
            for k in profile.band_widths:
                band = values(rng, tier, (n, k + 1), dtype)
                kl, ku = (k, 0) if lower else (0, k)
                mask = ref.band_mask(n, n, kl, ku)
                dense = ref.band_to_dense(np.where(mask, band, 0), n, n, kl, ku)
                case = Case(what % "sbmv" + f" beta={beta} k={k}", seed)
                A = case.input(matrix(band, "R", pad, mask=mask, offset=off))
                x, y = (
                    case.input(vector(xs, incx, off)),
                    case.output(vector(ys, incy, off)),
                )
                blas.sbmv(alpha, A, x, k, beta, y, lower=lower)
                full = ref.symmetric(dense, lower)
                case.expect(
                    "y", ref.matmul_update(alpha, full, xs, beta, ys, dtype, exact), y
                )
                failures.add(case)
    failures.assert_none()


@pytest.mark.parametrize("p", ["s", "d"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular(p, lower, trans, unit, profile):
    """trmv, trsv, tbmv and tbsv; the solvers by their backward error."""
    dtype, seed = DTYPES[p], _seed("tri", p, lower, trans, unit)
    rng, failures = np.random.default_rng(seed), Failures()
    for tier, n, _, layout, pad, incx, _, off in _settings(profile, rng, True):
        exact = tier == "exact"
        tri = (
            np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
        )
        if unit:
            tri &= ~np.eye(n, dtype=bool)
        flags = dict(lower=lower, trans=trans, unit_diag=unit)
        what = f"{p}%s lower={lower} trans={trans} unit={unit} {tier} n={n} {layout} pad={pad} incx={incx}"
        a, xs = values(rng, tier, (n, n), dtype), values(rng, tier, n, dtype)
        case = Case(what % "trmv", seed)
        A = case.input(matrix(a, layout, pad, mask=tri, offset=off))
        x = case.output(vector(xs, incx, off))
        blas.trmv(A, x, **flags)
        t = ref.triangular(a, lower, unit)
        case.expect(
            "x", ref.matmul_update(1, t.T if trans else t, xs, 0, xs, dtype, exact), x
        )
        failures.add(case)
        s = _solvable(rng, n, dtype)
        case = Case(what % "trsv", seed)
        A = case.input(matrix(s, layout, pad, mask=tri, offset=off))
        x = case.output(vector(xs, incx, off))
        blas.trsv(A, x, **flags)
        t = ref.triangular(s, lower, unit)
        _residual(case, 1, t.T if trans else t, xs, np.asarray(x), dtype)
        failures.add(case)
        for k in profile.band_widths:
            kl, ku = (k, 0) if lower else (0, k)
            mask = ref.band_mask(n, n, kl, ku)
            if unit:
                mask[:, k if lower else 0] = False
            band = values(rng, tier, (n, k + 1), dtype)
            case = Case(what % "tbmv" + f" k={k}", seed)
            A = case.input(matrix(band, "R", pad, mask=mask, offset=off))
            x = case.output(vector(xs, incx, off))
            blas.tbmv(A, x, k, **flags)
            t = ref.triangular(
                ref.band_to_dense(np.where(mask, band, 0), n, n, kl, ku), lower, unit
            )
            case.expect(
                "x",
                ref.matmul_update(1, t.T if trans else t, xs, 0, xs, dtype, exact),
                x,
            )
            failures.add(case)
            # A solvable band: the diagonal in +-[1, 2], the rest small.
            sb = (rng.uniform(-1, 1, (n, k + 1)) / (k + 1)).astype(dtype)
            sb[:, k if lower else 0] = (
                rng.uniform(1, 2, n) * rng.choice([-1, 1], n)
            ).astype(dtype)
            case = Case(what % "tbsv" + f" k={k}", seed)
            A = case.input(matrix(sb, "R", pad, mask=mask, offset=off))
            x = case.output(vector(xs, incx, off))
            blas.tbsv(A, x, k, **flags)
            t = ref.triangular(
                ref.band_to_dense(np.where(mask, sb, 0), n, n, kl, ku), lower, unit
            )
            _residual(case, 1, t.T if trans else t, xs, np.asarray(x), dtype)
            failures.add(case)
    failures.assert_none()


@pytest.mark.parametrize("p", ["s", "d"])
def test_square_routines_on_both_sides_of_their_short_kernels(p):
    """symv calls its `_short` kernel for rows of at most 2 KiB, trmv and
    trsv theirs (AVX-512) for rows of at most 1 KiB, at increment 1
    (capi/level2.inc), which the sweep's small sizes keep below: at the
    thresholds and one row beyond, every triangle, Trans and diagonal, on
    small integers (exact in any order; trsv's diagonal +-1 and solution
    integers), against numpy."""
    dtype = DTYPES[p]
    size = dtype.itemsize
    rng = np.random.default_rng(11)
    for n in (1024 // size, 1024 // size + 1, 2048 // size, 2048 // size + 1):
        A = rng.integers(-4, 5, (n, n)).astype(dtype)
        xs = rng.integers(-4, 5, n).astype(dtype)
        for lower in (False, True):
            full = np.tril(A) if lower else np.triu(A)
            sym = full + np.tril(A, -1).T if lower else full + np.triu(A, 1).T
            y = np.ones(n, dtype)
            blas.symv(dtype.type(3), A, xs, dtype.type(-2), y, lower=lower)
            assert (y == 3 * (sym @ xs) - 2).all(), (n, lower)
            for trans, unit in itertools.product((False, True), repeat=2):
                t = full.copy()
                np.fill_diagonal(t, 1 if unit else rng.choice([-1, 1], n))
                op = t.T if trans else t
                flags = dict(lower=lower, trans=trans, unit_diag=unit)
                x = xs.copy()
                blas.trmv(A if unit else t, x, **flags)
                assert (x == op @ xs).all(), ("trmv", n, flags)
                x = (op @ xs).astype(dtype)
                blas.trsv(A if unit else t, x, **flags)
                assert (x == xs).all(), ("trsv", n, flags)


@pytest.mark.parametrize("p", ["s", "d"])
def test_band_wider_than_its_matrix_is_a_triangle(p):
    """tbmv and tbsv with k >= n - 1 and n >= 16 call trmv's and trsv's
    kernels on the band's storage (leading dimension lda - 1; lower: from
    its k-th entry; capi/level2.inc): n on both sides of 16 and around the
    kernels' blocks of four and vectors, k from n - 1 to beyond, lda
    padded, x at increments 1, 2 and -1, every triangle, Trans and
    diagonal, on small integers (exact in any order; tbsv's diagonal +-1
    and solution integers; the cells outside the band, the padding and a
    unit diagonal NaN), against numpy; and k = n - 2, which stays a band."""
    dtype = DTYPES[p]
    rng = np.random.default_rng(13)
    for n, extra, pad, inc in itertools.product(
        (2, 5, 15, 16, 17, 32, 33, 65), (-1, 0, 1, 4), (0, 3), (1, 2, -1)
    ):
        k = max(n - 1 + extra, 0)
        for lower, trans, unit in itertools.product((False, True), repeat=3):
            kl, ku = (k, 0) if lower else (0, k)
            storage = np.full((n, k + 1 + pad), np.nan, dtype)  # poisoned
            band = storage[:, : k + 1]  # lda = k + 1 + pad
            inside = ref.band_mask(n, n, kl, ku)
            band[inside] = rng.integers(-4, 5, inside.sum())
            diagonal = band[:, k if lower else 0]
            diagonal[:] = np.nan if unit else rng.choice([-1, 1], n)
            dense = ref.band_to_dense(np.where(inside, band, 0), n, n, kl, ku)
            t = ref.triangular(np.nan_to_num(dense), lower, unit)
            op = t.T if trans else t
            flags = dict(lower=lower, trans=trans, unit_diag=unit)
            what = (n, k, pad, inc, flags)
            xs = rng.integers(-4, 5, n).astype(dtype)
            x = np.zeros(n * abs(inc), dtype)[::inc]
            x[:] = xs
            blas.tbmv(band, x, k, **flags)
            assert (x == op @ xs).all(), ("tbmv", *what)
            x[:] = op @ xs
            blas.tbsv(band, x, k, **flags)
            assert (x == xs).all(), ("tbsv", *what)


@pytest.mark.parametrize("p", ["s", "d"])
def test_tbmv_on_both_sides_of_its_diagonals_band(p):
    """tbmv Trans at increment 1 runs along the storage's diagonals for a
    band of at most 24 (stbmv) or 16 (dtbmv) off-diagonals, along the rows
    beyond (capi/level2.inc): at that band and one beyond, for rows fewer
    than, as many as and more than the band, every triangle, Trans and
    diagonal, on small integers (exact in any order), against numpy."""
    dtype = DTYPES[p]
    rng = np.random.default_rng(12)
    top = 24 if p == "s" else 16
    for k, n in itertools.product((top, top + 1), (5, top + 1, 3 * top + 7)):
        for lower, trans, unit in itertools.product((False, True), repeat=3):
            kl, ku = (k, 0) if lower else (0, k)
            band = rng.integers(-4, 5, (n, k + 1)).astype(dtype)
            mask = ref.band_mask(n, n, kl, ku)
            t = ref.triangular(
                ref.band_to_dense(np.where(mask, band, 0), n, n, kl, ku), lower, unit
            )
            xs = rng.integers(-4, 5, n).astype(dtype)
            x = xs.copy()
            blas.tbmv(band, x, k, lower=lower, trans=trans, unit_diag=unit)
            assert (x == (t.T if trans else t) @ xs).all(), (k, n, lower, trans, unit)


def _gemv(alpha, op, xs, beta, ys, dtype, exact):
    """The BLAS returns at once when m or n is 0: y is not even scaled."""
    if 0 in op.shape:
        return ref.Expected(ys.astype(ref.LD), dtype)
    return ref.matmul_update(alpha, op, xs, beta, ys, dtype, exact)


def _residual(case, alpha, op_t, b, x_hat, dtype):
    residual, bound = ref.solve_residual(alpha, op_t, b, x_hat, dtype)
    zero = ref.Expected(np.zeros_like(residual), dtype, bound)
    case.expect("residual alpha b - op(T) x", zero, residual)


@pytest.mark.parametrize("p", ["s", "d"])
def test_level2_special_values(p, profile):
    """beta = 0: NaN and Inf already in y do not propagate; alpha = 0: A
    and x are not read (they hold NaN); NaN in x propagates through gemv."""
    dtype = DTYPES[p]
    for m, n in ((1, 1), (5, 3), (17, 9)):
        a, x = np.ones((m, n), dtype), np.ones(n, dtype)
        for junk in (np.nan, np.inf, -np.inf):
            y = np.full(m, junk, dtype)
            assert (blas.gemv(2.0, a, x, 0.0, y) == 2 * n).all()
            y = np.full(m, 3, dtype)
            assert (
                blas.gemv(
                    0.0, np.full((m, n), junk, dtype), np.full(n, junk, dtype), 0.5, y
                )
                == 1.5
            ).all()
            ys = np.full(n, junk, dtype)
            assert (blas.symv(1.0, np.ones((n, n), dtype), x, 0.0, ys) == n).all()
        x[n // 2] = np.nan
        assert np.isnan(blas.gemv(1.0, a, x)).all()
