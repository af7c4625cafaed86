"""Patterns for `find` (docs/cursors.md, "Finding code"): what each form matches, the
search order, holes, `#n`, unquotes and errors."""

# ruff: noqa: F821, F841, E501

from __future__ import annotations

import pytest
from exo2 import DRAM, SchedulingError, proc
from exo2.API_cursors import BlockCursor
from exo2.frontend.pattern_match import PatternMatchError
from exo2.frontend.pyparser import ParseError
from exo2.libs.externs import relu
from kernels.configs import TileCfg


@proc
def sub(n: size, y: f32[n]):
    for i in seq(0, n):
        y[i] = 0.0


@proc
def kernel(n: size, m: size, x: f32[n, 8], y: f32[n], flag: bool):
    assert n > 4
    tmp: f32[n, 8] @ DRAM
    acc: R
    acc = 0.0
    for i in seq(0, n):
        for j in seq(0, 8):
            tmp[i, j] = x[i, j] * 2.0
            acc += tmp[i, j] + -3.0
        y[i] = relu(y[i])
    if flag:
        y[0] = 1.0
    else:
        pass
    if n < m:
        y[1] = acc
    w = x[0:n, 3]
    TileCfg.alpha = 1.5
    y[2] = TileCfg.alpha
    for k in par(1, n - 1):
        y[k] = y[k - 1] + y[k + 1]
    sub(n, y)


@proc
def strided(n: size, x: [f32][n, n]):
    for i in seq(0, n):
        if stride(x, 1) == 1 and stride(x, 0) == 4:
            x[i, 0] = 1.0


# (pattern, number of matches) — every one of these must match.
POSITIVE = [
    ("acc = _", 1),
    ("acc = 0.0", 1),
    ("acc += _", 1),
    ("tmp[_] = _", 1),
    ("tmp[i, j] = _", 1),
    ("tmp[i, _] = x[_] * _", 1),
    ("tmp[_, j] = _ * 2.0", 1),
    ("y = _", 5),
    ("y[0] = 1.0", 1),
    ("y[_] = relu(_)", 1),
    ("_ = _", 8),
    ("_ += _", 1),
    ("tmp : _", 1),
    ("tmp : f32[n, 8]", 1),
    ("tmp : R[_, 8]", 1),
    ("acc : _", 1),
    ("_ : _", 2),
    ("for i in _: _", 1),
    ("for i in seq(0, n): _", 1),
    ("for j in seq(0, 8): _", 1),
    ("for k in seq(1, n - 1): _", 1),
    ("for k in par(1, _): _", 1),
    ("for _ in _: _", 3),
    ("for i in _:\n    for j in _: _", 1),
    ("for i in _:\n    _\n    y[_] = _", 1),
    ("for j in _:\n    tmp[_] = _\n    acc += _", 1),
    ("if flag: _", 1),
    ("if _: _", 2),
    ("if flag:\n    _\nelse:\n    pass", 1),
    ("if n < m: _", 1),
    ("if _ < _: _", 1),
    ("pass", 1),
    ("sub(_)", 1),
    ("TileCfg.alpha = _", 1),
    ("w = _", 1),
    ("w = x[_]", 1),
    ("acc = _\nfor i in _: _", 1),
    ("acc = _\nfor i in _: _\nif _: _", 1),
    ("tmp[_] = _; _", 1),
    ("acc : _\n_\nfor i in _: _", 1),
    ("x[_]", 2),
    ("x[i, j]", 1),
    ("x[_, _]", 1),
    ("y[_]", 4),
    ("y[i]", 2),
    # The bare `y` passed to sub() matches too: indices are compared up to
    # the shorter list.
    ("y[k - 1]", 2),
    ("y[k + 1]", 2),
    ("y[_ + 1]", 2),
    ("2.0", 2),  # literals compare by value: y[2] too
    ("-3.0", 1),
    ("0.0", 5),
    ("8", 1),
    ("_ * 2.0", 1),
    ("_ + _", 3),
    ("tmp[_] + -3.0", 1),
    ("n - 1", 1),
    ("n < m", 1),
    ("relu(_)", 1),
    ("relu(y[i])", 1),
    ("TileCfg.alpha", 1),
    ("acc", 1),
    ("flag", 1),
]

