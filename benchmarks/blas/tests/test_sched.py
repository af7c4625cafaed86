"""The level-1 scheduling library (exo2blas.sched.stream, exo2blas.machines):
what the schedules make of the kernels, and the errors they give. That the
scheduled kernels compute what the BLAS defines is the sweep's job
(test_level1.py, through the C library)."""

from __future__ import annotations

import numpy as np
import pytest
from cpu import RUNS_AVX2
from exo2 import SchedulingError, proc
from exo2.errors import KernelCheckError
from exo2.libs.externs import sin
from exo2blas.externs import fabs
from exo2blas.kernels import kernels_of, module
from exo2blas.machines import AVX2, AVX512, MACHINES
from exo2blas.machines.instructions import block_copy
from exo2blas.sched import scanned, stream, streamed
from exo2blas.sched.stream import _short_path
from exo2blas.variants import assert_unit_strides, kernel


def _helper(name, variant):
    """The kernel of level 1's file `name` (or one of its helpers) that
    makes `variant` ("isamax_blockmax")."""
    return next(
        k for k in kernels_of(1, name) if variant in (v.name for v in k.variants(AVX2))
    )


def _scheduled(name, variant, machine):
    k = _helper(name, variant)
    procs = {v.name: v.procs for v in k.variants(machine)}[variant]
    return str(procs["stride_1"]), str(procs["stride_any"])


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_instruction_tables_have_a_masked_form_of_every_lane_wise_operation(machine):
    for prec in ("f32", "f64"):
        names = [i.name() for i in machine.instructions(prec)]
        assert len(names) == len(set(names))
        full = {n for n in names if "_mask_" not in n}
        for name in full - {
            f"{machine.name}_{op}_{prec}" for op in ("zero", "hsum", "hsum_element")
        }:
            assert name.replace(f"_{prec}", f"_mask_{prec}") in names, name


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_a_reduction_gets_one_accumulator_per_interleaved_vector(machine):
    unit, anything = _scheduled("dot", "sdot", machine)
    lanes = machine.lanes["f32"]
    assert f"f32[4, {lanes}] @ {machine.memory.__name__}" in unit
    assert (
        unit.count(f"{machine.name}_fma_f32(") == 4 + 1
    )  # 4 interleaved, 1 in the rest
    assert f"{machine.name}_fma" not in anything  # any stride: the naive loop


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_a_reduction_of_fewer_elements_than_a_vector_runs_scalar_in_a_register(
    machine,
):
    unit, _ = _scheduled("dot", "ddot", machine)
    short, vectors = unit.split("\n    else:\n")
    assert f"if n < {machine.lanes['f64']}:" in short
    assert "result_reg += x[i] * y[i]" in short and "_f64(" not in short
    assert f"{machine.name}_fma_f64(" in vectors
    # the result lives in a register from its zeroing to the end of both
    # paths (the last elements of the vector path sum into it too): one
    # store, no load
    assert "result_reg = 0.0\n    if n <" in short and "= result\n" not in unit
    assert vectors.rstrip().endswith("\n    result = result_reg")
    assert unit.count("result = result_reg") == 1


def test_the_last_elements_of_a_reduction_take_a_narrower_vector_where_they_fill_one():
    unit, _ = _scheduled("dot", "ddot", AVX512)
    vectors = unit.split("\n    else:\n")[1]
    whole, rest = vectors.split("if n % 32 % 8 < 4:")
    assert "avx2_" not in whole and "avx512_fma_f64(" in whole
    fewer, enough = rest.split("else:")  # fewer than AVX2's vector, or not
    assert "for iii in seq(0, n % 32 % 8):" in fewer and "_f64(" not in fewer
    assert enough.count("avx2_fma_f64(") == 1 and "avx512_" not in enough
    assert "for iii in seq(4, n % 32 % 8):" in enough


