"""Level-1 BLAS for AVX2 (issue 7): the `stdlib_avx2` variants of
benchmarks/kernels/level1.py (saxpy, sdot, sasum, sscal and their f64
forms), their shape, and their results against NumPy at sizes with and
without a tail (the run tests skip on CPUs without AVX2/FMA)."""

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from benchmarks.kernels import check_outputs, level1  # noqa: E402

with open("/proc/cpuinfo") as _cpu:
    HAS_AVX2 = {"avx2", "fma"} <= set(_cpu.read().split())
needs_avx2 = pytest.mark.skipif(not HAS_AVX2, reason="this CPU lacks AVX2/FMA")

NAMES = [k.name for k in level1.KERNELS]
# 1 and 7: only the scalar tail; 33: vector tail and scalar tail; 1000: all
# of them in f32 (31 blocks of 32, one tail vector); 1003: not a multiple of
# either vector width; 4096: blocks only
SIZES = [1, 7, 33, 1000, 1003, 4096]


@pytest.fixture(scope="module", params=NAMES)
def scheduled(request):
    kernel = level1.BY_NAME[request.param]
    return kernel, kernel.variants["stdlib_avx2"].make()


@pytest.fixture(scope="module")
def compiled(scheduled):
    kernel, p = scheduled
    return kernel, p, p.jit()


def test_every_kernel_has_the_variant():
    assert all("stdlib_avx2" in k.variants for k in level1.KERNELS)


def _block_calls(text, header):
    """The statements of the loop printed as `header` (eight-space indent,
    continuation lines and allocations left out)."""
    lines = text.splitlines()
    start = lines.index(header) + 1
    end = next(
        (i for i in range(start, len(lines)) if not lines[i].startswith("     ")),
        len(lines),
    )
    body = [line[8:] for line in lines[start:end]]
    return [b for b in body if not b.startswith(" ") and "@" not in b]


def test_schedule_is_unrolled_vector_code(scheduled):
    kernel, p = scheduled
    text = str(p)
    width = 8 if kernel.prec == "f32" else 4
    block = width * level1.UNROLL
    s = "ps" if kernel.prec == "f32" else "pd"
    assert f"    for io in seq(0, n / {block}):\n" in text
    # the block, the vector tail and the scalar tail
    assert f"    for iio in seq(0, n % {block} / {width}):\n" in text
    assert f"    for iii in seq(0, n % {block} % {width}):\n" in text
    calls = _block_calls(text, f"    for io in seq(0, n / {block}):")
    assert all(c.startswith(("mm256_", "avx2_")) for c in calls), calls
    if kernel.name.endswith(("dot", "asum")):
        # one accumulator register per vector of the block
        assert f"    var0: {kernel.prec}[{level1.UNROLL}, {width}] @ AVX2\n" in text
        # the sum in a local; the accumulators added into one vector,
        # reduced across once (and the tail's once more)
        assert text.endswith("\n    result += sum_")
        for u in range(level1.UNROLL):
            assert f"    mm256_setzero_{s}(var0[{u}, 0:{width}])\n" in text
            assert (
                f"    avx2_reduce_add_wide_{s}(var1[0:{width}], var0[{u}, 0:{width}])\n"
                in text
            )
        assert text.count(f"avx2_assoc_reduce_add_{s}(") == 2
        assert f"    avx2_assoc_reduce_add_{s}(var1[0:{width}], sum_)\n" in text
        update = "mm256_fmadd" if "dot" in kernel.name else "avx2_reduce_add_wide"
        assert sum(c.startswith(f"{update}_{s}(var0[") for c in calls) == level1.UNROLL
    else:
        stores = [c for c in calls if c.startswith(f"mm256_storeu_{s}")]
        assert len(stores) == level1.UNROLL
        # alpha in a local, broadcast from there
        assert "    alpha_ = alpha\n" in text
        assert "alpha_)" in text and "], alpha)" not in text


def test_sdot_block_prints_as_planned():
    p = level1.BY_NAME["sdot"].variants["stdlib_avx2"].make()
    lines = str(p).splitlines()
    start = lines.index("    for io in seq(0, n / 32):")
    assert lines[start + 1 : start + 6] == [
        "        var2: f32[8] @ AVX2",
        "        var3: f32[8] @ AVX2",
        "        mm256_loadu_ps(var2[0:8], x[32 * io:8 + 32 * io])",
        "        mm256_loadu_ps(var3[0:8], y[32 * io:8 + 32 * io])",
        "        mm256_fmadd_ps(var0[0, 0:8], var2[0:8], var3[0:8])",
    ]


def test_abs_select_rule_matches_only_the_abs_select():
    p = level1.sasum
    (expr,) = [s.rhs() for s in p.find("result += _", many=True)]
    assert level1.abs_select_rule(p, expr) is not None
    dot = level1.sdot
    assert level1.abs_select_rule(dot, dot.find("result += _").rhs()) is None


@needs_avx2
@pytest.mark.parametrize("n", SIZES)
def test_matches_numpy(compiled, n):
    kernel, p, run = compiled
    rng = np.random.default_rng(n)
    inputs = kernel.inputs({"n": n}, rng)
    checks = kernel.reference({k: v.copy() for k, v in inputs.items()})
    run(*kernel.variants["stdlib_avx2"].arguments(p, {"n": n}, inputs))
    assert check_outputs(checks, inputs) is None


@needs_avx2
def test_result_is_overwritten_not_accumulated(compiled):
    kernel, p, run = compiled
    if "result" not in [a.name() for a in p.args()]:
        pytest.skip("no result argument")
    inputs = kernel.inputs({"n": 33}, np.random.default_rng(1))
    inputs["result"][()] = 1e6
    checks = kernel.reference({k: v.copy() for k, v in inputs.items()})
    run(*kernel.variants["stdlib_avx2"].arguments(p, {"n": 33}, inputs))
    assert check_outputs(checks, inputs) is None
