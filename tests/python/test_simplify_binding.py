"""The analysis entry points of exo2._core: simplify (docs/reference/printing.md) and the
solver query counters."""

# ruff: noqa: F821

from __future__ import annotations

from exo2 import _core, proc
from exo2.API import Procedure


@proc
def tiled(n: size, x: f32[n]):
    for io in seq(0, (n + 7) / 8):
        for ii in seq(0, 8):
            if 8 * io + ii < n:
                x[8 * io + ii] = 2.0 * 3.0


def test_simplify_normalises_folds_and_keeps_guards():
    assert str(Procedure(_core.simplify(tiled._proc))) == (
        "def tiled(n: size, x: f32[n] @ DRAM):\n"
        "    for io in seq(0, (7 + n) / 8):\n"
        "        for ii in seq(0, 8):\n"
        "            if ii + 8 * io < n:\n"
        "                x[ii + 8 * io] = 6.0"
    )


@proc
def always(n: size, x: f32[n]):
    for i in seq(0, n):
        if i < n:
            x[i] = 0.0


def test_simplify_removes_provably_dead_code_only_when_asked():
    kept = str(Procedure(_core.simplify(always._proc)))
    assert "if i < n:" in kept
    removed = str(
        Procedure(_core.simplify(always._proc, remove_provably_dead_code=True))
    )
    assert "if" not in removed


def test_query_counters_count_solver_queries():
    _core.reset_query_counters()
    _core.simplify(always._proc, remove_provably_dead_code=True)
    counters = _core.query_counters()
    assert counters["queries"] >= 1
    assert 0 <= counters["cache_hits"] <= counters["queries"]