def test_widening_kernels_have_a_narrow_case_in_the_narrower_machines_vectors():
    # AVX-512 widens in its own vectors; its `narrow` case (short vectors,
    # Zen 4) in AVX2's; AVX2, with no narrower machine, has no such case
    for name, variant in (("dsdot", "dsdot"), ("sdsdot", "sdsdot"), ("nrm2", "snrm2")):
        procs = {v.name: v.procs for v in module(1, name).KERNEL.variants(AVX512)}
        unit, narrow = str(procs[variant]["stride_1"]), str(procs[variant]["narrow"])
        body = narrow.split(":", 1)[1]  # past the name
        # AVX2's vector in the unit: one, before the scalars of the last
        # elements (`_narrower_vector`)
        assert "avx512_load_widen_f64" in unit
        assert unit.count("avx2_fma_f64(") == 1  # of the last elements
        assert "avx2_load_widen_f64" in body and "avx512_" not in body
        avx2 = {v.name: v.procs for v in module(1, name).KERNEL.variants(AVX2)}
        assert set(avx2[variant]) == {"stride_1", "stride_any"}
    # f64 data is not widened: dnrm2 has no narrow case
    procs = {v.name: v.procs for v in module(1, "nrm2").KERNEL.variants(AVX512)}
    assert set(procs["dnrm2"]) == {"stride_1", "stride_any"}


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
@pytest.mark.parametrize("name", ["dot", "axpy"])
def test_narrow_cases_run_in_avx2s_vectors_as_the_naive_kernel_does(name):
    # AVX-512's `narrow` dot and axpy (past the caches on Zen 4) in AVX2's
    # vectors, which run here on any AVX2 CPU: on small integers (exact in
    # any order) their results are the naive kernel's and numpy's, at
    # lengths around their blocks
    rng = np.random.default_rng(11)
    for v in module(1, name).KERNEL.variants(AVX512):
        narrow = v.procs["narrow"]
        body = str(narrow).split(":", 1)[1]  # past the name
        assert "avx2_" in body and "avx512_" not in body, v.name
        naive, fast = assert_unit_strides(v.naive).jit(), narrow.jit()
        dtype = np.float32 if v.name[0] == "s" else np.float64
        for n in (1, 3, 4, 15, 16, 17, 33, 64, 1001):  # sizes are positive
            x, y = (rng.integers(-4, 5, n).astype(dtype) for _ in range(2))
            if name == "dot":
                args, exact = [n, x, y, np.zeros((), dtype)], np.dot(x, y)
            else:
                args, exact = [n, dtype(3), x, y.copy()], y + 3 * x
            expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            naive(*expected)
            fast(*args)
            assert (args[-1] == expected[-1]).all(), (v.name, n)
            assert (args[-1] == exact).all(), (v.name, n)


def test_an_update_ends_without_a_masked_store():
    unit, _ = _scheduled("axpy", "daxpy", AVX512)
    short, vectors = unit.split("else:")
    # whole vectors, one of AVX2's, then scalars
    assert "_mask_" not in vectors
    assert "avx512_store_f64" in vectors and "avx2_store_f64" in vectors
    assert "for iii in seq(0, n % 8 % 4):" in vectors
    # fewer elements than AVX2's vector, one by one
    assert "if n < 4:" in short and "for i in seq(0, n):" in short
    assert "_f64(" not in short


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_copy_nontemporal_stores_its_whole_vectors_past_the_caches(machine):
    k = module(1, "copy").KERNEL
    procs = {v.name: v.procs for v in k.variants(machine)}["scopy"]
    unit, nontemporal = str(procs["stride_1"]), str(procs["nontemporal"])
    assert "nontemporal" not in unit
    assert nontemporal.count(f"{machine.name}_store_nontemporal_f32(") == 4 + 1
    assert f"{machine.name}_store_f32(" not in nontemporal
    if machine.narrower:  # the one vector of the narrower machine: plain
        assert f"{machine.narrower.name}_store_f32(" in nontemporal


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_copy_block_is_one_memcpy(machine):
    k = module(1, "copy").KERNEL
    procs = {v.name: v.procs for v in k.variants(machine)}["dcopy"]
    body = str(procs["block"]).splitlines()[-1]
    assert body == "    block_copy_f64(n, y[0:n], x[0:n])"
    assert block_copy("f64").get_instr().startswith("__builtin_memcpy(")


