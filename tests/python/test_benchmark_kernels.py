"""Every benchmarked kernel (benchmarks/kernels/) computes what its NumPy
reference says, within the reference's error bound, at small and odd
sizes: each exo2 variant (at every size its assertions allow) and each
library baseline (skipped, saying why, where it is not installed)."""

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from exo2.jit import jit  # noqa: E402

from benchmarks import baselines  # noqa: E402
from benchmarks.kernels import Check, check_outputs, kernels_of  # noqa: E402
from benchmarks.kernels.gemm import gemm_case  # noqa: E402

LEVEL1_SIZES = [1, 7, 33, 1000]
# (M, N, K): odd shapes for the naive kernels, multiples of (6, 16, 32)
# for the scheduled one.
GEMM_SHAPES = [(1, 1, 1), (7, 7, 7), (33, 17, 9), (6, 16, 32), (12, 32, 64)]
IMAGE_SIZES = [1, 7, 33, 32, 64]


def _kernels():
    kernels = []
    for suite in ("sgemm", "dgemm", "level1", "halide"):
        found, _notes = kernels_of(suite)
        kernels += found
    return kernels


KERNELS = _kernels()
VARIANTS = [(k, v) for k in KERNELS for v in k.variants.values()]


def _cases(kernel):
    if kernel.suite in ("sgemm", "dgemm"):
        itemsize = 4 if kernel.prec == "f32" else 8
        return [gemm_case(M, N, K, itemsize, "shape", M) for M, N, K in GEMM_SHAPES]
    if kernel.suite == "halide":
        return kernel.cases(quick=True, sizes=IMAGE_SIZES)
    return kernel.cases(quick=True, sizes=LEVEL1_SIZES)


def _fresh(kernel, case):
    inputs = kernel.inputs(case.sizes, np.random.default_rng(7))
    checks = kernel.reference({k: v.copy() for k, v in inputs.items()})
    return inputs, checks


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


_CPU_HAS_AVX2_FMA = {"avx2", "fma"} <= _cpu_flags()


def test_registry_lists_the_gemm_and_level1_kernels():
    names = {k.name for k in KERNELS}
    assert {"sgemm", "dgemm"} <= names
    assert {f"{p}{op}" for p in "sd" for op in ("axpy", "dot", "asum", "scal")} <= names
    sgemm = next(k for k in KERNELS if k.name == "sgemm")
    assert {"naive", "primitives"} <= set(sgemm.variants)


@pytest.mark.parametrize(
    "kernel, variant", VARIANTS, ids=[f"{k.name}-{v.name}" for k, v in VARIANTS]
)
def test_exo2_variant_matches_numpy(kernel, variant):
    if "avx2" in variant.name and not _CPU_HAS_AVX2_FMA:
        pytest.skip("the CPU lacks AVX2/FMA")
    procedure = variant.make()
    compiled = jit(procedure)
    checked = 0
    for case in _cases(kernel):
        inputs, checks = _fresh(kernel, case)
        try:
            compiled(*variant.arguments(procedure, case.sizes, inputs))
        except ValueError as error:
            assert "precondition" in str(error)
            continue
        assert check_outputs(checks, inputs) is None, case.label
        checked += 1
    assert checked > 0, "no test size satisfies the variant's assertions"


LIBRARIES, MISSING = baselines.libraries()
# Every library the runner knows, installed or not: a missing one is a
# visible skip with its reason (scripts/bench_setup.sh installs them; the
# test command runs it), not a test that silently is not collected.
BASELINES = [
    (k, name)
    for k in KERNELS
    for name in (*LIBRARIES, *MISSING)
    if k.libraries is None or name in k.libraries
]


@pytest.mark.parametrize(
    "kernel, name", BASELINES, ids=[f"{k.name}-{name}" for k, name in BASELINES]
)
def test_baseline_matches_numpy(kernel, name):
    if name not in LIBRARIES:
        pytest.skip(f"{name}: {MISSING[name]}")
    library = LIBRARIES[name]
    for case in _cases(kernel):
        inputs, checks = _fresh(kernel, case)
        call = kernel.baseline(library, inputs)
        call()
        assert check_outputs(checks, inputs) is None, case.label
        # The C loop of repeated calls runs the same operation.
        if hasattr(call, "timed"):
            call = call.timed
        if hasattr(call, "repeat"):
            call.repeat(2)


def test_check_reports_an_output_off_by_more_than_its_bound():
    expected = np.array([1.0, 2.0, np.nan])
    checks = {"y": Check(expected, 1e-6)}
    assert check_outputs(checks, {"y": np.array([1.0, 2.0, 5.0])}) is None
    message = check_outputs(checks, {"y": np.array([1.0, 2.1, 0.0])})
    assert message.startswith(
        "output y: 1 of 2 checked elements off by more than the error bound"
    )
    # A NaN where a value is expected fails.
    message = check_outputs(checks, {"y": np.array([np.nan, 2.0, 0.0])})
    assert message.startswith("output y: 1 of 2 checked elements")


def test_direct_call_runs_an_exo2_kernel_alone_and_in_a_c_loop():
    from benchmarks.kernels.level1 import saxpy

    x = np.ones(5, dtype=np.float32)
    y = np.zeros(5, dtype=np.float32)
    alpha = np.array(0.5, dtype=np.float32)
    call = baselines.direct_call(jit(saxpy), [5, alpha, x, y])
    assert not y.any()  # checked, not run
    call()
    np.testing.assert_array_equal(y, np.full(5, 0.5, dtype=np.float32))
    if hasattr(call, "repeat"):
        call.repeat(2)
        np.testing.assert_array_equal(y, np.full(5, 1.5, dtype=np.float32))


def test_direct_call_reports_a_violated_precondition():
    from benchmarks.kernels.gemm import _sgemm_primitives

    kernel = jit(_sgemm_primitives())
    A, B, C = (np.zeros((7, 7), dtype=np.float32) for _ in range(3))
    with pytest.raises(ValueError, match="precondition violated"):
        baselines.direct_call(kernel, [7, 7, 7, A, B, C])
