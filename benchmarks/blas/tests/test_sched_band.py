"""The banded level-2 schedule (exo2blas.sched.band): what it makes of
gbmv, sbmv, tbmv and tbsv, that the scheduled procs compute the naive
ones' results (exactly on small integers, whatever the order; within the
suite's bound on floats) across band widths 0, 1, k near n and beyond,
odd n and n = 1, and the errors it gives. The sweep (test_level2.py)
checks every variant through the C library against the oracle; n = 0 is a
quick return of the C layer (a proc's `size` is positive)."""

from __future__ import annotations

import numpy as np
import pytest
from cpu import RUNS_AVX2
from exo2 import SchedulingError, proc
from exo2blas.kernels import module
from exo2blas.machines import AVX2, AVX512
from exo2blas.sched import band, by_band, by_letter, diagonals
from exo2blas.sched.band import _rows_inside
from exo2blas.variants import Uplo, assert_unit_strides, kernel, set_precisions

# every variant: each reads the rows of the band storage forwards
# (docs/blas-library.md)
SCHEDULED = {
    "gbmv": [f"{p}gbmv_{t}" for p in "sd" for t in "nt"],
    "sbmv": [f"{p}sbmv_{u}" for p in "sd" for u in "ul"],
    "tbmv": [
        f"{p}tbmv_{u}{t}{d}" for p in "sd" for u in "ul" for t in "nt" for d in "un"
    ],
    "tbsv": [
        f"{p}tbsv_{u}{t}{d}" for p in "sd" for u in "ul" for t in "nt" for d in "un"
    ],
}
SIZES = (1, 2, 3, 7, 8, 9, 16, 17, 33, 40)


def _variants(name, machine):
    return {v.name: v for v in module(2, name).KERNEL.variants(machine)}


@pytest.fixture(scope="module", params=[AVX2, AVX512], ids=lambda m: m.name)
def variants(request):
    machine = request.param
    return machine, {name: _variants(name, machine) for name in SCHEDULED}


