"""exo2.stdlib.range_analysis (docs/halide-scheduling.md): ranges of index expressions
over cursors."""

from __future__ import annotations

import pytest
from exo2 import proc
from exo2.stdlib.range_analysis import (
    IndexRange,
    bounds_inference,
    constant_bound,
    index_range_analysis,
    infer_range,
)


@proc
def tiled(n: size, x: f32[n + 2], y: f32[n]):
    assert n % 4 == 0
    assert n >= 8
    for io in seq(0, n / 4):
        for ii in seq(0, 4):
            y[4 * io + ii] = x[4 * io + ii] + x[4 * io + ii + 2]
            y[ii] = x[(io * 4 + ii) / 2] + x[ii % 3] + x[-ii + 3] + x[2 * ii]


def rhs_reads(p, pattern):
    rhs = p.find(pattern).rhs()
    return rhs.lhs(), rhs.rhs()


def test_index_range_analysis_of_affine_expressions():
    first, second = rhs_reads(tiled, "y[4 * io + ii] = _")
    env = {"ii": (0, 3)}
    r = index_range_analysis(first.idx()[0], env)
    assert (r.base, r.lo, r.hi) == ({"io": 4}, 0, 3)
    assert str(r) == "4 * io + [0, 3]"
    r2 = index_range_analysis(second.idx()[0], env)
    assert str(r2) == "4 * io + [2, 5]"
    assert str(r | r2) == "4 * io + [0, 5]"
    assert r.get_stride_of("io") == 4 and r.get_stride_of("n") == 0
    assert (r | r2).get_size() == 6
    assert (r | r2).get_bounds() == ("4 * io", "4 * io + 6")
    # without bounds for ii, it stays symbolic
    assert str(index_range_analysis(first.idx()[0], {})) == "4 * io + ii + [0, 0]"


def test_division_modulo_negation_and_products():
    stmt = tiled.find("y[ii] = _")
    total = stmt.rhs()
    div_read = total.lhs().lhs().lhs()
    mod_read = total.lhs().lhs().rhs()
    neg_read = total.lhs().rhs()
    sq_read = total.rhs()
    env = {"ii": (0, 3)}
    assert str(index_range_analysis(div_read.idx()[0], env)) == "2 * io + [0, 1]"
    assert constant_bound(mod_read.idx()[0], env) == (0, 2)
    assert constant_bound(neg_read.idx()[0], env) == (0, 3)
    assert constant_bound(sq_read.idx()[0], env) == (0, 6)
    assert constant_bound(div_read.idx()[0], env) == (None, None)
    assert constant_bound(5, {}) == (5, 5)
    assert index_range_analysis(tiled.find_loop("ii").hi(), {}) == 4


def test_infer_range_binds_the_loops_inside_the_scope():
    read = tiled.find("y[4 * io + ii] = _").rhs().rhs()
    io, ii = tiled.find_loop("io"), tiled.find_loop("ii")
    assert str(infer_range(read.idx()[0], io)) == "4 * io + [2, 5]"
    assert str(infer_range(read.idx()[0], ii)) == "4 * io + ii + [2, 2]"
    r = infer_range(tiled.find_loop("ii").hi(), io)
    assert r == IndexRange.create_int(4, 4)


def test_bounds_inference_reads_and_writes():
    io = tiled.find_loop("io")
    reads = bounds_inference(io, "x", 0, include=["R"])
    assert str(reads) == "unknown"  # x[2 * ii] and friends differ in base
    writes = bounds_inference(io, "y", 0)
    assert str(writes) == "unknown"
    ii = tiled.find_loop("ii")
    assert bounds_inference(ii, "z", 0) is None


@proc
def blur(n: size, x: f32[n + 2], y: f32[n]):
    for i in seq(0, n):
        y[i] = x[i] + x[i + 1] + x[i + 2]


def test_bounds_inference_of_a_stencil():
    loop = blur.find_loop("i")
    assert str(bounds_inference(loop, "x", 0, include=["R"])) == "i + [0, 2]"
    assert str(bounds_inference(loop, "y", 0)) == "i + [0, 0]"
    assert str(bounds_inference(loop, "x", 0, include=["R", "W"])) == "i + [0, 2]"


def test_index_range_arithmetic():
    a = IndexRange({"i": 2}, 0, 3)
    assert str(a * 3) == "6 * i + [0, 9]"
    assert str(-a) == "-2 * i + [-3, 0]"
    assert str(a - a) == "[-3, 3]"
    assert str(a // 2) == "i + [0, 1]"
    assert str(a * a) == "unknown"
    assert str(IndexRange.create_int(-2, 3) * IndexRange.create_int(-1, 2)) == "[-4, 6]"
    assert str(IndexRange.create_int(5, 6) % 4) == "[1, 2]"
    assert str(IndexRange.create_int(3, 5) % 4) == "[0, 3]"
    assert str(IndexRange({}, None, 4)) == "[-inf, 4]"
    assert IndexRange({}, None, 4).get_size() is None
    with pytest.raises(ValueError, match="unbounded"):
        IndexRange({}, None, 4).get_bounds()


def test_bad_arguments():
    with pytest.raises(TypeError, match="expr must be an ExprCursor"):
        index_range_analysis(blur.find_loop("i"), {})
    with pytest.raises(TypeError, match="env must be a dict"):
        index_range_analysis(blur.find_loop("i").hi(), [])
    with pytest.raises(TypeError, match="loop must be a ForCursor"):
        bounds_inference(blur.find("y = _"), "x", 0)
    with pytest.raises(ValueError, match='include must hold "R" and/or "W"'):
        bounds_inference(blur.find_loop("i"), "x", 0, include=["X"])
    with pytest.raises(TypeError, match="must be cursors"):
        infer_range(3, blur.find_loop("i"))
