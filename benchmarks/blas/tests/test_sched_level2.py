"""The level-2 scheduling library (exo2blas.sched: rows, columns, triangle,
by_letter): what the schedules make of the kernels, that the scheduled
procs compute the naive ones' results exactly across their block
boundaries, and the errors they give. The sweep (test_level2.py) checks
every variant through the C library against the oracle."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from cpu import RUNS_AVX2, RUNS_AVX512
from exo2 import SchedulingError, proc
from exo2blas.kernels import module
from exo2blas.machines import AVX2, AVX512
from exo2blas.sched import by_letter, by_rows, columns, per_letter, rows, triangle
from exo2blas.variants import Trans, assert_unit_strides, kernel


def _variant(name, variant, machine):
    k = module(2, name).KERNEL
    return {v.name: v for v in k.variants(machine)}[variant]


def _scheduled(name, variant, machine):
    return _variant(name, variant, machine).procs["stride_1"]


def _ints(rng, shape, dtype):
    """Small integers: every sum is exact in any order (the exact tier)."""
    return rng.integers(-4, 5, shape).astype(dtype)


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_rows_jams_four_rows_around_one_pass_along_the_row(machine):
    text = str(_scheduled("gemv", "sgemv_n", machine))
    lanes = machine.lanes["f32"]
    # four rows' dot products in the jammed pass and its masked last vector,
    # one more in the pass over the m % 4 last rows (whole and masked)
    assert text.count(f"{machine.name}_fma_f32(") == 4 + 1
    assert text.count(f"{machine.name}_fma_mask_f32(") == 4 + 1
    # the block's four sums and updates of y as one instruction
    assert text.count(f"{machine.name}_hsum_rows_f32(") == 1
    assert text.count(f"{machine.name}_hsum_f32(") == 1
    assert "for io in seq(0, m / 4):" in text
    assert f"for jo in seq(0, ({lanes - 1} + n) / {lanes} - 1):" in text


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_rows_jams_eight_rows_of_gemv_past_the_caches(machine):
    """gemv NoTrans's `large` case: eight rows' dot products in one pass,
    each summed on its own (no `hsum_rows`, which takes four); Trans has no
    such case."""
    v = _variant("gemv", "dgemv_n", machine)
    text = str(v.procs["large"])
    isa = machine.name
    # eight rows in the jammed pass and its masked last vector, one more in
    # the pass over the m % 8 last rows
    assert text.count(f"{isa}_fma_f64(") == 8 + 1
    assert text.count(f"{isa}_fma_mask_f64(") == 8 + 1
    assert text.count(f"{isa}_hsum_f64(") == 8 + 1
    assert "hsum_rows" not in text
    assert "for io in seq(0, m / 8):" in text
    assert "large" not in _variant("gemv", "dgemv_t", machine).procs


def test_rows_updates_four_rows_of_ger_per_loaded_vector_of_y():
    text = str(_scheduled("ger", "dger", AVX512))
    assert text.count("avx512_store_f64(A[") == 4 + 1
    # each row ends with a vector of half the width and scalars, no masked
    # store (the next row's load would wait for it: tight lda)
    assert "mask" not in text
    assert len(re.findall(r"avx2_store_f64\(\s*A\[", text)) == 4 + 1
    assert "for jii in seq(0, n % 8 % 4):" in text
    assert "for i in seq" not in text  # no scalar loop over a row left
    # alpha * x[i] computed once per row, not once per vector of it
    assert text.count("xi_0 = alpha * x[") == 1
    assert "avx512_mul_f64" not in text


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_rows_loads_every_jammed_row_of_ger_before_storing_any(machine):
    text = str(_scheduled("ger", "dger", machine))
    isa = machine.name
    jammed = text[text.index("for jo in seq") : text.index("for ii in seq")]
    first_store = jammed.index(f"{isa}_store_f64(A[")
    loads = jammed[:first_store]
    # each row's vector of A and of y (the same one: C loads it once, no
    # store between them) before the first row's store
    assert loads.count(f"{isa}_load_f64(") == 4 + 4
    for r in range(4):
        assert f"A[4 * io + {r}, " in loads
    assert loads.count(", y[") == 4


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_rows_runs_ger_large_one_row_at_a_time_four_narrow_vectors_side_by_side(
    machine,
):
    text = str(_variant("ger", "sger", machine).procs["large"])
    # AVX2's vectors on both machines (`on_narrower`)
    isa, lanes = AVX2.name, AVX2.lanes["f32"]
    assert f"{AVX512.name}_load" not in text
    # no jam: one row per iteration of the loop over rows, one xi
    assert "for i in seq(0, m):" in text
    assert "xi = alpha * x[i]" in text and "xi_0" not in text
    # whole vectors four at a time, then at most three more, then scalars;
    # no mask
    assert f"for joo in seq(0, n / {lanes} / 4):" in text
    assert f"for joi in seq(0, n / {lanes} % 4):" in text
    assert "mask" not in text
    block = text[text.index("for joo in seq") : text.index("for joi in seq")]
    # all four vectors of A loaded before the first store
    first_store = block.index(f"{isa}_store_f32(")
    assert block[:first_store].count(f"{isa}_load_f32(") == 4 + 4  # A and y
    assert block.count(f"{isa}_store_f32(") == 4


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_rows_runs_syr_large_one_row_at_a_time_from_the_rows_first_element(machine):
    """The upper triangle's rows start at the diagonal: `rows` shifts each
    row's loop to start at 0 and runs it as ger's `large` case."""
    text = str(_variant("syr", "dsyr_u", machine).procs["large"])
    isa, lanes = AVX2.name, AVX2.lanes["f64"]
    assert f"{AVX512.name}_load" not in text and "mask" not in text
    assert "for i in seq(0, n):" in text and "xi_0" not in text
    assert f"for joo in seq(0, (0 + (n - i)) / {lanes} / 4):" in text
    block = text[text.index("for joo in seq") : text.index("for joi in seq")]
    first_store = block.index(f"{isa}_store_f64(")
    assert block[:first_store].count(f"{isa}_load_f64(") == 4 + 4  # A and x
    assert "A[i + 0, i + 4 * (4 * joo + 0) + 0:i + 4 * (4 * joo + 0) + 4]" in block


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_columns_sums_blocks_of_outputs_in_a_stack_buffer_row_after_row(machine):
    text = str(_scheduled("gemv", "dgemv_t", machine))
    lanes, name = machine.lanes["f64"], machine.name
    width = 2048  # a block of 16 KiB of f64 sums
    # the whole blocks, then the narrower last one: each with its buffer
    assert f"for io in seq(0, m / {width}):" in text
    assert text.count(f"acc: f64[{width}] @ DRAM_STACK") == 2
    # four rows jammed in the pass along them (each block's pass and the
    # narrower block's), one more row in the passes over the last n % 4
    assert "for jo in seq(0, n / 4):" in text
    assert text.count(f"{name}_addmul_f64(") == 2 * (4 + 1) + 2  # + alpha * sums
    assert f"{name}_broadcast_element_f64" in text  # x[j] broadcast
    # A read along its rows: a vector of one row per load
    assert re.search(rf"{name}_load_f64\(\s*var\d+\[0:{lanes}\], A\[4 \* jo,", text)
    assert "mask" not in text  # the narrower block ends with scalars


def test_triangle_vectorizes_rows_and_jams_blocks_of_rows():
    lower = str(_scheduled("trmv", "strmv_lnn", AVX512))
    assert "avx512_fma_f32" in lower and "avx512_hsum_f32" in lower
    # the Trans variants update x by each row of A, forwards (lower) and
    # backwards (upper) alike: vector updates along the rows
    for name in ("strmv_ltn", "strmv_utn"):
        trans = str(_scheduled("trmv", name, AVX512))
        assert "avx512_load_f32" in trans and "avx512_addmul_f32" in trans
    # symv: four rows in one pass along the columns right of their block,
    # each row's dot product with x and update of y; y's vector staged
    # across the four updates (stored once per vector); then a last row's
    # pass. A is read along its rows only. Between each pass's scalars and
    # whole vectors, one vector of the narrower machine (AVX2): in the four
    # rows' pass (head: upper) and in the last row's (tail).
    symv = str(_scheduled("symv", "dsymv_u", AVX512))
    assert "for io in seq(0, n / 4):" in symv and "yj: f64[8] @ ZeroedAVX512" in symv
    assert "yj: f64[4] @ ZeroedAVX2" in symv
    assert symv.count("avx2_hsum_f64(") == 4 + 1
    # the `short` case (small matrices) runs on AVX2's vectors only
    short = str(_variant("symv", "dsymv_u", AVX512).procs["short"])
    assert "yj: f64[4] @ ZeroedAVX2" in short and "avx2_fma_f64(" in short
    assert "ZeroedAVX512" not in short and not re.search(r"\bavx512_\w+\(", short)
    assert symv.count("avx512_fma_f64(") == 4 + 1
    assert symv.count("avx512_addmul_f64(") == 4 + 1
    assert len(re.findall(r"avx512_store_f64\(\s*y\[", symv)) == 1 + 1
    assert "A[j" not in symv
    # syr: one row at a time (jammed, four rows' stores to A ran 1.5 times
    # slower at n = 512); from 16 rows (a vector) on, a lower row's whole
    # vectors from column 0, then one masked vector (a prefix of its
    # lanes), an upper row's masked vector first (a suffix of its lanes,
    # ending where the whole vectors begin), its whole vectors aligned to
    # the row's end; fewer rows end with a narrower vector and scalars, no
    # masked store (its span would cover the next row)
    syr = str(_scheduled("syr", "ssyr_l", AVX512))
    assert "for io in seq" not in syr and "for i in seq(0, n):" in syr
    wide, narrow = syr.split("        else:\n")[0], syr.split("        else:\n")[1]
    assert "        if 16 <= n:\n" in wide and "suffix" not in syr
    assert len(re.findall(r"avx512_store_f32\(\s*A\[", wide)) == 1
    assert len(re.findall(r"avx512_store_mask_f32\(", wide)) == 1
    assert "avx2_" not in wide and "mask" not in narrow
    assert len(re.findall(r"avx2_store_f32\(\s*A\[", narrow)) == 1
    upper = str(_scheduled("syr", "ssyr_u", AVX512))
    wide = upper.split("        else:\n")[0]
    suffix = wide.index("avx512_store_suffix_f32(")
    assert suffix < wide.index("avx512_store_f32(") and "_mask_" not in upper
    assert "for jo in seq(0, (-i + n - ((-1 - i + n) % 16 + 1)) / 16):" in wide
    # fewer than four rows (`FEWEST_ROWS`): the naive loop
    assert "    if 4 <= n:\n" in syr
    naive = syr[syr.index("\n    else:\n") :]
    assert "for j in seq(0, 1 + i):" in naive and "avx" not in naive


def test_triangle_jams_the_rows_of_trmv_and_trsv_in_either_direction():
    # trsv NoTrans, upper (rows backwards): four dot products share each
    # vector of the solved x right of the block, then the block's triangle
    # is solved row by row; a last row's pass. No negation in the pass.
    solve = str(_scheduled("trsv", "dtrsv_unn", AVX512))
    assert "for iio in seq(0, n / 4):" in solve
    assert solve.count("avx512_fma_f64(") == 4 + 1
    assert "negate" not in solve
    # the panel starts next to the block with its scalars (the entries the
    # block before solved one by one), whole vectors after them
    assert solve.index("for j in seq(0, 4 * iio % 8):") < solve.index("avx512_fma")
    # the triangle unrolled after the sums, each row adding the entry its
    # neighbour just solved last
    blocks = solve[: solve.index("for iii")]
    triangle = blocks[blocks.rindex("avx512_hsum_f64") :]
    assert "for " not in triangle
    last_row = triangle[triangle.index("acc_3 +=") :]
    assert (
        last_row.index("x[-1 - 4")
        < last_row.index("x[-2 - 4")
        < last_row.index("x[-3 - 4")
    )
    # trmv Trans, upper (rows backwards): four rows update each vector of x
    # right of the block, loaded and stored once
    update = str(_scheduled("trmv", "strmv_utn", AVX512))
    assert "for iio in seq(0, n / 4):" in update
    assert update.count("avx512_addmul_f32(") == 4 + 1
    assert len(re.findall(r"avx512_store_f32\(\s*x\[", update)) == 1 + 1


def test_triangle_refuses_a_solve_whose_triangle_precedes_its_panel():
    """The panel of a block of trsv NoTrans rows reads only entries of x
    solved before the block, but each row's triangle reads the block's
    earlier rows: jammed with the triangles before the panels, the rows
    would read x before the block solves it, and the effect check says so."""
    v = _variant("trsv", "dtrsv_lnn", AVX2)
    with pytest.raises(SchedulingError, match="Cannot fission"):
        triangle(assert_unit_strides(v.naive), None, AVX2, "f64", 4, False)


@pytest.mark.parametrize("name", ["dtrsv_lnn", "dtrsv_unn", "dtrsv_ltn", "dtrsv_utn"])
def test_triangle_puts_each_panel_on_the_side_the_effect_check_accepts(name):
    """With `panel_first=None` a solve's panels go where its dependences
    allow: before the triangles in NoTrans, after them in Trans, as the
    explicit choice puts them."""
    naive = assert_unit_strides(_variant("trsv", name, AVX2).naive)
    chosen = triangle(naive, None, AVX2, "f64", 4)
    explicit = triangle(naive, None, AVX2, "f64", 4, name[7] == "n")
    assert str(chosen) == str(explicit)
    with pytest.raises(SchedulingError, match="Cannot fission"):
        triangle(naive, None, AVX2, "f64", 4, name[7] != "n")


def test_triangle_loads_each_element_of_a_once_for_both_uses_in_symv():
    """A symv pass loads a vector of each of its four rows of A into one
    register that y's update and the dot product both use, and stores y's
    vector before the dot products (so the C compiler cannot fold the load
    into both as memory operands); in every variant and case."""
    lower = str(_scheduled("symv", "dsymv_l", AVX512))
    pass_ = lower[lower.index("for jo in seq(0, io / 2):") :].split("avx512_hsum")[0]
    assert len(re.findall(r"avx512_load_f64\(\s*Aj_\d", pass_)) == 4
    assert "A[" not in pass_.split("avx512_store_f64(y[")[1]  # no reload
    dots = [m.start() for m in re.finditer(r"avx512_fma_f64\(", pass_)]
    assert len(dots) == 4 and pass_.index("avx512_store_f64(y[") < min(dots)
    for name in ("ssymv_u", "ssymv_l", "dsymv_u", "dsymv_l"):
        for case in ("stride_1", "short"):
            text = str(_variant("symv", name, AVX512).procs[case])
            assert "Aj_3" in text, (name, case)


@proc
def symv_updating_a(n: size, alpha: f32, A: [f32][n, n], x: [f32][n], y: [f32][n]):
    for i in seq(0, n):
        xi: f32
        xi = alpha * x[i]
        acc: f32
        acc = 0.0
        for j in seq(i + 1, n):
            y[j] += A[i, j] * xi
            A[i, j] += x[j]
            acc += A[i, j] * x[j]
        y[i] += alpha * acc


def test_triangle_keeps_a_load_per_use_where_a_write_lies_between_the_uses():
    """An element of A that y's update and the dot product both read is
    loaded once, except where a statement between them writes it (the dot
    product reads the new value): the effect check refuses that binding,
    and the pass keeps a load per use, with the naive results."""
    p = assert_unit_strides(symv_updating_a)
    scheduled = triangle(p, None, AVX2, "f32", 4)
    text = str(scheduled)
    assert "yj: f32[8] @ ZeroedAVX2" in text and "Aj_" not in text
    if not RUNS_AVX2:
        pytest.skip("needs AVX2 with FMA to run")
    rng = np.random.default_rng(7)
    naive, fast = p.jit(), scheduled.jit()
    for n in (1, 3, 4, 5, 13, 37):  # sizes are positive
        A, x, y = (_ints(rng, s, np.float32) for s in ((n, n), n, n))
        expected, result = (A.copy(), y.copy()), (A.copy(), y.copy())
        naive(n, np.float32(-2), expected[0], x, expected[1])
        fast(n, np.float32(-2), result[0], x, result[1])
        assert (result[0] == expected[0]).all() and (result[1] == expected[1]).all(), n


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize("trans", ["n", "t"])
def test_scheduled_gemv_matches_the_naive_one_across_block_boundaries(trans):
    v = _variant("gemv", f"dgemv_{trans}", AVX2)
    naive, scheduled = assert_unit_strides(v.naive).jit(), v.procs["stride_1"].jit()
    rng = np.random.default_rng(20)
    # rows: blocks of 4 rows, vectors of 4; columns: blocks of 2048 outputs,
    # 4 rows jammed, vectors of 4
    sizes = [(1, 1), (3, 5), (4, 4), (5, 9), (17, 3), (16, 33), (37, 21)]
    for m, n in sizes + [(2048, 4), (2051, 6), (4102, 9)]:
        A = _ints(rng, (m, n) if trans == "n" else (n, m), np.float64)
        x, y = _ints(rng, n, np.float64), _ints(rng, m, np.float64)
        expected, result = y.copy(), y.copy()
        naive(m, n, np.float64(-2), A, x, expected)
        scheduled(m, n, np.float64(-2), A, x, result)
        assert (result == expected).all(), (m, n)


def _arguments(name, n, rng, dtype):
    """Exact-tier arguments of the naive ger, syr, syr2, symv, trmv or trsv. A
    trsv triangle has a unit diagonal and entries in {-1, 0, 1}: the
    solution is integers below 2^n, exact in f64 for n <= 53."""
    if name == "ger":
        x, y = _ints(rng, n + 2, dtype), _ints(rng, n, dtype)
        return [n + 2, n, dtype(3), x, y, _ints(rng, (n + 2, n), dtype)]
    x, y, A = _ints(rng, n, dtype), _ints(rng, n, dtype), _ints(rng, (n, n), dtype)
    if name == "syr":
        return [n, dtype(3), x, A]
    if name == "syr2":
        return [n, dtype(3), x, y, A]
    if name == "symv":
        return [n, dtype(-2), A, x, y]
    if name == "trsv":
        A = rng.integers(-1, 2, (n, n)).astype(dtype)
        np.fill_diagonal(A, 1)
    return [n, A, x]


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize(
    "name, variant",
    [("ger", "sger"), ("syr", "dsyr_l"), ("syr2", "ssyr2_u"), ("syr2", "dsyr2_l"),
     ("symv", "ssymv_u"), ("symv", "ssymv_l"), ("symv", "dsymv_u"), ("symv", "dsymv_l"),
     ("trmv", "strmv_ltn"), ("trmv", "strmv_unn"), ("trmv", "dtrmv_lnu"),
     ("trmv", "dtrmv_utn"), ("trsv", "dtrsv_lnu"), ("trsv", "dtrsv_utu"),
     ("trsv", "dtrsv_utn"), ("trsv", "strsv_unn"), ("trsv", "strsv_ltn")],
)  # fmt: skip
def test_scheduled_updates_and_solves_match_the_naive_ones(name, variant):
    """Across the blocks of rows (4 in symv, trmv and trsv, rows
    forwards and backwards) and vectors (8
    f32, 4 f64 on AVX2), with every remainder."""
    v = _variant(name, variant, AVX2)
    sizes = (1, 2, 3, 4, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33, 40)
    _assert_matches_the_naive_one(name, v, sizes, seed=21)


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=["avx2", "avx512"])
@pytest.mark.parametrize("variant", ["sgemv_n", "dgemv_n"])
def test_gemv_large_matches_the_naive_one(machine, variant):
    """gemv NoTrans's `large` case (eight rows jammed) with every remainder
    of the blocks of rows and of the vectors."""
    if not (RUNS_AVX512 if machine is AVX512 else RUNS_AVX2):
        pytest.skip(f"needs {machine.name}")
    v = _variant("gemv", variant, machine)
    naive, large = assert_unit_strides(v.naive).jit(), v.procs["large"].jit()
    rng = np.random.default_rng(30)
    dtype = np.float32 if variant[0] == "s" else np.float64
    for m, n in itertools.product((1, 7, 8, 9, 15, 16, 17, 23), (1, 5, 16, 17, 33)):
        A, x, y = _ints(rng, (m, n), dtype), _ints(rng, n, dtype), _ints(rng, m, dtype)
        expected, result = y.copy(), y.copy()
        naive(m, n, dtype(-2), A, x, expected)
        large(m, n, dtype(-2), A, x, result)
        assert (result == expected).all(), (m, n)


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=["avx2", "avx512"])
@pytest.mark.parametrize("variant", ["sger", "dger"])
def test_ger_large_matches_the_naive_one(machine, variant):
    """ger's `large` case (one row at a time, four of AVX2's vectors side
    by side) with every row length around the blocks of four vectors, the
    single vectors and the scalars."""
    if not (RUNS_AVX512 if machine is AVX512 else RUNS_AVX2):
        pytest.skip(f"needs {machine.name}")
    v = _variant("ger", variant, machine)
    sizes = (1, 3, 4, 5, 8, 15, 16, 17, 24, 31, 32, 33, 47, 63, 64, 65, 97)
    _assert_matches_the_naive_one("ger", v, sizes, 29, case="large")


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=["avx2", "avx512"])
@pytest.mark.parametrize("variant", ["ssyr_u", "dsyr_l"])
def test_syr_large_matches_the_naive_one(machine, variant):
    """syr's `large` case (one row at a time from the row's first element,
    four of AVX2's vectors side by side) with every row length around the
    blocks of four vectors, the single vectors and the scalars."""
    if not (RUNS_AVX512 if machine is AVX512 else RUNS_AVX2):
        pytest.skip(f"needs {machine.name}")
    v = _variant("syr", variant, machine)
    sizes = (1, 3, 4, 5, 8, 15, 16, 17, 24, 31, 32, 33, 47, 63, 64, 65, 97)
    _assert_matches_the_naive_one("syr", v, sizes, 31, case="large")


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=["avx2", "avx512"])
@pytest.mark.parametrize(
    "name, variant",
    [("syr", "ssyr_u"), ("syr", "dsyr_l"), ("syr2", "dsyr2_u"), ("syr2", "ssyr2_l")],
)
def test_masked_row_updates_match_the_naive_ones(machine, name, variant):
    """syr and syr2 on both ISAs, with every row length around the
    vectors: on AVX-512 from L rows on a masked vector of 1 to L elements
    at either end of every row (upper: the first, the suffix of its lanes;
    lower: the last), on AVX2 (no mask registers) and below L rows whole
    vectors and scalars."""
    if not (RUNS_AVX512 if machine is AVX512 else RUNS_AVX2):
        pytest.skip(f"needs {machine.name}")
    v = _variant(name, variant, machine)
    _assert_matches_the_naive_one(name, v, (1, 3, 4, 5, 8, 15, 16, 17, 24, 33, 47), 23)


def _assert_matches_the_naive_one(name, v, sizes, seed, case="stride_1"):
    """Runs the variant `v` of `name` (ger, syr, syr2, symv, trmv, trsv)
    naive and scheduled (its `case`) on the same exact-tier arguments of
    each size of `sizes`, and asserts every array equal."""
    naive, scheduled = assert_unit_strides(v.naive).jit(), v.procs[case].jit()
    rng = np.random.default_rng(seed)
    dtype = np.float32 if v.name[0] == "s" else np.float64
    for n in sizes:
        args = _arguments(name, n, rng, dtype)
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        naive(*expected)
        scheduled(*args)
        for got, want in zip(args, expected, strict=True):
            if isinstance(got, np.ndarray):
                assert (got == want).all(), n


@pytest.mark.skipif(not RUNS_AVX512, reason="needs AVX-512 F, VL and DQ")
@pytest.mark.parametrize("variant", ["ssymv_u", "ssymv_l", "dsymv_u", "dsymv_l"])
@pytest.mark.parametrize("case", ["stride_1", "short"])
def test_avx512_symv_matches_the_naive_one(variant, case):
    """Both cases of symv on AVX-512 (`stride_1`: vectors of 16 (f32) or 8
    (f64), one of AVX2 and scalars in each pass; `short`: AVX2's), with
    every remainder of the blocks of 4 rows and of the vectors."""
    v = _variant("symv", variant, AVX512)
    naive, scheduled = assert_unit_strides(v.naive).jit(), v.procs[case].jit()
    rng = np.random.default_rng(22)
    dtype = np.float32 if variant[0] == "s" else np.float64
    for n in (*range(1, 41), 63, 64, 65, 100):
        args = _arguments("symv", n, rng, dtype)
        expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        naive(*expected)
        scheduled(*args)
        assert (args[-1] == expected[-1]).all(), n


@proc
def two_loops(n: size, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        for j in seq(0, n):
            y[j] += x[j]
        for j in seq(0, n):
            y[j] += x[j]


def test_rows_names_a_body_without_one_inner_loop():
    with pytest.raises(
        SchedulingError, match="rows: expected one loop in the body"
    ) as e:
        rows(two_loops, "i", AVX2, "f32")
    assert "found 2" in str(e.value)


def test_columns_and_triangle_name_the_failing_call():
    with pytest.raises(SchedulingError, match="columns: expected one loop"):
        columns(two_loops, "i", AVX2, "f32")
    with pytest.raises(
        SchedulingError, match="triangle: .*2 top-level loops; name the loop"
    ):

        @proc
        def twice(n: size, x: [R][n]):
            for i in seq(0, n):
                x[i] = 0.0
            for i in seq(0, n):
                x[i] = 1.0

        triangle(twice, None, AVX2, "f32")


def test_by_letter_names_a_letter_without_a_schedule():
    gemv = module(2, "gemv").gemv
    k = kernel(gemv, axes=[Trans("A")], schedule=by_letter("trans", n=None))
    with pytest.raises(ValueError, match="by_letter: no schedule for trans = 't'"):
        k.variants(AVX2)


def test_per_letter_gives_an_option_its_value_per_variant():
    gemv = module(2, "gemv").gemv
    # r=1 for NoTrans: one row at a time, no jam; r=4 for Trans's columns
    k = kernel(gemv, axes=[Trans("A")], schedule=by_rows(r=per_letter("trans", n=1)))
    with pytest.raises(ValueError, match="per_letter: trans = 't' has no value"):
        k.variants(AVX2)
    k = kernel(
        gemv,
        axes=[Trans("A")],
        schedule=by_letter("trans", n=by_rows(r=per_letter("trans", n=1)), t=None),
    )
    one_row = str({v.name: v for v in k.variants(AVX2)}["sgemv_n"].procs["stride_1"])
    assert "avx2_fma_f32(" in one_row and "io" not in one_row  # no block of rows


def test_an_instruction_table_can_be_cut_to_named_operations():
    names = [i.name() for i in AVX2.instructions("f64", ("fma", "hsum"))]
    assert names == ["avx2_fma_f64", "avx2_fma_mask_f64", "avx2_hsum_f64"]
    with pytest.raises(ValueError, match="unknown operations: fmaa"):
        AVX2.instructions("f64", ("fmaa",))