def test_the_band_loop_is_vectorized_in_the_body_rows(variants):
    machine, found = variants
    isa = machine.name
    for name, names in SCHEDULED.items():
        for variant in names:
            text = str(found[name][variant].procs["stride_1"])
            prec = "f32" if variant[0] == "s" else "f64"
            # a dot product with x (fma) or an update of y or x (addmul);
            # tbsv on the narrower machine's vectors (`on_narrower`)
            narrow = (machine.narrower or machine).name if name == "tbsv" else isa
            ops = ("fma", "addmul")
            assert any(f"{narrow}_{op}_{prec}(" in text for op in ops), variant
            assert text.startswith("def ") and "    else:\n" in text, variant
            # the naive proc stays for a band as wide as the matrix, or empty
            assert "stride_any" not in text
    gbmv = str(found["gbmv"]["dgbmv_n"].procs["stride_1"])
    lanes = machine.lanes["f64"]
    half = lanes // 2  # min_vectors=0.5: a band shorter stays naive
    # rows past n + kl have no band at all: m > n + kl stays naive
    assert (
        "if 0 <= kl and kl <= -ku + n and -ku + n <= m and m <= kl + n and "
        f"{half} <= 1 + kl + ku:" in gbmv
    )
    assert "for io in seq(0, (-kl - ku + n) / 4):" in gbmv  # four rows jammed
    # the jammed rows, the rows after them, the head rows (i < kl), whose
    # band loop starts at kl - i, and the tail rows (i >= n - ku), whose
    # band ends at n; a band wider than the matrix (n - ku <= kl) in three
    # parts, each row's band clipped at one edge or both; the jammed rows'
    # four sums and updates of y end as one `hsum_rows`
    assert gbmv.count(f"{isa}_hsum_rows_f64(") == 1
    assert gbmv.count(f"{isa}_hsum_f64(") == 1 + 1 + 1 + 3
    assert f"for do in seq(0, (1 + i + ku) / {lanes}):" in gbmv
    assert (
        "if 0 <= -ku + n and -ku + n <= kl and kl <= m and m <= kl + n and "
        f"{half} <= 1 + kl + ku:" in gbmv
    )
    assert f"for do in seq(0, n / {lanes}):" in gbmv  # rows holding all of x
    # tbmv's rows jam too (each row writes x[i] after its band is read);
    # tbsv's substitution reads what the row before wrote: its rows go in
    # blocks of 4 as trsv's do, the columns all four visit jammed into one
    # pass (four sums), the small triangles unrolled (a band too short for
    # vectors takes two rows a pass, unrolled in their order)
    tbmv = str(found["tbmv"]["stbmv_unn"].procs["stride_1"])
    assert "for io in seq" in tbmv
    # its last k rows, whose band ends at the matrix's edge, vectorized too
    f32_lanes = machine.lanes["f32"]
    assert f"for do in seq(0, (-1 - i + n) / {f32_lanes}):" in tbmv
    tbsv = str(found["tbsv"]["dtbsv_lnn"].procs["stride_1"])
    vectorized = tbsv[: tbsv.index("    else:\n")]
    narrow = machine.narrower or machine  # tbsv's vectors (`on_narrower`)
    tb_lanes = narrow.lanes["f64"]
    assert "for io in seq(0, (-k + n) / 4):" in vectorized
    assert f"for do in seq(0, (-3 + k) / {tb_lanes}):" in vectorized
    # the pass, the first k rows (two loops), the last n % 4 rows
    assert vectorized.count(f"{narrow.name}_fma_f64(") == 4 + 2 + 1
    assert "acc_1 += -A[1 + k + 4 * io, -1 + k] * x[k + 4 * io]" in vectorized
    assert f"if 0 <= k and k <= n and {2 * tb_lanes} <= k:" in tbsv  # two vectors
    # sbmv: each stored row read once, as a dot product for y[i] and an
    # update of the y its mirror image covers, both vectorized
    # (and in its last k rows, clipped at the matrix's edge); a band of at
    # most 16 takes its rows 16 apart (they update y) where there are two
    # blocks of 16 rows or more, a longer one in order
    sbmv = str(found["sbmv"]["ssbmv_u"].procs["stride_1"])
    shortest = f32_lanes * 3 // 4  # min_vectors=0.75
    assert f"if 0 <= -k + n and -k + n <= n and {shortest} <= 1 + k and" in sbmv
    assert "if 1 + k <= 16:\n            if 32 <= -k + n:" in sbmv
    assert (
        "for ii in seq(0, 16):\n                    for io in seq(0, (-k + n) / 16):"
        in sbmv
    )
    assert "for i in seq(0, -k + n):" in sbmv
    # rows in order (the rest of the blocks, or too few rows for two)
    # update y with scalars along a band of at most 12 (`SCALAR_UPDATE`)
    assert sbmv.count("if 1 + k <= 12:") == 2
    assert "y[1 + d + i] += A[i, 1 + d] * xi" in sbmv  # unguarded, scalar
    # a band of one vector: its dot product one masked vector, no loop over
    # vectors, in the interleaved rows and the rows in order along a band
    # of at most 12 (AVX-512's 16 lanes hold every band of these rows: no
    # `if` beyond the one above)
    narrow = 3 if f32_lanes < 16 else 0
    assert sbmv.count(f"if 1 + k <= {f32_lanes}:") == narrow + (f32_lanes == 16)
    assert f"{isa}_load_mask_f32(1 + k, " in sbmv
    # a band longer than 16 and at most 128 takes its rows 128 apart where
    # they hold at most 1 MiB (`L2_BYTES`, 262144 elements of f32)
    assert "if 1 + k <= 128:\n                if 256 <= -k + n and (-k + n) * (1 + k) <= 262144:" in sbmv  # fmt: skip
    assert "for ii in seq(0, 128):" in sbmv
    # the update of y in the rows 16 apart, the rows in order along a band
    # longer than 12 (after the blocks, or fewer than two blocks), the rows
    # 128 apart and those in order beside them (after the blocks, or too
    # few or too large for them), the rows of a band longer than 128 and
    # the last k rows, each ending with a vector of the narrower machine
    # where there is one, never a masked vector
    last = (machine.narrower or machine).name
    assert sbmv.count(f"{last}_addmul_f32(") == 8
    assert "addmul_mask" not in sbmv
    # gbmv Trans adds each row, times alpha x[i], into y: no sum of lanes;
    # its rows interleaved too
    gbmv_t = str(found["gbmv"]["sgbmv_t"].procs["stride_1"])
    assert f"{isa}_addmul_f32(" in gbmv_t and "hsum" not in gbmv_t
    assert "for ii in seq(0, 16):" in gbmv_t