def test_mixed_precision_kernels_widen_on_load():
    unit, _ = _scheduled("sdsdot", "sdsdot", AVX2)
    assert "avx2_load_widen_f64" in unit and "xd: f64[4, 4] @ ZeroedAVX2" in unit


def test_iamax_lanes_stay_in_index_order():
    # first_max's 32 lanes (16 x 2 vectors), blockmax's 64 (one register of
    # state per vector: twice the chains), kept in registers across the
    # block loop
    for variant, vectors in (("isamax", 2), ("isamax_blockmax", 4)):
        unit, _ = _scheduled("iamax", variant, AVX512)
        assert f"m_lanes: f32[{vectors}, 16] @ ZeroedAVX512" in unit
        # each lane's maximum by one max instruction (`max_rule`)
        assert "avx512_max_f32(" in unit
        assert "hsum" not in unit  # no maximum reassociated


def test_iamax_maxima_need_no_compare_and_blend():
    first_max, _ = _scheduled("iamax", "isamax", AVX2)
    blockmax, _ = _scheduled("iamax", "isamax_blockmax", AVX2)
    # per vector of x (two in a block of first_max, four of blockmax; one
    # in the rest), first_max blends only the index of a larger maximum
    # into `row`; the maxima are max instructions
    assert first_max.count("avx2_select_f32(") == 3
    assert first_max.count("avx2_max_f32(") == 3
    assert "avx2_select_f32" not in blockmax
    assert blockmax.count("avx2_max_f32(") == 5


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_iamax_takes_each_absolute_value_by_one_instruction(machine):
    # `fabs` clears the sign bit (an AND), where `select(0.0, x, x, -x)`
    # is a negation and a max: per vector of x, first_max and blockmax
    # each take one, in a block and in its rest
    for variant in ("isamax", "isamax_blockmax"):
        unit, _ = _scheduled("iamax", variant, machine)
        vectors = machine.block_vectors()
        assert unit.count(f"{machine.name}_fabs_f32(") >= vectors + 1, unit
        assert f"{machine.name}_abs_f32(" not in unit
        assert f"{machine.name}_negate_f32(" not in unit


def test_fabs_takes_one_real_scalar():
    with pytest.raises(KernelCheckError, match="fabs takes one real scalar argument"):

        @proc
        def two_arguments(x: R):
            x = fabs(x, x)


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
def test_iamax_blockmax_with_fabs_matches_the_naive_proc_bit_for_bit():
    # signed zeros and ties in every draw: the vector AND and the C
    # library's fabsf agree, the sign of a zero included; the block's
    # largest maximum comes out of the kernel's own reduction of its lanes
    k = _helper("iamax", "isamax_blockmax")
    v = {v.name: v for v in k.variants(AVX2)}["isamax_blockmax"]
    naive = assert_unit_strides(v.naive).jit()
    scheduled = v.procs["stride_1"].jit()
    assert "avx2_fabs_f32(" in str(v.procs["stride_1"])
    rng = np.random.default_rng(11)
    for n in (*range(1, 20), 31, 32, 33, 47, 100, 4096):
        for values in ([-0.0, 0.0], [-0.0, 0.0, -2, 2, -1, 1, 3]):
            x = rng.choice(np.float32(values), n)
            want, got = np.full((), 7, np.float32), np.full((), 7, np.float32)
            naive(n, x, want)
            scheduled(n, x, got)
            assert got == want == np.abs(x).max(), (n, x)
            assert np.signbit(got) == np.signbit(want), (n, x)


