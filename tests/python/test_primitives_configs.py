"""Configuration primitives (docs/primitives-subprocs-configs.md):
bind_config, write_config, delete_config. Printed results, JIT runs before
and after (configs are compiled as globals), refusals with their texts
(ConfigInvisible, argument types), and cursor forwarding."""

# ruff: noqa: F821, E501

from __future__ import annotations

import re

import pytest
from exo2 import SchedulingError, config, proc
from exo2.API_cursors import InvalidCursorError
from exo2.stdlib.scheduling import bind_config, delete_config, write_config
from schedule_check import assert_same_results


@config
class Params:
    scale: f32
    count: index
    on: bool


@proc
def scale(n: size, a: f32, x: f32[n]):
    for i in seq(0, n):
        x[i] = a * x[i]


@proc
def scale_then_read(n: size, a: f32, b: f32, x: f32[n], y: f32[n]):
    for i in seq(0, n):
        x[i] = a * x[i]
    for i in seq(0, n):
        y[i] = Params.scale * y[i]


@proc
def write_then_read(n: size, a: f32, b: f32, x: f32[n]):
    Params.scale = a
    for i in seq(0, n):
        x[i] = Params.scale * x[i]
    Params.scale = b


def refused(f):
    with pytest.raises(SchedulingError) as e:
        f()
    return str(e.value)


# ---- bind_config --------------------------------------------------------------


def test_bind_config_passes_the_value_through_the_field():
    read = scale.find("a * _").lhs()
    stmt = scale.find("x[i] = _")
    p = bind_config(scale, read, Params, "scale")
    assert str(p) == (
        "def scale(n: size, a: f32 @ DRAM, x: f32[n] @ DRAM):\n"
        "    for i in seq(0, n):\n"
        "        Params.scale = a\n"
        "        x[i] = Params.scale * x[i]"
    )
    assert_same_results(scale, p, {"n": 7})
    assert p.forward(stmt) == p.find("x[i] = _")
    assert p.forward(read).parent() == p.find("x[i] = _").rhs()
    assert p.forward(read).parent().lhs() == p.find("x[i] = _").rhs().lhs()
    # The field keeps the new value at the end: equivalent modulo it only.
    assert not p.is_eq(scale)


def test_bind_config_refused_when_the_field_is_read_later():
    message = refused(
        lambda: bind_config(
            scale_then_read, scale_then_read.find("a * _").lhs(), Params, "scale"
        )
    )
    assert re.fullmatch(
        re.escape("bind_config: ")
        + r"Cannot change configuration value of Params_scale at \S+:\d+:\d+; "
        r"the new \(and different\) values might be read later in this procedure",
        message,
    )


def test_bind_config_before_an_overwrite_is_strictly_equivalent():
    @proc
    def overwritten(n: size, a: f32, b: f32, x: f32[n], y: f32[n]):
        for i in seq(0, n):
            x[i] = a * x[i]
        Params.scale = b
        for i in seq(0, n):
            y[i] = Params.scale * y[i]

    p = bind_config(overwritten, overwritten.find("a * _").lhs(), Params, "scale")
    assert p.is_eq(overwritten)
    assert_same_results(overwritten, p, {"n": 4})


@proc
def scale_by(n: size, s: f32, d: f32[n]):
    for i in seq(0, n):
        d[i] = s * d[i]


@proc
def copy_into(s: f32, d: f32):
    s = d


@proc
def scale_by_field(s: f32, d: f32):
    Params.scale = d
    d = s * d


def test_bind_config_of_a_call_argument_the_callee_only_reads():
    @proc
    def calls(n: size, a: f32, x: f32[n]):
        scale_by(n, a, x)

    p = bind_config(calls, calls.find("scale_by(_)").args()[1], Params, "scale")
    assert str(p) == (
        "def calls(n: size, a: f32 @ DRAM, x: f32[n] @ DRAM):\n"
        "    Params.scale = a\n"
        "    scale_by(n, Params.scale, x)"
    )
    assert_same_results(calls, p, {"n": 7})
    assert_same_results(calls, p, {"n": 1})


