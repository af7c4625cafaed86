"""Equivalence tracking (docs/reference/generated-c.md, "Procedures"): primitives record
their result as equivalent to their input (modulo the config fields whose
final value may differ), `unsafe_assert_eq` records strict equivalence, and
new procedures start new classes. Procedures are held weakly."""

# ruff: noqa: F821

from __future__ import annotations

import gc

import pytest
from exo2 import _core, config, proc
from exo2.stdlib.scheduling import divide_loop, extract_subproc, rename, write_config


@config
class EqCfg:
    f: f32


@proc
def scale(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def scale_again(n: size, x: f32[n]):
    for i in seq(0, n):
        x[i] = 2.0 * x[i]


@proc
def caller(n: size, x: f32[n]):
    scale(n, x)


def test_primitives_record_equivalence_transitively():
    p1 = divide_loop(scale, "i", 4, ["io", "ii"], tail="cut")
    p2 = rename(p1, "scale2")
    assert p1.is_eq(scale) and scale.is_eq(p1)
    assert p2.is_eq(scale)
    assert p2.is_eq(p2)


def test_new_procedures_start_new_classes():
    assert not scale.is_eq(scale_again)
    p, sub = extract_subproc(scale, scale.find_loop("i"), "scale_body")
    assert p.is_eq(scale)
    assert not sub.is_eq(scale) and not sub.is_eq(p)
    # The callee of a call is the callee's own IR, hence its class.
    assert caller.find("scale(_)").subproc().is_eq(scale)


def test_unsafe_assert_eq_records_strict_equivalence():
    @proc
    def a(n: size, x: f32[n]):
        pass

    @proc
    def b(n: size, x: f32[n]):
        pass

    assert not a.is_eq(b)
    assert a.unsafe_assert_eq(b) is a
    assert a.is_eq(b) and b.is_eq(a)
    with pytest.raises(TypeError, match="expected a procedure as argument"):
        a.unsafe_assert_eq(3)


def test_equivalence_modulo_a_config_field_is_not_strict():
    p = write_config(scale, scale.find_loop("i").after(), EqCfg, "f", "1.0")
    # The new value survives to the end: equivalent only modulo EqCfg.f.
    assert not p.is_eq(scale)
    q = rename(p, "scale3")
    assert q.is_eq(p) and not q.is_eq(scale)


def test_tracking_holds_procedures_weakly():
    @proc
    def short_lived(n: size, x: f32[n]):
        for i in seq(0, n):
            x[i] = 0.0

    derived = rename(short_lived, "short_lived2")
    weak = _core.WeakProc(derived.INTERNAL_proc())
    assert weak.alive()
    del derived, short_lived
    gc.collect()
    assert not weak.alive()