def test_a_substitution_puts_its_chain_product_apart(variants):
    machine, found = variants
    narrow = machine.narrower or machine  # tbsv's vectors (`on_narrower`)
    lanes = narrow.lanes["f64"]

    def text(variant):
        return str(found["tbsv"][variant].procs["stride_1"])

    # a band shorter than two vectors: rows cut and clipped, scalar; upper
    # NoTrans adds x[i + 1], which the row before solved, last
    unn = text("stbsv_unn")
    assert "if 0 <= k and k <= n and 2 <= k:" in unn
    body = unn[unn.index("for iio in seq(0, (-k + n) / 2):", unn.index("2 <= k")) :]
    assert body.index("for d in seq(2, 1 + k):") < body.index("for d in seq(1, 2):")
    # two rows a pass, unrolled, in their order: the second's product on
    # the chain reads the x[i] the first just stored (the C compiler keeps
    # it in a register), then the odd row left
    pair = body[: body.index("for iii in seq(0, (-k + n) % 2):")]
    assert "x[-1 - 2 * iio - k + n] = acc / A" in pair
    assert pair.index("x[-1 - 2 * iio - k + n] = acc / A") < pair.index(
        "acc_1 = x[-2 - 2 * iio - k + n]"
    )
    assert "acc_1 += -A[-2 - 2 * iio - k + n, d] * x[-2 - 2 * iio - k +" in pair
    # lower Trans updates x[i - 1], which the next row solves, first
    ltu = text("stbsv_ltu")
    body = ltu[ltu.index("2 <= k") :]
    assert body.index("for d in seq(-1 + k, k):") < body.index(
        "for d in seq(0, -1 + k):"
    )
    # vectorized: lower NoTrans's vectors end before x[i - 1] (its
    # scalars first), added last; in the rows of the blocks of 4 the
    # entries the block solves are added after the pass
    lnn = text("dtbsv_lnn")
    vectors = lnn[: lnn.index("    else:\n")]
    assert f"for d in seq(0, (-1 + k) % {lanes}):" not in vectors  # blocks
    rest = vectors[vectors.index("for ii in seq(0, (-k + n) % 4):") :]
    assert rest.index("for d in seq(") < rest.index("for do in seq(")
    assert rest.rindex("for d in seq(") > rest.rindex("hsum")
    block = vectors[
        vectors.index("for io in seq(0, (-k + n) / 4):") : vectors.index(
            "for ii in seq(0, (-k + n) % 4):"
        )
    ]
    assert block.rindex("hsum") < block.index("x[k + 4 * io] = acc_0")
    # the naive loop stays for a band of one element
    assert "for d in seq(1, 1 + k):\n                    if" in unn
    # Trans rows update x in place: their vectors start where the entry's
    # index is a multiple of the lanes (consecutive rows' vectors cover the
    # same entries), the entries before scalar; not sbmv's update, after
    # its dot product
    f32 = narrow.lanes["f32"]
    utu = text("stbsv_utu")
    assert f"% {f32}) % {f32}" in utu[: utu.index("    else:\n")]
    f32 = machine.lanes["f32"]
    assert f"% {f32}) % {f32}" not in str(found["sbmv"]["ssbmv_u"].procs["stride_1"])


