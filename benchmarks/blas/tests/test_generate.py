"""`python -m exo2blas.generate`: every variant of every kernel, named as
BLAS names it, derived from one naive source by Procedure methods and
primitives, and emitted as byte-for-byte deterministic C whose hashes are
committed (benchmarks/blas/hashes)."""

from __future__ import annotations

import json
import re
import time

from exo2blas.generate import _process_age, check_hashes, generate, main
from exo2blas.kernels import LEVELS, kernels
from exo2blas.machines import AVX2, AVX512


def _variants(machine, levels=(1, 2, 3)):
    return [(level, k, v) for level, k in kernels(levels) for v in k.variants(machine)]


def test_214_variants_and_their_public_procs_per_isa():
    found = _variants(AVX512)
    counted = [v for _, k, v in found if k.counted]
    assert len(counted) == 214
    by_level = {
        lv: sum(1 for lev, k, _ in found if lev == lv and k.counted) for lv in (1, 2, 3)
    }
    assert by_level == {1: 28, 2: 90, 3: 96}
    # 6 skinny cases (gemv, ger), 8 large ones (gemv NoTrans, ger, syr), 4 short
    # ones (symv), 4 procs of iamax's scan, 2 of copy's nontemporal case and 2
    # of its block case, 8 of tbmv's diagonals; on AVX-512 7 narrow ones too
    # (sdot, ddot, dsdot, sdsdot, snrm2, saxpy, daxpy) and 34 short ones
    # (trmv, trsv, rot): AVX2 has no narrower machine
    for machine, count in ((AVX512, 471), (AVX2, 430)):
        procs = [p.name() for _, _, v in _variants(machine) for p in v.procs.values()]
        assert len(procs) == len(set(procs)) == count
        assert all(p.startswith(f"exo2_{machine.name}_") for p in procs)


def test_variant_names_follow_blas_axis_order():
    names = {v.name for _, _, v in _variants(AVX2)}
    for expected in (
        "sasum", "idamax", "dsdot", "sdsdot", "srotm_m1", "srotm_m2", "dnrm2",
        "sgemv_t", "dger", "ssymv_u", "strsv_unn", "dtrmv_ltu", "sgbmv_t",
        "dtbsv_utn", "sgemm_nt", "dsymm_rl", "ssyrk_lt", "dtrsm_rlnu", "strmm_lutn",
    ):  # fmt: skip
        assert expected in names, expected


def test_cases_per_variant():
    procs = {v.name: v.procs for _, _, v in _variants(AVX2)}
    assert set(procs["saxpy"]) == {"stride_1", "stride_any"}
    assert set(procs["dgemv_t"]) == {"stride_1", "stride_any", "skinny"}
    assert set(procs["dgemv_n"]) == {"stride_1", "stride_any", "skinny", "large"}
    assert set(procs["sger"]) == {"stride_1", "stride_any", "skinny", "large"}
    assert set(procs["dsyr_l"]) == {"stride_1", "stride_any", "large"}
    assert procs["srotm_m2"] == {}  # the identity: a quick return in C
    assert set(procs["dgemm_tn"]) == {"b0", "b1", "bx"}
    assert set(procs["strsm_lunn"]) == {""}
    assert procs["dgemv_n"]["stride_1"].name() == "exo2_avx2_dgemv_n_stride_1"
    assert procs["dtrsm_rlnu"][""].name() == "exo2_avx2_dtrsm_rlnu"


def test_helpers_are_kernels_of_their_own_with_the_kernel_s_cases():
    # iamax's blockmax and scan: named after the kernel, its cases and
    # schedule, not counted among the BLAS variants
    (iamax,) = [k for _, k in kernels((1,)) if k.name == "i{p}amax"]
    names = [h.name for h in iamax.helpers]
    assert names == ["i{p}amax_blockmax", "i{p}amax_scan"]
    for helper in iamax.helpers:
        assert not helper.counted and helper.cases == iamax.cases
        assert helper.schedule is iamax.schedule
    assert [k.name for _, k in kernels((1,))][-3:] == ["i{p}amax", *names]
    procs = {v.name: v.procs for v in iamax.helpers[1].variants(AVX2)}
    assert procs["idamax_scan"]["stride_1"].name() == "exo2_avx2_idamax_scan_stride_1"


def test_a_helper_of_its_own_keeps_its_axes_cases_and_schedule():
    # tbmv's diagonals: Trans only (no trans axis), unit strides only
    (tbmv,) = [k for _, k in kernels((2,)) if k.name == "{p}tbmv"]
    (diagonals,) = tbmv.helpers
    assert diagonals.name == "{p}tbmv_diagonals" and not diagonals.counted
    assert [a.key for a in diagonals.axes] == ["upper", "unit"]
    assert [c.suffix for c in diagonals.cases] == ["stride_1"]
    assert diagonals.schedule is not tbmv.schedule
    procs = {v.name: v.procs for v in diagonals.variants(AVX2)}
    assert sorted(procs) == [
        f"{p}tbmv_diagonals_{u}{d}" for p in "ds" for u in "lu" for d in "nu"
    ]
    assert procs["stbmv_diagonals_ln"]["stride_1"].name() == (
        "exo2_avx2_stbmv_diagonals_ln_stride_1"
    )