def test_bind_config_of_a_call_argument_refused_when_the_callee_writes_it():
    @proc
    def calls(a: f32, b: f32):
        copy_into(a, b)

    message = refused(
        lambda: bind_config(
            calls, calls.find("copy_into(_)").args()[0], Params, "scale"
        )
    )
    assert message == (
        "bind_config: cannot bind a call argument to a configuration field: "
        "copy_into writes the parameter it is passed to"
    )


def test_bind_config_of_a_call_argument_refused_when_the_callee_writes_the_field():
    # scale_by_field(Params.scale, b) would read s after writing the field
    # that s now names: b * b instead of a * b.
    @proc
    def calls(a: f32, b: f32):
        scale_by_field(a, b)

    message = refused(
        lambda: bind_config(
            calls, calls.find("scale_by_field(_)").args()[0], Params, "scale"
        )
    )
    assert message == (
        "bind_config: cannot bind a call argument to a configuration field: "
        "scale_by_field writes Params.scale"
    )


def test_bind_config_of_a_call_argument_refused_when_the_callee_reads_the_field():
    # The callee would read the new value where it read the old one.
    @proc
    def reads_field(n: size, s: f32, d: f32[n]):
        for i in seq(0, n):
            d[i] = s * d[i] + Params.scale

    @proc
    def calls(n: size, a: f32, x: f32[n]):
        reads_field(n, a, x)

    message = refused(
        lambda: bind_config(
            calls, calls.find("reads_field(_)").args()[1], Params, "scale"
        )
    )
    assert "the new (and different) values might be read later" in message


def test_bind_config_argument_errors():
    with pytest.raises(TypeError, match="expected a cursor to a single variable Read"):
        bind_config(scale, scale.find("a * _"), Params, "scale")
    with pytest.raises(
        TypeError,
        match=re.escape(
            "cannot bind non-real-scalar non-boolean value x[i] to configuration states, "
            "since index and size expressions may depend on loop iteration"
        ),
    ):
        bind_config(scale, scale.find("a * _").rhs(), Params, "scale")
    with pytest.raises(
        TypeError,
        match=re.escape(
            "expected type of expression to bind (f32) to match type of Config variable (index)"
        ),
    ):
        bind_config(scale, scale.find("a * _").lhs(), Params, "count")
    with pytest.raises(
        ValueError,
        match="argument 3, 'field' to bind_config: expected 'nope' to be a field of config 'Params'",
    ):
        bind_config(scale, scale.find("a * _").lhs(), Params, "nope")
    with pytest.raises(
        TypeError,
        match="argument 3, 'field' to bind_config: expected a valid name string",
    ):
        bind_config(scale, scale.find("a * _").lhs(), Params, 3)
    with pytest.raises(
        TypeError, match="argument 2, 'config' to bind_config: expected a Config object"
    ):
        bind_config(scale, scale.find("a * _").lhs(), "Params", "scale")


# ---- write_config -------------------------------------------------------------


def test_write_config_inserts_an_unobserved_write():
    loop = write_then_read.find_loop("i")
    p = write_config(write_then_read, loop.after(), Params, "count", "4")
    assert str(p) == (
        "def write_then_read(n: size, a: f32 @ DRAM, b: f32 @ DRAM, x: f32[n] @ DRAM):\n"
        "    Params.scale = a\n"
        "    for i in seq(0, n):\n"
        "        x[i] = Params.scale * x[i]\n"
        "    Params.count = 4\n"
        "    Params.scale = b"
    )
    assert_same_results(write_then_read, p, {"n": 5})
    assert p.forward(loop) == p.find_loop("i")
    # A value overwritten before any read leaves the procedure strictly equivalent.
    q = write_config(write_then_read, loop.after(), Params, "scale", "b")
    assert q.is_eq(write_then_read)


def test_write_config_refused_when_the_value_is_read():
    loop = write_then_read.find_loop("i")
    message = refused(
        lambda: write_config(write_then_read, loop.before(), Params, "scale", "b")
    )
    assert "Cannot change configuration value of Params_scale" in message
    # In a loop, the next iteration reads what the end of the body wrote.
    body = write_then_read.find("x[i] = _")
    assert "Params_scale" in refused(
        lambda: write_config(write_then_read, body.after(), Params, "scale", "b")
    )