@proc
def prefix_band(n: size, k: index, A: [R][n, k + 1], x: [R][n]):
    assert k >= 0
    for i in seq(0, n):
        for d in seq(0, k):
            if i + d + 1 < n:
                x[i + d + 1] += A[i, d] * x[i + d]


def test_band_refuses_to_move_a_chain_product_that_does_not_commute():
    # each iteration reads what the one before wrote: the last one first
    # would read x before the others' updates
    p = assert_unit_strides(set_precisions(prefix_band, "f32"))
    with pytest.raises(SchedulingError, match="do not commute"):
        band(p, "i", AVX2, "f32", ("0", "n - k"), chain="last")
    with pytest.raises(SchedulingError, match="chain is 'first', 'last' or None"):
        band(p, "i", AVX2, "f32", ("0", "n - k"), chain="middle")


def _ints(rng, shape, dtype):
    """Small integers, negative ones too: exact sums in any order."""
    return rng.integers(-4, 5, shape).astype(dtype)


def _widths(n):
    return sorted({0, 1, 2, 5, 9, 16, 17, n // 2, max(n - 1, 0), n, n + 2})


def _cases(name, variant, rng, dtype, floats=False):
    """Arguments of the naive proc of `variant` over the sizes and band
    widths; a triangle to solve has a diagonal of +-1 (integers) or
    +-[1, 2] (floats) and the rest small."""
    data = (
        (lambda s: rng.uniform(-1, 1, s).astype(dtype))
        if floats
        else (lambda s: _ints(rng, s, dtype))
    )
    alpha = dtype(-2.5 if floats else -2)
    for n in SIZES:
        for k in _widths(n):
            if name == "gbmv":
                for m, kl, ku in (
                    (n, k, 1),
                    (n, 1, k),
                    (n + 3, k, k),
                    (max(n - 2, 1), k // 2, k),
                ):
                    # x times op(A): n long NoTrans, m long Trans
                    x_len, y_len = (m, n) if variant.endswith("_t") else (n, m)
                    yield [
                        m,
                        n,
                        kl,
                        ku,
                        alpha,
                        data((m, kl + ku + 1)),
                        data(x_len),
                        data(y_len),
                    ]
            elif name == "sbmv":
                yield [n, k, alpha, data((n, k + 1)), data(n), data(n)]
            elif name == "tbmv":
                yield [n, k, data((n, k + 1)), data(n)]
            else:
                A = rng.integers(-1, 2, (n, k + 1)).astype(dtype)
                if floats:
                    A = (rng.uniform(-1, 1, (n, k + 1)) / (k + 1)).astype(dtype)
                    A[:, 0] = rng.uniform(1, 2, n) * rng.choice([-1, 1], n)
                else:
                    A[:, 0] = rng.choice([-1, 1], n)
                if variant[-3] == "l":  # the diagonal is column k (0 upper)
                    A[:, [0, k]] = A[:, [k, 0]]
                yield [n, k, A, data(n)]
    if name == "sbmv":
        # rows 128 apart (a band of 18 to 128), or in order (129; f64's rows
        # of 64 past 1 MiB, `L2_BYTES`)
        for n, k in ((300, 17), (300, 127), (300, 128), (2200, 63)):
            yield [n, k, alpha, data((n, k + 1)), data(n), data(n)]


def _run(p, args):
    out = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    p(*out)
    return out[-1]


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize(
    "name, variant",
    [(n, v) for n, vs in SCHEDULED.items() for v in vs if v[0] == "d"]
    + [
        ("gbmv", "sgbmv_n"),
        ("gbmv", "sgbmv_t"),
        ("sbmv", "ssbmv_l"),
        ("tbmv", "stbmv_unu"),
        ("tbmv", "stbmv_ltn"),
        ("tbsv", "stbsv_lnn"),
        ("tbsv", "stbsv_utu"),
    ],
)
def test_scheduled_band_kernels_match_the_naive_ones_exactly_on_integers(name, variant):
    v = _variants(name, AVX2)[variant]
    naive, scheduled = assert_unit_strides(v.naive).jit(), v.procs["stride_1"].jit()
    dtype = np.float32 if variant[0] == "s" else np.float64
    rng = np.random.default_rng(30)
    for args in _cases(name, variant, rng, dtype):
        expected, result = _run(naive, args), _run(scheduled, args)
        assert (result == expected).all(), (variant, args[:4])


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize(
    "name, variant",
    [
        ("gbmv", "sgbmv_n"),
        ("gbmv", "dgbmv_t"),
        ("sbmv", "dsbmv_u"),
        ("sbmv", "ssbmv_l"),
        ("tbmv", "stbmv_lnn"),
        ("tbmv", "dtbmv_utn"),
        ("tbsv", "dtbsv_unn"),
        ("tbsv", "stbsv_lnu"),
        ("tbsv", "stbsv_ltn"),
    ],
)
def test_scheduled_band_kernels_agree_within_the_bound_on_floats(name, variant):
    """The vector sums reassociate the band's sum: |scheduled - naive| <=
    2 gamma_{w+2} (the naive result on |arguments|), w the band's length,
    as the oracle bounds it; the solver (a recurrence) relatively."""
    v = _variants(name, AVX2)[variant]
    naive, scheduled = assert_unit_strides(v.naive).jit(), v.procs["stride_1"].jit()
    dtype = np.float32 if variant[0] == "s" else np.float64
    u = np.finfo(dtype).eps / 2
    rng = np.random.default_rng(31)
    for args in _cases(name, variant, rng, dtype, floats=True):
        expected, result = _run(naive, args), _run(scheduled, args)
        if name == "tbsv":
            n, k = args[:2]
            gamma = 4 * n * (k + 2) * u
            assert np.allclose(result, expected, rtol=gamma, atol=gamma), args[:2]
            continue
        w = args[2] + args[3] + 1 if name == "gbmv" else 2 * args[1] + 1
        gamma = (w + 2) * u / (1 - (w + 2) * u)
        magnitudes = [
            abs(a) if isinstance(a, np.ndarray | np.floating) else a for a in args
        ]
        bound = 2 * gamma * np.abs(_run(naive, magnitudes))
        assert (np.abs(result - expected) <= bound).all(), (variant, args[:4])


@proc
def no_guard(n: size, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        for d in seq(0, n):
            y[i] += x[d]


@proc
def banded(n: size, k: index, A: [R][n, k + 1], x: [R][n], y: [R][n]):
    assert k >= 0
    for i in seq(0, n):
        acc: R
        acc = 0.0
        for d in seq(0, k + 1):
            if i + d < n:
                acc += A[i, d] * x[i + d]
        y[i] = acc


BANDED = assert_unit_strides(set_precisions(banded, "f32"))


def test_band_needs_a_guarded_band_loop():
    with pytest.raises(
        SchedulingError, match="band: the loop over i has no guarded band loop"
    ):
        band(set_precisions(no_guard, "f32"), "i", AVX2, "f32", ("0", "n"))


def test_band_refuses_rows_whose_band_leaves_the_matrix():
    # in rows up to n the band's guard is not always true: no band loop unguarded
    with pytest.raises(
        SchedulingError,
        match=r"band: no band loop along a row is unguarded in the rows seq\(0, n\)",
    ):
        band(BANDED, "i", AVX2, "f32", ("0", "n"))
    p = band(BANDED, "i", AVX2, "f32", ("0", "n - k"))
    assert "avx2_fma_mask_f32" in str(
        p
    ) and "if 0 <= -k + n and -k + n <= n and 8 <= 1 + k:" in str(p)


def test_by_band_schedules_a_kernel_line():
    k = kernel(banded, schedule=by_band(rows=("0", "n - k")))
    procs = {v.name: v.procs for v in k.variants(AVX512)}["dbanded"]
    assert "avx512_fma_mask_f64" in str(procs["stride_1"])
    assert "avx512_fma" not in str(procs["stride_any"])
    # the rows inside the matrix, solved from the guard `i + d < n` at the
    # band's last d = k: the same schedule as the rows named
    derived = kernel(banded, schedule=by_band())
    assert str(derived.variants(AVX512)[1].procs["stride_1"]) == str(procs["stride_1"])
    with pytest.raises(TypeError, match="unexpected keyword argument 'stride'"):
        by_band(rows=("0", "n - k"), stride=2)  # a misspelt option


@proc
def two_sided(n: size, k: index, A: [R][n, 2 * k + 1], x: [R][n], y: [R][n]):
    assert k >= 0
    for ii in seq(0, n):
        for d in seq(0, 2 * k + 1):
            if n - 1 - ii - k + d >= 0 and n - 1 - ii - k + d < n:
                y[n - 1 - ii] += A[n - 1 - ii, d] * x[n - 1 - ii - k + d]


@proc
def scaled_rows(n: size, k: index, A: [R][n, k + 1], x: [R][2 * n + k], y: [R][n]):
    assert k >= 0
    for i in seq(0, n):
        for d in seq(0, k + 1):
            if 2 * i + d < n:
                y[i] += A[i, d] * x[2 * i + d]


def test_band_solves_its_rows_from_the_guards():
    # ii counts rows backwards (the row is n - 1 - ii): both comparisons
    # hold for every d where k <= ii < n - k
    assert _rows_inside(two_sided, two_sided.find_loop("ii")) == ("k", "n - k")
    assert _rows_inside(banded, banded.find_loop("i")) == ("0", "n - k")
    # a row index with another coefficient than 1 or -1: the rows are named
    with pytest.raises(SchedulingError, match="band: name the rows"):
        _rows_inside(scaled_rows, scaled_rows.find_loop("i"))
    naive = assert_unit_strides(set_precisions(two_sided, "f64"))
    p = band(naive, "ii", AVX2, "f64")
    assert "    if 0 <= k and k <= -k + n and -k + n <= n and 4 <= 1 + 2 * k:" in str(p)


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
def test_band_with_solved_rows_matches_the_naive_loop():
    naive = assert_unit_strides(set_precisions(two_sided, "f64"))
    scheduled, naive = band(naive, "ii", AVX2, "f64").jit(), naive.jit()
    rng = np.random.default_rng(7)
    for n, k in ((9, 2), (5, 3), (1, 0), (12, 5), (2, 4)):  # inside and wider
        data = [
            rng.integers(-3, 4, shape).astype(np.float64)
            for shape in ((n, 2 * k + 1), n, n)
        ]
        assert (_run(scheduled, [n, k, *data]) == _run(naive, [n, k, *data])).all()


def test_options_whose_rows_cannot_occur_are_a_scheduling_error():
    # lower sbmv with min_vectors=1 on AVX-512: the body is specialized on
    # bands of at least 16 elements for both its loops (the update's k
    # too), so its rows along a band of at most 16 never occur, and
    # vectorizing their band loop finds it removed: a SchedulingError that
    # says so, not an internal cursor error
    lower = kernel(
        module(2, "sbmv").sbmv,
        axes=[Uplo()],
        schedule=by_letter(
            "upper", u=None, l=by_band(rows=("k", "n"), min_vectors=1, strides=(16,))
        ),
    )
    with pytest.raises(SchedulingError, match="never runs 16 iterations"):
        lower.variants(AVX512)


def _diagonals(machine):
    (helper,) = module(2, "tbmv").KERNEL.helpers
    return {v.name: v for v in helper.variants(machine)}


def test_tbmv_diagonals_sum_four_entries_side_by_side(variants):
    machine, _ = variants
    text = str(_diagonals(machine)["stbmv_diagonals_un"].procs["stride_1"])
    body = text[: text.index("    else:\n")]
    # the rows whose band lies inside the matrix: no guard, four sums side
    # by side, each stored once after its band; scalar (a vector over rows
    # would gather A)
    assert "if 0 <= -k + n and -k + n <= n:" in text
    assert "for jjo in seq(0, (-k + n) / 4):" in body
    assert "acc_0 = A[-1 - 4 * jjo + n, 0] * x[-1 - 4 * jjo + n]" in body
    assert "acc_3 += A[-4 - 4 * jjo - d + n, d] * x[-4 - 4 * jjo - d + n]" in body
    assert body.index("for d in seq(1, 1 + k):") < body.index(
        "x[-1 - 4 * jjo + n] = acc_0"
    )
    jammed = body[body.index("for jjo") :]
    assert "if" not in jammed and machine.name not in jammed
    # the last k rows' bands, and every row's where the band is wider than
    # the matrix, clipped at its edge
    assert text.count("for d in seq(1, -jj + n):") == 2
    lower = str(_diagonals(machine)["dtbmv_diagonals_lu"].procs["stride_1"])
    assert "acc_1 += A[1 + d + 4 * jo, -d + k] * x[1 + d + 4 * jo]" in lower
    assert lower.count("for d in seq(1, -j + n):") == 2


def _tbmv_args(rng, dtype, floats):
    for n in SIZES:
        for k in _widths(n):
            shape = (n, k + 1)
            if floats:
                yield [n, k, rng.uniform(-1, 1, shape).astype(dtype),
                       rng.uniform(-1, 1, n).astype(dtype)]  # fmt: skip
            else:
                yield [n, k, _ints(rng, shape, dtype), _ints(rng, n, dtype)]


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize("variant", [f"{p}tbmv_{u}t{d}" for p in "sd" for u in "ul" for d in "un"])  # fmt: skip
def test_tbmv_diagonals_compute_the_trans_variant(variant):
    """Exactly on integers; on floats within the suite's bound (the same
    products in the same order, which the C compiler may fuse differently)."""
    naive = assert_unit_strides(_variants("tbmv", AVX2)[variant].naive).jit()
    name = f"{variant[:5]}_diagonals_{variant[-3]}{variant[-1]}"
    diagonals = _diagonals(AVX2)[name].procs["stride_1"].jit()
    dtype = np.float32 if variant[0] == "s" else np.float64
    u = np.finfo(dtype).eps / 2
    rng = np.random.default_rng(32)
    for floats in (False, True):
        for args in _tbmv_args(rng, dtype, floats):
            expected, result = _run(naive, args), _run(diagonals, args)
            if not floats:
                assert (result == expected).all(), (variant, args[:2])
                continue
            w = 2 * args[1] + 1
            gamma = (w + 2) * u / (1 - (w + 2) * u)
            magnitudes = [abs(a) if isinstance(a, np.ndarray) else a for a in args]
            bound = 2 * gamma * np.abs(_run(naive, magnitudes))
            assert (np.abs(result - expected) <= bound).all(), (variant, args[:2])


@proc
def prefix_diagonals(n: size, k: index, A: [R][n, k + 1], x: [R][n]):
    assert k >= 0
    for j in seq(0, n):
        acc: R
        acc = x[j]
        for d in seq(1, k + 1):
            if d <= j:
                acc += A[j - d, d] * x[j - d]
        x[j] = acc


def test_diagonals_refuses_to_jam_entries_that_read_the_ones_before():
    # upward, each x[j] sums the x[j - d] already written: jammed, the
    # second entry's sum would read x[j] before the first stores it
    p = assert_unit_strides(set_precisions(prefix_diagonals, "f32"))
    with pytest.raises(SchedulingError, match="Cannot fission loop over ji"):
        diagonals(p, "j", AVX2, "f32", ("k", "n"))
    # one entry a pass keeps the order: accepted
    one = diagonals(p, "j", AVX2, "f32", ("k", "n"), r=1)
    assert "if d <= j" not in str(one)[: str(one).index("    else:\n")]