def test_stride_1_asserts_unit_strides_and_stride_any_does_not():
    procs = {v.name: v.procs for _, _, v in _variants(AVX2, (2,))}
    unit, anything = (
        str(procs["sgemv_n"]["stride_1"]),
        str(procs["sgemv_n"]["stride_any"]),
    )
    for assertion in ("stride(A, 1) == 1", "stride(x, 0) == 1", "stride(y, 0) == 1"):
        assert f"assert {assertion}" in unit
        assert assertion not in anything


def test_flags_are_fixed_and_their_dead_branches_removed():
    procs = {v.name: v for _, _, v in _variants(AVX2, (2,))}
    upper_unit = str(procs["strmv_unu"].naive)
    assert "if" not in upper_unit.split("\n", 2)[2]  # no branch left
    assert "acc = x[i]" in upper_unit and "A[i, i]" not in upper_unit
    assert "upper" not in upper_unit and "unit" not in upper_unit


def test_trans_is_the_transposed_opposite_triangle():
    procs = {v.name: v for _, _, v in _variants(AVX2, (3,))}
    # trmm's upper Left NoTrans reads row i of A; lower Trans, transposed,
    # the same column
    assert "acc += A[i, p] * B[p, j]" in str(procs["strmm_lunn"].naive)
    assert "acc += A[p, i] * B[p, j]" in str(procs["strmm_lltn"].naive)


def test_trmv_and_trsv_emit_their_trans_form_as_row_updates():
    procs = {v.name: v for _, _, v in _variants(AVX2, (2,))}
    # x <- A^T x and A^T x = b read A along its rows, updating x by each
    # row: upper trmv backwards, lower trsv backwards, the others forwards;
    # trsv negates the solved entry once per row, not each product
    assert "x[j] += A[-1 - ii + n, j] * xi" in str(procs["strmv_utn"].naive)
    assert "x[j] += A[i, j] * xi" in str(procs["strmv_ltn"].naive)
    lower = str(procs["strsv_ltn"].naive)
    assert "xi = -x[-1 - ii + n]" in lower
    assert "x[j] += A[-1 - ii + n, j] * xi" in lower
    upper = str(procs["strsv_utn"].naive)
    assert "xi = -x[i]" in upper and "x[j] += A[i, j] * xi" in upper


def test_right_side_transposes_b_of_the_left_variant_with_trans_flipped():
    procs = {v.name: v for _, _, v in _variants(AVX2, (3,))}
    right_notrans = str(procs["strmm_runn"].naive)
    left_trans = str(procs["strmm_lutn"].naive)
    assert "B: [f32][n, m]" in right_notrans and "B: [f32][m, n]" in left_trans
    assert "B[j, -1 - ii + m] = alpha * acc" in right_notrans
    assert "B[-1 - ii + m, j] = alpha * acc" in left_trans


def test_precisions_change_every_r_buffer():
    procs = {v.name: v for _, _, v in _variants(AVX2, (1,))}
    text = str(procs["dswap"].naive)
    assert "R" not in text.replace("DRAM", "") and "t: f64" in text
    assert "xd: f64" in str(procs["dsdot"].naive)  # explicit types kept


def test_generated_c_matches_the_committed_hashes(tmp_path):
    files, record = generate(["avx2", "avx512"], tmp_path, jobs=1)
    assert check_hashes(files, ["avx2", "avx512"]) == []
    times = json.loads((tmp_path / "generate_times.json").read_text())
    assert set(times["kernels"]) == {"avx2", "avx512"}
    assert len(times["kernels"]["avx2"]) == 32  # every kernel and helper of 29 files
    assert set(times["emit"]["avx2"]) == {n for names in LEVELS.values() for n in names}
    assert "void exo2_avx512_dgemv_t_stride_1(" in files["kernels_avx512_gemv.c"]
    assert all(t["cpu_s"] >= 0 for t in times["kernels"]["avx2"].values())
    depfile = (tmp_path / "generate.d").read_text()
    assert "kernels/level3/trsm.py" in depfile and "exo2/" in depfile
    # every vector register is declared with a value (machines/registers.py)
    declared = re.compile(r"__m(256|512)d? \w+(\[\d+\])* = \{0\};")
    undefined = re.compile(r"__m(256|512)d? \w+(\[\d+\])*;")
    text = "".join(files.values())
    assert declared.search(text) and not undefined.search(text)


def test_list_files_names_one_c_file_per_kernel_file(capsys):
    assert main(["--list-files"]) == 0
    names = capsys.readouterr().out.strip().split(";")
    assert names[:2] == ["asum", "axpy"] and "gemv" in names and names[-1] == "trsm"
    assert len(names) == len(set(names)) == 29


def test_the_start_up_is_the_process_age_before_generating():
    # C1 counts a cold process's start-up (Python and the imports) too
    before = _process_age()
    time.sleep(0.1)
    after = _process_age()
    assert 0 < before < after and after - before >= 0.05