NEGATIVE = [
    "acc = 1.0",
    "acc += 1.0",
    "tmp[j, i] = _",
    "z = _",
    "zz : _",
    "tmp : R[4, _]",
    "for q in _: _",
    "for i in seq(1, n): _",
    "for j in _:\n    acc += _\n    tmp[_] = _",
    "if m: _",
    "if n < m:\n    _\nelse:\n    _",
    "other(_)",
    "OtherCfg.alpha = _",
    "TileCfg.beta = _",
    "w = y[_]",
    "x[j, i]",
    "y[k - 2] + _",
    "4.5",
    "_ - 2.0",
    "_ / _",
    "relu(x[_])",
    "TileCfg.beta",
    "acc = _\nif _: _",
    "pass; pass",
]


@pytest.mark.parametrize("pattern,count", POSITIVE, ids=[p for p, _ in POSITIVE])
def test_pattern_matches(pattern, count):
    assert len(kernel.find(pattern, many=True)) == count


@pytest.mark.parametrize("pattern", NEGATIVE)
def test_pattern_does_not_match(pattern):
    with pytest.raises(SchedulingError) as e:
        kernel.find(pattern)
    first, second = str(e.value).split("\n")[:2]
    assert first == "find: failed to find matches"
    assert second == f"Pattern: {pattern.splitlines()[0]}"


def test_statement_search_is_pre_order():
    assigns = kernel.find("_ = _", many=True)
    names = [a.name() for a in assigns]
    assert names == ["acc", "tmp", "y", "y", "y", "w", "y", "y"]
    loops = [loop.name() for loop in kernel.find("for _ in _: _", many=True)]
    assert loops == ["i", "j", "k"]


def test_expression_search_visits_nodes_before_children_left_to_right():
    reads = kernel.find("y[_]", many=True)
    assert reads[0].idx()[0].name() == "i"
    assert [r.idx()[0].op() for r in reads[1:3]] == ["-", "+"]
    assert len(reads[3].idx()) == 0  # the argument of sub(n, y)
    sums = kernel.find("_ + _", many=True)
    # y[k - 1] + y[k + 1] comes before its operand index k + 1.
    assert sums[1].lhs().name() == "y"
    assert sums[2] == sums[1].rhs().idx()[0]


def test_bounds_and_conditions_come_before_bodies():
    found = kernel.find("n", many=True)
    assert found[0].parent() == kernel.find_loop("i")


def test_holes_in_sequences_take_runs_of_statements():
    block = kernel.find("acc = _; _; y[_] = _")
    assert isinstance(block, BlockCursor)
    assert len(block) == 7  # the hole takes the loop, the ifs, w and the config write
    tail = kernel.find("w = _; _")
    assert len(tail) == 5  # a final hole takes the rest of the body


def test_numbered_matches_select_by_index():
    assert kernel.find("y[_] = _ #2") == kernel.find("y[_] = _", many=True)[2]
    assert kernel.find("for _ in _: _ #1").name() == "j"
    with pytest.raises(SchedulingError):
        kernel.find("for _ in _: _ #3")


def test_unquotes_come_from_the_calling_frame():
    value = 2.0
    text = "y[i]"
    assert kernel.find("_ * {value}") == kernel.find("_ * 2.0")
    assert kernel.find("{text}") == kernel.find("y[i]")
    bound = 8
    assert len(kernel.find("{bound}", many=True)) == 1


def test_stride_patterns():
    assert strided.find("stride(x, 1)").dim() == 1
    assert len(strided.find("stride(x, _)", many=True)) == 2
    # [compat] stride(x, 0) matches every dimension, as in Exo.
    assert len(strided.find("stride(x, 0)", many=True)) == 2
    with pytest.raises(SchedulingError):
        strided.find("stride(y, _)")


def test_names_are_compared_as_strings():
    @proc
    def shadow(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 1.0
        for i in seq(0, n):
            x[i] = 2.0

    assert len(shadow.find("for i in _: _", many=True)) == 2


def test_pattern_errors():
    with pytest.raises(
        PatternMatchError, match="pattern match on 'anything' unsupported"
    ):
        kernel.find("_")
    with pytest.raises(PatternMatchError, match="unsupported"):
        kernel.find("_; _")
    with pytest.raises(ParseError):
        kernel.find("for i in")
    with pytest.raises(ParseError):
        kernel.find("x[0:4]")
    with pytest.raises(TypeError, match="expected a pattern string"):
        kernel.find(42)
