"""exo2.bench: timing statistics, the low-overhead call path, flop and byte
counts read from a procedure, the machine probe and its cache, the
roofline, and `measure` itself on kernels of known flops."""

from __future__ import annotations

import json

import exo2
import numpy as np
import pytest
from exo2 import config, proc
from exo2.bench import Machine, Timing, as_call, count, measure, roof
from exo2.bench.machine import measure_machine, probe
from exo2.platforms import x86
from exo2.stdlib.stdlib import fma_rule, vectorize


@proc
def gemm(M: size, N: size, K: size, A: f32[M, K], B: f32[K, N], C: f32[M, N]):
    for i in seq(0, M):
        for j in seq(0, N):
            for k in seq(0, K):
                C[i, j] += A[i, k] * B[k, j]


@proc
def axpy(n: size, alpha: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        y[i] += alpha * x[i]


@proc
def lower_triangle_sum(n: size, A: f64[n, n], out: f64[n]):
    for i in seq(0, n):
        for j in seq(0, i + 1):
            out[i] += A[i, j] * A[i, j]


@config
class Mode:
    on: bool


@proc
def maybe_scale(n: size, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        if Mode.on:
            y[i] = x[i] * 2.0
        else:
            y[i] = 0.0


def _machine():
    """A fixed machine, so that tests need no probe: 100 GFLOP/s in f32,
    50 GB/s from every level."""
    levels = {"read": 50.0, "copy": 50.0, "triad": 50.0}
    return Machine(
        key="test",
        model="test",
        host="test",
        isas=["avx2"],
        caches={"L1": 32 * 1024, "L2": 1 << 20},
        clock_ghz=3.0,
        fma_gflops={"avx2": {"f32": 100.0, "f64": 50.0}},
        bandwidth_gbs={"L1": levels, "L2": levels, "DRAM": levels},
    )


def _gemm_args(M, N, K):
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    C = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    return M, N, K, A, B, C


# ---- counts -------------------------------------------------------------------


def test_count_gemm_flops_and_compulsory_bytes():
    counts = count(gemm, {"M": 7, "N": 9, "K": 5})
    assert counts.flops == 2 * 7 * 9 * 5
    assert counts.bytes == 4 * (7 * 5 + 5 * 9 + 2 * 7 * 9)  # C read and written
    assert counts.reads == {"A", "B", "C"} and counts.writes == {"C"}
    assert counts.exact


def test_count_sums_triangular_loops_iteration_by_iteration():
    counts = count(lower_triangle_sum, {"n": 10})
    assert counts.flops == 2 * sum(i + 1 for i in range(10))
    assert counts.bytes == 8 * (10 * 10 + 2 * 10)


def test_count_of_an_if_on_a_config_takes_the_larger_branch_and_says_so():
    counts = count(maybe_scale, {"n": 6})
    assert counts.flops == 6
    assert not counts.exact
    assert counts.writes == {"y"} and counts.reads == {"x"}
    assert counts.bytes == 4 * 6 * 2  # x read, y written (not read)


def test_count_through_instructions_matches_the_unscheduled_kernel():
    instructions = [
        x86.mm256_loadu_ps,
        x86.mm256_storeu_ps,
        x86.mm256_broadcast_ss_scalar,
        x86.mm256_addmul_ps,
    ]
    fast = vectorize(
        axpy,
        axpy.find_loop("i"),
        8,
        "f32",
        x86.AVX2,
        instructions,
        [fma_rule],
        tail="cut",
    )
    assert "mm256_" in str(fast)  # instruction calls, counted through their bodies
    for n in (64, 67):
        assert count(fast, {"n": n}).flops == count(axpy, {"n": n}).flops == 2 * n


def test_count_refuses_a_bound_it_cannot_evaluate():
    with pytest.raises(exo2.bench.CountError, match="'K' has no known value"):
        count(gemm, {"M": 2, "N": 2})


# ---- the call path and the statistics -----------------------------------------


def test_bound_call_runs_the_kernel_with_checked_arguments():
    kernel = exo2.jit(axpy)
    x = np.arange(5, dtype=np.float32)
    y = np.ones(5, dtype=np.float32)
    call = as_call(kernel, (5, 2.0, x, y))  # the scalar boxed once, kept alive
    call()
    call.repeat(3)
    np.testing.assert_allclose(y, 1 + 4 * 2.0 * np.arange(5))
    y[:] = 1
    call = as_call(kernel, (5, np.float64(3.0), x, y))  # a NumPy scalar too
    import gc

    gc.collect()
    call()
    np.testing.assert_allclose(y, 1 + 3.0 * np.arange(5))


def test_bind_reports_the_calls_own_argument_errors():
    kernel = exo2.jit(axpy)
    with pytest.raises(ValueError, match="expected shape"):
        kernel.bind(5, 2.0, np.zeros(4, np.float32), np.zeros(5, np.float32))
    with pytest.raises(TypeError, match="axpy"):
        kernel.bind(5, 2.0)


def test_timing_statistics():
    t = Timing((5.0, 1.0, 3.0, 2.0, 4.0), 10)
    assert t.median == 3.0 and t.min == 1.0 and t.max == 5.0
    assert t.quartiles == (2.0, 4.0) and t.iqr == 2.0


# ---- measure ------------------------------------------------------------------


def test_measure_reports_gflops_consistent_with_the_known_flops():
    args = _gemm_args(24, 20, 16)
    m = measure(gemm, *args, repeat=3, min_time=0.002, machine=_machine())
    flops = 2 * 24 * 20 * 16
    assert m.flops == flops
    assert m.bytes == 4 * (24 * 16 + 16 * 20 + 2 * 24 * 20)
    assert m.gflops == pytest.approx(flops / m.median / 1e9)
    assert m.gbs == pytest.approx(m.bytes / m.median / 1e9)
    assert m.min <= m.median and m.iqr >= 0 and len(m.timing.times) == 3
    # given flops win over the derived count, and scale GFLOP/s with them
    m2 = measure(
        gemm, *args, flops=2 * flops, repeat=3, min_time=0.002, machine=_machine()
    )
    assert m2.gflops == pytest.approx(2 * flops / m2.median / 1e9)
    assert "GFLOP/s" in str(m)


def test_measure_baseline_ratio_in_the_same_run():
    args = _gemm_args(16, 16, 16)
    kernel = exo2.jit(gemm)

    def three_times(*a):
        kernel(*a)
        kernel(*a)
        kernel(*a)

    m = measure(
        kernel,
        *args,
        baseline=three_times,
        repeat=5,
        min_time=0.005,
        machine=_machine(),
    )
    assert m.ratio == pytest.approx(m.baseline.median / m.median)
    assert m.ratio > 1.5  # three checked calls against one C call


def test_measure_roofline_bound_and_fraction():
    args = _gemm_args(16, 16, 16)
    m = measure(gemm, *args, repeat=3, min_time=0.002, machine=_machine())
    intensity = m.flops / m.bytes
    assert m.roof.intensity == pytest.approx(intensity)
    assert m.roof.gflops == pytest.approx(min(100.0, intensity * 50.0))
    assert m.roof.level == "L1"
    assert m.fraction == pytest.approx(m.gflops / m.roof.gflops)


def test_roof_is_memory_bound_for_low_intensity():
    r = roof(_machine(), flops=2e6, bytes_moved=12e6, prec="f32", working_set=1 << 30)
    assert r.limit == "memory" and r.level == "DRAM"
    assert r.gflops == pytest.approx(2 / 12 * 50.0)


def test_measure_plots_a_roofline(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "roof.png"
    measure(
        gemm,
        *_gemm_args(8, 8, 8),
        repeat=2,
        min_time=0.001,
        machine=_machine(),
        plot=path,
    )
    assert path.stat().st_size > 1000


def test_measure_times_any_callable():
    m = measure(lambda: sum(range(100)), repeat=2, min_time=0.001, flops=100)
    assert m.gflops > 0 and m.roof is None or m.roof.gflops > 0


# ---- the probe ------------------------------------------------------------------


def test_probe_measures_and_caches_per_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("EXO2_CACHE_DIR", str(tmp_path))
    import exo2.bench.machine as probe_module

    quick = measure_machine(quick=True)
    monkeypatch.setattr(probe_module, "measure_machine", lambda: quick)
    first = probe()
    files = list((tmp_path / "machine").glob("*.json"))
    assert len(files) == 1
    assert json.loads(files[0].read_text())["key"] == first.key
    monkeypatch.setattr(
        probe_module, "measure_machine", lambda: pytest.fail("the cache was not used")
    )
    assert probe() == first
    if quick.clock_ghz is not None:  # a C compiler was found
        assert 0.2 < quick.clock_ghz < 10
        for isa in quick.isas:
            assert quick.fma_gflops[isa]["f32"] > 0 and quick.fma_gflops[isa]["f64"] > 0
            assert quick.fma_units[isa] >= 1
        assert set(quick.bandwidth_gbs["DRAM"]) == {"read", "copy", "triad"}