def test_write_config_argument_errors():
    gap = write_then_read.find_loop("i").after()
    with pytest.raises(
        TypeError, match="expected the rhs to be read, stride expression, or constant"
    ):
        write_config(write_then_read, gap, Params, "count", "n + 1")
    with pytest.raises(
        TypeError, match="cannot write non-real-scalar non-boolean value n"
    ):
        write_config(write_then_read, gap, Params, "count", "n")
    with pytest.raises(
        TypeError,
        match=re.escape(
            "expected type of expression to write (f32) to match type of Config variable (bool)"
        ),
    ):
        write_config(write_then_read, gap, Params, "on", "a")
    with pytest.raises(
        TypeError,
        match="argument 1, 'gap_cursor' to write_config: expected a GapCursor",
    ):
        write_config(
            write_then_read, write_then_read.find_loop("i"), Params, "on", "True"
        )


# ---- delete_config ------------------------------------------------------------


def test_delete_config_deletes_an_overwritten_write():
    last = write_then_read.body()[2]
    p = delete_config(write_then_read, last)
    assert str(p) == (
        "def write_then_read(n: size, a: f32 @ DRAM, b: f32 @ DRAM, x: f32[n] @ DRAM):\n"
        "    Params.scale = a\n"
        "    for i in seq(0, n):\n"
        "        x[i] = Params.scale * x[i]"
    )
    assert_same_results(write_then_read, p, {"n": 5})
    assert p.forward(write_then_read.find_loop("i")) == p.find_loop("i")
    with pytest.raises(InvalidCursorError):
        p.forward(last)
    assert not p.is_eq(write_then_read)


def test_delete_config_refusals():
    first = write_then_read.body()[0]
    assert re.fullmatch(
        re.escape("delete_config: ")
        + r"Cannot change configuration value of Params_scale at \S+:\d+:4; "
        r"the new \(and different\) values might be read later in this procedure",
        refused(lambda: delete_config(write_then_read, first)),
    )
    assert re.fullmatch(
        re.escape("delete_config: ")
        + r"Cannot delete or insert statements at \S+:\d+:8 because they "
        r"may modify non-configuration data",
        refused(
            lambda: delete_config(write_then_read, write_then_read.find("x[i] = _"))
        ),
    )


def test_delete_config_deletes_a_write_of_the_fields_own_value():
    """Found by the differential run against Exo: bind_config of `a` in
    `Params.scale = a` leaves `Params.scale = Params.scale`, which changes
    nothing; delete_config refused it because the field is read later."""

    @proc
    def rebinds(n: size, a: f32, x: f32[n]):
        Params.scale = a
        for i in seq(0, n):
            x[i] = Params.scale * x[i]

    p = bind_config(rebinds, rebinds.find("Params.scale = _").rhs(), Params, "scale")
    assert "    Params.scale = a\n    Params.scale = Params.scale\n" in str(p)
    kept = p.body()[1]
    q = delete_config(p, kept)
    assert str(q) == str(rebinds)
    for sizes in ({"n": 5}, {"n": 1}):
        assert_same_results(rebinds, q, sizes)
        assert_same_results(p, q, sizes)

    # Another value: the loop reads it.
    @proc
    def bumps(n: size, a: f32, x: f32[n]):
        Params.scale = a
        Params.scale = Params.scale + 1.0
        for i in seq(0, n):
            x[i] = Params.scale * x[i]

    assert "Cannot change configuration value of Params_scale" in refused(
        lambda: delete_config(bumps, bumps.find("Params.scale = Params.scale + _"))
    )


def test_delete_config_refuses_declarations():
    # An allocation or window statement modifies nothing, but deleting it
    # left its uses unbound (code generation then failed).
    @proc
    def declares(x: f32[8]):
        t: f32
        t = 1.0
        w = x[0:4]
        w[0] = t

    assert re.fullmatch(
        re.escape("delete_config: ")
        + r"Cannot delete the statement at \S+:\d+:8 with delete_config: it is "
        r"the allocation of t, not a configuration write",
        refused(lambda: delete_config(declares, declares.find("t : _"))),
    )
    assert re.fullmatch(
        re.escape("delete_config: ")
        + r"Cannot delete the statement at \S+:\d+:8 with delete_config: it is "
        r"the window statement w = x\[0:4\], not a configuration write",
        refused(lambda: delete_config(declares, declares.find("w = _"))),
    )