def test_iamax_state_fits_the_registers():
    # three vectors of state per vector of x: four side by side would
    # spill AVX2's 16 registers, two do not
    unit, _ = _scheduled("iamax", "isamax", AVX2)
    for buffer in ("m", "row", "seen"):
        assert f"{buffer}_lanes: f32[2, 8] @ ZeroedAVX2" in unit


def test_iamax_scan_keeps_its_index_in_a_register_and_finds_the_first_maximum():
    unit, _ = _scheduled("iamax", "isamax_scan", AVX2)
    # `first` staged from its zeroing: stored once, after the loop
    assert "first_reg = 0.0\n" in unit and unit.rstrip().endswith("first = first_reg")
    k = _helper("iamax", "isamax_scan")
    variant = {v.name: v for v in k.variants(AVX2)}["isamax_scan"]
    scheduled = variant.procs["stride_1"].jit()
    rng = np.random.default_rng(5)
    for n in range(1, 12):
        for _ in range(20):
            # small integers of either sign: ties of |x| in most draws
            x = rng.integers(-3, 4, n).astype(np.float32)
            first = np.zeros((), np.float32)
            scheduled(n, x, first)
            assert first == np.argmax(np.abs(x)), x


@pytest.mark.skipif(not RUNS_AVX2, reason="needs AVX2 with FMA")
def test_iamax_lanes_of_one_vector_find_the_first_maximum(monkeypatch):
    """One vector of lanes per block (width = lanes): the copies of the
    lanes out of their registers are then one vector each, and vectorizing
    the loop that sets the lanes already replaces them (`vectorize` replaces
    every statement of the proc an instruction matches); `lanes` goes on
    with the loops left, and the kernel finds what the naive one finds."""
    monkeypatch.setattr(type(AVX2), "block_vectors", lambda self: 1)
    first_max = module(1, "iamax").first_max
    k = kernel(first_max, name="i{p}amax", schedule=scanned())
    v = {v.name: v for v in k.variants(AVX2)}["isamax"]
    assert "m_lanes: f32[1, 8] @ ZeroedAVX2" in str(v.procs["stride_1"])
    naive = assert_unit_strides(v.naive).jit()
    scheduled = v.procs["stride_1"].jit()
    rng = np.random.default_rng(7)
    lane_start = np.arange(8, dtype=np.float32)
    for n in (*range(1, 20), 31, 32, 33, 64, 100):
        x = rng.integers(-3, 4, n).astype(np.float32)  # ties in most draws
        want, got = np.zeros((), np.float32), np.zeros((), np.float32)
        naive(n, x, lane_start, want)
        scheduled(n, x, lane_start, got)
        assert got == want, (n, x)


def test_iamax_lanes_are_set_in_registers():
    unit, _ = _scheduled("iamax", "isamax", AVX512)
    # zeroed in the registers, never stored and loaded back
    assert "avx512_zero_f32(m_lanes[laneo, 0:16])" in unit
    assert "avx512_load_f32(m_lanes" not in unit


def test_iamax_rest_of_a_block_runs_by_whole_vectors():
    unit, _ = _scheduled("iamax", "isamax_blockmax", AVX512)
    # the lanes of the rest, `(ii + n / 64 * 64) % 64`, proven to be `ii`
    assert "for iio in seq(0, n % 64 / 16):" in unit
    assert "avx512_max_f32(" in unit.split("for iio in seq(0, n % 64 / 16):")[1]
    assert "for iii in seq(0, n % 64 % 16):" in unit  # fewer than 16 left


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=lambda m: m.name)
def test_iamax_first_max_reduces_its_lanes_in_the_kernel(machine):
    unit, _ = _scheduled("iamax", "isamax", machine)
    width = machine.lanes["f32"]
    vectors = machine.block_vectors()
    # lanes over whole vectors only: no scalar in the rest of a block
    assert (
        f"for iio in seq(0, n / {width} * {width} % {width * vectors} / {width}):"
        in unit
    )
    assert "for iii in" not in unit
    # one instruction per reduction of all the lanes, out of the registers
    lanes = f"[0:{width * vectors}]"
    for call in (
        f"{machine.name}_hmax_{vectors}x_f32(m{lanes}, best)",
        f"{machine.name}_hfirst_{vectors}x_f32(m{lanes}, row{lanes}, best, first)",
        f"{machine.name}_hmin_{vectors}x_f32(seen{lanes}, index)",
    ):
        assert call in unit
    # the last elements of x, fewer than a vector: one masked vector in a
    # register, stored whole before its own reductions load it
    last = unit.split("last_vector: f32")[1]
    assert f"for ko in seq(0, (n % {width} + {width - 1}) / {width}):" in last
    assert f"{machine.name}_load_mask_f32(" in last
    assert f"{machine.name}_store_f32(last[0:{width}], last_vector[0:{width}])" in last
    assert f"{machine.name}_hmax_1x_f32(last[0:{width}], last_best)" in last
    assert "last[" not in last.split(f"{machine.name}_store_f32(last")[0]


@proc
def sines(n: size, x: [R][n], y: [R][n]):
    for i in seq(0, n):
        y[i] = sin(x[i])


def test_stream_names_the_statement_no_instruction_covers():
    k = kernel(sines, schedule=streamed())
    with pytest.raises(
        SchedulingError, match=r"stream: vectorize: no instruction given matches"
    ) as e:
        k.variants(MACHINES["avx2"])
    assert "sin(" in str(e.value)


@proc
def scale(n: size, alpha: f32, x: [f32][n]):
    assert stride(x, 0) == 1
    for i in seq(0, n):
        x[i] = alpha * x[i]


def test_stream_takes_the_loop_by_name_or_cursor():
    by_name = stream(scale, "i", AVX2, "f32")
    by_cursor = stream(scale, scale.find_loop("i"), AVX2, "f32")
    assert str(by_name) == str(by_cursor)
    assert "avx2_mul_f32" in str(by_name) and "_mask_" not in str(by_name)


def test_stream_ends_as_the_machine_ends_loops():
    # AVX2: whole vectors, then the last elements one by one; AVX-512: an
    # update, a vector of AVX2's, then scalars; asked, a masked last vector
    # (Machine.tail)
    avx2 = str(stream(scale, "i", AVX2, "f32"))
    assert "avx2_mul_mask_f32" not in avx2 and "for ii in seq(0, n % 8):" in avx2
    avx512 = str(stream(scale, "i", AVX512, "f32"))
    assert "_mask_" not in avx512 and "avx2_mul_f32" in avx512
    assert "for iii in seq(0, n % 16 % 8):" in avx512
    masked = str(stream(scale, "i", AVX512, "f32", tail=AVX512.tail))
    assert "avx512_mul_mask_f32" in masked


@proc
def scale_37(alpha: f32, x: [f32][37]):
    for i in seq(0, 37):
        x[i] = alpha * x[i]


def test_stream_runs_fewer_elements_than_a_vector_one_by_one_where_it_can_name_them():
    short = str(stream(scale, "i", AVX512, "f32", tail=AVX512.tail))
    assert "if n < 16:" in short and "avx512_mul_mask_f32" in short
    assert "if n < 8:" in str(stream(scale, "i", AVX512, "f32"))  # AVX2's vector
    # copy's `short="vector"`: fewer than AVX-512's own vector one by one,
    # then whole vectors, one of AVX2's and scalars (no masked store)
    copy = str(stream(scale, "i", AVX512, "f32", short="vector"))
    assert "if n < 16:" in copy and "_mask_" not in copy
    with pytest.raises(SchedulingError, match="short is 'vector' or None"):
        stream(scale, "i", AVX512, "f32", short="whole")
    # `if n < 16:` needs the loop's bound to be a variable; another bound
    # keeps one path
    loop = scale_37.find_loop("i")
    assert _short_path(scale_37, loop, 16) == (scale_37, loop)
